/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by hostonly.c (the sysfs walk), hostonly_mount.c (mounts,
 * swaps and device names), hostonly_net.c and hostonly_route.c (network
 * roots). The context and hostonly_base.c's helpers are the base they
 * all stand on. Not an API. */
#ifndef UNIRAMFS_HOSTONLY_PRIV_H
#define UNIRAMFS_HOSTONLY_PRIV_H

#include "gen/hostonly/hostonly.h"

#include <stdbool.h>

struct ctx {
	char *root; /* real path of the sysroot, no trailing '/' ("" for "/") */
	struct hostonly *h;
};

struct mount {
	char *majmin;
	char *fstype;
	char *source;
	char *opts; /* the superblock's options (nfs: vers=, addr=) */
};

static inline char *at_root(const struct ctx *c, const char *path)
{
	return xasprintf("%s%s", c->root, path);
}

/* hostonly_base.c. The real path of a sysfs link, which must stay inside the sysroot.
 * Returns 0, or 1 when there is no such file (callers decide whether that
 * matters), or -errno (err_* set): a link pointing nowhere is an error. */
int hostonly_resolve_link(const struct ctx *c, const char *path, char **out);

/* Collect the drivers and modaliases from a /sys/devices directory up. */
int hostonly_walk_up(const struct ctx *c, const char *dir);

/* A module for a network root, once. */
void hostonly_net_push_module(const struct ctx *c, const char *name);
/* key=val onto the baked command line; what names it in an error. */
int hostonly_net_push_word(const struct ctx *c, const char *key, const char *val, const char *what);
bool hostonly_net_is_addr(const char *s, int *family);
/* text with control characters as \ooo, for a message (malloc'd). */
char *hostonly_printable(const char *text);

/* Network roots (hostonly_net.c): an nfs/nfs4 root mount; a root
 * device (MAJ:MIN) under an iSCSI session or on /dev/nbdN. Each fills
 * c->h->net and adds the modules; the block one does nothing for a
 * local disk. */
bool hostonly_net_is_nfs(const char *fstype);
int hostonly_net_nfs(const struct ctx *c, const struct mount *root);
int hostonly_net_block(const struct ctx *c, const char *majmin, const char *fstype);
void hostonly_net_free(struct hostonly_net *n);

/* hostonly_zfs.c: a root on ZFS (source "pool/dataset"): the MAJ:MIN of
 * each device that blkid sees as a zfs_member of that pool, in name
 * order; an error when there is none. */
int hostonly_zfs_members(const struct ctx *c, const char *source, struct strv *majmins);

/* hostonly_route.c: the drivers of every network interface that has a
 * device (not lo, a bridge, a VLAN); why names the need in messages. */
int hostonly_walk_nics(const struct ctx *c, const char *why);

/* hostonly_live.c: is / a live image (the host's /proc/cmdline says
 * root=live:, rd.live.image or boot=live)? And what the image needs to
 * reach it again: the medium's filesystem, loop, squashfs, overlay and
 * the NICs for a network image in c->h, the disks whose drivers it
 * needs (the medium's, an iso-scan or rd.overlay= disk) in walk, each
 * with what it is, for hostonly.c's sysfs walk. root: the / mount. */
struct hostonly_walk {
	struct strv majmin, what;
};
bool hostonly_live_root(const struct ctx *c);
int hostonly_live(const struct ctx *c, const struct mount *root, struct hostonly_walk *walk);

/* Each mount of SYSROOT/proc/self/mountinfo in order, its mount point
 * unescaped: fn's nonzero return stops the walk and is returned. */
typedef int (*hostonly_mount_fn)(const struct ctx *c, const char *target, const struct mount *m,
				 void *arg);
int hostonly_each_mount(const struct ctx *c, hostonly_mount_fn fn, void *arg);
/* The root and /usr mounts (usr->majmin NULL when /usr is not one). */
int hostonly_parse_mountinfo(const struct ctx *c, struct mount *root, struct mount *usr);
void hostonly_mount_free(struct mount *m);
/* /dev/NAME, /dev/mapper/NAME or a udev link in the sysroot's /dev as
 * "MAJ:MIN", by sysfs: 0, or -1 with err set. */
int hostonly_devnode_majmin(const struct ctx *c, const char *devnode, char **majmin);
/* A mount's block device as "MAJ:MIN"; what names it in errors. */
int hostonly_mount_device(const struct ctx *c, const struct mount *m, const char *what, char **majmin);
/* The resume device as "MAJ:MIN", or *majmin NULL when there is none. */
int hostonly_find_resume(const struct ctx *c, char **majmin);

#endif
