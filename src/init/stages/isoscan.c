// SPDX-License-Identifier: GPL-2.0-or-later
/* iso-scan/filename=FILE (dracut's iso-scan, TEST-30 "iso"): the live
 * medium is an ISO file on some filesystem (a USB stick holding several
 * ISOs, a hard disk). Each device with a filesystem that appears is
 * mounted read-only at /run/initramfs/isoscan, in turn, until one holds
 * FILE; a loop device then carries the ISO, and root=live: names that
 * (by its label: root=live:CDLABEL=… as the ISO's own boot menu says).
 * The device stays mounted under the loop; the rest of the boot is
 * livemount.c's. What each device had instead is kept for the failure
 * report. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/modload.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"

#define SCAN_DIR "/run/initramfs/isoscan"

/* The filesystems an ISO file is kept on; a LUKS, RAID or LVM member or
 * swap is never mounted to look. */
static const char *const scanned[] = { "ext4", "ext3", "ext2", "xfs",  "btrfs", "vfat",
				       "exfat", "ntfs", "f2fs", "iso9660", "udf" };

bool isoscan_name_valid(const char *name)
{
	const char *p = name;

	if (!name || !*name)
		return false;
	while (*p == '/')
		p++;
	if (!*p)
		return false;
	/* a name below the mounted device, never above it */
	if (path_has_dotdot(p))
		return false;
	for (; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

static bool scanned_type(const char *type)
{
	for (size_t i = 0; type && i < ARRAY_SIZE(scanned); i++)
		if (!strcmp(type, scanned[i]))
			return true;
	return false;
}

static void tried(struct init *in, const struct blockdev *bd, const char *fmt, const char *what)
{
	char *why = xasprintf(fmt, what);

	strv_push_owned(&in->isoscan.tried, xasprintf("%s (%s): %s", bd->devnode, bd->type, why));
	log_info("iso-scan/filename=%s: %s (%s): %s", in->opt.iso_scan, bd->devnode, bd->type, why);
	free(why);
}

/* FILE on the mounted device: checked (a regular file, as long as its
 * header says), then on a loop device kept open. 1 when attached, 0
 * when this device does not have it (said in tried), < 0 never. */
static int attach_iso(struct init *in, const struct blockdev *bd)
{
	const char *name = in->opt.iso_scan + strspn(in->opt.iso_scan, "/");
	char *path = xasprintf(SCAN_DIR "/%s", name);
	char dev[32];
	const char *type;
	struct stat st;
	int fd, loopfd, r = 0;

	fd = in->ops->open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
	if (fd < 0) {
		tried(in, bd, fd == -ENOENT ? "no %s on it" : "%s cannot be opened", name);
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		tried(in, bd, "%s is not a regular file", name);
		goto out;
	}
	/* the medium is the ISO: whole, and an ISO at all */
	if (live_check_size(fd, (unsigned long long)st.st_size, name, &type) < 0 ||
	    strcmp(type, "iso9660")) {
		if (type && strcmp(type, "iso9660"))
			err_set("%s is a %s image, not an ISO", name, type);
		tried(in, bd, "%s", err_msg());
		goto out;
	}
	loop_module(in);
	loopfd = loop_attach(in->ops, fd, path, dev, sizeof(dev));
	if (loopfd < 0) {
		tried(in, bd, "%s", err_msg());
		goto out;
	}
	in->isoscan.loopfd = loopfd;
	snprintf(in->isoscan.found, sizeof(in->isoscan.found), "%s", bd->devnode);
	log_info("iso-scan/filename=%s: found on %s (%s), on %s", in->opt.iso_scan, bd->devnode,
		 bd->type, dev);
	r = 1;
out:
	if (fd >= 0)
		close(fd);
	free(path);
	return r;
}

static enum job_result scan_job(void *ctx, void *data)
{
	struct init *in = ctx;
	const struct blockdev *bd = registry_get(&in->devs, data);
	const char *type;
	int r;

	if (!bd || !bd->type || in->isoscan.found[0] || in->root)
		return JOB_DONE;
	type = strcmp(bd->type, "ntfs") ? bd->type : "ntfs3";
	if (((r = in->ops->mkdir("/run/initramfs", 0755)) < 0 && r != -EEXIST) ||
	    ((r = in->ops->mkdir(SCAN_DIR, 0755)) < 0 && r != -EEXIST)) {
		log_err("iso-scan/filename=%s: cannot create " SCAN_DIR ": %s", in->opt.iso_scan,
			strerror(-r));
		return JOB_DONE;
	}
	modload_fs(in->ml, type);
	r = in->ops->mount(bd->devnode, SCAN_DIR, type, MS_RDONLY | MS_NOSUID | MS_NODEV, NULL);
	if (r < 0) {
		tried(in, bd, "cannot be mounted: %s", strerror(-r));
		return JOB_DONE;
	}
	if (attach_iso(in, bd) <= 0)
		in->ops->umount(SCAN_DIR, 0);
	return JOB_DONE;
}

void isoscan_seen(void *arg, enum dev_change what, const struct blockdev *bd)
{
	struct init *in = arg;
	struct job j = { .what = "iso-scan", .run = scan_job, .ctx = in };

	if (what == DEV_REMOVED || !in->opt.iso_scan || in->isoscan.found[0] ||
	    !scanned_type(bd->type))
		return;
	j.data = xstrdup(bd->name);
	jobq_push(&in->jobs, &j);
}

bool isoscan_wanted(struct init *in)
{
	if (!in->opt.iso_scan)
		return false;
	if (!isoscan_name_valid(in->opt.iso_scan)) {
		log_err("ignoring iso-scan/filename=%s: not a file name below a device's root "
			"(no \"..\", no control characters)", in->opt.iso_scan);
		free(in->opt.iso_scan);
		in->opt.iso_scan = NULL;
		return false;
	}
	return true;
}

void isoscan_report(struct init *in)
{
	if (!in->opt.iso_scan || in->isoscan.found[0])
		return;
	if (!in->isoscan.tried.n) {
		log_err("iso-scan/filename=%s: no device with a filesystem to look on",
			in->opt.iso_scan);
		return;
	}
	log_err("iso-scan/filename=%s was looked for on:", in->opt.iso_scan);
	for (size_t i = 0; i < in->isoscan.tried.n; i++)
		log_err("  %s", in->isoscan.tried.v[i]);
}

void isoscan_done(struct init *in)
{
	if (in->isoscan.found[0] && in->isoscan.loopfd >= 0)
		close(in->isoscan.loopfd);
	in->isoscan.loopfd = -1;
	strv_free(&in->isoscan.tried);
}
