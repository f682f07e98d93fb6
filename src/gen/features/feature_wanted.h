/* SPDX-License-Identifier: GPL-2.0-or-later */
/* When an image packs a feature that only some command lines need
 * (live-https, overlay-tools): the owner's setting, the baked command
 * line, or, for a hostonly image, the one this machine booted with. */
#ifndef UNIRAMFS_GEN_FEATURE_WANTED_H
#define UNIRAMFS_GEN_FEATURE_WANTED_H

#include <stdbool.h>

/* yes: the setting; else asked(cmdline), and for a hostonly image
 * asked(SYSROOT/proc/cmdline). asked() takes NULL as "no line". */
bool feature_wanted(bool yes, const char *cmdline, const char *sysroot, bool hostonly,
		    bool (*asked)(const char *line));

#endif
