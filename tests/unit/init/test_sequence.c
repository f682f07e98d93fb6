// SPDX-License-Identifier: GPL-2.0-or-later
/* The whole boot of uniramfs-init against fake_ops: a fake tree with a
 * sysfs, a module directory and a real ext4 image as /dev/vda1. The
 * asserts are on what the init asked the system to do, in order, and on
 * the exact messages of the failure paths. */
#include <errno.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_boot.h"
#include "init/init.h"
#include "init/stages/squashlazy.h"
#include "err.h"
#include "init/core/kmsg.h"
#include "init/stages/stages.h"
#include "test.h"

static const struct initops fake_initops = {
	.uname_release = fake_boot_uname,
	.free_initramfs = fake_free_initramfs,
	.reboot = fake_reboot,
	.spawn = fake_boot_spawn,
};

static int run(struct fake_ops *f, struct init *in)
{
	return fake_boot_run(f, in, &fake_initops, fake_boot_kernel_env);
}

/* A fake boot whose disk (vda, vda1) is not there yet: a test makes it
 * appear (its on_idle or on_finit). */
static struct fake_ops *boot_without_disk(const char *cmdline)
{
	struct fake_ops *f = fake_boot_setup(cmdline);
	const char *const gone[] = { "/sys/class/block/vda", "/sys/class/block/vda1" };

	for (size_t i = 0; i < ARRAY_SIZE(gone); i++) {
		char *p = fake_path(f, gone[i]);
		CHECK(unlink(p) == 0);
		free(p);
	}
	return f;
}

static void test_boot(void)
{
	struct fake_ops *f;
	struct init in;
	char *t;
	char flags[128];

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_boot_setup("root=UUID=" UUID " rootflags=noatime,errors=remount-ro rd.timeout=5 "
		  "virtio_blk.queue_depth=64 -- single");
	snprintf(flags, sizeof(flags), "mount tmpfs /run tmpfs 0x%x mode=0755",
		 MS_NOSUID | MS_NODEV | MS_STRICTATIME);
	CHECK(run(f, &in) == 0);
	const char *order[] = {
		"mount devtmpfs /dev devtmpfs 0x2 mode=0755",
		"mount proc /proc proc 0xe -",
		"mount sysfs /sys sysfs 0xe -",
		flags,
		"open /dev/kmsg",
		"finit_module virtio_blk params='queue_depth=64'",
		"finit_module crc16",
		"finit_module ext4",
		"mount /dev/vda1 /sysroot ext4 0x401 errors=remount-ro",
		"mount /dev /sysroot/dev - 0x2000 -",
		"mount /proc /sysroot/proc - 0x2000 -",
		"mount /sys /sysroot/sys - 0x2000 -",
		"mount /run /sysroot/run - 0x2000 -",
		"chdir /sysroot",
		"free_initramfs /sysroot",
		"mount /sysroot / - 0x2000 -",
		"chroot .",
		"chdir /",
		"execve /sbin/init single",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "finit_module virtio_blk") == 1);
	CHECK(fake_log_count(f, "reboot") == 0);
	CHECK(in.root && !strcmp(in.root, "vda1"));
	CHECK(fake_boot_logged("root=UUID=" UUID " is /dev/vda1"));
	/* by-uuid link for the root, made by blockdev_make_links */
	t = fake_readlink(f, "/dev/disk/by-uuid/" UUID);
	CHECK_STR(t, "../../vda1");
	free(t);
	t = fake_boot_read(f, "/run/uniramfs/timings");
	CHECK(t && strstr(t, "setup ") && strstr(t, "coldplug ") && strstr(t, "devices ") &&
	      strstr(t, "mount ") && strstr(t, "switch ") && strstr(t, "\ntotal "));
	free(t);
	t = fake_boot_read(f, "/run/uniramfs/log");
	CHECK(t && strstr(t, "starting"));
	free(t);
	{
		/* issue 24: root's alone (debug lines, DHCP's answers, specs) */
		struct stat st;
		char *p = fake_path(f, "/run/uniramfs/log");
		CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600);
		free(p);
	}
	init_free(&in);
	fake_ops_free(f);
}

