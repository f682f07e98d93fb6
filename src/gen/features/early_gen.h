/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_EARLY_GEN_H
#define UNIRAMFS_EARLY_GEN_H

#include <stdbool.h>

#include "gen/hostonly/hostonly.h"
#include "gen/image/image.h"
#include "layout.h"
#include "util.h"

/* What the image needs for the early boot's other duties (issue 6):
 * the filesystem checkers, the hooks, and the resume= a hostonly image
 * bakes into /etc/uniramfs/cmdline. */
struct early_plan {
	bool hostonly;
	struct strv fstypes; /* hostonly: the root's and /usr's types */
	char *resume_dev;    /* hostonly: "MAJ:MIN" of the resume device */
	/* the crash kernel's image (docs/kdump.md): no checker (the root
	 * was mounted when the kernel crashed; its journal is replayed at
	 * the mount, and a check of a large filesystem would not fit the
	 * crash kernel's memory), and noresume: a swap's hibernation image
	 * is never the crash kernel's to resume */
	bool kdump;
};

#define HOOKS_DIR LAYOUT_HOOKS_DIR

/* Remember what hostonly found (call before hostonly_free). */
void early_plan_hostonly(struct early_plan *ep, const struct hostonly *h);
/* fsck tools, hooks (add_hook's STAGE:FILE specs) and
 * /etc/uniramfs/cmdline (cmdline, the line to bake; NULL: none). */
int early_plan_add(struct early_plan *ep, struct image *img, const char *sysroot,
		   const struct strv *hooks, const char *cmdline);
void early_plan_free(struct early_plan *ep);

/* Fail early on a bad --add-hook (unknown stage, missing file). */
int early_check(const struct strv *hooks);

/* Each piece on its own, for tests. */
/* Add the checkers for fstypes (NULL: every one the host has) found in
 * SYSROOT's bin dirs, with the fsck.ext2/3/4 names e2fsck answers to. */
int early_add_fsck(struct image *img, const char *sysroot, const struct strv *fstypes);
/* "STAGE:FILE" -> HOOKS_DIR/STAGE/basename(FILE), mode 0755. An unknown
 * stage or a missing file is an error naming it. */
int early_add_hook(struct image *img, const char *spec);
/* The resume= a hostonly image takes: initramfs-tools'
 * /etc/initramfs-tools/conf.d/resume RESUME= ("none" or "" means none),
 * then dracut's kernel_cmdline resume=, then UUID= of the resume device
 * (MAJ:MIN, probed with libblkid through SYSROOT/dev). NULL for none. */
char *early_resume_spec(const char *sysroot, const char *resume_dev);
/* The UUID=... of a block device MAJ:MIN under sysroot, or NULL (err set). */
char *early_device_uuid(const char *sysroot, const char *majmin);

#endif
