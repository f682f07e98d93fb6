// SPDX-License-Identifier: GPL-2.0-or-later
/* iso-scan/filename= (src/init/stages/isoscan.c) over the fake system:
 * the name checked, each device with a filesystem mounted and searched
 * in turn, a hostile file (cut short, not an ISO, not a regular file)
 * said and passed over, the good one put on a loop device, and the
 * failure report naming every device and what it had. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/livesize.h"
#include "init/stages/stages.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

#define FILE_ON "/run/initramfs/isoscan/linux.iso"

static const struct initops no_xops = { .reboot = fake_reboot };

static void test_names(void)
{
	CHECK(isoscan_name_valid("linux.iso"));
	CHECK(isoscan_name_valid("/isos/Fedora-Live.iso"));
	CHECK(isoscan_name_valid("a..b/c.iso"));
	CHECK(!isoscan_name_valid(NULL));
	CHECK(!isoscan_name_valid(""));
	CHECK(!isoscan_name_valid("/"));
	CHECK(!isoscan_name_valid("///"));
	CHECK(!isoscan_name_valid("../etc/x.iso"));
	CHECK(!isoscan_name_valid("/isos/../../x.iso"));
	CHECK(!isoscan_name_valid("isos/.."));
	CHECK(!isoscan_name_valid("a\nb.iso"));
	CHECK(!isoscan_name_valid("a\x7f.iso"));
}

static struct fake_ops *setup(struct init *in, const char *cmdline)
{
	struct fake_ops *f = fake_ops_new();

	stack_init_start(in, f, cmdline, &no_xops);
	fake_mkdir(f, "/run/initramfs/isoscan");
	fake_write(f, "/dev/loop-control", "");
	fake_write(f, "/dev/loop0", "");
	msgs_capture(LOG_INFO);
	return f;
}

/* The file the next mount shows: an ISO of blocks 2 KiB blocks, len
 * bytes of it (or junk when blocks is 0). */
static void iso_file(struct fake_ops *f, uint32_t blocks, size_t len)
{
	char *p = fake_path(f, FILE_ON);
	FILE *fp = fopen(p, "wb");
	unsigned char pvd[8] = { 1, 'C', 'D', '0', '0', '1', 1, 0 };

	for (size_t i = 0; i < len; i++)
		fputc(blocks ? 0 : 'J', fp);
	if (blocks && len >= LIVE_PROBE_LEN) {
		fseek(fp, 32768, SEEK_SET);
		fwrite(pvd, 1, sizeof(pvd), fp);
		fseek(fp, 32768 + 80, SEEK_SET);
		for (int i = 0; i < 4; i++)
			fputc((int)(blocks >> (8 * i)) & 0xff, fp);
		for (int i = 3; i >= 0; i--)
			fputc((int)(blocks >> (8 * i)) & 0xff, fp);
		fseek(fp, 32768 + 128, SEEK_SET);
		fwrite("\x00\x08\x08\x00", 1, 4, fp);
	}
	fclose(fp);
	free(p);
}

static void scan(struct init *in, const char *name, const char *type)
{
	const struct blockdev *bd = stack_device(in, name, type, NULL, NULL);

	isoscan_seen(in, DEV_ADDED, bd);
	run_jobs(in);
}

