// SPDX-License-Identifier: GPL-2.0-or-later
/* boot=live's look for the medium (src/init/stages/livescan.c, and its
 * wait in rootwait.c): each device with a medium's filesystem is mounted
 * read-only at /run/initramfs/live, looked in for live/filesystem.squashfs
 * and unmounted; each is looked at once (again only when its filesystem
 * changed); the first with the file is root=; none by rd.timeout: the file
 * and every device looked on are named. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

static const struct initops no_xops = { .reboot = fake_reboot };

#define LOOK "/run/initramfs/live"
#define RO_FLAGS "0xf" /* MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC */

static struct fake_ops *setup(struct init *in, const char *cmdline)
{
	struct fake_ops *f = fake_ops_new();

	stack_init_start(in, f, cmdline, &no_xops);
	fake_mkdir(f, "/run");
	msgs_capture(LOG_DEBUG);
	return f;
}

static void test_finds_the_medium(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "boot=live components quiet splash");
	struct livescan st = { 0 };

	CHECK(livescan_wanted(&in));
	stack_device(&in, "vda", "ext4", NULL, NULL);
	stack_device(&in, "vdb", "swap", NULL, NULL);
	stack_device(&in, "vdc", NULL, NULL, NULL);
	CHECK(livescan_ready(&in, &st));
	CHECK(livescan_step(&in, &st) == 0);
	CHECK(fake_log_find(f, "mount /dev/vda " LOOK " ext4 " RO_FLAGS " -") >= 0);
	CHECK(fake_log_find(f, "umount " LOOK " 0x0") >= 0);
	CHECK(fake_log_count(f, "mount /dev/vdb") == 0); /* swap, and no filesystem: no look */
	CHECK(fake_log_count(f, "mount /dev/vdc") == 0);
	CHECK(!livescan_ready(&in, &st));
	CHECK(in.root == NULL);

	/* the stick comes: it has the file (the fake's one tree) */
	fake_write(f, LOOK "/live/filesystem.squashfs", "hsqs");
	stack_device(&in, "sda", "vfat", NULL, "DEBIAN_LIVE");
	CHECK(livescan_ready(&in, &st));
	CHECK(livescan_step(&in, &st) == 1);
	CHECK(said("boot=live: /dev/sda (vfat) has live/filesystem.squashfs: the live medium"));
	CHECK_STR(in.opt.root, "/dev/sda");
	CHECK_STR(in.root, "sda");
	CHECK(fake_log_count(f, "mount /dev/vda") == 1); /* looked at once */
	CHECK(!livescan_wanted(&in));
	livescan_free(&st);
	stack_init_finish(f, &in, test_cur_failed);
}

/* live-media-path= moves the look; a device that does not mount is
 * passed over, and at the timeout everything looked on is named. */
static void test_none_by_the_timeout(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "boot=live live-media-path=/debian/ rd.timeout=5");

	fake_write(f, LOOK "/live/filesystem.squashfs", "hsqs"); /* not where it is looked for */
	fake_fail(f, "mount", "/dev/sr0", EIO);
	stack_device(&in, "sr0", "iso9660", NULL, NULL);
	stack_device(&in, "vda", "ext4", NULL, NULL);
	stack_device(&in, "vdb", "crypto_LUKS", NULL, NULL);
	CHECK(livescan_wait(&in) == 0);
	CHECK(said("boot=live: looking for debian/filesystem.squashfs on the block devices"));
	CHECK(said("boot=live: /dev/sr0 (iso9660) does not mount: Input/output error"));
	CHECK(said("boot=live: no block device has debian/filesystem.squashfs after 5 seconds "
		   "(looked on: /dev/sr0 (iso9660), /dev/vda (ext4))"));
	CHECK(in.opt.root == NULL && in.root == NULL);
	stack_init_finish(f, &in, test_cur_failed);
}

/* A CD put in after the drive was looked at: its filesystem changed, it
 * is looked at again. No device at all: the report says so. */
static void test_changed_device_looked_at_again(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "boot=live rd.timeout=3");
	struct livescan st = { 0 };
	struct blockdev *bd;

	CHECK(livescan_wait(&in) == 0);
	CHECK(said("boot=live: no block device has live/filesystem.squashfs after 3 seconds "
		   "(looked on: no device with a filesystem a medium has)"));
	bd = stack_device(&in, "sr0", "udf", NULL, NULL);
	CHECK(livescan_step(&in, &st) == 0);
	free(bd->type);
	bd->type = strdup("iso9660");
	fake_write(f, LOOK "/live/filesystem.squashfs", "hsqs");
	CHECK(livescan_ready(&in, &st));
	CHECK(livescan_step(&in, &st) == 1);
	CHECK(fake_log_count(f, "mount /dev/sr0") == 2);
	livescan_free(&st);
	stack_init_finish(f, &in, test_cur_failed);
}

int main(void)
{
	log_init("test", LOG_DEBUG);
	RUN(test_finds_the_medium);
	RUN(test_none_by_the_timeout);
	RUN(test_changed_device_looked_at_again);
	return test_done();
}
