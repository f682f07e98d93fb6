/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_HOSTONLY_H
#define UNIRAMFS_HOSTONLY_H

#include "util.h"

/* A network root (issue 11): the server, the interface the route to it
 * leaves by, and the words the init's command line needs to find it
 * again (dracut's spellings, as src/init/net/netroot.c and ipconf.c
 * read them). */
struct hostonly_net {
	char *kind;          /* "nfs", "iscsi", "nbd" or "nvmf"; NULL: the root is local */
	char *server;        /* its address; NULL: not known (an nbd client gone) */
	char *iface;         /* NULL: no route or no NIC behind it */
	struct strv cmdline; /* netroot=..., rd.iscsi.initiator=..., rd.nvmf.*=..., ifname=..., ip=... */
};

/* What this machine's root needs, found by reading (sysroot-prefixed)
 * /proc/self/mountinfo, /sys, /proc/swaps and /sys/power/resume. */
struct hostonly {
	struct strv modules;    /* module names (sysfs spelling, "_"), sorted */
	struct strv modaliases; /* modalias strings of the devices on the way, sorted */
	struct strv fstypes;    /* root and /usr filesystem types, as mountinfo names them */
	char *root_dev;         /* "MAJ:MIN" of the root (the real device for btrfs' 0:N) */
	char *resume_dev;       /* "MAJ:MIN" of the resume device, or NULL */
	/* dm/md layers met, top down: "lvm", "dm-crypt", "dm-integrity",
	 * "dm-verity", "multipath", "md" */
	struct strv stack;
	struct hostonly_net net;
};

int hostonly_detect(const char *sysroot, struct hostonly *h);
/* Add the drivers of every network interface that has a device (not
 * lo, a bridge, a VLAN) to h: SSH must come up on any of them. */
int hostonly_nics(const char *sysroot, struct hostonly *h);
void hostonly_free(struct hostonly *h);

#endif
