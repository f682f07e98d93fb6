// SPDX-License-Identifier: GPL-2.0-or-later
/* Stage 5: the root filesystem on /sysroot. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "err.h"
#include "init/dev/btrfsdev.h"
#include "init/init.h"
#include "init/stages/mountopts.h"
#include "init/stages/stages.h"
#include "log.h"

/* A device something is built on (a multipath map, an md array, a dm
 * target) is that thing's member, not a filesystem to mount: its
 * filesystem's UUID is the holder's too. udev says SYSTEMD_READY=0. */
static bool has_holders(const struct sysops *ops, const char *name)
{
	char *p = xasprintf("/sys/class/block/%s/holders", name), *real = ops->path(p);
	DIR *d = opendir(real);
	struct dirent *de;
	bool any = false;

	free(p);
	free(real);
	while (d && !any && (de = readdir(d)))
		any = de->d_name[0] != '.';
	if (d)
		closedir(d);
	return any;
}

static bool is_btrfs(const struct blockdev *bd)
{
	return bd->type && !strcmp(bd->type, "btrfs");
}

static bool same_btrfs(const struct blockdev *a, const struct blockdev *b)
{
	return is_btrfs(a) && is_btrfs(b) && a->uuid && b->uuid && !strcmp(a->uuid, b->uuid);
}

/* Register a btrfs member of the root with the kernel (first: the
 * members that came before it, when it is the first one root= names):
 * false while its filesystem still misses devices. A kernel that cannot
 * tell (no btrfs-control) gets the device as it is: the mount says the
 * rest. */
static bool btrfs_complete(struct init *in, const struct blockdev *bd, bool first)
{
	int r;

	modload_fs(in->ml, "btrfs"); /* /dev/btrfs-control is the module's */
	for (size_t i = 0; first && i < in->devs.n; i++)
		if (strcmp(in->devs.v[i].name, bd->name) && same_btrfs(&in->devs.v[i], bd) &&
		    btrfs_dev_ready(in->ops, in->devs.v[i].devnode) < 0)
			log_warn("%s", err_msg());
	if ((r = btrfs_dev_ready(in->ops, bd->devnode)) >= 0)
		return r == 1;
	log_msg(r == -ENOENT ? LOG_DEBUG : LOG_WARNING, "%s; mounting %s as it is", err_msg(),
		bd->devnode);
	return true;
}

/* The root's btrfs device while its filesystem misses members, or NULL. */
static const struct blockdev *btrfs_waiting(const struct init *in)
{
	return in->btrfs_wait[0] ? registry_get(&in->devs, in->btrfs_wait) : NULL;
}

void root_seen(void *arg, enum dev_change what, const struct blockdev *bd)
{
	struct init *in = arg;
	const struct blockdev *waiting, *named;
	bool match, member;

	if (what == DEV_REMOVED) {
		/* a disk pulled and put back, a dm table reloaded: look again */
		if (in->root && !strcmp(in->root, bd->name)) {
			log_warn("root device %s went away; waiting for root=%s again", bd->devnode,
				 in->opt.root);
			free(in->root);
			in->root = NULL;
		}
		if (!strcmp(in->btrfs_wait, bd->name))
			in->btrfs_wait[0] = '\0';
		return;
	}
	if (in->root || !in->opt.root)
		return;
	match = blockdev_link_matches(in->ops, bd, in->opt.root);
	if (!match && (named = registry_named(&in->devs, bd, in->opt.root))) {
		bd = named; /* PARTNROFF= names a neighbour */
		match = true;
	}
	waiting = btrfs_waiting(in);
	/* root=/dev/vda names one member: the others share its UUID */
	member = !match && waiting && same_btrfs(bd, waiting);
	if (!match && !member)
		return;
	if (match && verity_member(&in->stack, in->ops, bd)) {
		log_info("%s has root=%s but is the dm-verity root's own device: not the root, "
			 "which is " VERITY_ROOT_DEV, bd->devnode, in->opt.root);
		return;
	}
	if (match && has_holders(in->ops, bd->name)) {
		log_info("%s has root=%s but is held by another device (a member of it): "
			 "not the root", bd->devnode, in->opt.root);
		return;
	}
	if (is_btrfs(bd) && !btrfs_complete(in, bd, !waiting)) {
		if (!waiting) {
			snprintf(in->btrfs_wait, sizeof(in->btrfs_wait), "%s", bd->name);
			log_info("root=%s is %s, btrfs UUID=%s: waiting for its other devices",
				 in->opt.root, bd->devnode, bd->uuid ? bd->uuid : "?");
		}
		return;
	}
	if (waiting)
		bd = waiting;
	in->root = xstrdup(bd->name);
	in->btrfs_wait[0] = '\0';
	log_info("root=%s is %s", in->opt.root, bd->devnode);
}

