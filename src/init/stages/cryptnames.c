// SPDX-License-Identifier: GPL-2.0-or-later
/* The root's /etc/crypttab and this boot agree on names.
 *
 * The root's systemd-cryptsetup@NAME.service opens each crypttab volume
 * that is not already open under NAME; a volume this boot opened under
 * another name (luks-UUID, from rd.luks.uuid= or a generic image) makes
 * it try again on a busy device and fail. device-mapper renames an open
 * device, so once the root is mounted each LUKS mapping of this boot
 * takes the name the root's crypttab gives its device. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/stack/crypttab.h"
#include "init/stages/stages.h"
#include "log.h"
#include "util.h"

#define ROOT_CRYPTTAB "/sysroot/etc/crypttab"

/* What a LUKS mapping sits on: its one slave in sysfs, when the dm
 * device is cryptsetup's (its dm uuid "CRYPT-LUKS1-…" / "CRYPT-LUKS2-…"). */
static char *luks_slave(const struct sysops *ops, const char *name)
{
	char *p = xasprintf("/sys/class/block/%s/dm/uuid", name), *real = ops->path(p);
	char *uuid = NULL, *slave = NULL;
	DIR *d = NULL;
	struct dirent *de;

	free(p);
	if (read_line(real, &uuid) < 0 || !str_has_prefix(uuid, "CRYPT-LUKS"))
		goto out;
	free(real);
	p = xasprintf("/sys/class/block/%s/slaves", name);
	real = ops->path(p);
	free(p);
	d = opendir(real);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && !slave)
			slave = xstrdup(de->d_name);
out:
	if (d)
		closedir(d);
	free(real);
	free(uuid);
	return slave;
}

static bool name_taken(const struct registry *devs, const char *name)
{
	for (size_t i = 0; i < devs->n; i++)
		if (devs->v[i].dmname && !strcmp(devs->v[i].dmname, name))
			return true;
	return false;
}

/* DM_DEV_RENAME: the old name in the header, the new one in the data. */
static int dm_rename(const struct sysops *ops, const char *from, const char *to)
{
	union {
		struct dm_ioctl io;
		char buf[sizeof(struct dm_ioctl) + DM_NAME_LEN];
	} u;
	int fd, r;

	if (strlen(from) >= DM_NAME_LEN || strlen(to) >= DM_NAME_LEN)
		return err_set_code(-ENAMETOOLONG, "a device-mapper name is at most %d bytes",
				    DM_NAME_LEN - 1);
	memset(&u, 0, sizeof(u));
	u.io.version[0] = DM_VERSION_MAJOR;
	u.io.data_size = sizeof(u);
	u.io.data_start = sizeof(struct dm_ioctl);
	strcpy(u.io.name, from);
	strcpy(u.buf + sizeof(struct dm_ioctl), to);
	fd = ops->open("/dev/mapper/control", O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return err_errno(fd, "cannot open /dev/mapper/control");
	r = ops->ioctl(fd, DM_DEV_RENAME, &u);
	close(fd);
	return r < 0 ? err_errno(r, "cannot rename %s to %s", from, to) : 0;
}

/* /dev/mapper/FROM (cryptsetup's node, or our link) becomes a link
 * TO -> ../dm-N, as udev's 10-dm.rules names it. */
static void relink(const struct sysops *ops, const char *from, const char *to, const char *dm)
{
	char *old = xasprintf("/dev/mapper/%s", from), *new = xasprintf("/dev/mapper/%s", to);
	char *target = xasprintf("../%s", dm);
	int r;

	ops->unlink(old);
	if ((r = ops->symlink(target, new)) < 0 && r != -EEXIST)
		log_warn("cannot link %s to %s: %s", new, target, strerror(-r));
	free(old);
	free(new);
	free(target);
}

static void match_one(struct init *in, const struct blockdev *bd, const struct crypttab *t)
{
	char *slave = luks_slave(in->ops, bd->name);
	const struct blockdev *sd = slave ? registry_get(&in->devs, slave) : NULL;
	char *from;

	free(slave);
	if (!sd)
		return;
	for (size_t i = 0; i < t->n; i++) {
		const struct crypttab_entry *e = &t->v[i];
		if (!blockdev_matches(sd, e->device) && !blockdev_link_matches(in->ops, sd, e->device))
			continue;
		if (!strcmp(e->name, bd->dmname))
			return;
		if (strchr(e->name, '/') || name_taken(&in->devs, e->name)) {
			log_warn("%s is open as %s, and the root's crypttab calls it %s, a name "
				 "that cannot be used: systemd-cryptsetup@%s will fail",
				 sd->devnode, bd->dmname, e->name, e->name);
			return;
		}
		from = xstrdup(bd->dmname);
		if (dm_rename(in->ops, from, e->name) < 0) {
			log_warn("%s; systemd-cryptsetup@%s will fail", err_msg(), e->name);
		} else {
			relink(in->ops, from, e->name, bd->name);
			log_info("renamed /dev/mapper/%s to %s, as the root's /etc/crypttab names %s",
				 from, e->name, sd->devnode);
		}
		free(from);
		return;
	}
}

void cryptnames_match_root(struct init *in)
{
	struct crypttab t = { 0 };
	int r = crypttab_read(in->ops, ROOT_CRYPTTAB, &t);

	if (r < 0) {
		if (r != -ENOENT)
			log_warn("%s", err_msg());
		return;
	}
	/* match_one may rename: each device's name is read before */
	for (size_t i = 0; i < in->devs.n; i++) {
		const struct blockdev *bd = &in->devs.v[i];
		if (bd->dmname && bd->name && str_has_prefix(bd->name, "dm-"))
			match_one(in, bd, &t);
	}
	crypttab_free(&t);
}
