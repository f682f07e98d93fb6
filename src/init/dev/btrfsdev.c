// SPDX-License-Identifier: GPL-2.0-or-later
/* btrfs members (btrfsdev.h): the kernel's scan through
 * /dev/btrfs-control, and the device count of the superblock, which
 * the failure report and the degraded mount name. */
#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/btrfsdev.h"

/* The primary superblock, and in it (ctree.h's btrfs_super_block) the
 * magic and num_devices, little-endian. */
#define SB_OFFSET 65536
#define SB_MAGIC_AT 0x40
#define SB_NUM_DEVICES_AT 0x88
#define SB_MAGIC "_BHRfS_M"

int btrfs_dev_ready(const struct sysops *ops, const char *devnode)
{
	struct btrfs_ioctl_vol_args args;
	int fd, r;

	if (strlen(devnode) > BTRFS_PATH_NAME_MAX)
		return err_set("%s: a name too long for btrfs", devnode);
	memset(&args, 0, sizeof(args));
	memcpy(args.name, devnode, strlen(devnode));
	fd = ops->open(BTRFS_CONTROL, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return err_errno(fd, "cannot open " BTRFS_CONTROL);
	r = ops->ioctl(fd, BTRFS_IOC_DEVICES_READY, &args);
	ops->close(fd);
	if (r < 0)
		return err_errno(r, "cannot register %s with btrfs", devnode);
	return r == 0;
}

long long btrfs_dev_count(const struct sysops *ops, const char *devnode)
{
	unsigned char sb[SB_NUM_DEVICES_AT + 8];
	uint64_t n = 0;
	ssize_t got;
	int fd = ops->open(devnode, O_RDONLY | O_CLOEXEC, 0);

	if (fd < 0)
		return err_errno(fd, "cannot open %s", devnode);
	got = pread(fd, sb, sizeof(sb), SB_OFFSET);
	if (got < 0)
		got = -errno;
	ops->close(fd);
	if (got < 0)
		return err_errno((int)got, "cannot read the btrfs superblock of %s", devnode);
	if ((size_t)got < sizeof(sb) || memcmp(sb + SB_MAGIC_AT, SB_MAGIC, 8) != 0)
		return err_set("%s has no btrfs superblock", devnode);
	for (int i = 7; i >= 0; i--)
		n = n << 8 | sb[SB_NUM_DEVICES_AT + i];
	/* a hostile superblock's count is only ever printed; keep it sane */
	if (n == 0 || n > 1u << 20)
		return err_set("%s: a btrfs superblock with %llu devices", devnode,
			       (unsigned long long)n);
	return (long long)n;
}