static void test_rw_and_rootfstype(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	/* the rw word wins over an ro inside rootflags= (booster's TestExt4MountFlags) */
	f = fake_boot_setup("root=/dev/vda1 rootflags=ro rw rootfstype=ext2,ext4 init=/sbin/init");
	fake_fail(f, "mount", "ext2", EINVAL);
	CHECK(run(f, &in) == 0);
	const char *order[] = {
		"mount /dev/vda1 /sysroot ext2 0x0 -",
		"mount /dev/vda1 /sysroot ext4 0x0 -",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	init_free(&in);
	fake_ops_free(f);
}

static void test_init_symlink_in_new_root(void)
{
	struct fake_ops *f;
	struct init in;
	char *p;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_boot_setup("root=LABEL=rootfs");
	p = fake_path(f, "/sysroot/sbin/init");
	unlink(p);
	free(p);
	/* Absolute: must resolve inside /sysroot, not in the initramfs. */
	fake_symlink(f, "/lib/systemd/systemd", "/sysroot/sbin/init");
	fake_write(f, "/sysroot/lib/systemd/systemd", "");
	p = fake_path(f, "/sysroot/lib/systemd/systemd");
	chmod(p, 0755);
	free(p);
	CHECK(run(f, &in) == 0);
	/* systemd: started as its own initrd starts it (test_xinitrd) */
	CHECK(fake_log_find_prefix(f, "execve /sbin/init --switched-root --system --deserialize=", 0) >= 0);
	init_free(&in);
	fake_ops_free(f);
}

static void test_no_init(void)
{
	struct fake_ops *f;
	struct init in;
	char *p;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_boot_setup("root=/dev/vda1 panic=-1");
	p = fake_path(f, "/sysroot/sbin/init");
	unlink(p);
	free(p);
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("no init on the root filesystem: tried /sbin/init, /etc/init, /bin/init, /bin/sh"));
	CHECK(fake_log_count(f, "execve") == 0);
	CHECK(fake_log_count(f, "free_initramfs") == 0);
	CHECK(fake_log_count(f, "reboot 0x1234567") == 1);
	init_free(&in);
	fake_ops_free(f);

	f = fake_boot_setup("root=/dev/vda1 panic=-1 init=/bin/myinit");
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("init=/bin/myinit not found on the root filesystem (or not executable)"));
	init_free(&in);
	fake_ops_free(f);
	/* a directory passes access(X_OK) but is no program */
	f = fake_boot_setup("root=/dev/vda1 panic=-1 init=/sbin");
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("init=/sbin not found on the root filesystem (or not executable)"));
	CHECK(fake_log_count(f, "execve") == 0);
	init_free(&in);
	fake_ops_free(f);
}

static void test_root_missing(void)
{
	struct fake_ops *f;
	struct init in;
	long long t0;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_boot_setup("root=UUID=0000-1111 rd.timeout=1 panic=-1");
	/* the loop module's idle devices: one line for them all */
	for (int i = 0; i < 3; i++) {
		char *dir = xasprintf("/sys/devices/virtual/block/loop%d", i), *rel = xasprintf("../../devices/virtual/block/loop%d", i);
		char *dev = xasprintf("%s/dev", dir), *ue = xasprintf("%s/uevent", dir);
		char *num = xasprintf("7:%d\n", i), *name = xasprintf("DEVTYPE=disk\nDEVNAME=loop%d\n", i);
		char *link = xasprintf("/sys/class/block/loop%d", i), *node = xasprintf("/dev/loop%d", i);
		fake_write(f, dev, num);
		fake_write(f, ue, name);
		fake_symlink(f, rel, link);
		fake_write(f, node, "");
		free(dir), free(dev), free(ue), free(num), free(name), free(link), free(node), free(rel);
	}
	t0 = f->ops.now_ms();
	CHECK(run(f, &in) < 0);
	CHECK(f->ops.now_ms() - t0 >= 1000); /* the fake clock: no real second */
	CHECK(fake_boot_logged("<3>  and 3 loop devices with nothing on them\n"));
	CHECK(!fake_boot_logged("<3>  /dev/loop"));
	CHECK(fake_boot_logged("<3>root device root=UUID=0000-1111 did not appear within 1 seconds\n"
		     "<3>block devices seen:\n"));
	CHECK(fake_boot_logged("<3>  /dev/vda1 TYPE=ext4 UUID=" UUID " LABEL=rootfs\n"));
	CHECK(fake_boot_logged("<3>  /dev/vda (no signature)\n"));
	CHECK(fake_boot_logged("<3>devices with no driver in this image:\n"
		     "<3>  pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00 "
		     "(/devices/pci0000:00/0000:00:04.0)\n"
		     "<5>1 other devices have no driver in this image (not storage; "
		     "rd.debug lists them)\n"
		     "<7>  platform:pcspkr (/devices/platform/pcspkr)\n"));
	CHECK(fake_boot_logged("<3>no shell in this image (it was built with rescue_shell = no, or on a host without busybox)\n"
		     "<3>rebooting now\n"));
	CHECK(fake_log_count(f, "reboot 0x1234567") == 1);
	CHECK(fake_log_count(f, "mount /dev/vda1") == 0);
	/* the same lines reached /dev/kmsg, with the prefix */
	char *k = fake_boot_read(f, "/dev/kmsg");
	CHECK(k && strstr(k, "<3>uniramfs: root device root=UUID=0000-1111 did not appear within 1 seconds\n"));
	free(k);
	init_free(&in);
	fake_ops_free(f);
}

/* A hostonly image that misses its root says what it was made for and
 * which image boots anywhere; a control byte in the record (it is read
 * from the image and printed on the console) is not printed as is. */
