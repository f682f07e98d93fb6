// SPDX-License-Identifier: GPL-2.0-or-later
/* rd.overlay (src/init/stages/overlayspec.c, overlay.c, overlaycrypt.c):
 * dracut-ng TEST-21's forms, each taken apart, then acted on over the
 * fake system: the root moved below, the upper layer a tmpfs (sized or
 * not), a device's filesystem or rd.overlay.crypt='s new LUKS device, a
 * missing or refused device falling back with a warning, and a failed
 * overlay mount giving the root back. */
#include <errno.h>
#include <string.h>

#include "err.h"
#include "fake_ops.h"
#include "init/init.h"
#include "init/stages/overlayspec.h"
#include "init/stages/overlayupper.h"
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

static void crypt_device(const char *value, const char *device, const char *warning)
{
	struct strv w = { 0 };
	char *d = overlay_crypt_device(value, &w);

	CHECK((!device && !d) || (device && d && !strcmp(device, d)));
	CHECK(warning ? w.n == 1 && !strcmp(w.v[0], warning) : w.n == 0);
	if (test_cur_failed)
		printf("# rd.overlay.crypt=%s: %s, %s\n", value ? value : "(none)", d ? d : "-",
		       w.n ? w.v[0] : "no warning");
	free(d);
	strv_free(&w);
}

static void test_crypt_spec(void)
{
	crypt_device(NULL, NULL, NULL);
	crypt_device("LABEL=CRYPT", "LABEL=CRYPT", NULL);
	crypt_device("/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_crypt",
		     "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_crypt", NULL);
	crypt_device("LABEL=CRYPT,mapname=x,fstype=xfs", "LABEL=CRYPT",
		     "rd.overlay.crypt=LABEL=CRYPT,mapname=x,fstype=xfs: ignoring \"mapname=x,"
		     "fstype=xfs\" (only the device is read)");
	crypt_device("", NULL, "rd.overlay.crypt=: not a device (LABEL=, UUID=, PARTLABEL=, "
		     "PARTUUID=, /dev/...): no encrypted upper layer");
	crypt_device("sdb", NULL, "rd.overlay.crypt=sdb: not a device (LABEL=, UUID=, PARTLABEL=, "
		     "PARTUUID=, /dev/...): no encrypted upper layer");
	crypt_device("LABEL=,x", NULL, "rd.overlay.crypt=LABEL=,x: not a device (LABEL=, UUID=, "
		     "PARTLABEL=, PARTUUID=, /dev/...): no encrypted upper layer");
}

static struct fake_ops *crypt_setup(struct init *in, bool tools)
{
	struct fake_ops *f = fake_ops_new();

	stack_script_start(f);
	if (tools) {
		fake_tool(f, "/usr/sbin/cryptsetup");
		fake_tool(f, "/usr/sbin/mkfs.ext4");
	}
	stack_init_start(in, f, "root=/dev/vda rd.overlay.crypt=LABEL=CRYPT", &stack_script_ops);
	fake_mkdir(f, "/run");
	fake_mkdir(f, "/dev");
	msgs_capture(LOG_INFO);
	device(in, "vda", "ext4", "dracut");
	free(in->root);
	in->root = xstrdup("vda");
	return f;
}

/* TEST-21 "encrypted overlay": rd.overlay.crypt= alone asks for the
 * overlay; the key goes on cryptsetup's stdin (the fake logs it) and to
 * no file, the header is marked for the next boot. */
