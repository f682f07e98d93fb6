// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hostonly detection: what this machine needs to reach its root, /usr and
 * resume devices. Everything is read through the sysroot prefix so a fake
 * /proc + /sys tree stands in for the host in tests.
 *
 * From the root mount (/proc/self/mountinfo) we go to the block device in
 * /sys/dev/block/MAJ:MIN, follow device-mapper and md layers down through
 * their slaves/, and from each leaf disk walk up the /sys/devices path,
 * collecting the driver modules and modalias strings of every device on
 * the way (disk, controller, bus bridges).
 */
#include "gen/hostonly/hostonly.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/hostonly/hostonly_priv.h"
#include "log.h"

/* dm on dm on md on partition: more than this is a loop, not a stack. */
#define MAX_DEPTH 16

static void push_uniq(struct strv *s, const char *str)
{
	if (!strv_contains(s, str))
		strv_push(s, str);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The one place a layer's kernel modules are decided (build.c packs
 * h->modules; stack_plan_modules adds only what the layer's tools need:
 * cipher templates, keyboards, TPM, NICs).
 *
 * What a device-mapper layer is, from the uuid its creator gave it
 * (cryptsetup: CRYPT-TYPE-..., lvm2: LVM-<vg><lv>[-layer], multipath:
 * mpath-...). The table is not in sysfs, so LVM's targets beyond linear
 * are guessed from the names lvm2 gives its hidden sub-volumes.
 */
static void dm_layer(const struct ctx *c, const char *disk)
{
	static const struct {
		const char *name_part, *module;
	} lvm_subvols[] = {
		{ "_rimage_", "dm_raid" }, { "_rmeta_", "dm_raid" },
		{ "_mimage_", "dm_mirror" },
		{ "_cdata", "dm_cache" }, { "_cmeta", "dm_cache" }, { "_corig", "dm_cache" },
		{ "_tdata", "dm_thin_pool" }, { "_tmeta", "dm_thin_pool" },
	};
	struct hostonly *h = c->h;
	char *uuid = read_attr(disk, "dm/uuid");
	char *name = read_attr(disk, "dm/name");

	push_uniq(&h->modules, "dm_mod");
	if (!uuid)
		goto out;
	if (str_has_prefix(uuid, "CRYPT-VERITY-")) {
		push_uniq(&h->stack, "dm-verity");
		push_uniq(&h->modules, "dm_verity");
	} else if (str_has_prefix(uuid, "CRYPT-INTEGRITY-") ||
		   str_has_prefix(uuid, "CRYPT-SUBDEV-")) {
		push_uniq(&h->stack, "dm-integrity");
		push_uniq(&h->modules, "dm_integrity");
	} else if (str_has_prefix(uuid, "CRYPT-")) {
		push_uniq(&h->stack, "dm-crypt");
		push_uniq(&h->modules, "dm_crypt");
	} else if (str_has_prefix(uuid, "LVM-")) {
		push_uniq(&h->stack, "lvm");
		if (str_has_suffix(uuid, "-tpool") || str_has_suffix(uuid, "-pool"))
			push_uniq(&h->modules, "dm_thin_pool");
		if (str_has_suffix(uuid, "-real") || str_has_suffix(uuid, "-cow"))
			push_uniq(&h->modules, "dm_snapshot");
		for (size_t i = 0; name && i < ARRAY_SIZE(lvm_subvols); i++)
			if (strstr(name, lvm_subvols[i].name_part))
				push_uniq(&h->modules, lvm_subvols[i].module);
	} else if (str_has_prefix(uuid, "mpath-")) {
		push_uniq(&h->stack, "multipath");
		push_uniq(&h->modules, "dm_multipath");
	}
out:
	free(uuid);
	free(name);
}

