// SPDX-License-Identifier: GPL-2.0-or-later
/* Stage 5: the root filesystem on /sysroot. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "err.h"
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

void root_seen(void *arg, enum dev_change what, const struct blockdev *bd)
{
	struct init *in = arg;

	if (what == DEV_REMOVED) {
		/* a disk pulled and put back, a dm table reloaded: look again */
		if (in->root && !strcmp(in->root, bd->name)) {
			log_warn("root device %s went away; waiting for root=%s again", bd->devnode,
				 in->opt.root);
			free(in->root);
			in->root = NULL;
		}
		return;
	}
	if (in->root || !in->opt.root)
		return;
	if (blockdev_matches(bd, in->opt.root) || blockdev_link_matches(in->ops, bd, in->opt.root)) {
		if (has_holders(in->ops, bd->name)) {
			log_info("%s has root=%s but is held by another device (a member of it): "
				 "not the root", bd->devnode, in->opt.root);
			return;
		}
		in->root = xstrdup(bd->name);
		log_info("root=%s is %s", in->opt.root, bd->devnode);
	}
}

int mount_root(struct init *in)
{
	const struct blockdev *bd = root_dev(in);
	struct strv types = { 0 };
	unsigned long flags;
	char *data;
	int ret, e = 0;

	if (in->opt.rootfstype)
		strv_split(&types, in->opt.rootfstype, ",");
	else if (bd->type)
		strv_push(&types, bd->type);
	if (!types.n)
		return err_set("cannot mount %s: no filesystem found on it "
			       "(blkid saw no signature; set rootfstype= if it is right)",
			       bd->devnode);

	mountopts_parse(in->opt.rootflags, &flags, &data);
	if (!in->opt.rw)
		flags |= MS_RDONLY;
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
