// SPDX-License-Identifier: GPL-2.0-or-later
/* The root matcher (src/init/stages/rootmount.c, root_seen): a device
 * that root= names is the root unless something is built on it (its
 * sysfs holders: a multipath map over a path, an md array over a
 * member with its superblock at the end), whose filesystem is the
 * holder's too, as udev's SYSTEMD_READY=0 keeps systemd from it. A
 * btrfs root over several devices: each member registered with the
 * kernel (dev/btrfsdev.c, BTRFS_IOC_DEVICES_READY through the fake),
 * the root taken only once its filesystem is complete, and at the
 * timeout rootflags=degraded or the report of what it has and wants. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_ops.h"
#include "init/dev/btrfsdev.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

static struct blockdev dev(char *name, char *node, char *uuid)
{
	struct blockdev bd;

	memset(&bd, 0, sizeof(bd));
	bd.name = name;
	bd.devnode = node;
	bd.uuid = uuid;
	bd.type = "ext4";
	return bd;
}

static void test_held_device_is_not_the_root(void)
{
	struct fake_ops *f = fake_ops_new();
	struct init in;
	struct blockdev sda = dev("sda", "/dev/sda", "1111"), dm = dev("dm-0", "/dev/dm-0", "1111");

	memset(&in, 0, sizeof(in));
	msgs_capture(LOG_INFO);
	in.ops = &f->ops;
	in.opt.root = "UUID=1111";
	fake_mkdir(f, "/sys/class/block/sda/holders");
	fake_write(f, "/sys/class/block/sda/holders/dm-0", "");
	fake_mkdir(f, "/sys/class/block/dm-0/holders");
	root_seen(&in, DEV_ADDED, &sda);
	CHECK(in.root == NULL);
	CHECK(said("<6>/dev/sda has root=UUID=1111 but is held by another device (a member of it): "
		   "not the root\n"));
	root_seen(&in, DEV_ADDED, &dm);
	CHECK(in.root && !strcmp(in.root, "dm-0"));
	CHECK(said("<6>root=UUID=1111 is /dev/dm-0\n"));
	free(in.root);
	fake_ops_free(f);
}

static void test_no_holders_directory(void)
{
	struct fake_ops *f = fake_ops_new();
	struct init in;
	struct blockdev vda = dev("vda", "/dev/vda", "2222");

	memset(&in, 0, sizeof(in));
	msgs_capture(LOG_INFO);
	in.ops = &f->ops;
	in.opt.root = "UUID=2222";
	root_seen(&in, DEV_ADDED, &vda);
	CHECK(in.root && !strcmp(in.root, "vda"));
	free(in.root);
	fake_ops_free(f);
}

#define FSU "5f0c1a4e-1b2d-4c3e-9f10-000000000b71"
#define OTHER "5f0c1a4e-1b2d-4c3e-9f10-000000000b99"

static const struct initops no_xops = { .reboot = fake_reboot };

/* A device node holding a btrfs superblock that says n devices. */
static void superblock(struct fake_ops *f, const char *node, unsigned long long n)
{
	static unsigned char sb[65536 + 4096];
	char *p = fake_path(f, node);
	FILE *fp = fopen(p, "wb");

	memset(sb, 0, sizeof(sb));
	memcpy(sb + 65536 + 0x40, "_BHRfS_M", 8);
	for (int i = 0; i < 8; i++)
		sb[65536 + 0x88 + i] = (unsigned char)(n >> (8 * i));
	if (fp) {
		fwrite(sb, 1, sizeof(sb), fp);
		fclose(fp);
	}
	free(p);
}

/* A device as the registry probed it, told to the subscribers. */
static void appear(struct init *in, const char *name, const char *type, const char *uuid)
{
	root_seen(in, DEV_ADDED, stack_device(in, name, type, uuid, NULL));
}

static struct fake_ops *setup(struct init *in, const char *cmdline, unsigned members)
{
	struct fake_ops *f = fake_ops_new();

	stack_init_start(in, f, cmdline, &no_xops);
	fake_write(f, BTRFS_CONTROL, "");
	f->btrfs_members = members;
	msgs_capture(LOG_DEBUG);
	return f;
}

static void finish(struct fake_ops *f, struct init *in)
{
	stack_init_finish(f, in, test_cur_failed);
}

static void test_waits_for_every_member(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=UUID=" FSU, 2);

	appear(&in, "vda", "btrfs", FSU);
	CHECK(!in.root);
	CHECK(said("root=UUID=" FSU " is /dev/vda, btrfs UUID=" FSU ": waiting for its other devices"));
	appear(&in, "vdc", "ext4", OTHER);
	CHECK(!in.root);
	appear(&in, "vdb", "btrfs", FSU);
	CHECK_STR(in.root, "vda");
	CHECK(fake_log_find(f, "ioctl BTRFS_IOC_DEVICES_READY /dev/vda") >= 0);
	CHECK(fake_log_find(f, "ioctl BTRFS_IOC_DEVICES_READY /dev/vdb") >= 0);
	CHECK(said("root=UUID=" FSU " is /dev/vda"));
	finish(f, &in);
}

/* root=/dev/vdb names one member; the other came first, unnamed: it
 * is registered when the named one shows it is the root's. */