static void test_root_missing_hostonly(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_boot_setup("root=UUID=0000-1111 rd.timeout=1 panic=-1");
	fake_write(f, "/etc/uniramfs/hostonly",
		   "root=254:1\nfstype=ext4\ndrivers=virtio_blk,virtio_pci\e[2J\n"
		   "fallback=/boot/initrd.img-" KVER "-fallback\n");
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>this is a hostonly image, made for a machine whose root is reached through "
		     "virtio_blk,virtio_pci?[2J; this machine's hardware may differ\n"
		     "<3>boot the generic image made beside it instead: /boot/initrd.img-" KVER
		     "-fallback\n"));
	init_free(&in);
	fake_ops_free(f);

	/* without a fallback: how to make one */
	f = fake_boot_setup("root=UUID=0000-1111 rd.timeout=1 panic=-1");
	fake_write(f, "/etc/uniramfs/hostonly", "root=254:1\nfstype=ext4\ndrivers=virtio_blk\n");
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>this is a hostonly image, made for a machine whose root is reached through "
		     "virtio_blk; this machine's hardware may differ\n"
		     "<3>a generic image (uniramfs build --generic) boots on any hardware\n"));
	init_free(&in);
	fake_ops_free(f);
}

/* The disk's block devices come only after the coldplug, as the kernel
 * announces them once virtio_blk probed it: first as "add" events on
 * the socket, then (lost_events) with the socket overflowing instead. */
static bool lost_events;

static void disk_arrives(struct fake_ops *f)
{
	f->on_idle = NULL;
	fake_symlink(f, "../../devices/pci0000:00/0000:00:04.0/virtio1/block/vda",
		     "/sys/class/block/vda");
	fake_symlink(f, "../../devices/pci0000:00/0000:00:04.0/virtio1/block/vda/vda1",
		     "/sys/class/block/vda1");
	if (lost_events) {
		fake_recv_err(f, ENOBUFS);
		return;
	}
	fake_recv_msg(f, "add@/devices/pci0000:00/0000:00:04.0/virtio1/block/vda|ACTION=add|"
		      "SUBSYSTEM=block|DEVNAME=vda|DEVTYPE=disk|MAJOR=254|MINOR=0");
	fake_recv_msg(f, "add@/devices/pci0000:00/0000:00:04.0/virtio1/block/vda/vda1|ACTION=add|"
		      "SUBSYSTEM=block|DEVNAME=vda1|DEVTYPE=partition|MAJOR=254|MINOR=1");
}

static void test_root_comes_later(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	for (int lost = 0; lost < 2; lost++) {
		f = boot_without_disk("root=UUID=" UUID " rd.timeout=5 panic=-1");
		lost_events = lost;
		f->on_idle = disk_arrives;
		CHECK(run(f, &in) == 0);
		CHECK(fake_boot_logged("root=UUID=" UUID " is /dev/vda1"));
		CHECK(fake_log_find_prefix(f, "mount /dev/vda1 /sysroot ext4", 0) >= 0);
		CHECK(fake_log_find_prefix(f, "execve /sbin/init", 0) >= 0);
		if (lost)
			CHECK(fake_boot_logged("<4>uevent buffer overrun, some device events were lost; "
				     "reading the devices from sysfs again\n"));
		init_free(&in);
		fake_ops_free(f);
	}
}

static void test_shell_offered(void)
{
	struct fake_ops *f;
	struct init in;
	char *p;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_boot_setup("root=/dev/sdz9 rd.timeout=1 panic=-1");
	fake_write(f, "/bin/sh", "");
	p = fake_path(f, "/bin/sh");
	chmod(p, 0755);
	free(p);
	CHECK(run(f, &in) < 0);
	const char *order[] = { "spawn /bin/sh /bin/sh", "reboot 0x1234567" };
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_boot_logged("<3>starting /bin/sh (emergency shell); exit it to continue\n"));
	init_free(&in);
	fake_ops_free(f);

	/* rd.shell=0: no shell even though there is one */
	f = fake_boot_setup("root=/dev/sdz9 rd.timeout=1 panic=-1 rd.shell=0");
	fake_write(f, "/bin/sh", "");
	p = fake_path(f, "/bin/sh");
	chmod(p, 0755);
	free(p);
	CHECK(run(f, &in) < 0);
	CHECK(fake_log_count(f, "spawn") == 0);
	CHECK(fake_boot_logged("<3>not starting a shell: rd.shell=0\n"));
	init_free(&in);
	fake_ops_free(f);
}

static void test_no_root_option(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	/* root discovery turned off, as systemd spells it */
	f = fake_boot_setup("quiet panic=-1 rd.systemd.gpt_auto=0");
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>no root= on the kernel command line: nothing to mount\n"));
	CHECK(fake_log_count(f, "finit_module") == 0);
	init_free(&in);
	fake_ops_free(f);

	f = fake_boot_setup("root=bogus panic=-1");
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>root=bogus is not a device uniramfs understands (use /dev/NAME, "
		     "UUID=, LABEL=, PARTUUID=[/PARTNROFF=N], PARTLABEL=, /dev/disk/by-id/... "
		     "(WWID=), /dev/disk/by-path/... (HWPATH=) or MAJ:MIN)\n"));
	init_free(&in);
	fake_ops_free(f);
}