static void test_hostile_then_found(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:CDLABEL=ISO iso-scan/filename=/linux.iso");

	CHECK(isoscan_wanted(&in));
	/* a LUKS member is never mounted to look */
	scan(&in, "vda", "crypto_LUKS");
	CHECK(fake_log_count(f, "mount") == 0);
	scan(&in, "vdb", "ext4");
	CHECK(said("<6>iso-scan/filename=/linux.iso: /dev/vdb (ext4): no linux.iso on it"));
	CHECK(fake_log_find(f, "mount /dev/vdb /run/initramfs/isoscan ext4 0x7 -") >= 0);
	CHECK(fake_log_find(f, "umount /run/initramfs/isoscan 0x0") >= 0);
	iso_file(f, 100, 100 * 2048 / 2);
	scan(&in, "vdc", "vfat");
	CHECK(said("<6>iso-scan/filename=/linux.iso: /dev/vdc (vfat): linux.iso is truncated: "
		   "102400 bytes, but its iso9660 header says 204800"));
	iso_file(f, 0, 40000);
	scan(&in, "vdd", "ntfs");
	CHECK(fake_log_find(f, "mount /dev/vdd /run/initramfs/isoscan ntfs3 0x7 -") >= 0);
	CHECK(said("<6>iso-scan/filename=/linux.iso: /dev/vdd (ntfs): linux.iso is neither an ISO "
		   "nor a squashfs image (it starts 4a 4a 4a 4a 4a 4a 4a 4a; at 32 KiB + 1: "
		   "4a 4a 4a 4a 4a 4a 4a 4a)"));
	iso_file(f, 0, 10);
	fake_fail(f, "mount", "/dev/vde", EINVAL);
	scan(&in, "vde", "xfs");
	CHECK(said("<6>iso-scan/filename=/linux.iso: /dev/vde (xfs): cannot be mounted: "
		   "Invalid argument"));
	scan(&in, "vdf", "ext4");
	CHECK(said("<6>iso-scan/filename=/linux.iso: /dev/vdf (ext4): linux.iso is neither an ISO "
		   "nor a squashfs image (it is only 10 bytes)"));
	CHECK(!in.isoscan.found[0]);
	msgs_clear();
	isoscan_report(&in);
	CHECK_STR(msgs.p, "<3>iso-scan/filename=/linux.iso was looked for on:\n"
		  "<3>  /dev/vdb (ext4): no linux.iso on it\n"
		  "<3>  /dev/vdc (vfat): linux.iso is truncated: 102400 bytes, but its iso9660 "
		  "header says 204800\n"
		  "<3>  /dev/vdd (ntfs): linux.iso is neither an ISO nor a squashfs image (it starts "
		  "4a 4a 4a 4a 4a 4a 4a 4a; at 32 KiB + 1: 4a 4a 4a 4a 4a 4a 4a 4a)\n"
		  "<3>  /dev/vde (xfs): cannot be mounted: Invalid argument\n"
		  "<3>  /dev/vdf (ext4): linux.iso is neither an ISO nor a squashfs image (it is only "
		  "10 bytes)\n");
	/* the good one: on a loop device, the device left mounted under it */
	iso_file(f, 100, 100 * 2048);
	fake_log_clear(f);
	scan(&in, "sdb1", "exfat");
	CHECK(said("<6>iso-scan/filename=/linux.iso: found on /dev/sdb1 (exfat), on /dev/loop0"));
	CHECK_STR(in.isoscan.found, "/dev/sdb1");
	CHECK(fake_log_count(f, "umount") == 0);
	CHECK(fake_log_find_prefix(f, "ioctl LOOP_CONFIGURE", 0) >= 0);
	/* found: nothing more is mounted to look */
	fake_log_clear(f);
	scan(&in, "sdc", "ext4");
	CHECK(fake_log_count(f, "mount") == 0);
	msgs_clear();
	isoscan_report(&in);
	CHECK_STR(msgs.p, "");
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_bad_name_dropped(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:LABEL=ISO iso-scan/filename=../../etc/shadow");

	CHECK(!isoscan_wanted(&in));
	CHECK(said("<3>ignoring iso-scan/filename=../../etc/shadow: not a file name below a "
		   "device's root (no \"..\", no control characters)"));
	scan(&in, "vdb", "ext4");
	CHECK(fake_log_count(f, "mount") == 0);
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_nothing_to_look_on(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:LABEL=ISO iso-scan/filename=linux.iso");

	CHECK(isoscan_wanted(&in));
	msgs_clear();
	isoscan_report(&in);
	CHECK_STR(msgs.p, "<3>iso-scan/filename=linux.iso: no device with a filesystem to look on\n");
	stack_init_finish(f, &in, test_cur_failed);
}

/* A link where the file should be (to a device, to the image's own
 * files) is not followed. */
static void test_link_refused(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:LABEL=ISO iso-scan/filename=linux.iso");

	CHECK(isoscan_wanted(&in));
	fake_symlink(f, "/dev/vda", FILE_ON);
	scan(&in, "vdb", "ext4");
	CHECK(said("<6>iso-scan/filename=linux.iso: /dev/vdb (ext4): linux.iso cannot be opened"));
	CHECK(!in.isoscan.found[0]);
	stack_init_finish(f, &in, test_cur_failed);
}

int main(void)
{
	RUN(test_names);
	RUN(test_hostile_then_found);
	RUN(test_bad_name_dropped);
	RUN(test_nothing_to_look_on);
	RUN(test_link_refused);
	return test_done();
}
