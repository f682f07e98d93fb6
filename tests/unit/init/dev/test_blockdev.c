// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "init/dev/blockdev.h"
#include "init/dev/registry.h"
#include "err.h"
#include "fake_ops.h"
#include "run_helpers.h"
#include "test.h"

#define UUID "0b3c2d4e-5f60-4172-8394-a5b6c7d8e9f0"
#define LABEL "my root/x y"
#define LABEL_ENC "my\\x20root\\x2fx\\x20y"
#define PARTUUID "6a1b2c3d-4e5f-4061-8273-94a5b6c7d8e9"
#define PARTLABEL "root part"

static bool have_tools(void)
{
	return system("command -v mkfs.ext4 >/dev/null && command -v sfdisk >/dev/null") == 0;
}

static void make_sized(const char *path, off_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, size) < 0)
		abort();
	close(fd);
}

/* /dev/vda: a GPT disk whose partition 1 ("root part") holds the ext4
 * that is also /dev/vda1, and the sysfs entries that tie them. */
static struct fake_ops *make_disk(void)
{
	struct fake_ops *f = fake_ops_new();
	fake_mkdir(f, "/dev");
	char *disk = fake_path(f, "/dev/vda"), *part = fake_path(f, "/dev/vda1");
	char *data = NULL;
	size_t len = 0;

	make_sized(part, 8 << 20);
	make_sized(disk, 10 << 20);
	CHECK(run_shf("mkfs.ext4 -q -F -L '%s' -U %s %s", LABEL, UUID, part) == 0);
	/* the x86-64 root type with the read-only attribute: root discovery's */
	CHECK(run_shf("printf 'label: gpt\\nstart=2048, size=16384, uuid=%s, name=\"%s\", "
		      "type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, attrs=\"GUID:60\"\\n' | "
		      "sfdisk -q --no-reread --no-tell-kernel %s", PARTUUID, PARTLABEL, disk) == 0);
	CHECK(read_file(part, &data, &len) == 0);
	int fd = open(disk, O_WRONLY | O_CLOEXEC);
	CHECK(fd >= 0 && pwrite(fd, data, len, 1 << 20) == (ssize_t)len);
	close(fd);
	free(data);
	free(disk);
	free(part);
	fake_write(f, "/sys/devices/virtual/block/vda/vda1/partition", "1\n");
	fake_symlink(f, "../../devices/virtual/block/vda/vda1", "/sys/class/block/vda1");
	fake_symlink(f, "../../devices/virtual/block/vda", "/sys/class/block/vda");
	return f;
}

static struct blockdev bd_new(const char *name, unsigned maj, unsigned min)
{
	struct blockdev bd = { .name = xstrdup(name), .major = maj, .minor = min };
	bd.devnode = xasprintf("/dev/%s", name);
	return bd;
}

static void test_probe_ext4_partition(void)
{
	if (!have_tools())
		SKIP("mkfs.ext4 or sfdisk missing");
	struct fake_ops *f = make_disk();
	struct blockdev bd = bd_new("vda1", 254, 1);

	CHECK(blockdev_probe(&f->ops, &bd) == 0);
	CHECK_STR(bd.type, "ext4");
	CHECK_STR(bd.uuid, UUID);
	CHECK_STR(bd.label, LABEL);
	/* the entry comes from the parent disk's GPT */
	CHECK_STR(bd.partuuid, PARTUUID);
	CHECK_STR(bd.partlabel, PARTLABEL);
	/* and its place on that disk, for PARTNROFF= */
	CHECK_STR(bd.disk, "vda");
	CHECK(bd.partno == 1);
	/* its type and attributes, for root discovery */
	CHECK_STR(bd.parttype, "4f68bce3-e8cd-4db1-96e7-fbcaf984b709");
	CHECK(bd.partflags == 1ULL << 60);
	blockdev_clear(&bd);
	CHECK(bd.name == NULL && bd.type == NULL && bd.disk == NULL && bd.parttype == NULL);
	fake_ops_free(f);
}

