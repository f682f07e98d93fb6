// SPDX-License-Identifier: GPL-2.0-or-later
/* rd.overlay (src/init/stages/overlayspec.c, overlay.c): dracut-ng
 * TEST-21's forms, each taken apart, then acted on over the fake system:
 * the root moved below, the upper layer a tmpfs (sized or not) or a
 * device's filesystem, a missing device falling back with a warning, and
 * a failed overlay mount giving the root back. */
#include <errno.h>
#include <string.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/overlayspec.h"
#include "init/stages/stages.h"
#include "log.h"
#include "log_capture.h"
#include "stack_helpers.h"
#include "test.h"

static void parse(const char *value, enum overlay_mode mode, const char *device, const char *opts,
		  const char *warning)
{
	struct overlay_spec s;
	struct strv w = { 0 };

	overlay_spec_parse(value, &s, &w);
	CHECK(s.mode == mode);
	CHECK((!device && !s.device) || (device && s.device && !strcmp(device, s.device)));
	CHECK((!opts && !s.tmpfs_opts) || (opts && s.tmpfs_opts && !strcmp(opts, s.tmpfs_opts)));
	CHECK(warning ? w.n == 1 && !strcmp(w.v[0], warning) : w.n == 0);
	if (test_cur_failed)
		printf("# rd.overlay=%s: mode %d device %s opts %s warnings %zu%s%s\n",
		       value ? value : "(none)", s.mode, s.device ? s.device : "-",
		       s.tmpfs_opts ? s.tmpfs_opts : "-", w.n, w.n ? ": " : "", w.n ? w.v[0] : "");
	overlay_spec_free(&s);
	strv_free(&w);
}

static void test_spec_forms(void)
{
	parse(NULL, OVERLAY_OFF, NULL, NULL, NULL);
	parse("0", OVERLAY_OFF, NULL, NULL, NULL);
	parse("no", OVERLAY_OFF, NULL, NULL, NULL);
	parse("", OVERLAY_TMPFS, NULL, NULL, NULL);
	parse("1", OVERLAY_TMPFS, NULL, NULL, NULL);
	parse("yes", OVERLAY_TMPFS, NULL, NULL, NULL);
	parse("LABEL=OVERLAY", OVERLAY_DEVICE, "LABEL=OVERLAY", NULL, NULL);
	parse("UUID=1234-abcd", OVERLAY_DEVICE, "UUID=1234-abcd", NULL, NULL);
	parse("/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_overlay", OVERLAY_DEVICE,
	      "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_overlay", NULL, NULL);
	parse("tmpfs:size=32M,nr_inodes=100000", OVERLAY_TMPFS, NULL, "size=32M,nr_inodes=100000",
	      NULL);
	parse("tmpfs:size=50%", OVERLAY_TMPFS, NULL, "size=50%", NULL);
	parse("tmpfs:", OVERLAY_TMPFS, NULL, NULL, NULL);
}

static void test_spec_hostile(void)
{
	/* options tmpfs does not take, or that would smuggle others in */
	parse("tmpfs:size=32M,mode=4777", OVERLAY_TMPFS, NULL, "size=32M",
	      "rd.overlay: ignoring the tmpfs option \"mode=4777\" (only size=, nr_blocks= and "
	      "nr_inodes=)");
	parse("tmpfs:nr_inodes=1x", OVERLAY_TMPFS, NULL, NULL,
	      "rd.overlay: ignoring nr_inodes=1x: not a number (with k, m or g)");
	parse("tmpfs:nr_inodes=50%", OVERLAY_TMPFS, NULL, NULL,
	      "rd.overlay: ignoring nr_inodes=50%: not a number (with k, m or g)");
	parse("tmpfs:size=", OVERLAY_TMPFS, NULL, NULL,
	      "rd.overlay: ignoring size=: not a number (with k, m or g)");
	parse("tmpfs:size=99999999999999999999", OVERLAY_TMPFS, NULL, NULL,
	      "rd.overlay: ignoring size=99999999999999999999: not a number (with k, m or g)");
	parse("LABEL=", OVERLAY_TMPFS, NULL, NULL,
	      "rd.overlay=LABEL=: not a device (LABEL=, UUID=, PARTLABEL=, PARTUUID=, /dev/...) "
	      "nor tmpfs:OPTIONS: the upper layer is a tmpfs");
	parse("nfs:server:/x", OVERLAY_TMPFS, NULL, NULL,
	      "rd.overlay=nfs:server:/x: not a device (LABEL=, UUID=, PARTLABEL=, PARTUUID=, "
	      "/dev/...) nor tmpfs:OPTIONS: the upper layer is a tmpfs");
}

static const struct initops no_xops = { .reboot = fake_reboot };

static struct fake_ops *setup(struct init *in, const char *cmdline)
{
	struct fake_ops *f = fake_ops_new();

	stack_init_start(in, f, cmdline, &no_xops);
	fake_mkdir(f, "/run");
	msgs_capture(LOG_INFO);
	return f;
}

/* The device the registry probed. */
static void device(struct init *in, const char *name, const char *type, const char *label)
{
	stack_device(in, name, type, NULL, label);
}