static void md_layer(const struct ctx *c, const char *disk)
{
	static const char *const plain[] = { "raid0", "raid1", "raid10", "linear", "multipath" };
	struct hostonly *h = c->h;
	char *level = read_attr(disk, "md/level");

	push_uniq(&h->stack, "md");
	push_uniq(&h->modules, "md_mod");
	if (!level)
		return;
	if (!strcmp(level, "raid4") || !strcmp(level, "raid5") || !strcmp(level, "raid6"))
		push_uniq(&h->modules, "raid456");
	for (size_t i = 0; i < ARRAY_SIZE(plain); i++)
		if (!strcmp(level, plain[i]))
			push_uniq(&h->modules, level);
	free(level);
}

static int walk_block(const struct ctx *c, const char *dir, int depth);

/* Byte order, not the locale's: results must not depend on LANG. */
static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int walk_slaves(const struct ctx *c, const char *disk, int depth)
{
	char *dirpath = xasprintf("%s/slaves", disk);
	struct dirent **ents = NULL;
	int n = scandir(dirpath, &ents, NULL, by_name), r = 0;

	for (int i = 0; i < n; i++) {
		if (r == 0 && ents[i]->d_name[0] != '.') {
			char *link = xasprintf("%s/%s", dirpath, ents[i]->d_name), *real = NULL;
			/* slaves/ lists only what exists: absent is odd but harmless */
			r = hostonly_resolve_link(c, link, &real);
			if (r > 0)
				r = 0;
			else if (r == 0)
				r = walk_block(c, real, depth + 1);
			free(real);
			free(link);
		}
		free(ents[i]);
	}
	free(ents);
	free(dirpath);
	return r;
}

/*
 * A multipath-capable NVMe namespace (CONFIG_NVME_MULTIPATH) is a disk of
 * the virtual nvme-subsystem device, not of a controller; the subsystem
 * links to its controllers by name ("nvme0" -> .../nvme/nvme0), and their
 * drivers are the ones we need.
 */
static int walk_nvme_subsystem(const struct ctx *c, const char *disk)
{
	char *top = xasprintf("%s/sys/devices/virtual/nvme-subsystem/", c->root);
	char *subsys = xstrdup(disk), *link, *real;
	struct dirent **ents = NULL;
	int n = 0, r = 0;

	if (!str_has_prefix(disk, top))
		goto out;
	*strrchr(subsys, '/') = '\0';
	n = scandir(subsys, &ents, NULL, by_name);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		if (r == 0 && str_has_prefix(name, "nvme") && name[4] &&
		    strspn(name + 4, "0123456789") == strlen(name + 4)) {
			link = xasprintf("%s/%s", subsys, name);
			real = NULL;
			r = hostonly_resolve_link(c, link, &real);
			if (r > 0)
				r = 0;
			else if (r == 0)
				r = hostonly_walk_up(c, real);
			free(real);
			free(link);
		}
		free(ents[i]);
	}
	free(ents);
out:
	free(subsys);
	free(top);
	return r;
}

static int walk_block(const struct ctx *c, const char *dir, int depth)
{
	char *disk = xstrdup(dir), *part = xasprintf("%s/partition", dir);
	struct stat st;
	int r;

	if (depth > MAX_DEPTH) {
		free(part);
		free(disk);
		return err_set("%s: block devices stacked more than %d deep", dir, MAX_DEPTH);
	}
	/* A partition's layers and slaves belong to the disk above it. */
	if (stat(part, &st) == 0)
		*strrchr(disk, '/') = '\0';
	free(part);

	part = xasprintf("%s/dm", disk);
	if (is_dir(part))
		dm_layer(c, disk);
	free(part);
	part = xasprintf("%s/md", disk);
	if (is_dir(part))
		md_layer(c, disk);
	free(part);

	r = walk_slaves(c, disk, depth);
	if (r == 0)
		r = walk_nvme_subsystem(c, disk);
	if (r == 0)
		r = hostonly_walk_up(c, disk);
	free(disk);
	return r;
}

static int walk_majmin(const struct ctx *c, const char *majmin)
{
	char *link = xasprintf("%s/sys/dev/block/%s", c->root, majmin), *real = NULL;
	int r = hostonly_resolve_link(c, link, &real);

	if (r > 0)
		r = err_set("no block device %s in sysfs: no %s", majmin, link);
	if (r == 0)
		r = walk_block(c, real, 0);
	free(real);
	free(link);
	return r;
}