static void test_probe_disk_and_empty(void)
{
	if (!have_tools())
		SKIP("mkfs.ext4 or sfdisk missing");
	struct fake_ops *f = make_disk();
	struct blockdev bd = bd_new("vda", 254, 0);

	/* a partitioned disk: no filesystem, still a success */
	CHECK(blockdev_probe(&f->ops, &bd) == 0);
	CHECK(bd.type == NULL && bd.uuid == NULL && bd.label == NULL);
	CHECK(bd.partuuid == NULL && bd.partlabel == NULL);
	CHECK(bd.disk == NULL && bd.partno == 0);
	blockdev_clear(&bd);

	char *p = fake_path(f, "/dev/vdb");
	make_sized(p, 1 << 20);
	free(p);
	bd = bd_new("vdb", 254, 16);
	CHECK(blockdev_probe(&f->ops, &bd) == 0);
	CHECK(bd.type == NULL && bd.uuid == NULL);
	blockdev_clear(&bd);

	bd = bd_new("nope", 8, 0);
	CHECK(blockdev_probe(&f->ops, &bd) < 0);
	CHECK_STR(err_msg(), "cannot open /dev/nope for probing: No such file or directory");
	blockdev_clear(&bd);
	fake_ops_free(f);
}

static void check_link(struct fake_ops *f, const char *link, const char *target)
{
	char *got = fake_readlink(f, link);
	if (!got || strcmp(got, target) != 0)
		printf("# %s -> %s, expected %s\n", link, got ? got : "(none)", target);
	CHECK(got && strcmp(got, target) == 0);
	free(got);
}

static void test_links(void)
{
	if (!have_tools())
		SKIP("mkfs.ext4 or sfdisk missing");
	struct fake_ops *f = make_disk();
	struct blockdev bd = bd_new("vda1", 254, 1);

	/* an older device had the same UUID: the link moves to ours */
	fake_symlink(f, "../../sdz1", "/dev/disk/by-uuid/" UUID);
	CHECK(blockdev_probe(&f->ops, &bd) == 0);
	CHECK(blockdev_make_links(&f->ops, &bd) == 0);
	check_link(f, "/dev/disk/by-uuid/" UUID, "../../vda1");
	check_link(f, "/dev/disk/by-label/" LABEL_ENC, "../../vda1");
	check_link(f, "/dev/disk/by-partuuid/" PARTUUID, "../../vda1");
	check_link(f, "/dev/disk/by-partlabel/root\\x20part", "../../vda1");
	CHECK(fake_log_find(f, "symlink ../../vda1 /dev/disk/by-label/" LABEL_ENC) >= 0);
	CHECK(fake_log_find(f, "unlink /dev/disk/by-uuid/" UUID) >= 0);

	/* the names are udev's: blkid's ID_FS_LABEL_ENC for the same image */
	char *part = fake_path(f, "/dev/vda1"), *out = fake_path(f, "/udev.txt"), *txt = NULL;
	CHECK(run_shf("blkid -p -o udev %s > %s", part, out) == 0);
	CHECK(read_file(out, &txt, NULL) == 0);
	CHECK(txt && strstr(txt, "ID_FS_LABEL_ENC=" LABEL_ENC "\n"));
	free(txt);
	free(part);
	free(out);

	/* a device with nothing to link makes nothing */
	fake_log_clear(f);
	struct blockdev empty = bd_new("vdb", 254, 16);
	CHECK(blockdev_make_links(&f->ops, &empty) == 0);
	CHECK(f->log.n == 0);
	blockdev_clear(&empty);

	/* a failing symlink is reported */
	fake_fail(f, "symlink", "/dev/disk/by-partuuid/" PARTUUID, EROFS);
	CHECK(blockdev_make_links(&f->ops, &bd) < 0);
	CHECK_STR(err_msg(), "cannot link /dev/disk/by-partuuid/" PARTUUID
			     " to ../../vda1: Read-only file system");
	blockdev_clear(&bd);
	fake_ops_free(f);
}

/* by-id and by-path: the names persistname computes from sysfs (its own
 * test compares them with udev's), made as links and matched exactly. */
