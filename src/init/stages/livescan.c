// SPDX-License-Identifier: GPL-2.0-or-later
/* boot=live without live-media=: the medium is whichever block device
 * holds live/filesystem.squashfs (rd.live.dir/rd.live.squashimg), as
 * Debian's live-boot finds a CD, a USB stick or a disk it was not told
 * of. Each device with a filesystem a medium can have is mounted
 * read-only for a look and unmounted again; the first that has the file
 * becomes root= (livemount.c then mounts it for good). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/modload.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"

#define LOOK "/run/initramfs/live"

/* What a live medium is formatted with: a CD or DVD, a stick made by
 * hand or by a tool, a disk. */
static const char *const medium_types[] = {
	"iso9660", "udf", "vfat", "exfat", "ext4", "ext3", "ext2", "btrfs", "xfs", "ntfs3",
};

static bool medium_type(const char *type)
{
	for (size_t i = 0; type && i < ARRAY_SIZE(medium_types); i++)
		if (!strcmp(type, medium_types[i]))
			return true;
	return false;
}

/* A device is looked at again when its filesystem changed (a CD put in). */
static char *key_of(const struct blockdev *bd)
{
	return xasprintf("%s:%s", bd->name, bd->type ? bd->type : "");
}

static bool looked_at(const struct livescan *st, const char *key)
{
	for (size_t i = 0; i < st->looked.n; i++)
		if (!strcmp(st->looked.v[i], key))
			return true;
	return false;
}

static bool candidate(const struct livescan *st, const struct blockdev *bd)
{
	bool r;
	char *key;

	if (bd->claim != DEV_FREE || !medium_type(bd->type))
		return false;
	key = key_of(bd);
	r = !looked_at(st, key);
	free(key);
	return r;
}

bool livescan_ready(const struct init *in, const void *arg)
{
	const struct livescan *st = arg;

	for (size_t i = 0; i < in->devs.n; i++)
		if (candidate(st, &in->devs.v[i]))
			return true;
	return false;
}

/* 1 the device has the file, 0 not (or it would not mount: said). */
static int look(struct init *in, const struct blockdev *bd, const char *file)
{
	char *path = xasprintf(LOOK "/%s", file);
	bool found;
	int r;

	modload_fs(in->ml, bd->type);
	r = in->ops->mount(bd->devnode, LOOK, bd->type, MS_RDONLY | MS_NODEV | MS_NOSUID | MS_NOEXEC,
			   NULL);
	if (r < 0) {
		log_info("boot=live: %s (%s) does not mount: %s", bd->devnode, bd->type, strerror(-r));
		free(path);
		return 0;
	}
	found = in->ops->access(path, F_OK) == 0;
	if ((r = in->ops->umount(LOOK, 0)) < 0)
		log_warn("boot=live: cannot unmount %s from " LOOK ": %s", bd->devnode, strerror(-r));
	free(path);
	return found;
}

int livescan_step(struct init *in, struct livescan *st)
{
	char *file = xasprintf("%s/%s", in->opt.live_dir, in->opt.live_squashimg);
	int r;

	for (const char *d = "/run/initramfs"; d; d = strcmp(d, LOOK) ? LOOK : NULL)
		if ((r = in->ops->mkdir(d, 0755)) < 0 && r != -EEXIST) {
			free(file);
			return err_errno(r, "boot=live: cannot create %s", d);
		}
	for (size_t i = 0; i < in->devs.n; i++) {
		const struct blockdev *bd = &in->devs.v[i];

		if (!candidate(st, bd))
			continue;
		strv_push_owned(&st->looked, key_of(bd));
		strv_push_owned(&st->seen, xasprintf("%s (%s)", bd->devnode, bd->type));
		if (!look(in, bd, file))
			continue;
		log_info("boot=live: %s (%s) has %s: the live medium", bd->devnode, bd->type, file);
		free(in->opt.root);
		in->opt.root = xstrdup(bd->devnode);
		root_seen(in, DEV_ADDED, bd);
		free(file);
		return 1;
	}
	free(file);
	return 0;
}

void livescan_report(struct init *in, const struct livescan *st)
{
	struct buf b = { 0 };

	for (size_t i = 0; i < st->seen.n; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", st->seen.v[i]);
	log_err("boot=live: no block device has %s/%s after %ld seconds (looked on: %s)",
		in->opt.live_dir, in->opt.live_squashimg, in->opt.timeout,
		st->seen.n ? b.p : "no device with a filesystem a medium has");
	buf_free(&b);
}

void livescan_free(struct livescan *st)
{
	strv_free(&st->looked);
	strv_free(&st->seen);
}
