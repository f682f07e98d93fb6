// SPDX-License-Identifier: GPL-2.0-or-later
/* Stage 1: the API filesystems, and a console to talk on. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"

static const struct {
	const char *src, *target, *type;
	unsigned long flags;
	const char *data;
} api_mounts[] = {
	{ "devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755" },
	{ "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	{ "sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL },
	/* systemd's INITRD_INTERFACE: handed over as is, so the same
	 * options systemd would use (mode=755,nodev,nosuid,strictatime). */
	{ "tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV | MS_STRICTATIME, "mode=0755" },
};

int stage_mounts(struct init *in)
{
	const struct sysops *ops = in->ops;
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(api_mounts); i++) {
		if ((r = ops->mkdir(api_mounts[i].target, 0755)) < 0 && r != -EEXIST)
			return err_errno(r, "cannot create %s", api_mounts[i].target);
		if ((r = ops->mount(api_mounts[i].src, api_mounts[i].target, api_mounts[i].type,
				    api_mounts[i].flags, api_mounts[i].data)) < 0 && r != -EBUSY)
			return err_errno(r, "cannot mount %s on %s", api_mounts[i].type,
					 api_mounts[i].target);
	}
	if ((r = ops->mkdir("/run/uniramfs", 0755)) < 0 && r != -EEXIST)
		log_warn("cannot create /run/uniramfs: %s", strerror(-r));
	kmod_helper_set(in);
	return 0;
}

/* The kernel gives /init the console as fds 0-2 when /dev/console
 * exists in the image; if it could not, open it now that devtmpfs is
 * there, so a shell and our messages have somewhere to go. Also lift
 * the kernel's rate limit on /dev/kmsg writers, or rd.debug output
 * would be cut to a few lines. */
void stage_console(struct init *in)
{
	int fd;

	if (fcntl(STDIN_FILENO, F_GETFD) < 0) {
		fd = in->ops->open("/dev/console", O_RDWR | O_NOCTTY, 0);
		if (fd >= 0) {
			for (int i = 0; i < 3; i++)
				if (fd != i)
					dup2(fd, i);
			if (fd > 2)
				close(fd);
		}
	}
	fd = in->ops->open("/proc/sys/kernel/printk_devkmsg", O_WRONLY | O_CLOEXEC, 0);
	if (fd >= 0) {
		(void)!write(fd, "on\n", 3);
		close(fd);
	}
}
