// SPDX-License-Identifier: GPL-2.0-or-later
/* hostonly_detect on fake /proc + /sys trees (tests/unit/fixtures/hostonly,
 * made by make-fixtures.sh there) and on this machine. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "gen/hostonly/hostonly.h"
#include "log.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

static void test_virtio(void)
{
	char *root = hostonly_fixture("virtio");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "254:1");
	CHECK_STR(strv_joined(&h.fstypes), "ext4");
	CHECK_STR(strv_joined(&h.modules), "virtio_blk,virtio_pci");
	CHECK_STR(strv_joined(&h.modaliases),
		  "pci:v00001AF4d00001042sv00001AF4sd00001100bc01sc80i00,virtio:d00000002v00001AF4");
	CHECK_STR(strv_joined(&h.stack), "");
	CHECK(h.resume_dev == NULL);
	hostonly_free(&h);
	free(root);
}

static void test_nvme_usr_and_resume_from_sysfs(void)
{
	char *root = hostonly_fixture("nvme");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "259:2");
	CHECK_STR(strv_joined(&h.fstypes), "xfs,ext4");
	/* The PCIe port's driver is built in: its modalias, no module. */
	CHECK_STR(strv_joined(&h.modules), "nvme");
	CHECK_STR(strv_joined(&h.modaliases),
		  "pci:v0000144Dd0000A808sv0000144Dsd0000A801bc01sc08i02,"
		  "pci:v00008086d0000A330sv00001028sd0000085Cbc06sc04i00");
	CHECK_STR(strv_joined(&h.stack), "");
	CHECK_STR(h.resume_dev, "259:1");
	hostonly_free(&h);
	free(root);
}

static void test_nvme_multipath_subsystem(void)
{
	char *root = hostonly_fixture("nvme-multipath");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "259:1");
	CHECK_STR(strv_joined(&h.fstypes), "ext4");
	CHECK_STR(strv_joined(&h.modules), "nvme");
	CHECK_STR(strv_joined(&h.modaliases),
		  "pci:v0000144Dd0000A808sv0000144Dsd0000A801bc01sc08i02,"
		  "pci:v00008086d0000A330sv00001028sd0000085Cbc06sc04i00");
	CHECK_STR(strv_joined(&h.stack), "");
	hostonly_free(&h);
	free(root);
}

static void test_ahci(void)
{
	char *root = hostonly_fixture("ahci");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "8:1");
	CHECK_STR(strv_joined(&h.fstypes), "ext4");
	CHECK_STR(strv_joined(&h.modules), "ahci,sd_mod");
	CHECK_STR(strv_joined(&h.modaliases),
		  "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01,scsi:t-0x00");
	CHECK_STR(strv_joined(&h.stack), "");
	CHECK(h.resume_dev == NULL);
	hostonly_free(&h);
	free(root);
}

static void test_lvm_on_luks_with_swap_resume(void)
{
	char *root = hostonly_fixture("luks");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "253:1");
	CHECK_STR(strv_joined(&h.fstypes), "ext4");
	CHECK_STR(strv_joined(&h.modules), "dm_crypt,dm_mod,virtio_blk,virtio_pci");
	CHECK_STR(strv_joined(&h.modaliases),
		  "pci:v00001AF4d00001042sv00001AF4sd00001100bc01sc80i00,virtio:d00000002v00001AF4");
	/* Top down, as met. */
	CHECK_STR(strv_joined(&h.stack), "lvm,dm-crypt");
	/* zram0 and the swap file listed before it are no resume devices. */
	CHECK_STR(h.resume_dev, "254:3");
	hostonly_free(&h);
	free(root);
}

static void test_btrfs_anonymous_dev_uses_source(void)
{
	char *root = hostonly_fixture("btrfs");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "253:1");
	CHECK_STR(strv_joined(&h.fstypes), "btrfs");
	CHECK_STR(strv_joined(&h.modules), "dm_crypt,dm_mod,virtio_blk,virtio_pci");
	CHECK_STR(strv_joined(&h.stack), "lvm,dm-crypt");
	CHECK(h.resume_dev == NULL);
	hostonly_free(&h);
	free(root);
}

static void test_md_raid1(void)
{
	char *root = hostonly_fixture("md");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "9:0");
	CHECK_STR(strv_joined(&h.fstypes), "ext4");
	CHECK_STR(strv_joined(&h.modules), "ahci,md_mod,raid1,sd_mod");
	CHECK_STR(strv_joined(&h.modaliases),
		  "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01,scsi:t-0x00");
	CHECK_STR(strv_joined(&h.stack), "md");
	CHECK(h.resume_dev == NULL);
	hostonly_free(&h);
	free(root);
}

static void keep_message(int level, const char *msg, void *userdata);

/* Network roots (issue 11): the modules (the root's and the NIC's on the
 * route to the server), and the command line the init is to read. */