static struct fake_ops *plugin_tree;
static int plugin_status;

/* A plugin's root program: logged, "mounting" as told. */
static int plugin_run(const char *path, char *const argv[], char *const envp[], const void *input,
		      size_t len)
{
	struct buf b = { 0 };

	(void)envp;
	(void)input;
	(void)len;
	buf_printf(&b, "run %s", path);
	for (size_t i = 0; argv[i]; i++)
		buf_printf(&b, " %s", argv[i]);
	strv_push_owned(&plugin_tree->log, b.p);
	return plugin_status;
}

static const struct initops plugin_initops = {
	.uname_release = fake_boot_uname,
	.free_initramfs = fake_free_initramfs,
	.reboot = fake_reboot,
	.spawn = fake_boot_spawn,
	.run = plugin_run,
};

/* root= with a plugin's root prefix: once the devices are quiet, its
 * program mounts the rest of root= on /sysroot; the boot goes on to the
 * real init, with no device wait and no mount of its own. A failure is
 * said with the program's status and goes through the failure path.
 * slow: the kernel took 8 s to reach /init (a loaded host, a slow
 * machine): the drivers still load before the program runs, and it runs
 * once they are quiet, not at rd.timeout (it waited out rd.timeout and
 * found no disk, as no driver had loaded). */
static void test_plugin_root(void)
{
	struct fake_ops *f;
	struct init in;
	char *p;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	for (int fail = 0; fail < 3; fail++) {
		bool slow = fail == 2;
		long long t0;

		f = plugin_tree = fake_boot_setup("root=ZFS=pool/root panic=-1 rd.shell=0");
		if (slow) {
			/* and the disk comes only with its driver: nothing at coldplug */
			char *d = fake_path(f, "/sys/devices/pci0000:00/0000:00:04.0/virtio1/block");
			char *c = fake_path(f, "/sys/class/block");
			char *cmd = xasprintf("rm -rf '%s' '%s'", d, c);

			CHECK(system(cmd) == 0);
			free(cmd);
			free(c);
			free(d);
			f->now += 8000;
		}
		t0 = f->now;
		plugin_status = fail == 1 ? 2 : 0;
		fake_write(f, "/usr/lib/zfs/mount-root", "#!/bin/sh\n");
		p = fake_path(f, "/usr/lib/zfs/mount-root");
		chmod(p, 0755);
		free(p);
		fake_write(f, "/etc/uniramfs/plugin-rows",
			   "root\tzfs\tZFS=\t/usr/lib/zfs/mount-root\tzfs\t-\n");
		if (fail != 1) {
			CHECK(fake_boot_run(f, &in, &plugin_initops, fake_boot_kernel_env) == 0);
			CHECK(fake_boot_logged("<6>root=ZFS=pool/root: mounting it with plugin zfs\n"));
			CHECK(fake_log_count(f, "finit_module virtio_blk") == 1);
			CHECK(fake_log_find(f, "finit_module virtio_blk") <
			      fake_log_find(f, "run /usr/lib/zfs/mount-root /usr/lib/zfs/mount-root "
						       "pool/root /sysroot"));
			CHECK(f->now - t0 < 10000); /* ROOT_QUIET_MS after the last load, not rd.timeout */
			CHECK(fake_log_find(f, "run /usr/lib/zfs/mount-root /usr/lib/zfs/mount-root "
					       "pool/root /sysroot") >= 0);
			CHECK(fake_log_count(f, "mount /dev/") == 0);
			CHECK(fake_log_find(f, "execve /sbin/init") >= 0);
		} else {
			CHECK(fake_boot_run(f, &in, &plugin_initops, fake_boot_kernel_env) < 0);
			CHECK(fake_boot_logged("<3>plugin zfs: /usr/lib/zfs/mount-root pool/root /sysroot "
					       "exited with status 2\n"));
			CHECK(fake_log_find(f, "execve /sbin/init") < 0);
		}
		init_free(&in);
		fake_ops_free(f);
	}
}

static void test_baked_defaults(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	/* the image says root=/dev/sdz1, the boot loader says otherwise */
	f = fake_boot_setup("root=/dev/vda1");
	fake_write(f, "/etc/uniramfs/cmdline", "root=/dev/sdz1 rw\n");
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_find(f, "mount /dev/vda1 /sysroot ext4 0x0 -") >= 0);
	init_free(&in);
	fake_ops_free(f);
}

