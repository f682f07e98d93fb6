/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_MICROCODE_H
#define UNIRAMFS_MICROCODE_H

#include <stdbool.h>

#include "cpio.h"

/* The microcode config key: auto packs the early segment, none leaves it out. */
enum microcode_mode { MICROCODE_AUTO, MICROCODE_NONE };

/* Write the uncompressed early cpio holding
 * kernel/x86/microcode/{GenuineIntel,AuthenticAMD}.bin from the host's
 * firmware (sysroot/lib/firmware/intel-ucode/, amd-ucode/). hostonly:
 * this CPU's vendor only (sysroot/proc/cpuinfo). *written is false when
 * the host has no microcode (nothing is written then). */
int microcode_write_early(const char *sysroot, bool hostonly, struct sink *out, bool *written);

#endif