static void test_persistent_names(void)
{
	if (!have_tools())
		SKIP("mkfs.ext4 or sfdisk missing");
	struct fake_ops *f = make_disk();
	struct blockdev bd = bd_new("vda1", 254, 1);

	fake_write(f, "/sys/devices/virtual/block/vda/uevent", "MAJOR=254\nMINOR=0\nDEVTYPE=disk\n");
	fake_write(f, "/sys/devices/virtual/block/vda/serial", "SER 1\n");
	CHECK(blockdev_probe(&f->ops, &bd) == 0);
	CHECK(bd.names.by_id.n == 1 && bd.names.by_path.n == 0);
	CHECK_STR(bd.names.by_id.n ? bd.names.by_id.v[0] : NULL, "virtio-SER_1-part1");
	CHECK(blockdev_matches(&bd, "/dev/disk/by-id/virtio-SER_1-part1"));
	CHECK(!blockdev_matches(&bd, "/dev/disk/by-id/virtio-SER 1-part1"));
	CHECK(blockdev_make_links(&f->ops, &bd) == 0);
	check_link(f, "/dev/disk/by-id/virtio-SER_1-part1", "../../vda1");
	/* probed again (a change event): the names are not doubled */
	CHECK(blockdev_probe(&f->ops, &bd) == 0);
	CHECK(bd.names.by_id.n == 1);
	blockdev_clear(&bd);
	fake_ops_free(f);

	/* udev keeps a '/' of a serial, making a directory: so do we */
	f = fake_ops_new();
	fake_mkdir(f, "/dev");
	bd = bd_new("vdb", 254, 16);
	strv_push(&bd.names.by_id, "virtio-odd_ser/1");
	strv_push(&bd.names.by_path, "pci-0000:00:03.0");
	CHECK(blockdev_make_links(&f->ops, &bd) == 0);
	check_link(f, "/dev/disk/by-id/virtio-odd_ser/1", "../../../vdb");
	check_link(f, "/dev/disk/by-path/pci-0000:00:03.0", "../../vdb");
	/* and a failure is the device's */
	fake_fail(f, "symlink", "/dev/disk/by-path/pci-0000:00:03.0", EROFS);
	CHECK(blockdev_make_links(&f->ops, &bd) < 0);
	CHECK_STR(err_msg(), "cannot link /dev/disk/by-path/pci-0000:00:03.0 to ../../vdb: "
			     "Read-only file system");
	blockdev_clear(&bd);
	fake_ops_free(f);
}

static const char *const valid_no_match[] = {
	"/dev/vda", "/dev/vda10", "/dev/mapper/vg-root", "UUID=0b3c2d4e-0000-0000-0000-000000000000",
	"LABEL=My root/x y", "LABEL=my", "PARTLABEL=root", "PARTLABEL=ROOT PART",
	"UUID=\"" UUID, "LABEL=\"" LABEL "'",
	"PARTUUID=6a1b2c3d-4e5f-4061-8273-94a5b6c7d8e0", "254:0", "255:1", "8:1", "fe00",
	"0801", "/dev/disk/by-label/my root", ("/dev/disk/by-uuid/" PARTUUID),
	"/dev/disk/by-id/virtio-abc", "/dev/disk/by-path/pci-0000:00:04.0",
	"/dev/disk/by-id/virtio-ser1-part1", "/dev/disk/by-id/virtio-a/b",
	"/dev/disk/by-path/virtio-SER1-part1", "WWID=virtio-abc", "HWPATH=pci-0000:00:04.0",
	/* the neighbours answer these (registry_match), never the device */
	"PARTUUID=" PARTUUID "/PARTNROFF=0", "PARTUUID=" PARTUUID "/PARTNROFF=2",
	"block:PARTUUID=" PARTUUID "/PARTNROFF=-1",
};

static const char *const invalid[] = {
	"", "UUID=", "LABEL=", "sda1", "vda1", "PARTUUID=/PARTNROFF=1",
	"PARTUUID=" PARTUUID "/PARTNROFF=", "PARTUUID=" PARTUUID "/PARTNROFF=x",
	"PARTUUID=" PARTUUID "/PARTNROFF=1x", "PARTUUID=" PARTUUID "/PARTNROFF=-",
	"PARTUUID=" PARTUUID "/PARTNROFF=99999999999", "PARTUUID=a/b/PARTNROFF=1",
	"PARTUUID=" PARTUUID "/PARTNROFF= 1", "LABEL=x/PARTNROFF=1", "WWID=", "HWPATH=",
	"WWID=a/../b", "HWPATH=..",
	"/dev/disk/by-id/", "/dev/disk/by-path/", "/dev/disk/by-id/a/../b", "/dev/disk/by-id/a//b",
	"/dev/disk/by-id/..", "/dev/disk/by-diskseq/1", "/dev/",
	"/dev/disk/by-label/my root/x y", "8:", ":1", "zz", "4096:1", "8:1048576", "-1",
	"254:1:0", "UUID=\"\"", "LABEL=''", "PARTUUID=\"" PARTUUID "/PARTNROFF=1\"",
};

