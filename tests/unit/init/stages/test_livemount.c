// SPDX-License-Identifier: GPL-2.0-or-later
/* root=live: (src/init/stages/livemount.c) over the fake system: the
 * medium's LiveOS/squashfs.img mounted, then what is inside decides as
 * dracut's dmsquash-live-root does: Fedora's older nested layout
 * (LiveOS/rootfs.img, or LiveOS/ext3fs.img, inside the squashfs) has
 * that image mounted as the root; a squashfs that is a root itself is
 * moved there; one that is neither is refused, naming what was looked
 * for inside it. */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

#define SQ "/run/initramfs/squashfs"
#define MEDIUM_IMG "/run/initramfs/live/LiveOS/squashfs.img"

static const struct initops no_xops = { .reboot = fake_reboot };

/* root=live:LABEL=LIVE found as vda (iso9660); the medium's image, and
 * what the squashfs will show once mounted (the fake mount shows what
 * the tree already has). */
static struct fake_ops *setup(struct init *in, const char *cmdline)
{
	struct fake_ops *f = fake_ops_new();

	stack_init_start(in, f, cmdline, &no_xops);
	fake_write(f, "/dev/loop-control", "");
	fake_write(f, "/dev/loop0", "");
	fake_write(f, MEDIUM_IMG, "not a header: the fake mounts anything");
	stack_device(in, "vda", "iso9660", NULL, "LIVE");
	in->root = xstrdup("vda");
	msgs_capture(LOG_INFO);
	return f;
}

static void test_nested_rootfs(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:LABEL=LIVE rd.live.image");

	fake_write(f, SQ "/LiveOS/rootfs.img", "ext4, says the fake");
	fake_write(f, SQ "/LiveOS/ext3fs.img", "the older name: not taken when rootfs.img is there");
	CHECK(mount_live(&in) == 0);
	CHECK(fake_log_find(f, "mount /dev/vda /run/initramfs/live iso9660 0x1 -") >= 0);
	CHECK(fake_log_find(f, "mount /dev/loop0 " SQ " squashfs 0x1 -") >= 0);
	CHECK(fake_log_find(f, "mount /dev/loop0 /sysroot squashfs 0x1 -") >= 0);
	CHECK(fake_log_count(f, "mount " SQ " /sysroot") == 0);
	CHECK(said("<6>root=live: mounted " SQ "/LiveOS/rootfs.img (squashfs, /dev/loop0) on "
		   "/sysroot"));
	CHECK(!said("ext3fs.img"));
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_nested_ext3fs(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:LABEL=LIVE");

	fake_write(f, SQ "/LiveOS/ext3fs.img", "an old live CD's root");
	CHECK(mount_live(&in) == 0);
	CHECK(said("<6>root=live: mounted " SQ "/LiveOS/ext3fs.img (squashfs, /dev/loop0) on "
		   "/sysroot"));
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_flat(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:LABEL=LIVE");

	fake_mkdir(f, SQ "/usr");
	CHECK(mount_live(&in) == 0);
	CHECK(fake_log_find(f, "mount " SQ " /sysroot - 0x2000 -") >= 0);
	CHECK(said("<6>root=live: mounted " MEDIUM_IMG " (squashfs, /dev/loop0) on " SQ));
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_liveos_without_image(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:LABEL=LIVE");

	fake_mkdir(f, SQ "/LiveOS");
	fake_write(f, SQ "/LiveOS/osmin.img", "not the root");
	fake_mkdir(f, SQ "/usr");
	CHECK(mount_live(&in) < 0);
	CHECK_STR(err_msg(), "root=live:LABEL=LIVE: /dev/vda (iso9660): " MEDIUM_IMG " holds "
		  "LiveOS/ but neither LiveOS/rootfs.img nor LiveOS/ext3fs.img (Fedora's nested "
		  "layout) in it");
	CHECK(fake_log_count(f, "mount " SQ " /sysroot") == 0);
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_no_root_inside(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:LABEL=LIVE");

	fake_mkdir(f, SQ "/boot");
	CHECK(mount_live(&in) < 0);
	CHECK_STR(err_msg(), "root=live:LABEL=LIVE: /dev/vda (iso9660): " MEDIUM_IMG " holds no "
		  "root: neither LiveOS/rootfs.img nor LiveOS/ext3fs.img (Fedora's nested layout) "
		  "nor usr/, ostree/, sbin/ or etc/ (a root itself)");
	stack_init_finish(f, &in, test_cur_failed);
}

/* A downloaded image (httproot.c) decides the same way. */
static void test_file_nested(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=live:http://127.0.0.1/live.img");

	fake_write(f, "/run/initramfs/livenet.img", "downloaded");
	fake_write(f, SQ "/LiveOS/rootfs.img", "ext4");
	CHECK(mount_live_file(&in, "/run/initramfs/livenet.img") == 0);
	CHECK(said("<6>root=live: mounted " SQ "/LiveOS/rootfs.img (squashfs, /dev/loop0) on "
		   "/sysroot"));
	stack_init_finish(f, &in, test_cur_failed);
}

int main(void)
{
	RUN(test_nested_rootfs);
	RUN(test_nested_ext3fs);
	RUN(test_flat);
	RUN(test_liveos_without_image);
	RUN(test_no_root_inside);
	RUN(test_file_nested);
	return test_done();
}
