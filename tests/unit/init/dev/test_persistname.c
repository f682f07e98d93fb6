// SPDX-License-Identifier: GPL-2.0-or-later
/* persistname against udev itself: tests/unit/fixtures/persistname/CTRL
 * holds the sysfs files of one controller's disks, captured in a Debian 12
 * guest (kernel 6.1, systemd-udevd 252) under QEMU, and udev/NAME.txt,
 * `udevadm info` of each block device there (see README there). Each
 * device's by-id and by-path names must be exactly udev's "S:" lines, but
 * for those its missing.txt lists. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "init/dev/persistname.h"
#include "test.h"
#include "util.h"

static char *fixture_root; /* the fake / of the current fixture */

static char *fix_path(const char *p)
{
	return xasprintf("%s%s", fixture_root, p);
}

static const struct sysops fix_ops = { .path = fix_path };

static char *fixtures_dir(void)
{
	const char *src = getenv("UNIRAMFS_SRCDIR");
	return xasprintf("%s/tests/unit/fixtures/persistname", src ? src : ".");
}

static char *joined(struct strv *v)
{
	struct buf b = { 0 };

	strv_sort_uniq(v);
	buf_append(&b, "", 0);
	for (size_t i = 0; i < v->n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", v->v[i]);
	return b.p;
}

/* udevadm info's "S: disk/by-id/X" and "S: disk/by-path/X" lines. */
static void udev_names(const char *file, struct strv *id, struct strv *path)
{
	char *data = NULL;
	struct strv lines = { 0 };

	if (read_file(file, &data, NULL) < 0) {
		printf("# cannot read %s\n", file);
		test_cur_failed++;
		return;
	}
	strv_split(&lines, data, "\n");
	for (size_t i = 0; i < lines.n; i++) {
		if (str_has_prefix(lines.v[i], "S: disk/by-id/"))
			strv_push(id, lines.v[i] + strlen("S: disk/by-id/"));
		else if (str_has_prefix(lines.v[i], "S: disk/by-path/"))
			strv_push(path, lines.v[i] + strlen("S: disk/by-path/"));
	}
	strv_free(&lines);
	free(data);
}

static const char *cur_fixture;
static int devices_checked, names_missing;

/* missing.txt: "NAME by-id|by-path LINK" lines, names udev gives that we
 * knowingly do not (docs/cmdline.md says which and why). Each must be
 * among udev's, so the list stays true; it is then not expected. */
static void drop_missing(const char *name, struct strv *id, struct strv *path)
{
	char *file = xasprintf("%s/missing.txt", fixture_root), *data = NULL;
	struct strv lines = { 0 };

	if (read_file(file, &data, NULL) == 0)
		strv_split(&lines, data, "\n");
	for (size_t i = 0; i < lines.n; i++) {
		struct strv f = { 0 };
		strv_split(&f, lines.v[i], " ");
		if (f.n == 3 && !strcmp(f.v[0], name)) {
			struct strv *v = !strcmp(f.v[1], "by-id") ? id : path;
			size_t j = 0;
			while (j < v->n && strcmp(v->v[j], f.v[2]))
				j++;
			if (j == v->n)
				printf("# %s: %s %s is not udev's\n", name, f.v[1], f.v[2]);
			CHECK(j < v->n);
			if (j < v->n) {
				free(v->v[j]);
				v->v[j] = v->v[--v->n];
				v->v[v->n] = NULL;
				names_missing++;
			}
		}
		strv_free(&f);
	}
	strv_free(&lines);
	free(data);
	free(file);
}

/* Every device of one fixture, compared with udev. */
static void check_fixture(void)
{
	char *top = fixtures_dir(), *udevdir = xasprintf("%s/%s/udev", top, cur_fixture);
	DIR *d = opendir(udevdir);
	struct dirent *de;

	fixture_root = xasprintf("%s/%s", top, cur_fixture);
	CHECK(d != NULL);
	while (d && (de = readdir(d))) {
		if (!str_has_suffix(de->d_name, ".txt"))
			continue;
		char *name = xstrndup(de->d_name, strlen(de->d_name) - 4);
		char *file = xasprintf("%s/%s", udevdir, de->d_name);
		struct strv want_id = { 0 }, want_path = { 0 };
		struct persistnames pn;

		udev_names(file, &want_id, &want_path);
		drop_missing(name, &want_id, &want_path);
		CHECK(persistname_get(&fix_ops, name, &pn) == 0);
		char *a = joined(&pn.by_id), *b = joined(&want_id);
		char *c = joined(&pn.by_path), *e = joined(&want_path);
		printf("# %s/%s by-id: %s\n# %s/%s by-path: %s\n", cur_fixture, name, a,
		       cur_fixture, name, c);
		CHECK_STR(a, b);
		CHECK_STR(c, e);
		devices_checked++;
		free(a);
		free(b);
		free(c);
		free(e);
		persistnames_free(&pn);
		strv_free(&want_id);
		strv_free(&want_path);
		free(file);
		free(name);
	}
	if (d)
		closedir(d);
	free(fixture_root);
	fixture_root = NULL;
	free(udevdir);
	free(top);
}

static void test_not_in_sysfs(void)
{
	char *top = fixtures_dir();
	struct persistnames pn;

	fixture_root = xasprintf("%s/virtio-blk", top);
	CHECK(persistname_get(&fix_ops, "vdq", &pn) == -ENOENT);
	CHECK(pn.by_id.n == 0 && pn.by_path.n == 0);
	persistnames_free(&pn);
	free(fixture_root);
	fixture_root = NULL;
	free(top);
}

static void put(const char *path, const void *data, size_t len)
{
	char *full = xasprintf("%s%s", fixture_root, path), *dir = xstrdup(full);

	*strrchr(dir, '/') = '\0';
	CHECK(mkdir_p(dir, 0755) == 0);
	FILE *f = fopen(full, "w");
	CHECK(f && fwrite(data, 1, len, f) == len);
	if (f)
		fclose(f);
	free(dir);
	free(full);
}

static void put_str(const char *path, const char *s)
{
	put(path, s, strlen(s));
}

static void put_link(const char *target, const char *path)
{
	char *full = xasprintf("%s%s", fixture_root, path), *dir = xstrdup(full);

	*strrchr(dir, '/') = '\0';
	CHECK(mkdir_p(dir, 0755) == 0);
	CHECK(symlink(target, full) == 0);
	free(dir);
	free(full);
}

#define PCI "/sys/devices/pci0000:00/0000:00:04.0"
#define SDEV PCI "/virtio1/host0/target0:0:0/0:0:0:0"

/* Values no real device has: a serial climbing out of /dev/disk, VPD
 * pages whose lengths point past their end, an ATA page cut short. */
static void test_hostile(void)
{
	char tmpl[] = "/tmp/persistname-XXXXXX";
	struct persistnames pn;
	unsigned char pg83[64] = { 0, 0x83, 0xff, 0xff, 0x02, 0x00, 0x00, 0xff, 'A' };
	unsigned char pg89[100] = { 0, 0x89, 0x02, 0x38 };

	CHECK(mkdtemp(tmpl) != NULL);
	fixture_root = tmpl;
	put_str(PCI "/uevent", "PCI_SLOT_NAME=0000:00:04.0\n");
	put_link("../../../bus/pci", PCI "/subsystem");
	put_str(PCI "/virtio0/uevent", "");
	put_link("../../../../bus/virtio", PCI "/virtio0/subsystem");
	put_str(PCI "/virtio0/block/vda/uevent", "DEVTYPE=disk\n");
	put_str(PCI "/virtio0/block/vda/serial", "../../../x\n");
	put_link("../../devices/pci0000:00/0000:00:04.0/virtio0/block/vda", "/sys/class/block/vda");
	CHECK(persistname_get(&fix_ops, "vda", &pn) == 0);
	CHECK(pn.by_id.n == 0);
	CHECK(pn.by_path.n == 2); /* the path is still good */
	persistnames_free(&pn);

	put_str(PCI "/virtio1/uevent", "");
	put_link("../../../../bus/virtio", PCI "/virtio1/subsystem");
	put_str(PCI "/virtio1/host0/uevent", "DEVTYPE=scsi_host\n");
	put_link("../../../../../bus/scsi", PCI "/virtio1/host0/subsystem");
	put_str(PCI "/virtio1/host0/target0:0:0/uevent", "DEVTYPE=scsi_target\n");
	put_link("../../../../../../bus/scsi", PCI "/virtio1/host0/target0:0:0/subsystem");
	put_str(SDEV "/uevent", "DEVTYPE=scsi_device\n");
	put_link("../../../../../../../bus/scsi", SDEV "/subsystem");
	put_str(SDEV "/vendor", "QEMU    \n");
	put_str(SDEV "/model", "QEMU HARDDISK   \n");
	put(SDEV "/vpd_pg83", pg83, sizeof(pg83));
	put_str(SDEV "/block/sda/uevent", "DEVTYPE=disk\n");
	put_link("../../devices/pci0000:00/0000:00:04.0/virtio1/host0/target0:0:0/0:0:0:0/block/sda",
		 "/sys/class/block/sda");
	CHECK(persistname_get(&fix_ops, "sda", &pn) == 0);
	CHECK(pn.by_id.n == 0 && pn.by_path.n == 1);
	persistnames_free(&pn);

	/* libata's vendor, a page 0x89 too short for the IDENTIFY data:
	 * no ata- name, and no scsi- one in its place */
	put_str(SDEV "/vendor", "ATA     \n");
	put(SDEV "/vpd_pg89", pg89, sizeof(pg89));
	CHECK(persistname_get(&fix_ops, "sda", &pn) == 0);
	CHECK(pn.by_id.n == 0);
	persistnames_free(&pn);

	char *rm = xasprintf("rm -rf %s", tmpl);
	CHECK(system(rm) == 0);
	free(rm);
	fixture_root = NULL;
}

#define ISESS "/sys/devices/platform/host2/session1"
#define IDEV ISESS "/target2:0:0/2:0:0:1"

/* A software iSCSI session (iscsi_tcp: its host hangs off the platform
 * bus, no controller): path_id's ip-ADDRESS:PORT-iscsi-TARGET-lun-LUN,
 * what root=iscsi:… stands for. The layout is the kernel's. */
static void test_iscsi_path(void)
{
	char tmpl[] = "/tmp/persistname-XXXXXX";
	struct persistnames pn;

	CHECK(mkdtemp(tmpl) != NULL);
	fixture_root = tmpl;
	put_str("/sys/devices/platform/host2/uevent", "DEVTYPE=scsi_host\n");
	put_link("../../../bus/scsi", "/sys/devices/platform/host2/subsystem");
	put_str(ISESS "/uevent", "");
	put_str(ISESS "/iscsi_session/session1/targetname", "iqn.2003-01.org.example:root\n");
	put_link("../../devices/platform/host2/session1/iscsi_session/session1",
		 "/sys/class/iscsi_session/session1");
	put_str(ISESS "/connection1:0/iscsi_connection/connection1:0/persistent_address",
		"10.0.2.100\n");
	put_str(ISESS "/connection1:0/iscsi_connection/connection1:0/persistent_port", "3260\n");
	put_link("../../devices/platform/host2/session1/connection1:0/iscsi_connection/connection1:0",
		 "/sys/class/iscsi_connection/connection1:0");
	put_str(ISESS "/target2:0:0/uevent", "DEVTYPE=scsi_target\n");
	put_link("../../../../../bus/scsi", ISESS "/target2:0:0/subsystem");
	put_str(IDEV "/uevent", "DEVTYPE=scsi_device\n");
	put_link("../../../../../../bus/scsi", IDEV "/subsystem");
	put_str(IDEV "/vendor", "LIO-ORG \n");
	put_str(IDEV "/model", "root            \n");
	put_str(IDEV "/block/sda/uevent", "DEVTYPE=disk\n");
	put_str(IDEV "/block/sda/sda1/uevent", "DEVTYPE=partition\n");
	put_str(IDEV "/block/sda/sda1/partition", "1\n");
	put_link("../../devices/platform/host2/session1/target2:0:0/2:0:0:1/block/sda",
		 "/sys/class/block/sda");
	put_link("../../devices/platform/host2/session1/target2:0:0/2:0:0:1/block/sda/sda1",
		 "/sys/class/block/sda1");
	CHECK(persistname_get(&fix_ops, "sda", &pn) == 0);
	CHECK(pn.by_path.n == 1);
	if (pn.by_path.n)
		CHECK_STR(pn.by_path.v[0], "ip-10.0.2.100:3260-iscsi-iqn.2003-01.org.example:root-lun-1");
	persistnames_free(&pn);
	CHECK(persistname_get(&fix_ops, "sda1", &pn) == 0);
	CHECK(pn.by_path.n == 1);
	if (pn.by_path.n)
		CHECK_STR(pn.by_path.v[0],
			  "ip-10.0.2.100:3260-iscsi-iqn.2003-01.org.example:root-lun-1-part1");
	persistnames_free(&pn);

	char *rm = xasprintf("rm -rf %s", tmpl);
	CHECK(system(rm) == 0);
	free(rm);
	fixture_root = NULL;
}

/* booster's names (its init/wwid.go and hwpath.go) on the captured disks:
 * what its WWID= and HWPATH= spell where udev's differ. */
static void booster_names(const char *fixture, const char *name, const char *wwid,
			  const char *hwpath)
{
	char *top = fixtures_dir();
	struct persistnames pn;

	fixture_root = xasprintf("%s/%s", top, fixture);
	CHECK(persistname_get(&fix_ops, name, &pn) == 0);
	char *a = joined(&pn.booster_wwid), *b = joined(&pn.booster_hwpath);
	printf("# %s/%s booster: %s | %s\n", fixture, name, a, b);
	CHECK_STR(a, wwid);
	CHECK_STR(b, hwpath);
	free(a);
	free(b);
	persistnames_free(&pn);
	free(fixture_root);
	fixture_root = NULL;
	free(top);
}

static void test_booster(void)
{
	/* the unit serial page as it is; the host number 0: udev's path */
	booster_names("virtio-scsi", "sda", "scsi-QEMU_QEMU_HARDDISK_SCSI-SER1-0:0", "");
	/* no serial page: an empty serial; the second controller's host 1,
	 * which udev counts as 0; target and LUN 2:3 written as 0:0 */
	booster_names("virtio-scsi-cdrom", "sda", "scsi-QEMU_QEMU_HARDDISK_-0:0",
		      "pci-0000:00:05.0-scsi-1:0:2:3");
	/* a drive and a USB disk: udev's WWID (see persistname_booster.c),
	 * the kernel's host number still */
	booster_names("virtio-scsi-cdrom", "sr0", "", "pci-0000:00:05.0-scsi-1:0:0:0");
	booster_names("usb-storage", "sde", "", "pci-0000:00:06.0-usb-0:1:1.0-scsi-7:0:0:0");
	/* libata and virtio: booster's names are udev's */
	booster_names("sata-ahci", "sdc", "", "");
	booster_names("virtio-blk", "vda1", "", "");
}

static void test_valid(void)
{
	CHECK(persistname_valid("virtio-SER1"));
	CHECK(persistname_valid("virtio-odd_ser/1"));
	CHECK(persistname_valid("pci-0000:00:04.0-scsi-0:0:0:0-part2"));
	CHECK(!persistname_valid(""));
	CHECK(!persistname_valid("virtio-a/../../x"));
	CHECK(!persistname_valid("virtio-a//x"));
	CHECK(!persistname_valid("virtio-a/"));
	CHECK(!persistname_valid(".."));
	CHECK(!persistname_valid("x/."));
}

int main(void)
{
	char *top = fixtures_dir();
	DIR *d = opendir(top);
	struct dirent *de;
	struct strv fixtures = { 0 };

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, "README.md") &&
		    strcmp(de->d_name, "capture"))
			strv_push(&fixtures, de->d_name);
	if (d)
		closedir(d);
	strv_sort_uniq(&fixtures);
	/* a missing tree would pass by checking nothing */
	if (fixtures.n < 6)
		printf("# only %zu fixtures in %s\n", fixtures.n, top);
	for (size_t i = 0; i < fixtures.n; i++) {
		cur_fixture = fixtures.v[i];
		test_run(fixtures.v[i], check_fixture);
	}
	test_cur_failed = 0;
	RUN(test_not_in_sysfs);
	RUN(test_valid);
	RUN(test_booster);
	RUN(test_hostile);
	RUN(test_iscsi_path);
	printf("# %d devices compared with udev, %d of udev's names knowingly not made\n",
	       devices_checked, names_missing);
	if (fixtures.n < 6 || devices_checked < 10)
		test_failed_total++;
	strv_free(&fixtures);
	free(top);
	return test_done();
}