static bool device_exists(const struct ctx *c, const char *majmin)
{
	char *link = xasprintf("%s/sys/dev/block/%s", c->root, majmin);
	struct stat st;
	bool r = lstat(link, &st) == 0;
	free(link);
	return r;
}

static int detect(struct ctx *c)
{
	struct hostonly *h = c->h;
	struct mount root = { 0 }, usr = { 0 };
	char *usrdev = NULL;
	int r;

	r = hostonly_parse_mountinfo(c, &root, &usr);
	if (r == 0 && hostonly_live_root(c)) {
		struct hostonly_walk w = { 0 };

		r = hostonly_live(c, &root, &w);
		for (size_t i = 0; r == 0 && i < w.majmin.n; i++)
			if ((r = walk_majmin(c, w.majmin.v[i])) < 0)
				err_wrap("the live root's %s", w.what.v[i]);
		strv_free(&w.majmin);
		strv_free(&w.what);
	} else if (r == 0 && hostonly_net_is_nfs(root.fstype)) {
		push_uniq(&h->fstypes, root.fstype);
		r = hostonly_net_nfs(c, &root);
	} else if (r == 0 && !strcmp(root.fstype, "zfs")) {
		struct strv members = { 0 };
		push_uniq(&h->fstypes, root.fstype);
		r = hostonly_zfs_members(c, root.source, &members);
		for (size_t i = 0; r == 0 && i < members.n; i++)
			r = walk_majmin(c, members.v[i]);
		/* the record names one: the first in order, for the same image each time */
		if (r == 0)
			h->root_dev = xstrdup(members.v[0]);
		strv_free(&members);
	} else if (r == 0) {
		r = hostonly_mount_device(c, &root, "the root filesystem", &h->root_dev);
		if (r == 0) {
			push_uniq(&h->fstypes, root.fstype);
			r = walk_majmin(c, h->root_dev);
		}
		if (r == 0)
			r = hostonly_net_block(c, h->root_dev, root.fstype);
	}
	if (r == 0 && usr.majmin) {
		r = hostonly_mount_device(c, &usr, "/usr", &usrdev);
		if (r == 0) {
			push_uniq(&h->fstypes, usr.fstype);
			r = walk_majmin(c, usrdev);
		}
	}
	if (r == 0)
		r = hostonly_find_resume(c, &h->resume_dev);
	if (r == 0 && h->resume_dev && !device_exists(c, h->resume_dev)) {
		/* resume=MAJ:MIN is taken as given by the kernel, device or
		 * not: a stale one must not stop the image being built. */
		log_warn("resume device %s is not in %s/sys/dev/block, ignoring it",
			 h->resume_dev, c->root);
		free(h->resume_dev);
		h->resume_dev = NULL;
	}
	if (r == 0 && h->resume_dev)
		r = walk_majmin(c, h->resume_dev);
	free(usrdev);
	hostonly_mount_free(&root);
	hostonly_mount_free(&usr);
	return r;
}

int hostonly_detect(const char *sysroot, struct hostonly *h)
{
	struct ctx c = { .h = h };
	size_t n;
	int r;

	memset(h, 0, sizeof(*h));
	c.root = realpath(sysroot, NULL);
	if (!c.root)
		return err_errno(errno, "sysroot %s", sysroot);
	n = strlen(c.root);
	if (n == 1)
		c.root[0] = '\0';
	r = detect(&c);
	free(c.root);
	if (r < 0) {
		hostonly_free(h);
		return r;
	}
	strv_sort_uniq(&h->modules);
	strv_sort_uniq(&h->modaliases);
	return 0;
}

void hostonly_free(struct hostonly *h)
{
	strv_free(&h->modules);
	strv_free(&h->modaliases);
	strv_free(&h->fstypes);
	strv_free(&h->stack);
	free(h->root_dev);
	free(h->resume_dev);
	hostonly_net_free(&h->net);
	memset(h, 0, sizeof(*h));
}