static void test_kver_mismatch(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_boot_setup("root=/dev/vda1 panic=-1");
	fake_boot_kver = "6.9.9-other";
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>this image was built for kernel " KVER
		     " but the running kernel is 6.9.9-other\n"));
	CHECK(fake_log_count(f, "finit_module") == 0);
	CHECK(fake_log_count(f, "reboot") == 1);
	init_free(&in);
	fake_ops_free(f);
}

/* A boot of an image with the squashfs segment: the squashfs and the
 * modules that mount it as the generator leaves them (squashfs needs a
 * module of its own here, as a kernel whose zstd is modular would), and
 * virtio_blk in it: a link into the mount, which the fake does not fill,
 * so its load fails after the mount (the fake's root comes anyway). */
static struct fake_ops *squash_boot_setup(const char *cmdline)
{
	struct fake_ops *f = fake_boot_setup(cmdline);
	char *blk = fake_path(f, MODDIR "/kernel/drivers/block/virtio_blk.ko");

	CHECK(unlink(blk) == 0);
	free(blk);
	fake_symlink(f, "/uniramfs.sqfs.d/usr" MODDIR "/kernel/drivers/block/virtio_blk.ko",
		     MODDIR "/kernel/drivers/block/virtio_blk.ko");
	fake_write(f, "/uniramfs.sqfs", "hsqs");
	fake_write(f, MODDIR "/modules.dep",
		   "kernel/drivers/block/virtio_blk.ko:\n"
		   "kernel/fs/ext4/ext4.ko: kernel/lib/crc16.ko\n"
		   "kernel/lib/crc16.ko:\n"
		   "kernel/drivers/block/loop.ko:\n"
		   "kernel/fs/squashfs/squashfs.ko: kernel/lib/zstd_dec.ko\n"
		   "kernel/lib/zstd_dec.ko:\n");
	fake_write(f, MODDIR "/kernel/lib/zstd_dec.ko", "ko");
	fake_write(f, MODDIR "/kernel/drivers/block/loop.ko", "ko");
	fake_write(f, MODDIR "/kernel/fs/squashfs/squashfs.ko", "ko");
	fake_write(f, "/dev/loop-control", "");
	fake_write(f, "/dev/loop0", "");
	return f;
}

/* Mounted when a module in it is first loaded, on a read-only loop device
 * that clears itself; detached before /dev moves (a daemon may still use
 * it). */
static void test_squash_segment(void)
{
	struct fake_ops *f;
	struct init in;
	char cfg[64], mnt[96];

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = squash_boot_setup("root=UUID=" UUID " rd.timeout=5");
	snprintf(cfg, sizeof(cfg), "ioctl LOOP_CONFIGURE flags 0x%x", LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR);
	snprintf(mnt, sizeof(mnt), "mount /dev/loop0 /uniramfs.sqfs.d squashfs 0x%x -",
		 MS_RDONLY | MS_NOSUID | MS_NODEV);
	CHECK(run(f, &in) == 0);
	const char *order[] = {
		"finit_module loop params=''",
		"finit_module zstd_dec params=''",
		"finit_module squashfs params=''",
		"ioctl LOOP_CTL_GET_FREE",
		cfg,
		mnt,
		"mount /dev/vda1 /sysroot ext4",
		"umount /uniramfs.sqfs.d 0x2",
		"mount /dev /sysroot/dev - 0x2000 -",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(!squash_lazy_mounted());
	init_free(&in);
	fake_ops_free(f);
}

/* A boot whose modules are all in the main segment or stored beside the
 * squashfs never mounts it: no loop, no squashfs, nothing to detach. A
 * program's run mounts it first (its libraries are there); a check that
 * a tool is in the image does not (the link is the image's promise). */
static void test_squash_not_wanted(void)
{
	struct fake_ops *f;
	struct init in;
	char *blk;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = squash_boot_setup("root=UUID=" UUID " rd.timeout=5");
	blk = fake_path(f, MODDIR "/kernel/drivers/block/virtio_blk.ko");
	CHECK(unlink(blk) == 0);
	free(blk);
	fake_write(f, MODDIR "/kernel/drivers/block/virtio_blk.ko", "ko");
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_count(f, "finit_module virtio_blk") == 1);
	CHECK(fake_log_count(f, "finit_module loop") == 0);
	CHECK(fake_log_count(f, "finit_module squashfs") == 0);
	CHECK(fake_log_count(f, "mount /dev/loop") == 0);
	CHECK(fake_log_count(f, "umount /uniramfs.sqfs.d") == 0);
	CHECK(fake_log_count(f, "execve /sbin/init") == 1);
	CHECK(!squash_lazy_mounted());
	/* its file is left to the idle-time free with the rest: freeing
	 * it now would cost this boot for nothing it used */
	CHECK(fake_log_count(f, "unlink /uniramfs.sqfs") == 0);
	init_free(&in);
	fake_ops_free(f);
}

/* A kernel before 5.8: LOOP_CONFIGURE is EINVAL, LOOP_SET_FD and
 * LOOP_SET_STATUS64 do it. A mount that fails says so and the boot goes
 * on (a kernel with its drivers built in still finds its root). */