static void test_off_does_nothing(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vda rd.overlay=0");

	CHECK(stage_overlay(&in) == 0);
	CHECK(fake_log_count(f, "mount") == 0);
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_tmpfs_sized(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vda rd.overlay=tmpfs:size=32M,nr_inodes=100000");
	int moved, sized, over;

	CHECK(stage_overlay(&in) == 0);
	moved = fake_log_find(f, "mount /sysroot /run/rootfsbase - 0x2000 -");
	sized = fake_log_find(f, "mount tmpfs /run/initramfs/overlay tmpfs 0x6 "
			      "mode=0755,size=32M,nr_inodes=100000");
	over = fake_log_find(f, "mount LiveOS_rootfs /sysroot overlay 0x0 lowerdir=/run/rootfsbase,"
			     "upperdir=/run/initramfs/overlay/overlayfs,"
			     "workdir=/run/initramfs/overlay/ovlwork");
	CHECK(moved >= 0 && sized > moved && over > sized);
	CHECK(fake_log_find(f, "symlink /run/initramfs/overlay/overlayfs /run/overlayfs") >= 0);
	CHECK(said("<6>rd.overlay: the upper layer is a tmpfs with size=32M,nr_inodes=100000 "
		   "(changes will not persist)\n"));
	CHECK(said("<6>rd.overlay: / is an overlay over the root, writes go to "
		   "/run/initramfs/overlay/overlayfs\n"));
	stack_init_finish(f, &in, test_cur_failed);
}

static void test_device_upper(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vda rd.overlay=LABEL=OVERLAY");

	device(&in, "vda", "ext4", "dracut");
	device(&in, "vdb", "ext4", "OVERLAY");
	CHECK(stage_overlay(&in) == 0);
	CHECK(fake_log_find(f, "mount /dev/vdb /run/overlayfs-backing ext4 0x400 -") >= 0);
	CHECK(fake_log_find(f, "mount LiveOS_rootfs /sysroot overlay 0x0 lowerdir=/run/rootfsbase,"
			    "upperdir=/run/overlayfs-backing/overlay,"
			    "workdir=/run/overlayfs-backing/ovlwork") >= 0);
	CHECK(fake_log_count(f, "mount tmpfs") == 0);
	CHECK(said("<6>rd.overlay: the upper layer is /dev/vdb (ext4) on /run/overlayfs-backing\n"));
	stack_init_finish(f, &in, test_cur_failed);
}

/* TEST-21 "fallback to tmpfs (non-existent LABEL)", and a device that
 * will not mount: both go on with a tmpfs and say so. */
static void test_device_missing_or_broken(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vda rd.overlay=LABEL=NONEXISTENT");

	device(&in, "vda", "ext4", "dracut");
	CHECK(stage_overlay(&in) == 0);
	CHECK(said("<4>rd.overlay=LABEL=NONEXISTENT: no such device; the upper layer is a tmpfs "
		   "(changes will not persist)\n"));
	CHECK(fake_log_find_prefix(f, "mount LiveOS_rootfs /sysroot overlay 0x0 lowerdir=/run/"
				   "rootfsbase,upperdir=/run/initramfs/overlay/overlayfs,", 0) >= 0);
	stack_init_finish(f, &in, test_cur_failed);

	f = setup(&in, "root=/dev/vda rd.overlay=LABEL=OVERLAY");
	device(&in, "vdb", "ext4", "OVERLAY");
	fake_fail(f, "mount", "/run/overlayfs-backing", EUCLEAN);
	CHECK(stage_overlay(&in) == 0);
	CHECK(said("<4>rd.overlay=LABEL=OVERLAY: cannot mount /dev/vdb (ext4): Structure needs "
		   "cleaning; the upper layer is a tmpfs (changes will not persist)\n"));
	CHECK(fake_log_find_prefix(f, "mount LiveOS_rootfs /sysroot overlay", 0) >= 0);
	stack_init_finish(f, &in, test_cur_failed);
}

/* No overlay filesystem: the root goes back to /sysroot, and the error
 * says what was asked. */
static void test_overlay_refused(void)
{
	struct init in;
	struct fake_ops *f = setup(&in, "root=/dev/vda rd.overlay");

	fake_fail(f, "mount", "overlay", ENODEV);
	CHECK(stage_overlay(&in) == -ENODEV);
	CHECK_STR(err_msg(), "rd.overlay: cannot mount the overlay on /sysroot (lowerdir=/run/"
		  "rootfsbase,upperdir=/run/initramfs/overlay/overlayfs,workdir=/run/initramfs/"
		  "overlay/ovlwork): No such device");
	CHECK(fake_log_find(f, "mount /run/rootfsbase /sysroot - 0x2000 -") >= 0);
	stack_init_finish(f, &in, test_cur_failed);
}

int main(void)
{
	RUN(test_spec_forms);
	RUN(test_spec_hostile);
	RUN(test_off_does_nothing);
	RUN(test_tmpfs_sized);
	RUN(test_device_upper);
	RUN(test_device_missing_or_broken);
	RUN(test_overlay_refused);
	return test_done();
}