static bool has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);

	for (const char *p = flags; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (!strncmp(p, flag, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

bool root_timed_out(struct init *in)
{
	const struct blockdev *bd = btrfs_waiting(in);
	long long want;
	size_t have = 0;
	char wants[24];

	if (!bd)
		return false;
	for (size_t i = 0; i < in->devs.n; i++)
		have += same_btrfs(&in->devs.v[i], bd);
	if ((want = btrfs_dev_count(in->ops, bd->devnode)) > 0)
		snprintf(wants, sizeof(wants), "%lld", want);
	else
		snprintf(wants, sizeof(wants), "its");
	if (has_flag(in->opt.rootflags, "degraded")) {
		log_warn("root=%s: btrfs UUID=%s has %zu of %s devices: mounting it degraded "
			 "(rootflags=degraded)", in->opt.root, bd->uuid, have, wants);
		in->root = xstrdup(bd->name);
		in->btrfs_wait[0] = '\0';
		return true;
	}
	log_err("root=%s: btrfs UUID=%s has %zu of %s devices (rootflags=degraded mounts it "
		"with those)", in->opt.root, bd->uuid, have, wants);
	return false;
}

int mount_root(struct init *in)
{
	const struct blockdev *bd = root_dev(in);
	struct strv types = { 0 };
	unsigned long flags;
	char *data;
	int ret, e = 0;

	if (in->opt.live)
		return mount_live(in);
	if (in->opt.rootfstype)
		strv_split(&types, in->opt.rootfstype, ",");
	else if (bd->type)
		strv_push(&types, bd->type);
	if (!types.n)
		return err_set("cannot mount %s: no filesystem found on it "
			       "(blkid saw no signature; set rootfstype= if it is right)",
			       bd->devnode);

	mountopts_parse(in->opt.rootflags, &flags, &data);
	/* The ro/rw word comes after rootflags=, as dracut and systemd's
	 * fstab-generator append it: rootflags=...,ro rw mounts rw. */
	if (in->opt.rw)
		flags &= ~MS_RDONLY;
	else
		flags |= MS_RDONLY;
	if (!(flags & MS_RDONLY) && blockdev_read_only(in->ops, bd->name)) {
		log_warn("%s is a read-only device: mounting the root read-only, not rw",
			 bd->devnode);
		flags |= MS_RDONLY;
	}
	if ((e = in->ops->mkdir("/sysroot", 0755)) < 0 && e != -EEXIST) {
		ret = err_errno(e, "cannot create /sysroot");
		goto out;
	}
	for (size_t i = 0; i < types.n; i++) {
		modload_fs(in->ml, types.v[i]);
		log_debug("mounting %s (TYPE %s) on /sysroot, flags 0x%lx, options %s",
			  bd->devnode, types.v[i], flags, data ? data : "");
		e = in->ops->mount(bd->devnode, "/sysroot", types.v[i], flags, data);
		if (e == 0) {
			log_info("mounted %s (%s, %s) on /sysroot", bd->devnode, types.v[i],
				 flags & MS_RDONLY ? "ro" : "rw");
			in->fs_mounted = true;
			ret = 0;
			goto out;
		}
	}
	ret = err_errno(e, "cannot mount %s (TYPE %s) on /sysroot", bd->devnode,
		  in->opt.rootfstype ? in->opt.rootfstype : types.v[0]);
out:
	free(data);
	strv_free(&types);
	return ret;
}