static void test_squash_old_kernel_and_mount_failure(void)
{
	struct fake_ops *f;
	struct init in;
	char setfd[32], status[32];

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = squash_boot_setup("root=UUID=" UUID " rd.timeout=5");
	fake_fail(f, "ioctl", "LOOP_CONFIGURE", EINVAL);
	fake_fail(f, "mount", "squashfs", ENODEV);
	snprintf(setfd, sizeof(setfd), "ioctl 0x%lx", (unsigned long)LOOP_SET_FD);
	snprintf(status, sizeof(status), "ioctl 0x%lx", (unsigned long)LOOP_SET_STATUS64);
	CHECK(run(f, &in) == 0);
	const char *order[] = { "ioctl LOOP_CONFIGURE", setfd, status, "mount /dev/loop0", "execve /sbin/init" };
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_boot_logged("<3>the squashfs segment: cannot mount /dev/loop0 (/uniramfs.sqfs) on "
			       "/uniramfs.sqfs.d: No such device; its programs and modules are missing\n"));
	CHECK(fake_log_count(f, "umount /uniramfs.sqfs.d") == 0);
	init_free(&in);
	fake_ops_free(f);
}

/* loop and squashfs load as modprobe would load them: the image's
 * modprobe.d options, then the command line's (loop's parameters cannot
 * change once it is in, so the root's max_part= must be there now); a
 * built-in one (squashfs here) is not loaded; one blacklisted on the
 * command line is not forced, and the mount says what it lacked. */
static void test_squash_modules_as_modprobe(void)
{
	struct fake_ops *f;
	struct init in;
	char *lc;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = squash_boot_setup("root=UUID=" UUID " rd.timeout=5 loop.max_part=15");
	fake_write(f, "/etc/modprobe.d/loop.conf", "options loop max_loop=4\n");
	fake_write(f, MODDIR "/modules.dep",
		   "kernel/drivers/block/virtio_blk.ko:\n"
		   "kernel/fs/ext4/ext4.ko: kernel/lib/crc16.ko\n"
		   "kernel/lib/crc16.ko:\n"
		   "kernel/drivers/block/loop.ko:\n");
	fake_write(f, MODDIR "/modules.builtin", "kernel/fs/squashfs/squashfs.ko\n");
	CHECK(run(f, &in) == 0);
	const char *order[] = {
		"finit_module loop params='max_loop=4 max_part=15'",
		"mount /dev/loop0 /uniramfs.sqfs.d squashfs",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "finit_module squashfs") == 0);
	CHECK(fake_log_count(f, "finit_module loop") == 1);
	init_free(&in);
	fake_ops_free(f);

	f = squash_boot_setup("root=UUID=" UUID " rd.timeout=5 modprobe.blacklist=loop");
	lc = fake_path(f, "/dev/loop-control");
	CHECK(unlink(lc) == 0);
	free(lc);
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_count(f, "finit_module loop") == 0);
	CHECK(fake_boot_logged("<3>the squashfs segment: cannot open /dev/loop-control: No such file or directory; "
			       "its programs and modules are missing\n"));
	init_free(&in);
	fake_ops_free(f);
}

static void test_mount_fails(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_boot_setup("root=/dev/vda1 panic=-1");
	fake_fail(f, "mount", "/sysroot", EINVAL);
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>cannot mount /dev/vda1 (TYPE ext4) on /sysroot: Invalid argument\n"));
	CHECK(fake_log_count(f, "execve") == 0);
	init_free(&in);
	fake_ops_free(f);
}

/* The mount's own code reaches the report (the fake leaves another one
 * in errno), and the failure path's end, the reboot's -EPERM in the
 * fake, is what init_run returns. */
static void test_mount_code_travels_up(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_boot_setup("root=/dev/vda1 panic=-1");
	fake_fail(f, "mount", "/sysroot", ENOENT);
	CHECK(run(f, &in) == -EPERM);
	CHECK(fake_boot_logged("<3>cannot mount /dev/vda1 (TYPE ext4) on /sysroot: No such file or directory\n"));
	CHECK(fake_log_count(f, "reboot 0x1234567") == 1);
	init_free(&in);
	fake_ops_free(f);

	/* an API filesystem's mount: -EBUSY is mounted already, another
	 * code is the failure report */
	f = fake_boot_setup("root=/dev/vda1 panic=-1");
	fake_fail(f, "mount", "/proc", EBUSY);
	CHECK(run(f, &in) == 0);
	init_free(&in);
	fake_ops_free(f);
	/* before the command line (so no panic= yet): stage_mounts alone */
	f = fake_boot_setup("");
	memset(&in, 0, sizeof(in));
	in.ops = &f->ops;
	fake_fail(f, "mount", "/sys", ENODEV);
	CHECK(stage_mounts(&in) == -ENODEV);
	CHECK_STR(err_msg(), "cannot mount sysfs on /sys: No such device");
	fake_ops_free(f);
}

