/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_PLUGINS_ZFS_ZFSROOT_H
#define UNIRAMFS_PLUGINS_ZFS_ZFSROOT_H

#include <stdbool.h>
#include <stddef.h>

/* ZFS's own limit on a dataset's full name (ZFS_MAX_DATASET_NAME_LEN) */
#define ZFSROOT_NAME_MAX 256

/* What the root program was asked: $1 (the root= after its prefix) and
 * the kernel's command line. */
struct zfsroot_args {
	bool autodetect;                 /* AUTO: the first imported pool's bootfs */
	char dataset[ZFSROOT_NAME_MAX];  /* pool/ds; empty with AUTO */
	char pool[ZFSROOT_NAME_MAX];     /* dataset up to its first '/' */
	bool force;                      /* zpool import -f: rd.zfs.force, zfs_force */
	bool rw;                         /* the kernel's rw (ro by default, as the kernel) */
};

/* A dataset name a pool may give and zfs takes: ZFS's characters
 * (letters, digits, "_-.:"), components split by single '/', none "."
 * or "..", the pool's beginning with a letter; no snapshot ('@') or
 * bookmark ('#'), no blank. */
bool zfsroot_name_ok(const char *name);
/* spec: $1; cmdline: /proc/cmdline's text (may be NULL). 0, or -EINVAL
 * with why (size n) saying what is wrong. */
int zfsroot_parse(const char *spec, const char *cmdline, struct zfsroot_args *a, char *why,
		  size_t n);
/* `zpool list -H -o name,bootfs` output: the first pool's bootfs that
 * is set ("-": not) and a valid name, into out. 0, or -ENOENT. */
int zfsroot_bootfs(const char *list, char *out, size_t size);

#endif
