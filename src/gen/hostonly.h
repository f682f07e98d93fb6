/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_HOSTONLY_H
#define UNIRAMFS_HOSTONLY_H

#include "util.h"

/* What this machine's root needs, found by reading (sysroot-prefixed)
 * /proc/self/mountinfo, /sys, /proc/swaps and /sys/power/resume. */
struct hostonly {
	struct strv modules;    /* driver module names found on the way */
	struct strv modaliases; /* modalias strings of the devices on the way */
	struct strv fstypes;    /* root and /usr filesystem types */
	char *root_dev;         /* "MAJ:MIN" of the root */
	char *resume_dev;       /* "MAJ:MIN" of the resume device, or NULL */
	struct strv stack;      /* dm/md layers met: "dm-crypt", "lvm", "md" */
};

int hostonly_detect(const char *sysroot, struct hostonly *h);
void hostonly_free(struct hostonly *h);

#endif
