/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_ELF_LDCONF_H
#define UNIRAMFS_ELF_LDCONF_H

#include "util.h"

/* Append to dirs (once each) the absolute directories sysroot's
 * /etc/ld.so.conf and its includes name. sysroot "" is the host; a
 * missing file adds nothing. */
void ldconf_read(const char *sysroot, struct strv *dirs);

#endif
