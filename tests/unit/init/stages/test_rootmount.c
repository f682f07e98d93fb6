// SPDX-License-Identifier: GPL-2.0-or-later
/* The root matcher (src/init/stages/rootmount.c, root_seen): a device
 * that root= names is the root unless something is built on it (its
 * sysfs holders: a multipath map over a path, an md array over a
 * member with its superblock at the end), whose filesystem is the
 * holder's too, as udev's SYSTEMD_READY=0 keeps systemd from it. */
#include <stdlib.h>
#include <string.h>

#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"
#include "log_capture.h"
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

int main(void)
{
	log_init("uniramfs", LOG_DEBUG);
	RUN(test_held_device_is_not_the_root);
	RUN(test_no_holders_directory);
	buf_free(&msgs);
	return test_done();
}
