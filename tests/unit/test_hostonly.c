// SPDX-License-Identifier: GPL-2.0-or-later
/* hostonly_detect on fake /proc + /sys trees (tests/unit/fixtures/hostonly,
 * made by make-fixtures.sh there) and on this machine. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "hostonly.h"
#include "log.h"
#include "test.h"
#include "util.h"

static char *fixture(const char *name)
{
	const char *src = getenv("UNIRAMFS_SRCDIR");
	char *p = xasprintf("%s/tests/unit/fixtures/hostonly/%s", src ? src : ".", name);
	char *real = realpath(p, NULL);
	free(p);
	return real ? real : xstrdup("(missing fixture)");
}

/* One comma-joined string, so a CHECK_STR shows the whole list. */
static const char *joined(const struct strv *s)
{
	static char out[4][1024];
	static int slot;
	char *o = out[slot++ % 4];
	o[0] = '\0';
	for (size_t i = 0; i < s->n; i++) {
		if (i)
			strcat(o, ",");
		strncat(o, s->v[i], 1000 - strlen(o));
	}
	return o;
}

static void test_virtio(void)
{
	char *root = fixture("virtio");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "254:1");
	CHECK_STR(joined(&h.fstypes), "ext4");
	CHECK_STR(joined(&h.modules), "virtio_blk,virtio_pci");
	CHECK_STR(joined(&h.modaliases),
		  "pci:v00001AF4d00001042sv00001AF4sd00001100bc01sc80i00,virtio:d00000002v00001AF4");
	CHECK_STR(joined(&h.stack), "");
	CHECK(h.resume_dev == NULL);
	hostonly_free(&h);
	free(root);
}

static void test_nvme_usr_and_resume_from_sysfs(void)
{
	char *root = fixture("nvme");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "259:2");
	CHECK_STR(joined(&h.fstypes), "xfs,ext4");
	/* The PCIe port's driver is built in: its modalias, no module. */
	CHECK_STR(joined(&h.modules), "nvme");
	CHECK_STR(joined(&h.modaliases),
		  "pci:v0000144Dd0000A808sv0000144Dsd0000A801bc01sc08i02,"
		  "pci:v00008086d0000A330sv00001028sd0000085Cbc06sc04i00");
	CHECK_STR(joined(&h.stack), "");
	CHECK_STR(h.resume_dev, "259:1");
	hostonly_free(&h);
	free(root);
}

static void test_nvme_multipath_subsystem(void)
{
	char *root = fixture("nvme-multipath");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "259:1");
	CHECK_STR(joined(&h.fstypes), "ext4");
	CHECK_STR(joined(&h.modules), "nvme");
	CHECK_STR(joined(&h.modaliases),
		  "pci:v0000144Dd0000A808sv0000144Dsd0000A801bc01sc08i02,"
		  "pci:v00008086d0000A330sv00001028sd0000085Cbc06sc04i00");
	CHECK_STR(joined(&h.stack), "");
	hostonly_free(&h);
	free(root);
}

static void test_ahci(void)
{
	char *root = fixture("ahci");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "8:1");
	CHECK_STR(joined(&h.fstypes), "ext4");
	CHECK_STR(joined(&h.modules), "ahci,sd_mod");
	CHECK_STR(joined(&h.modaliases),
		  "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01,scsi:t-0x00");
	CHECK_STR(joined(&h.stack), "");
	CHECK(h.resume_dev == NULL);
	hostonly_free(&h);
	free(root);
}

static void test_lvm_on_luks_with_swap_resume(void)
{
	char *root = fixture("luks");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "253:1");
	CHECK_STR(joined(&h.fstypes), "ext4");
	CHECK_STR(joined(&h.modules), "dm_crypt,dm_mod,virtio_blk,virtio_pci");
	CHECK_STR(joined(&h.modaliases),
		  "pci:v00001AF4d00001042sv00001AF4sd00001100bc01sc80i00,virtio:d00000002v00001AF4");
	/* Top down, as met. */
	CHECK_STR(joined(&h.stack), "lvm,dm-crypt");
	/* zram0 and the swap file listed before it are no resume devices. */
	CHECK_STR(h.resume_dev, "254:3");
	hostonly_free(&h);
	free(root);
}

static void test_btrfs_anonymous_dev_uses_source(void)
{
	char *root = fixture("btrfs");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "253:1");
	CHECK_STR(joined(&h.fstypes), "btrfs");
	CHECK_STR(joined(&h.modules), "dm_crypt,dm_mod,virtio_blk,virtio_pci");
	CHECK_STR(joined(&h.stack), "lvm,dm-crypt");
	CHECK(h.resume_dev == NULL);
	hostonly_free(&h);
	free(root);
}