static const char *const matching[] = {
	"/dev/vda1", "block:/dev/vda1", "UUID=" UUID, "UUID=0B3C2D4E-5F60-4172-8394-A5B6C7D8E9F0",
	"LABEL=" LABEL, "LABEL=" LABEL_ENC, "PARTUUID=" PARTUUID,
	"PARTUUID=6A1B2C3D-4E5F-4061-8273-94A5B6C7D8E9", "PARTLABEL=" PARTLABEL,
	"PARTLABEL=root\\x20part", "254:1", "fe01", "FE01", "/dev/disk/by-uuid/" UUID,
	"/dev/disk/by-label/" LABEL_ENC, "/dev/disk/by-partuuid/" PARTUUID,
	"/dev/disk/by-partlabel/root\\x20part", "/dev/disk/by-id/virtio-SER1-part1",
	"block:/dev/disk/by-path/pci-0000:00:04.0-part1", "/dev/disk/by-id/virtio-odd_ser/1-part1",
	"UUID=\"" UUID "\"", "LABEL='" LABEL "'", "PARTUUID=\"" PARTUUID "\"",
	"PARTLABEL=\"" PARTLABEL "\"", "WWID=virtio-SER1-part1", "HWPATH=pci-0000:00:04.0-part1",
	"block:WWID=virtio-odd_ser/1-part1",
};

static void test_matches_every_form(void)
{
	struct blockdev bd = bd_new("vda1", 254, 1);
	bd.type = xstrdup("ext4");
	bd.uuid = xstrdup(UUID);
	bd.label = xstrdup(LABEL);
	bd.partuuid = xstrdup(PARTUUID);
	bd.partlabel = xstrdup(PARTLABEL);
	strv_push(&bd.names.by_id, "virtio-SER1-part1");
	strv_push(&bd.names.by_id, "virtio-odd_ser/1-part1");
	strv_push(&bd.names.by_path, "pci-0000:00:04.0-part1");

	for (size_t i = 0; i < ARRAY_SIZE(matching); i++) {
		bool ok = blockdev_spec_valid(matching[i]) && blockdev_matches(&bd, matching[i]);
		if (!ok)
			printf("# should match: '%s'\n", matching[i]);
		CHECK(ok);
	}
	for (size_t i = 0; i < ARRAY_SIZE(valid_no_match); i++) {
		bool ok = blockdev_spec_valid(valid_no_match[i]) &&
			  !blockdev_matches(&bd, valid_no_match[i]);
		if (!ok)
			printf("# should be valid and not match: '%s'\n", valid_no_match[i]);
		CHECK(ok);
	}
	for (size_t i = 0; i < ARRAY_SIZE(invalid); i++) {
		bool ok = !blockdev_spec_valid(invalid[i]) && !blockdev_matches(&bd, invalid[i]);
		if (!ok)
			printf("# should be invalid: '%s'\n", invalid[i]);
		CHECK(ok);
	}
	CHECK(!blockdev_spec_valid(NULL));
	blockdev_clear(&bd);

	/* the kernel's old hex form decodes as new_decode_dev does */
	struct blockdev sda = bd_new("sda1", 8, 1), nvme = bd_new("nvme0n1", 259, 0);
	CHECK(blockdev_matches(&sda, "0801"));
	CHECK(blockdev_matches(&sda, "801"));
	CHECK(blockdev_matches(&sda, "0x801")); /* simple_strtoul takes 0x too */
	CHECK(blockdev_matches(&sda, "8:1"));
	CHECK(!blockdev_matches(&sda, "UUID=" UUID)); /* no UUID at all */
	CHECK(blockdev_matches(&nvme, "10300"));
	CHECK(blockdev_matches(&nvme, "259:0"));
	CHECK(!blockdev_matches(&nvme, "0300"));
	blockdev_clear(&sda);
	blockdev_clear(&nvme);
}

/* booster's own WWID= and HWPATH= names match by those spellings only:
 * /dev/disk/by-id/ and by-path/ are udev's links, which booster's names
 * are not. */
