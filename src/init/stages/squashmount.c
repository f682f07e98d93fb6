// SPDX-License-Identifier: GPL-2.0-or-later
/* The squashfs segment (src/gen/squash.h): the image's programs,
 * libraries and modules sit in LAYOUT_SQUASH_FILE, which the kernel only
 * copied; mounted through a loop device on LAYOUT_SQUASH_DIR, the main
 * segment's symlinks into it resolve, and a boot decompresses only the
 * blocks it reads. First thing after the kernel version check: nothing
 * of the image's but /init runs before it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "layout.h"
#include "log.h"

/* The modules the generator listed, in order; built-in ones are not
 * listed, and one loaded already (EEXIST) is fine. */
static int load_modules(struct init *in)
{
	char *list = in->ops->path(LAYOUT_SQUASH_MODULES), *data = NULL, *save = NULL;
	size_t len;
	int r = read_file(list, &data, &len);

	free(list);
	if (r < 0)
		return err_errno(r, "cannot read " LAYOUT_SQUASH_MODULES);
	for (char *l = strtok_r(data, "\n", &save); l && r >= 0; l = strtok_r(NULL, "\n", &save)) {
		char *path = xasprintf("/lib/modules/%s/%s", in->kver, l);
		int fd = in->ops->open(path, O_RDONLY | O_CLOEXEC, 0);

		if (fd < 0) {
			r = err_errno(fd, "cannot open %s", path);
		} else {
			r = in->ops->finit_module(fd, "", 0);
			if (r == -EEXIST)
				r = 0;
			else if (r < 0)
				r = err_errno(r, "cannot load %s", path);
			close(fd);
		}
		free(path);
	}
	free(data);
	return r < 0 ? r : 0;
}

/* A free loop device on the file, read-only, gone with its last user
 * (AUTOCLEAR): after switch_root's lazy unmount nothing holds it. So the
 * descriptor returned must stay open until the mount holds the device,
 * or the device is cleared under it. Kernels before 5.8 have no
 * LOOP_CONFIGURE: the two-step way there. */
static int attach(struct init *in, int file, char *dev, size_t devlen)
{
	struct loop_config c = { .fd = (unsigned)file };
	int ctl, n, fd, r;

	ctl = in->ops->open("/dev/loop-control", O_RDWR | O_CLOEXEC, 0);
	if (ctl < 0)
		return err_errno(ctl, "cannot open /dev/loop-control");
	n = in->ops->ioctl(ctl, LOOP_CTL_GET_FREE, NULL);
	close(ctl);
	if (n < 0)
		return err_errno(n, "no free loop device");
	snprintf(dev, devlen, "/dev/loop%d", n);
	fd = in->ops->open(dev, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return err_errno(fd, "cannot open %s", dev);
	c.info.lo_flags = LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR;
	snprintf((char *)c.info.lo_file_name, sizeof(c.info.lo_file_name), "%s", LAYOUT_SQUASH_FILE);
	r = in->ops->ioctl(fd, LOOP_CONFIGURE, &c);
	if (r == -EINVAL || r == -ENOTTY) {
		r = in->ops->ioctl(fd, LOOP_SET_FD, (void *)(long)file);
		if (r >= 0 && (r = in->ops->ioctl(fd, LOOP_SET_STATUS64, &c.info)) < 0)
			in->ops->ioctl(fd, LOOP_CLR_FD, NULL);
	}
	if (r < 0) {
		close(fd);
		return err_errno(r, "cannot set up %s on " LAYOUT_SQUASH_FILE, dev);
	}
	return fd;
}

int mount_squash(struct init *in)
{
	char dev[32];
	int file, loopfd, r;

	if (in->ops->access(LAYOUT_SQUASH_FILE, F_OK) < 0)
		return 0;
	if ((r = load_modules(in)) < 0)
		return r;
	file = in->ops->open(LAYOUT_SQUASH_FILE, O_RDONLY | O_CLOEXEC, 0);
	if (file < 0)
		return err_errno(file, "cannot open " LAYOUT_SQUASH_FILE);
	loopfd = attach(in, file, dev, sizeof(dev));
	close(file);
	if (loopfd < 0)
		return loopfd;
	r = in->ops->mount(dev, LAYOUT_SQUASH_DIR, "squashfs", MS_RDONLY | MS_NODEV | MS_NOSUID, NULL);
	close(loopfd);
	if (r < 0)
		return err_errno(r, "cannot mount %s (" LAYOUT_SQUASH_FILE ") on " LAYOUT_SQUASH_DIR, dev);
	in->squash_mounted = true;
	log_debug("mounted the squashfs segment from %s", dev);
	return 0;
}

/* Lazily: a daemon that stays (nbd-client, the NBD root's) may still run
 * a program from it; it is freed when that one ends. */
void unmount_squash(struct init *in)
{
	int r;

	if (!in->squash_mounted)
		return;
	if ((r = in->ops->umount(LAYOUT_SQUASH_DIR, MNT_DETACH)) < 0)
		log_warn("cannot unmount " LAYOUT_SQUASH_DIR ": %s", strerror(-r));
	in->squash_mounted = false;
}
