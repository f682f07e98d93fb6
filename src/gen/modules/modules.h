/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_MODULES_H
#define UNIRAMFS_MODULES_H

#include <stdbool.h>

#include "gen/image/image.h"
#include "util.h"

/* Kernel module selection through libkmod. */
struct modules;

/* sysroot: the system the image is for ("/" for this one).
 * kmoddir: the host path of its /lib/modules/KVER (sysroot-prefixed, or
 * --kmoddir's, or a --kernel-tree's staging); module files and indexes
 * are resolved inside the sysroot when kmoddir is in it, else inside
 * kmoddir. firmware_dirs: colon-separated directories inside the
 * sysroot. */
int modules_open(struct modules **m, const char *sysroot, const char *kmoddir, const char *kver,
		 const char *firmware_dirs);
void modules_free(struct modules *m);
/* Names or aliases never to include (nor pull in as dependencies).
 * Call before modules_add: modules already chosen stay. */
void modules_omit(struct modules *m, const struct strv *names);
/* Resolve a module name or alias (modalias strings included), with its
 * dependencies and softdeps. Builtin modules are recognised and skipped.
 * required: a name that resolves to nothing is an error naming it;
 * otherwise it is skipped quietly (a modalias with no driver). */
int modules_add(struct modules *m, const char *name, bool required);
/* The generic set: every driver a boot of an unknown machine may need. */
int modules_add_generic(struct modules *m);
/* Missing firmware is reported as one summary line (the generic set
 * names firmware for hardware nobody has), each file only when verbose.
 * By default each file is a warning, as for a hostonly build's devices. */
void modules_summarize_missing_firmware(struct modules *m);
/* The chosen module name (any spelling) and what it needs, dependencies
 * first, as paths below the module directory (kernel/fs/.../x.ko); none
 * when it is builtin or not chosen. */
int modules_closure(const struct modules *m, const char *name, struct strv *relpaths);
/* Is name (any spelling) chosen, or built into the kernel? */
bool modules_available(const struct modules *m, const char *name);
/* Number of modules chosen so far. */
size_t modules_count(const struct modules *m);
/* Add the chosen .ko files (decompressed), their firmware, the index
 * files (modules.dep, .alias, .softdep, .builtin, .order...) and the
 * modprobe.d lines that touch them to img, under /lib/modules/KVER.
 * modprobe_dirs: colon-separated modprobe.d directories inside the
 * sysroot. A firmware name that is absolute or has a ".." component
 * (the kernel's loader refuses it) is a warning and packs nothing. */
int modules_emit(struct modules *m, struct image *img, const char *modprobe_dirs);

#endif