static void test_md_raid1(void)
{
	char *root = fixture("md");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "9:0");
	CHECK_STR(joined(&h.fstypes), "ext4");
	CHECK_STR(joined(&h.modules), "ahci,md_mod,raid1,sd_mod");
	CHECK_STR(joined(&h.modaliases),
		  "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01,scsi:t-0x00");
	CHECK_STR(joined(&h.stack), "md");
	CHECK(h.resume_dev == NULL);
	hostonly_free(&h);
	free(root);
}

static void keep_message(int level, const char *msg, void *userdata)
{
	struct buf *b = userdata;
	buf_printf(b, "%d %s\n", level, msg);
}

static void test_stale_resume_ignored(void)
{
	char *root = fixture("stale-resume"), *want;
	struct buf logged = { 0 };
	struct hostonly h;

	log_set_sink(keep_message, &logged);
	CHECK(hostonly_detect(root, &h) == 0);
	log_set_sink(NULL, NULL);
	want = xasprintf("%d resume device 8:99 is not in %s/sys/dev/block, ignoring it\n",
			 LOG_WARNING, root);
	CHECK_STR(logged.p, want);
	free(want);
	buf_free(&logged);
	CHECK_STR(h.root_dev, "254:1");
	CHECK(h.resume_dev == NULL);
	CHECK_STR(joined(&h.modules), "virtio_blk,virtio_pci");
	hostonly_free(&h);
	free(root);
}

static void test_error_no_mountinfo(void)
{
	char tmpl[] = "/tmp/hostonly-XXXXXX";
	char *dir = mkdtemp(tmpl), *want;
	struct hostonly h;

	CHECK(dir != NULL);
	if (!dir)
		return;
	CHECK(hostonly_detect(dir, &h) == -1);
	want = xasprintf("cannot read %s/proc/self/mountinfo: No such file or directory", dir);
	CHECK_STR(err_msg(), want);
	CHECK(h.root_dev == NULL && h.modules.n == 0);
	free(want);
	rmdir(dir);
}

static void test_error_no_root_mount(void)
{
	char *root = fixture("noroot"), *want;
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == -1);
	want = xasprintf("no mount of \"/\" in %s/proc/self/mountinfo", root);
	CHECK_STR(err_msg(), want);
	free(want);
	free(root);
}

static void test_error_root_not_block(void)
{
	char *root = fixture("overlay");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == -1);
	CHECK_STR(err_msg(), "the root filesystem is overlay on \"overlay\", not on a block device");
	free(root);
}

static void test_error_dangling_link(void)
{
	char *root = fixture("dangling"), *want;
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == -1);
	want = xasprintf("%s/sys/dev/block/254:1: dangling symlink", root);
	CHECK_STR(err_msg(), want);
	free(want);
	free(root);
}

static void test_error_missing_sysroot(void)
{
	struct hostonly h;

	CHECK(hostonly_detect("/nonexistent-sysroot", &h) == -1);
	CHECK_STR(err_msg(), "sysroot /nonexistent-sysroot: No such file or directory");
}

/* This machine: whatever its root is on, the walk must get through its
 * real sysfs. Only a root that is no block device at all (a container's
 * overlay) is out of hostonly's reach. */
static void test_this_host(void)
{
	struct hostonly h;

	if (hostonly_detect("/", &h) < 0) {
		if (strstr(err_msg(), "not on a block device"))
			SKIP("root is not on a block device here");
		printf("# %s\n", err_msg());
		CHECK(!"hostonly_detect(\"/\") failed");
		return;
	}
	printf("# root %s fstypes %s stack %s resume %s\n", h.root_dev, joined(&h.fstypes),
	       joined(&h.stack), h.resume_dev ? h.resume_dev : "-");
	printf("# modules %s\n# modaliases %s\n", joined(&h.modules), joined(&h.modaliases));
	CHECK(h.root_dev && strchr(h.root_dev, ':'));
	CHECK(h.fstypes.n >= 1);
	/* Built-in drivers leave no module name, but the devices on the way
	 * still have modaliases. */
	CHECK(h.modules.n + h.modaliases.n > 0);
	hostonly_free(&h);
}

int main(void)
{
	RUN(test_virtio);
	RUN(test_nvme_usr_and_resume_from_sysfs);
	RUN(test_nvme_multipath_subsystem);
	RUN(test_ahci);
	RUN(test_lvm_on_luks_with_swap_resume);
	RUN(test_btrfs_anonymous_dev_uses_source);
	RUN(test_md_raid1);
	RUN(test_stale_resume_ignored);
	RUN(test_error_no_mountinfo);
	RUN(test_error_no_root_mount);
	RUN(test_error_root_not_block);
	RUN(test_error_dangling_link);
	RUN(test_error_missing_sysroot);
	RUN(test_this_host);
	return test_done();
}
