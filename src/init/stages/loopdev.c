// SPDX-License-Identifier: GPL-2.0-or-later
/* Loop devices over files the init opened: the image's squashfs segment,
 * a live medium's root image. */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/modload.h"
#include "init/init.h"
#include "init/stages/stages.h"

/* A free loop device on the file, read-only, gone with its last user
 * (AUTOCLEAR): after switch_root's lazy unmount nothing holds it. So the
 * descriptor returned must stay open until the mount holds the device,
 * or the device is cleared under it. Kernels before 5.8 have no
 * LOOP_CONFIGURE: the two-step way there. */
int loop_attach(const struct sysops *ops, int file, const char *name, char *dev, size_t devlen)
{
	struct loop_config c = { .fd = (unsigned)file };
	int ctl, n, fd, r;

	ctl = ops->open("/dev/loop-control", O_RDWR | O_CLOEXEC, 0);
	if (ctl < 0)
		return err_errno(ctl, "cannot open /dev/loop-control");
	n = ops->ioctl(ctl, LOOP_CTL_GET_FREE, NULL);
	close(ctl);
	if (n < 0)
		return err_errno(n, "no free loop device");
	snprintf(dev, devlen, "/dev/loop%d", n);
	fd = ops->open(dev, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return err_errno(fd, "cannot open %s", dev);
	c.info.lo_flags = LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR;
	snprintf((char *)c.info.lo_file_name, sizeof(c.info.lo_file_name), "%s", name);
	r = ops->ioctl(fd, LOOP_CONFIGURE, &c);
	if (r == -EINVAL || r == -ENOTTY) {
		r = ops->ioctl(fd, LOOP_SET_FD, (void *)(long)file);
		if (r >= 0 && (r = ops->ioctl(fd, LOOP_SET_STATUS64, &c.info)) < 0)
			ops->ioctl(fd, LOOP_CLR_FD, NULL);
	}
	if (r < 0) {
		close(fd);
		return err_errno(r, "cannot set up %s on %s", dev, name);
	}
	return fd;
}

/* The squashfs segment is mounted only when wanted, so loop may not be
 * in yet; built in or already loaded costs nothing, and a failure shows
 * as /dev/loop-control's. */
void loop_module(struct init *in)
{
	if (in->ml)
		modload_name(in->ml, "loop");
}
