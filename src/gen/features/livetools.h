/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_GEN_LIVETOOLS_H
#define UNIRAMFS_GEN_LIVETOOLS_H

#include <stdbool.h>

#include "gen/image/image.h"

/* rd.live.check's checkisomd5 (isomd5sum) with its libraries. Generic:
 * packed when the host has it (else a debug line: the init then says
 * the image has none). Hostonly: only when cmdline (the baked line, may
 * be NULL) says rd.live.check, and then missing is an error naming the
 * package. */
int live_tools_add(struct image *img, const char *sysroot, bool hostonly, const char *cmdline);

#endif