static void test_nfs4_root(void)
{
	char *root = hostonly_fixture("nfs4");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK(h.root_dev == NULL);
	CHECK_STR(strv_joined(&h.fstypes), "nfs4");
	/* enp1s0's 192.168.0.0/16 beats enp0s3's default route */
	CHECK_STR(strv_joined(&h.modules), "nfs,nfsv4,virtio_net,virtio_pci");
	CHECK_STR(strv_joined(&h.modaliases),
		  "pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00,virtio:d00000001v00001AF4");
	CHECK_STR(h.net.kind, "nfs");
	CHECK_STR(h.net.server, "192.168.1.10");
	CHECK_STR(h.net.iface, "enp1s0");
	CHECK_STR(strv_joined(&h.net.cmdline),
		  "netroot=nfs4:192.168.1.10:/srv/roots/host1,ifname=enp1s0:52:54:00:12:34:02,ip=enp1s0:dhcp");
	hostonly_free(&h);
	free(root);
}

static void test_nfs_ipv6_path_with_space_is_quoted(void)
{
	char *root = hostonly_fixture("nfs-v6-space");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.net.server, "fd00::10");
	CHECK_STR(h.net.iface, "enp1s0");
	CHECK_STR(strv_joined(&h.modules), "nfs,nfsv4,virtio_net,virtio_pci");
	CHECK_STR(strv_joined(&h.net.cmdline),
		  "netroot=\"nfs4:[fd00::10]:/srv/my root\",ifname=enp1s0:52:54:00:12:34:02,ip=enp1s0:either6");
	hostonly_free(&h);
	free(root);
}

static void test_nfs_path_with_quote_fails(void)
{
	char *root = hostonly_fixture("nfs-hostile");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) < 0);
	CHECK_STR(err_msg(), "the NFS root \"nfs4:192.168.1.10:/srv/a\"b\" has a quote or control character: "
			     "it cannot go on the kernel command line");
	CHECK(h.net.kind == NULL && h.modules.n == 0);
	free(root);
}

static void test_iscsi_root(void)
{
	char *root = hostonly_fixture("iscsi");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "8:1");
	CHECK_STR(strv_joined(&h.modules), "e1000,iscsi_tcp,sd_mod");
	CHECK_STR(strv_joined(&h.modaliases),
		  "pci:v00008086d0000100Esv00001AF4sd00001100bc02sc00i00,scsi:t-0x00");
	CHECK_STR(h.net.kind, "iscsi");
	CHECK_STR(h.net.server, "10.0.2.2");
	CHECK_STR(h.net.iface, "eth0");
	/* eth0 is the kernel's own name: no ifname= for it */
	CHECK_STR(strv_joined(&h.net.cmdline), "netroot=iscsi:10.0.2.2::3261:1:iqn.2003-01.org.example:storage.root,"
					  "rd.iscsi.initiator=iqn.1993-08.org.debian:01:a1b2c3d4e5f6,ip=eth0:dhcp");
	hostonly_free(&h);
	free(root);
}

static void test_iscsi_target_with_space_and_quote_fails(void)
{
	char *root = hostonly_fixture("iscsi-hostile");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) < 0);
	CHECK_STR(err_msg(), "iSCSI session1: target name \"iqn.2003-01.org.example:my \"root\" disk\" has a space, "
			     "quote or control character: it cannot go on the kernel command line");
	free(root);
}

static void test_nbd_root(void)
{
	char *root = hostonly_fixture("nbd");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "43:0");
	CHECK_STR(strv_joined(&h.modules), "nbd,virtio_net,virtio_pci");
	CHECK_STR(h.net.kind, "nbd");
	CHECK_STR(h.net.server, "192.168.1.10");
	CHECK_STR(strv_joined(&h.net.cmdline),
		  "netroot=nbd:192.168.1.10:10809/rootfs:ext4,ifname=enp1s0:52:54:00:12:34:02,ip=enp1s0:dhcp");
	hostonly_free(&h);
	free(root);
}

/* The host's NVMe/TCP controller becomes rd.nvmf.* (the port only when
 * not 4420), nvme_tcp its module; enp1s0 reaches the server. */
static void test_nvmf_tcp_root(void)
{
	char *root = hostonly_fixture("nvmf-tcp");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK_STR(h.root_dev, "259:0");
	CHECK_STR(strv_joined(&h.modules), "nvme_tcp,virtio_net,virtio_pci");
	CHECK_STR(h.net.kind, "nvmf");
	CHECK_STR(h.net.server, "192.168.1.10");
	CHECK_STR(h.net.iface, "enp1s0");
	CHECK_STR(strv_joined(&h.net.cmdline),
		  "rd.nvmf.traddr=192.168.1.10,rd.nvmf.trsvcid=4421,rd.nvmf.nqn=nqn.2026-12.org.example:storage.root,"
		  "rd.nvmf.hostnqn=nqn.2014-08.org.nvmexpress:uuid:5f0c1a4e-1b2d-4c3e-9f10-0000000000f1,"
		  "rd.nvmf.hostid=5f0c1a4e-1b2d-4c3e-9f10-0000000000f1,ifname=enp1s0:52:54:00:12:34:02,ip=enp1s0:dhcp");
	hostonly_free(&h);
	free(root);
}

