/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_EARLY_H
#define UNIRAMFS_INIT_EARLY_H

#include <stdbool.h>
#include <stddef.h>

#include "init/init.h"
#include "layout.h"

/* The early boot's other duties around the root mount (issue 6):
 * resume from hibernation, fsck, a separate /usr, hooks. */

/* resume.c */
enum swap_sig {
	SWAP_NONE,     /* no swap signature at all */
	SWAP_PLAIN,    /* SWAPSPACE2 / SWAP-SPACE: an ordinary swap area */
	SWAP_KERNEL,   /* S1SUSPEND / S2SUSPEND: the kernel's hibernation image */
	SWAP_USWSUSP,  /* ULSUSPEND: uswsusp's userspace image */
};
/* What the last 10 bytes of a swap header page say. */
enum swap_sig swap_signature(const char tail[10]);
/* A probed device: if it is resume=, resume from it when it holds a
 * kernel image (returns only if that did not happen). */
void resume_block(struct init *in, const struct blockdev *bd);
/* The root is there: wait for resume= too, until deadline_ms (-1: 30 s
 * from now). */
void resume_wait(struct init *in, long long deadline_ms);
/* Is wait_events(until_root) still to wait for the resume device? */
bool resume_pending(const struct init *in);

/* fsck.c */
/* The checker's argv for fstype per fsck.mode=/fsck.repair= (NULL when
 * skipped or fstype needs none): argv[0] the tool's name. */
char **fsck_argv(const struct options *o, const char *fstype, const char *devnode);
/* Check a device before it is mounted. 0: go on (clean, fixed, no
 * checker, skipped); -1 (err set): the failure path. Exit status 2
 * reboots. */
int fsck_device(struct init *in, const struct blockdev *bd, const char *fstype);
/* fsck_device for the root, with the type mount_root will use. */
int fsck_root(struct init *in);

/* usrmount.c */
/* One fstab line: fields unescaped (\040 and the other octal escapes). */
struct fstab_entry {
	char *spec, *file, *type, *opts;
	int passno;
};
/* The entry for mountpoint in fstab text (comments, blank lines, tabs
 * and spaces handled). 0 found, 1 not there. */
int fstab_find(const char *text, const char *mountpoint, struct fstab_entry *e);
void fstab_entry_free(struct fstab_entry *e);
/* After the root: mount the /usr the root's /etc/fstab names (waiting
 * for its device, fsck first). 0 when done or nothing to do, -1 (err
 * set) on failure. */
int mount_usr(struct init *in);
/* Anything besides the root the wait must go on for (resume, /usr)? */
bool early_waiting(const struct init *in);

/* hooks.c */
#define HOOKS_DIR LAYOUT_HOOKS_DIR
/* Every executable in HOOKS_DIR/STAGE, in name order, with the state in
 * their environment. A hook that fails is logged; the boot goes on. */
void run_hooks(struct init *in, const char *stage);

#endif