static void test_matches_booster_names(void)
{
	struct blockdev bd = bd_new("sda3", 8, 3);
	strv_push(&bd.names.by_id, "scsi-0QEMU_QEMU_HARDDISK_bd0-part3");
	strv_push(&bd.names.by_path, "pci-0000:00:04.0-scsi-0:0:0:0-part3");
	strv_push(&bd.names.booster_wwid, "scsi-QEMU_QEMU_HARDDISK_-0:0-part3");
	strv_push(&bd.names.booster_hwpath, "pci-0000:00:04.0-scsi-2:0:0:0-part3");

	CHECK(blockdev_matches(&bd, "WWID=scsi-QEMU_QEMU_HARDDISK_-0:0-part3"));
	CHECK(blockdev_matches(&bd, "WWID=scsi-0QEMU_QEMU_HARDDISK_bd0-part3"));
	CHECK(blockdev_matches(&bd, "HWPATH=pci-0000:00:04.0-scsi-2:0:0:0-part3"));
	CHECK(blockdev_matches(&bd, "HWPATH=pci-0000:00:04.0-scsi-0:0:0:0-part3"));
	CHECK(!blockdev_matches(&bd, "/dev/disk/by-id/scsi-QEMU_QEMU_HARDDISK_-0:0-part3"));
	CHECK(!blockdev_matches(&bd, "/dev/disk/by-path/pci-0000:00:04.0-scsi-2:0:0:0-part3"));
	CHECK(!blockdev_matches(&bd, "HWPATH=scsi-QEMU_QEMU_HARDDISK_-0:0-part3"));
	blockdev_clear(&bd);
}

static void test_partnroff_parse(void)
{
	char *u = NULL;
	int off = 0;

	CHECK(blockdev_partnroff("PARTUUID=" PARTUUID "/PARTNROFF=2", &u, &off));
	CHECK_STR(u, PARTUUID);
	CHECK(off == 2);
	free(u);
	CHECK(blockdev_partnroff("block:PARTUUID=ABC/PARTNROFF=-3", &u, &off));
	CHECK_STR(u, "ABC");
	CHECK(off == -3);
	free(u);
	CHECK(blockdev_partnroff("PARTUUID=x/PARTNROFF=1", NULL, NULL));
	CHECK(!blockdev_partnroff("PARTUUID=" PARTUUID, &u, &off));
	CHECK(!blockdev_partnroff("PARTLABEL=x/PARTNROFF=1", &u, &off));
	CHECK(!blockdev_partnroff(NULL, &u, &off));

	struct blockdev a = bd_new("sda1", 8, 1), b = bd_new("sda3", 8, 3), c = bd_new("sdb3", 8, 19);
	a.disk = xstrdup("sda");
	a.partno = 1;
	b.disk = xstrdup("sda");
	b.partno = 3;
	c.disk = xstrdup("sdb");
	c.partno = 3;
	CHECK(blockdev_is_offset_of(&b, &a, 2));
	CHECK(blockdev_is_offset_of(&a, &b, -2));
	CHECK(!blockdev_is_offset_of(&b, &a, 1));
	CHECK(!blockdev_is_offset_of(&c, &a, 2)); /* another disk */
	CHECK(blockdev_is_offset_of(&a, &a, 0));
	free(a.disk);
	a.disk = NULL; /* a whole disk is no partition */
	CHECK(!blockdev_is_offset_of(&b, &a, 2));
	blockdev_clear(&a);
	blockdev_clear(&b);
	blockdev_clear(&c);
}

static void note_device(void *arg, enum dev_change what, const struct blockdev *bd)
{
	buf_printf(arg, "%s %s %s;", what == DEV_ADDED ? "added" : "changed", bd->name,
		   bd->type ? bd->type : "-");
}

static void loop_event(struct registry *r, const char *action, const char *name, unsigned min)
{
	struct uevent ev = { .action = action, .subsystem = "block", .devname = name,
			     .major = 7, .minor = min };
	registry_event(r, &ev);
}

/* Three loop devices holding one ext4: an empty one (size 0: nothing
 * to probe, until the change event when a file is attached), one the
 * init made for itself (never told), and one in use. */
static void test_registry_empty_and_ignored(void)
{
	if (!have_tools())
		SKIP("mkfs.ext4 or sfdisk missing");
	struct fake_ops *f = fake_ops_new();
	struct registry r;
	struct buf seen = { 0 };
	char *dev;

	fake_mkdir(f, "/dev");
	for (int i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "/dev/loop%d", i);
		dev = fake_path(f, name);
		make_sized(dev, 8 << 20);
		CHECK(run_shf("mkfs.ext4 -q -F %s", dev) == 0);
		free(dev);
	}
	fake_write(f, "/sys/class/block/loop0/size", "0\n");
	fake_write(f, "/sys/class/block/loop1/size", "16384\n");
	fake_write(f, "/sys/class/block/loop2/size", "16384\n");
	registry_init(&r, &f->ops);
	registry_subscribe(&r, note_device, &seen);
	registry_ignore(&r, "loop1");
	loop_event(&r, "add", "loop0", 0);
	loop_event(&r, "add", "loop1", 1);
	loop_event(&r, "add", "loop2", 2);
	fake_write(f, "/sys/class/block/loop0/size", "16384\n");
	loop_event(&r, "change", "loop0", 0);
	loop_event(&r, "change", "loop1", 1);
	CHECK_STR(seen.p, "added loop0 -;added loop2 ext4;changed loop0 ext4;");
	CHECK(r.n == 2 && registry_get(&r, "loop1") == NULL);
	registry_free(&r);
	buf_free(&seen);
	fake_ops_free(f);
}