static void make_exec(struct fake_ops *f, const char *p)
{
	char *real;
	fake_write(f, p, "");
	real = fake_path(f, p);
	chmod(real, 0755);
	free(real);
}

/* The shell exits, the init looks again, then gives up. */
static void test_shell_then_retry(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_boot_setup("root=/dev/sdz9 rd.timeout=1 panic=-1");
	make_exec(f, "/usr/bin/busybox");
	fake_boot_spawns = 1;
	CHECK(run(f, &in) < 0);
	const char *order[] = { "spawn /usr/bin/busybox sh", "spawn /usr/bin/busybox sh",
				"reboot 0x1234567" };
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_boot_logged("<5>shell exited, trying again\n<6>waiting up to 1 seconds for root=/dev/sdz9\n"
		     "<3>root device root=/dev/sdz9 did not appear within 1 seconds\n"));
	init_free(&in);
	fake_ops_free(f);
}

/* A slow controller: a new disk every second until the fake clock
 * reaches appear_until (-1: forever), none of them the root. */
static long long appear_until;
static int appeared;

static void disk_every_second(struct fake_ops *f)
{
	char *msg;

	if (appear_until >= 0 && f->now >= appear_until)
		return;
	f->now += 1000;
	msg = xasprintf("add@/devices/virtual/block/sd%c|ACTION=add|SUBSYSTEM=block|DEVNAME=sd%c|"
			"DEVTYPE=disk|MAJOR=8|MINOR=%d", 'a' + appeared % 26, 'a' + appeared % 26,
			16 * (appeared % 26));
	appeared++;
	fake_recv_msg(f, msg);
	free(msg);
}

/* ... and at 7 s, the root's disk */
static void slow_then_root(struct fake_ops *f)
{
	if (f->now < appear_until) {
		disk_every_second(f);
		return;
	}
	f->now += 1000;
	disk_arrives(f);
}

/* Issue 24: while devices still appear, the wait for the root goes on
 * past rd.timeout (said so), until they were quiet for half rd.timeout
 * (at most 5 s); never past 3 rd.timeouts more. The fake clock: no real
 * second passes. */
static void test_root_wait_while_devices_appear(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	/* disks until 9 s in: quiet 2 s after the last, at 11 s: 7 s past the 4 */
	f = fake_boot_setup("root=UUID=0000-1111 rd.timeout=4 panic=-1 rd.shell=0");
	appear_until = FAKE_T0 + 9000;
	appeared = 0;
	f->on_idle = disk_every_second;
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<5>root=UUID=0000-1111 is not there after 4 seconds, but devices are "
			       "still appearing: waiting on (at most 12 seconds more)\n"));
	CHECK(fake_boot_logged("<3>root device root=UUID=0000-1111 did not appear within 4 seconds, "
			       "nor in 7 more while devices were still appearing\n"
			       "<3>block devices seen:\n"));
	CHECK(appeared == 9);
	CHECK(f->now == FAKE_T0 + 11000);
	init_free(&in);
	fake_ops_free(f);

	/* they never stop: the hard bound, 3 rd.timeouts more */
	f = fake_boot_setup("root=UUID=0000-1111 rd.timeout=4 panic=-1 rd.shell=0");
	appear_until = -1;
	appeared = 0;
	f->on_idle = disk_every_second;
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>root device root=UUID=0000-1111 did not appear within 4 seconds, "
			       "nor in 12 more while devices were still appearing\n"));
	CHECK(f->now == FAKE_T0 + 16000);
	CHECK(fake_log_count(f, "reboot 0x1234567") == 1);
	init_free(&in);
	fake_ops_free(f);

	/* the root among them: found past rd.timeout, the boot goes on */
	f = boot_without_disk("root=UUID=" UUID " rd.timeout=4 panic=-1");
	appear_until = FAKE_T0 + 6000;
	appeared = 0;
	f->on_idle = slow_then_root;
	lost_events = false;
	CHECK(run(f, &in) == 0);
	CHECK(fake_boot_logged("root=UUID=" UUID " is /dev/vda1"));
	CHECK(fake_boot_logged("<5>root=UUID=" UUID " is not there after 4 seconds, but devices are "
			       "still appearing: waiting on (at most 12 seconds more)\n"));
	CHECK(fake_log_find_prefix(f, "execve /sbin/init", 0) >= 0);
	init_free(&in);
	fake_ops_free(f);
}

/* virtio_blk's load holds the init for a minute (a starved host probing
 * 64 virtio functions took 126 s), then its disk appears: no device
 * could come meanwhile, so that minute is not counted against
 * rd.timeout, as udev's timeout is per event. */
static void slow_virtio_blk(struct fake_ops *f, const char *name)
{
	if (strcmp(name, "virtio_blk"))
		return;
	f->now += 60000;
	if (appeared)
		disk_arrives(f);
}

