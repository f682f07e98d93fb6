/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_GEN_COMPANION_H
#define UNIRAMFS_GEN_COMPANION_H

#include <stddef.h>

/* A file uniramfs ships with itself (the init, the shutdown program,
 * the GnuTLS stand-in): in a build tree at one of the n paths beside,
 * relative to the directory of the running uniramfs; installed, NAME in
 * the libexec directory. The first that access(mode) allows, or NULL. */
char *companion_find(const char *const *beside, size_t n, const char *name, int mode);

#endif