static void test_member_before_the_named_one(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vdb", 2);

	appear(&in, "vda", "btrfs", FSU);
	CHECK(!in.root);
	CHECK(fake_log_count(f, "ioctl") == 0);
	appear(&in, "vdb", "btrfs", FSU);
	CHECK_STR(in.root, "vdb");
	CHECK(fake_log_find(f, "ioctl BTRFS_IOC_DEVICES_READY /dev/vda") >= 0);
	finish(f, &in);

	/* and after it: the member of the root's filesystem completes it */
	f = setup(&in, "root=/dev/vda", 2);
	appear(&in, "vda", "btrfs", FSU);
	appear(&in, "vdc", "btrfs", OTHER);
	CHECK(!in.root);
	appear(&in, "vdb", "btrfs", FSU);
	CHECK_STR(in.root, "vda");
	CHECK(fake_log_find(f, "ioctl BTRFS_IOC_DEVICES_READY /dev/vdc") < 0);
	finish(f, &in);
}

static void test_single_device_at_once(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=UUID=" FSU, 0);

	appear(&in, "vda", "btrfs", FSU);
	CHECK_STR(in.root, "vda");
	CHECK(!said("root=UUID=" FSU " is /dev/vda, btrfs UUID=" FSU ": waiting for its other devices"));
	finish(f, &in);
}

static void test_timeout_names_what_it_has(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=UUID=" FSU, 2);

	superblock(f, "/dev/vda", 2);
	appear(&in, "vda", "btrfs", FSU);
	CHECK(!root_timed_out(&in));
	CHECK(!in.root);
	CHECK(said("root=UUID=" FSU ": btrfs UUID=" FSU " has 1 of 2 devices (rootflags=degraded "
		   "mounts it with those)"));
	finish(f, &in);

	/* nothing of the kind waited for: nothing to say */
	f = setup(&in, "root=UUID=" FSU, 2);
	CHECK(!root_timed_out(&in));
	CHECK(!said("btrfs"));
	finish(f, &in);
}

static void test_timeout_degraded(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=UUID=" FSU " rootflags=subvol=@,degraded", 3);

	superblock(f, "/dev/vda", 3);
	appear(&in, "vda", "btrfs", FSU);
	appear(&in, "vdb", "btrfs", FSU);
	CHECK(!in.root);
	CHECK(root_timed_out(&in));
	CHECK_STR(in.root, "vda");
	CHECK(said("root=UUID=" FSU ": btrfs UUID=" FSU " has 2 of 3 devices: mounting it degraded "
		   "(rootflags=degraded)"));
	finish(f, &in);

	/* "degraded" must be a whole flag */
	f = setup(&in, "root=UUID=" FSU " rootflags=notdegraded,x", 2);
	appear(&in, "vda", "btrfs", FSU);
	CHECK(!root_timed_out(&in));
	finish(f, &in);
}

/* A superblock that lies about its count is not believed. */
static void test_hostile_count(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=UUID=" FSU, 2);

	superblock(f, "/dev/vda", 1ULL << 40);
	appear(&in, "vda", "btrfs", FSU);
	CHECK(!root_timed_out(&in));
	CHECK(said("root=UUID=" FSU ": btrfs UUID=" FSU " has 1 of its devices (rootflags=degraded "
		   "mounts it with those)"));
	CHECK(btrfs_dev_count(in.ops, "/dev/vda") == -EINVAL);
	CHECK(btrfs_dev_count(in.ops, "/dev/nothing") == -ENOENT);
	fake_write(f, "/dev/short", "_BHRfS_M");
	CHECK(btrfs_dev_count(in.ops, "/dev/short") == -EINVAL);
	finish(f, &in);
}

/* The member waited for goes away: the wait starts over. */
static void test_removed_while_waiting(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=UUID=" FSU, 2);

	appear(&in, "vda", "btrfs", FSU);
	CHECK_STR(in.btrfs_wait, "vda");
	root_seen(&in, DEV_REMOVED, &in.devs.v[0]);
	CHECK_STR(in.btrfs_wait, "");
	CHECK(!root_timed_out(&in));
	finish(f, &in);
}

/* No way to ask the kernel: the device is taken as it is, and the
 * mount will say what is wrong. */
static void test_kernel_cannot_tell(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=UUID=" FSU, 2);

	fake_fail(f, "ioctl", "BTRFS_IOC_DEVICES_READY", ENOTTY);
	appear(&in, "vda", "btrfs", FSU);
	CHECK_STR(in.root, "vda");
	CHECK(said("cannot register /dev/vda with btrfs: Inappropriate ioctl for device; mounting "
		   "/dev/vda as it is"));
	finish(f, &in);
}

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_held_device_is_not_the_root);
	RUN(test_no_holders_directory);
	RUN(test_waits_for_every_member);
	RUN(test_member_before_the_named_one);
	RUN(test_single_device_at_once);
	RUN(test_timeout_names_what_it_has);
	RUN(test_timeout_degraded);
	RUN(test_hostile_count);
	RUN(test_removed_while_waiting);
	RUN(test_kernel_cannot_tell);
	buf_free(&msgs);
	return test_done();
}