static bool nothing_yet(const struct init *in, const void *arg)
{
	return (void)in, (void)arg, false;
}

static void test_module_load_not_counted(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = boot_without_disk("root=UUID=" UUID " rd.timeout=4 panic=-1");
	lost_events = false;
	appeared = 1; /* the disk comes with the driver */
	f->on_finit = slow_virtio_blk;
	CHECK(run(f, &in) == 0);
	CHECK(fake_boot_logged("root=UUID=" UUID " is /dev/vda1"));
	CHECK(!strstr(kmsg_kept()->p, "is not there after"));
	CHECK(fake_log_find_prefix(f, "execve /sbin/init", 0) >= 0);
	init_free(&in);
	fake_ops_free(f);

	/* no disk after the load: rd.timeout counts from when the load
	 * returned, and the report says rd.timeout's seconds */
	f = fake_boot_setup("root=UUID=0000-1111 rd.timeout=4 panic=-1 rd.shell=0");
	appeared = 0;
	f->on_finit = slow_virtio_blk;
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>root device root=UUID=0000-1111 did not appear within 4 seconds\n"));
	CHECK(f->now == FAKE_T0 + 64000);
	init_free(&in);
	fake_ops_free(f);

	/* any wait (the /usr device's, md's half time): the load inside its
	 * loop moves its deadline on, 4 s after the load returned */
	f = fake_boot_setup("");
	memset(&in, 0, sizeof(in));
	in.ops = &f->ops;
	init_setup(&in);
	in.ml = modload_new(in.ops, MODDIR);
	CHECK(in.ml != NULL);
	in.drivers.ml = in.ml;
	driverq_push(&in.drivers, "virtio:d00000002v00001AF4", "/devices/virtio1");
	appeared = 0;
	f->on_finit = slow_virtio_blk;
	CHECK(boot_wait(&in, FAKE_T0 + 4000, nothing_yet, NULL) == 0);
	CHECK(fake_log_count(f, "finit_module virtio_blk") == 1);
	CHECK(f->now == FAKE_T0 + 64000);
	init_free(&in);
	fake_ops_free(f);
}

static void test_break_points(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_boot_setup("root=/dev/vda1 rd.break=cmdline,pre-mount rd.break");
	make_exec(f, "/bin/sh");
	fake_boot_spawns = 3;
	CHECK(run(f, &in) == 0);
	const char *order[] = {
		"mount tmpfs /run",
		"spawn /bin/sh /bin/sh",
		"finit_module virtio_blk",
		"spawn /bin/sh /bin/sh",
		"mount /dev/vda1 /sysroot",
		"spawn /bin/sh /bin/sh",
		"mount /dev /sysroot/dev",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "spawn") == 3);
	CHECK(fake_boot_logged("<3>starting /bin/sh (pre-mount); exit it to continue\n"));
	init_free(&in);
	fake_ops_free(f);

	/* no shell: say so and go on */
	f = fake_boot_setup("root=/dev/vda1 break=premount");
	CHECK(run(f, &in) == 0);
	CHECK(fake_boot_logged("<4>break point pre-mount: no shell, going on\n"));
	CHECK(fake_log_find_prefix(f, "execve /sbin/init", 0) >= 0);
	init_free(&in);
	fake_ops_free(f);
}

static void test_quiet(void)
{
	struct fake_ops *f;
	struct init in;
	char *k;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_boot_setup("root=/dev/vda1 quiet rd.timeout=zz");
	CHECK(run(f, &in) == 0);
	k = fake_boot_read(f, "/dev/kmsg");
	CHECK_STR(k, "<4>uniramfs: ignoring rd.timeout=zz: not a number of seconds\n");
	free(k);
	/* the log for the booted system keeps everything */
	CHECK(fake_boot_logged("<6>switching to the root filesystem, starting /sbin/init\n"));
	init_free(&in);
	fake_ops_free(f);
}

int main(void)
{
	RUN(test_boot);
	RUN(test_rw_and_rootfstype);
	RUN(test_init_symlink_in_new_root);
	RUN(test_no_init);
	RUN(test_root_missing);
	RUN(test_root_missing_hostonly);
	RUN(test_root_comes_later);
	RUN(test_shell_offered);
	RUN(test_no_root_option);
	RUN(test_plugin_root);
	RUN(test_baked_defaults);
	RUN(test_kver_mismatch);
	RUN(test_squash_segment);
	RUN(test_squash_not_wanted);
	RUN(test_squash_old_kernel_and_mount_failure);
	RUN(test_squash_modules_as_modprobe);
	RUN(test_mount_fails);
	RUN(test_mount_code_travels_up);
	RUN(test_shell_then_retry);
	RUN(test_break_points);
	RUN(test_root_wait_while_devices_appear);
	RUN(test_module_load_not_counted);
	RUN(test_quiet);
	fake_boot_remove_ext4();
	return test_done();
}