static void test_crypt_upper(void)
{
	struct init in;
	struct fake_ops *f = crypt_setup(&in, true);
	int format, open, mkfs, mnt;

	device(&in, "sdb", "ext4", "CRYPT");
	CHECK(stage_overlay(&in) == 0);
	format = fake_log_find_prefix(f, "run /usr/sbin/cryptsetup cryptsetup luksFormat --batch-mode "
				      "--type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 "
				      "--subsystem uniramfs-overlay --key-file=- /dev/sdb --label CRYPT <",
				      0);
	open = fake_log_find_prefix(f, "run /usr/sbin/cryptsetup cryptsetup open --type luks2 "
				    "--key-file=- /dev/sdb overlay-crypt <", 0);
	mkfs = fake_log_find(f, "run /usr/sbin/mkfs.ext4 mkfs.ext4 -q -F /dev/mapper/overlay-crypt");
	mnt = fake_log_find(f, "mount /dev/mapper/overlay-crypt /run/overlayfs-backing ext4 0x400 -");
	CHECK(format >= 0 && open > format && mkfs > open && mnt > mkfs);
	/* one key, 64 bytes, the same for both */
	CHECK(format >= 0 && open >= 0 &&
	      !strcmp(strrchr(f->log.v[format], '<'), strrchr(f->log.v[open], '<')));
	CHECK(said("<4>rd.overlay.crypt=LABEL=CRYPT: formatting /dev/sdb as a new LUKS device with a "
		   "random key kept nowhere: what it held is lost, and what is written above the root "
		   "is lost at power-off\n"));
	CHECK(fake_log_find(f, "mount LiveOS_rootfs /sysroot overlay 0x0 lowerdir=/run/rootfsbase,"
			    "upperdir=/run/overlayfs-backing/overlay,"
			    "workdir=/run/overlayfs-backing/ovlwork") >= 0);
	stack_init_finish(f, &in, test_cur_failed);

	/* UUID=: the new header takes it, so the next boot finds it again */
	f = crypt_setup(&in, true);
	free(in.opt.overlay_crypt);
	in.opt.overlay_crypt = xstrdup("UUID=5f0c1a4e-1b2d-4c3e-9f10-000000000212");
	stack_device(&in, "sdb", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000212", NULL);
	CHECK(stage_overlay(&in) == 0);
	CHECK(fake_log_find_prefix(f, "run /usr/sbin/cryptsetup cryptsetup luksFormat --batch-mode "
				   "--type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --subsystem "
				   "uniramfs-overlay --key-file=- /dev/sdb --uuid "
				   "5f0c1a4e-1b2d-4c3e-9f10-000000000212 <", 0) >= 0);
	stack_init_finish(f, &in, test_cur_failed);

	/* a vfat serial is no LUKS UUID: none given, cryptsetup makes one */
	f = crypt_setup(&in, true);
	free(in.opt.overlay_crypt);
	in.opt.overlay_crypt = xstrdup("UUID=1234-ABCD");
	stack_device(&in, "sdb", "vfat", "1234-ABCD", NULL);
	CHECK(stage_overlay(&in) == 0);
	CHECK(fake_log_find_prefix(f, "run /usr/sbin/cryptsetup cryptsetup luksFormat --batch-mode "
				   "--type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --subsystem "
				   "uniramfs-overlay --key-file=- /dev/sdb <", 0) >= 0);
	stack_init_finish(f, &in, test_cur_failed);

	/* the device it made at the last boot: made anew */
	f = crypt_setup(&in, true);
	stack_luks2_header(f, "/dev/sdb", "{}");
	{
		char *p = fake_path(f, "/dev/sdb");
		FILE *fp = fopen(p, "r+b");
		CHECK(fp && fseek(fp, 208, SEEK_SET) == 0 && fputs("uniramfs-overlay", fp) >= 0);
		if (fp)
			fclose(fp);
		free(p);
	}
	device(&in, "sdb", "crypto_LUKS", "CRYPT");
	CHECK(stage_overlay(&in) == 0);
	CHECK(fake_log_find_prefix(f, "run /usr/sbin/cryptsetup cryptsetup luksFormat", 0) >= 0);
	stack_init_finish(f, &in, test_cur_failed);
}

/* Someone's LUKS device, the root's own disk, no tools, no device: never
 * formatted, a tmpfs above, said. */
static void test_crypt_refused(void)
{
	struct init in;
	struct fake_ops *f = crypt_setup(&in, true);

	stack_luks2_header(f, "/dev/sdb", "{}");
	device(&in, "sdb", "crypto_LUKS", "CRYPT");
	CHECK(stage_overlay(&in) == 0);
	CHECK(said("<4>rd.overlay.crypt=LABEL=CRYPT: not formatting /dev/sdb: it is a LUKS device "
		   "uniramfs did not make (left alone); the upper layer is a tmpfs\n"));
	CHECK(fake_log_count(f, "run ") == 0);
	CHECK(fake_log_find_prefix(f, "mount LiveOS_rootfs /sysroot overlay 0x0 lowerdir=/run/"
				   "rootfsbase,upperdir=/run/initramfs/overlay/overlayfs,", 0) >= 0);
	stack_init_finish(f, &in, test_cur_failed);

	f = crypt_setup(&in, true);
	free(in.opt.overlay_crypt);
	in.opt.overlay_crypt = xstrdup("LABEL=dracut"); /* the root's */
	CHECK(stage_overlay(&in) == 0);
	CHECK(said("<4>rd.overlay.crypt=LABEL=dracut: not formatting /dev/vda: it holds the root; "
		   "the upper layer is a tmpfs\n"));
	CHECK(fake_log_count(f, "run ") == 0);
	stack_init_finish(f, &in, test_cur_failed);

	f = crypt_setup(&in, false);
	device(&in, "sdb", "ext4", "CRYPT");
	CHECK(stage_overlay(&in) == 0);
	CHECK(said("<4>rd.overlay.crypt=LABEL=CRYPT: the image has no cryptsetup and mkfs.ext4 "
		   "(overlay-tools = yes); the upper layer is a tmpfs\n"));
	stack_init_finish(f, &in, test_cur_failed);

	f = crypt_setup(&in, true);
	CHECK(stage_overlay(&in) == 0);
	CHECK(said("<4>rd.overlay.crypt=LABEL=CRYPT: no such device; the upper layer is a tmpfs\n"));
	stack_init_finish(f, &in, test_cur_failed);

	/* an md member, an LVM PV: in use */
	f = crypt_setup(&in, true);
	device(&in, "sdb", "linux_raid_member", "CRYPT");
	fake_mkdir(f, "/sys/class/block/sdb/holders/md0");
	CHECK(stage_overlay(&in) == 0);
	CHECK(said("<4>rd.overlay.crypt=LABEL=CRYPT: not formatting /dev/sdb: it is in use (sysfs "
		   "names its holders); the upper layer is a tmpfs\n"));
	CHECK(fake_log_count(f, "run ") == 0);
	stack_init_finish(f, &in, test_cur_failed);

	/* cryptsetup fails: nothing mounted from it */
	f = crypt_setup(&in, true);
	device(&in, "sdb", "ext4", "CRYPT");
	stack_script.statuses[0] = 1;
	CHECK(stage_overlay(&in) == 0);
	CHECK(said("<4>rd.overlay.crypt=LABEL=CRYPT: cryptsetup failed on /dev/sdb (exit status 1); "
		   "the upper layer is a tmpfs\n"));
	CHECK(fake_log_count(f, "mount /dev/mapper") == 0);
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
	RUN(test_crypt_spec);
	RUN(test_crypt_upper);
	RUN(test_crypt_refused);
	return test_done();
}