#define P1 "11111111-2222-4333-8444-000000000001"
#define P3 "11111111-2222-4333-8444-000000000003"

static void part_event(struct registry *r, const char *name, unsigned min)
{
	struct uevent ev = { .action = "add", .subsystem = "block", .devname = name,
			     .devtype = "partition", .major = 8, .minor = min };
	registry_event(r, &ev);
}

/* PARTUUID=U/PARTNROFF=N: sdc's table has three partitions; the one
 * named comes last, and the answer is its neighbour on the same disk. */
static void test_registry_partnroff(void)
{
	if (!have_tools())
		SKIP("mkfs.ext4 or sfdisk missing");
	struct fake_ops *f = fake_ops_new();
	struct registry r;
	const struct blockdev *got;
	char *disk;

	fake_mkdir(f, "/dev");
	disk = fake_path(f, "/dev/sdc");
	make_sized(disk, 8 << 20);
	CHECK(run_shf("printf 'label: gpt\\nsize=2048, uuid=%s\\nsize=2048\\nsize=2048, uuid=%s\\n' | "
		 "sfdisk -q --no-reread --no-tell-kernel %s", P1, P3, disk) == 0);
	free(disk);
	for (int i = 1; i <= 3; i++) {
		char name[16], path[64], link[64];

		snprintf(name, sizeof(name), "/dev/sdc%d", i);
		disk = fake_path(f, name);
		make_sized(disk, 1 << 20);
		free(disk);
		snprintf(path, sizeof(path), "/sys/devices/virtual/block/sdc/sdc%d/partition", i);
		fake_write(f, path, i == 1 ? "1\n" : i == 2 ? "2\n" : "3\n");
		snprintf(link, sizeof(link), "../../devices/virtual/block/sdc/sdc%d", i);
		snprintf(path, sizeof(path), "/sys/class/block/sdc%d", i);
		fake_symlink(f, link, path);
	}
	registry_init(&r, &f->ops);
	part_event(&r, "sdc3", 35);
	part_event(&r, "sdc2", 34);
	/* the named partition not there yet: nothing */
	CHECK(registry_match(&r, "PARTUUID=" P1 "/PARTNROFF=2") == NULL);
	part_event(&r, "sdc1", 33);
	got = registry_match(&r, "PARTUUID=" P1 "/PARTNROFF=2");
	CHECK_STR(got ? got->name : NULL, "sdc3");
	got = registry_match(&r, "PARTUUID=" P3 "/PARTNROFF=-1");
	CHECK_STR(got ? got->name : NULL, "sdc2");
	got = registry_match(&r, "PARTUUID=" P1 "/PARTNROFF=0");
	CHECK_STR(got ? got->name : NULL, "sdc1");
	/* a subscriber told of sdc1 (the last to come) is pointed at sdc3;
	 * a spec the device answers itself is the device */
	got = registry_named(&r, registry_get(&r, "sdc1"), "PARTUUID=" P1 "/PARTNROFF=2");
	CHECK_STR(got ? got->name : NULL, "sdc3");
	got = registry_named(&r, registry_get(&r, "sdc1"), "PARTUUID=" P1);
	CHECK_STR(got ? got->name : NULL, "sdc1");
	CHECK(registry_named(&r, registry_get(&r, "sdc2"), "PARTUUID=" P1) == NULL);
	/* past the table's end, or a held neighbour: nothing */
	CHECK(registry_match(&r, "PARTUUID=" P1 "/PARTNROFF=3") == NULL);
	registry_claim(&r, "sdc3");
	CHECK(registry_match(&r, "PARTUUID=" P1 "/PARTNROFF=2") == NULL);
	registry_free(&r);
	fake_ops_free(f);
}

int main(void)
{
	RUN(test_probe_ext4_partition);
	RUN(test_probe_disk_and_empty);
	RUN(test_links);
	RUN(test_persistent_names);
	RUN(test_matches_every_form);
	RUN(test_matches_booster_names);
	RUN(test_registry_empty_and_ignored);
	RUN(test_partnroff_parse);
	RUN(test_registry_partnroff);
	return test_done();
}
