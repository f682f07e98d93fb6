// SPDX-License-Identifier: GPL-2.0-or-later
/* root=live:SPEC (dracut's dmsquash-live, TEST-30): SPEC is a live
 * medium, not the root. A squashfs or erofs device is the root image
 * itself; any other filesystem is mounted at /run/initramfs/live and
 * holds the image as rd.live.dir/rd.live.squashimg (LiveOS/squashfs.img)
 * or LiveOS/rootfs.img, through a loop device; a squashfs.img holding
 * LiveOS/rootfs.img or LiveOS/ext3fs.img (Fedora's older, nested layout)
 * has that one mounted in turn. The image is read-only: the overlay stage puts a tmpfs (or
 * rd.overlay's device) above it. */
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

#define MEDIUM "/run/initramfs/live"
#define SQUASH "/run/initramfs/squashfs"

static const char *const image_types[] = { "squashfs", "erofs", "ext4" };

static bool is_image_fs(const char *type)
{
	return type && (!strcmp(type, "squashfs") || !strcmp(type, "erofs"));
}

/* How the command line named the medium, for the failure report. */
static const char *live_spec(const struct init *in)
{
	return in->opt.debian_live ? "boot=live live-media=" : "root=live:";
}

static int make_dir(struct init *in, const char *path)
{
	int r = in->ops->mkdir(path, 0755);

	return r < 0 && r != -EEXIST ? err_errno(r, "root=live: cannot create %s", path) : 0;
}

/* The image file at path, through a loop device, on target: the first
 * type of image_types that mounts. */
