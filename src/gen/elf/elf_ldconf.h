/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_ELF_LDCONF_H
#define UNIRAMFS_ELF_LDCONF_H

#include <stdbool.h>

#include "util.h"

/* Append to dirs (once each) the absolute directories sysroot's
 * /etc/ld.so.conf and its includes name. sysroot "" is the host; a
 * missing file adds nothing. */
void ldconf_read(const char *sysroot, struct strv *dirs);

/* Whether interp (a program's PT_INTERP) is musl's loader,
 * .../ld-musl-ARCH.so.1, which searches by musl's rules, not glibc's. */
bool musl_loader(const char *interp);

/* musl's library path for the loader interp, as its ldso/dynlink.c
 * finds it: PREFIX/etc/ld-musl-ARCH.path, PREFIX being what precedes
 * the loader's directory ("" for /lib/ld-musl-x86_64.so.1, "/usr" for
 * /usr/lib/...), its entries split at ':' and newlines; without that
 * file, musl's built-in /lib:/usr/local/lib:/usr/lib. Appends the
 * absolute entries to dirs; *file is the file's path inside the
 * sysroot when there is one (the image needs it: the loader reads it at
 * boot), else NULL. -errno + err_* when it is there but unreadable
 * (not a regular file, a link out of reach): musl would search nothing. */
int musl_path_read(const char *sysroot, const char *interp, struct strv *dirs, char **file);

#endif