static void test_nvmf_rdma_refused(void)
{
	char *root = hostonly_fixture("nvmf-rdma");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) < 0);
	CHECK_STR(err_msg(), "the root is on NVMe over Fabrics nvme0, transport \"rdma\": uniramfs connects over "
			     "tcp only");
	free(root);
}

static void test_nbd_without_client_warns(void)
{
	char *root = hostonly_fixture("nbd-noclient"), *want;
	struct buf logged = { 0 };
	struct hostonly h;

	log_set_sink(keep_message, &logged);
	CHECK(hostonly_detect(root, &h) == 0);
	log_set_sink(NULL, NULL);
	want = xasprintf("%d hostonly: the root is on nbd0, but no nbd-client tells its server: give "
			 "nbdroot=SERVER:PORT/EXPORT with --cmdline\n", LOG_WARNING);
	CHECK_STR(logged.p, want);
	free(want);
	buf_free(&logged);
	CHECK_STR(strv_joined(&h.modules), "nbd");
	CHECK_STR(h.net.kind, "nbd");
	CHECK(h.net.server == NULL && h.net.iface == NULL && h.net.cmdline.n == 0);
	hostonly_free(&h);
	free(root);
}

static void test_local_root_has_no_net(void)
{
	char *root = hostonly_fixture("ahci");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK(h.net.kind == NULL && h.net.cmdline.n == 0);
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
	char *root = hostonly_fixture("stale-resume"), *want;
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
	CHECK_STR(strv_joined(&h.modules), "virtio_blk,virtio_pci");
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
	CHECK(hostonly_detect(dir, &h) < 0);
	want = xasprintf("cannot read %s/proc/self/mountinfo: No such file or directory", dir);
	CHECK_STR(err_msg(), want);
	CHECK(h.root_dev == NULL && h.modules.n == 0);
	free(want);
	rmdir(dir);
}

static void test_error_no_root_mount(void)
{
	char *root = hostonly_fixture("noroot"), *want;
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) < 0);
	want = xasprintf("no mount of \"/\" in %s/proc/self/mountinfo", root);
	CHECK_STR(err_msg(), want);
	free(want);
	free(root);
}

static void test_error_zfs_without_members(void)
{
	char *root = hostonly_fixture("zfs-nomember"), *want;
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) < 0);
	want = xasprintf("the root is on ZFS pool rpool: no zfs_member device of it under %s/dev",
			 root);
	CHECK_STR(err_msg(), want);
	free(want);
	free(root);
}

static void test_error_root_not_block(void)
{
	char *root = hostonly_fixture("overlay");
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) < 0);
	CHECK_STR(err_msg(), "the root filesystem is overlay on \"overlay\", not on a block device");
	free(root);
}

static void test_error_dangling_link(void)
{
	char *root = hostonly_fixture("dangling"), *want;
	struct hostonly h;

	CHECK(hostonly_detect(root, &h) < 0);
	want = xasprintf("%s/sys/dev/block/254:1: dangling symlink", root);
	CHECK_STR(err_msg(), want);
	free(want);
	free(root);
}

static void test_error_missing_sysroot(void)
{
	struct hostonly h;

	CHECK(hostonly_detect("/nonexistent-sysroot", &h) < 0);
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
	printf("# root %s fstypes %s stack %s resume %s\n", h.root_dev, strv_joined(&h.fstypes),
	       strv_joined(&h.stack), h.resume_dev ? h.resume_dev : "-");
	printf("# modules %s\n# modaliases %s\n", strv_joined(&h.modules), strv_joined(&h.modaliases));
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
	RUN(test_nfs4_root);
	RUN(test_nfs_ipv6_path_with_space_is_quoted);
	RUN(test_nfs_path_with_quote_fails);
	RUN(test_iscsi_root);
	RUN(test_iscsi_target_with_space_and_quote_fails);
	RUN(test_nbd_root);
	RUN(test_nvmf_tcp_root);
	RUN(test_nvmf_rdma_refused);
	RUN(test_nbd_without_client_warns);
	RUN(test_local_root_has_no_net);
	RUN(test_error_no_mountinfo);
	RUN(test_error_zfs_without_members);
	RUN(test_error_no_root_mount);
	RUN(test_error_root_not_block);
	RUN(test_error_dangling_link);
	RUN(test_error_missing_sysroot);
	RUN(test_this_host);
	return test_done();
}