static int mount_file(struct init *in, const char *path, const char *target)
{
	int file = in->ops->open(path, O_RDONLY | O_CLOEXEC, 0), loopfd, r = -EINVAL;
	char dev[32], found[64];
	struct stat st;
	const char *type;

	if (file < 0)
		return err_errno(file, "cannot open %s", path);
	if (fstat(file, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(file);
		return err_set("%s is not a regular file", path);
	}
	/* a squashfs cut short: refused before the kernel reads past its end */
	if ((r = live_check_size(file, (unsigned long long)st.st_size, path, &type)) < 0 &&
	    type) {
		close(file);
		return r;
	}
	live_first_bytes(file, found, sizeof(found));
	loop_module(in);
	loopfd = loop_attach(in->ops, file, path, dev, sizeof(dev));
	close(file);
	if (loopfd < 0)
		return loopfd;
	/* the medium's own image: no root, key or array is on it */
	registry_ignore(&in->devs, dev + strlen("/dev/"));
	for (size_t i = 0; i < ARRAY_SIZE(image_types); i++) {
		modload_fs(in->ml, image_types[i]);
		r = in->ops->mount(dev, target, image_types[i], MS_RDONLY, NULL);
		if (r == 0) {
			log_info("root=live: mounted %s (%s, %s) on %s", path, image_types[i], dev,
				 target);
			break;
		}
	}
	close(loopfd);
	if (r < 0)
		return err_errno(r, "cannot mount %s on %s: not a squashfs, erofs or "
				 "ext4 image (it is %llu bytes and starts %s)", path, target,
				 (unsigned long long)st.st_size, found);
	return 0;
}

/* Inside a squashfs.img, as dracut's dmsquash-live-root decides: a
 * LiveOS/ directory is Fedora's older nested layout (Fedora up to 35,
 * CentOS 8 and 9), whose LiveOS/rootfs.img (or, older still,
 * LiveOS/ext3fs.img) is the root; otherwise the squashfs is the root
 * itself, if it looks like one. */
static const char *const nested_images[] = { "LiveOS/rootfs.img", "LiveOS/ext3fs.img" };
/* dracut looks for usr/ and ostree/; sbin/ and etc/ let a minimal root
 * (busybox, the boot tests') through too */
static const char *const root_dirs[] = { "usr", "ostree", "sbin", "etc" };

static int mount_inner(struct init *in, const char *path)
{
	char inner[128];
	int r;

	if (in->ops->access(SQUASH "/LiveOS", F_OK) == 0) {
		for (size_t i = 0; i < ARRAY_SIZE(nested_images); i++) {
			snprintf(inner, sizeof(inner), SQUASH "/%s", nested_images[i]);
			if (in->ops->access(inner, F_OK) == 0)
				return mount_file(in, inner, "/sysroot");
		}
		return err_set("%s holds LiveOS/ but neither LiveOS/rootfs.img nor "
			       "LiveOS/ext3fs.img (Fedora's nested layout) in it", path);
	}
	for (size_t i = 0; i < ARRAY_SIZE(root_dirs); i++) {
		snprintf(inner, sizeof(inner), SQUASH "/%s", root_dirs[i]);
		if (in->ops->access(inner, F_OK) < 0)
			continue;
		if ((r = in->ops->mount(SQUASH, "/sysroot", NULL, MS_MOVE, NULL)) < 0)
			return err_errno(r, "cannot move " SQUASH " to /sysroot");
		return 0;
	}
	return err_set("%s holds no root: neither LiveOS/rootfs.img nor LiveOS/ext3fs.img "
		       "(Fedora's nested layout) nor usr/, ostree/, sbin/ or etc/ (a root itself)",
		       path);
}

/* path on SQUASH, then as the root: the image in it, or itself moved. */
static int mount_nested(struct init *in, const char *path)
{
	int r;

	if ((r = make_dir(in, "/run/initramfs")) < 0 || (r = make_dir(in, SQUASH)) < 0 ||
	    (r = make_dir(in, "/sysroot")) < 0 || (r = mount_file(in, path, SQUASH)) < 0)
		return r;
	in->fs_mounted = true;
	return mount_inner(in, path);
}

int mount_live_file(struct init *in, const char *path)
{
	int r = mount_nested(in, path);

	return r < 0 ? err_wrap("root=live") : r;
}

/* The medium's image at path, or with rd.live.ram its copy in /run
 * (dracut's names), as the root (nested: a squashfs.img, maybe holding
 * a rootfs.img; else a rootfs.img on /sysroot); the medium then
 * unmounted. */
static int mount_top(struct init *in, const struct blockdev *bd, const char *path,
		     const char *copy, bool nested)
{
	int r;

	if (in->opt.live_ram) {
		if ((r = live_ram_copy(in, bd->devnode, path, copy)) < 0)
			return r;
		path = copy;
	}
	r = nested ? mount_nested(in, path) : mount_file(in, path, "/sysroot");
	if (r == 0 && in->opt.live_ram)
		live_ram_release(in, bd->devnode, MEDIUM);
	return r;
}

/* The image on the mounted medium: DIR/SQUASHIMG, else DIR/rootfs.img. */
static int mount_medium_image(struct init *in, const struct blockdev *bd)
{
	const char *dir = in->opt.live_dir ? in->opt.live_dir : "LiveOS";
	const char *img = in->opt.live_squashimg ? in->opt.live_squashimg : "squashfs.img";
	char *squash = xasprintf(MEDIUM "/%s/%s", dir, img);
	char *rootfs = xasprintf(MEDIUM "/%s/rootfs.img", dir);
	bool none = false;
	int r = 0;

	if (in->ops->access(squash, F_OK) == 0)
		r = mount_top(in, bd, squash, "/run/initramfs/squashed.img", true);
	else if (in->ops->access(rootfs, F_OK) == 0)
		r = mount_top(in, bd, rootfs, "/run/initramfs/rootfs.img", false);
	else
		none = true;
	if (none)
		r = err_set("%s%s: %s (%s) has neither %s/%s nor %s/rootfs.img", live_spec(in),
			    in->opt.root, bd->devnode, bd->type, dir, img, dir);
	else if (r < 0) /* what was wrong with the file found, on which medium */
		r = err_wrap("%s%s: %s (%s)", live_spec(in), in->opt.root, bd->devnode, bd->type);
	free(squash);
	free(rootfs);
	return r;
}

int mount_live(struct init *in)
{
	const struct blockdev *bd = root_dev(in);
	int r;

	if (!bd->type)
		return err_set("%s%s: %s has no filesystem (blkid saw no signature)", live_spec(in),
			       in->opt.root, bd->devnode);
	if ((r = make_dir(in, "/sysroot")) < 0)
		return r;
	modload_fs(in->ml, bd->type);
	if (is_image_fs(bd->type)) {
		if (in->opt.live_ram)
			log_warn("rd.live.ram: %s is the image itself (%s): used in place, not copied",
				 bd->devnode, bd->type);
		r = in->ops->mount(bd->devnode, "/sysroot", bd->type, MS_RDONLY, NULL);
		if (r < 0)
			return err_errno(r, "root=live: cannot mount %s (%s) on /sysroot", bd->devnode,
					 bd->type);
		log_info("root=live: mounted %s (%s, ro) on /sysroot", bd->devnode, bd->type);
		in->fs_mounted = true;
		return 0;
	}
	if ((r = live_check_medium(in, bd)) < 0 || (r = make_dir(in, "/run/initramfs")) < 0 ||
	    (r = make_dir(in, MEDIUM)) < 0)
		return r;
	r = in->ops->mount(bd->devnode, MEDIUM, bd->type, MS_RDONLY, NULL);
	if (r < 0)
		return err_errno(r, "root=live: cannot mount the medium %s (%s) on " MEDIUM,
				 bd->devnode, bd->type);
	log_info("root=live: the medium %s (%s) is on " MEDIUM, bd->devnode, bd->type);
	in->fs_mounted = true;
	return mount_medium_image(in, bd);
}
