// SPDX-License-Identifier: GPL-2.0-or-later
/* Resume, fsck, /usr, hooks and break points of uniramfs-init, run as a
 * whole boot against fake_ops: a virtio disk whose vda1 is the ext4 root
 * and vda2 a swap (or the /usr disk). Asserts are on what the init asked
 * the system to do, in order, and on the exact messages. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "init/stages/stages.h"
#include "err.h"
#include "fake_boot.h"
#include "init/init.h"
#include "init/core/kmsg.h"
#include "test.h"

#define SWAPUUID "5f0c1a4e-1b2d-4c3e-9f10-0000000005a1"
#define USRUUID "5f0c1a4e-1b2d-4c3e-9f10-0000000006b1"

static char *ext4_image, *usr_image, *swap_image;
static int statuses[8]; /* what the fake tools and hooks exit with, in turn; then 0 */
static int nstatus;

/* "run PATH ARG1 ARG2..." then one "env K=V" line per variable. A status
 * of -1 is a tool killed by a signal. */
static int x_run(const char *path, char *const argv[], char *const envp[], const void *input,
		 size_t len)
{
	struct buf b = { 0 };

	(void)input, (void)len;
	buf_printf(&b, "run %s", path);
	for (size_t i = 0; argv[i]; i++)
		buf_printf(&b, " %s", argv[i]);
	strv_push_owned(&fake_boot_tree->log, b.p);
	int st = nstatus < (int)ARRAY_SIZE(statuses) ? statuses[nstatus++] : 0;

	for (char *const *e = envp; e && *e; e++)
		strv_push_owned(&fake_boot_tree->log, xasprintf("env %s", *e));
	if (st < 0)
		return err_set("%s killed by signal 9", path);
	return st;
}

static const struct initops fake_initops = {
	.uname_release = fake_boot_uname,
	.free_initramfs = fake_free_initramfs,
	.reboot = fake_reboot,
	.spawn = fake_boot_spawn,
	.run = x_run,
};

static char *tmp_name(const char *what)
{
	const char *t = getenv("TMPDIR");
	return xasprintf("%s/uniramfs-test-early-%s-%d.img", t && *t ? t : "/tmp", what,
			 (int)getpid());
}

static bool make_images(void)
{
	char cmd[1024];

	if (ext4_image)
		return true;
	ext4_image = tmp_name("root");
	usr_image = tmp_name("usr");
	swap_image = tmp_name("swap");
	snprintf(cmd, sizeof(cmd),
		 "mkfs.ext4 -q -F -U " UUID " -L rootfs %s 8M >/dev/null 2>&1 && "
		 "mkfs.ext4 -q -F -U " USRUUID " -L 'usr disk' %s 8M >/dev/null 2>&1 && "
		 "truncate -s 1M %s && mkswap -U " SWAPUUID " %s >/dev/null 2>&1",
		 ext4_image, usr_image, swap_image, swap_image);
	return system(cmd) == 0;
}

/* The 10 bytes at the end of page `page` of a fake device. */
static void put_sig(struct fake_ops *f, const char *dev, long page, const char *sig)
{
	char *real = fake_path(f, dev);
	int fd = open(real, O_WRONLY);

	CHECK(fd >= 0 && pwrite(fd, sig, 10, page * 4096 + 4086) == 10);
	close(fd);
	free(real);
}

static void make_exec(struct fake_ops *f, const char *p, const char *content)
{
	char *real;

	fake_write(f, p, content);
	real = fake_path(f, p);
	chmod(real, 0755);
	free(real);
}

/* vda1: the ext4 root; vda2: dev2 (a swap or the /usr disk). */
static struct fake_ops *setup(const char *cmdline, const char *dev2)
{
	struct fake_ops *f = fake_ops_new();

	fake_boot_tree = f;
	fake_boot_spawns = 0;
	nstatus = 0;
	memset(statuses, 0, sizeof(statuses));
	fake_write(f, "/proc/cmdline", cmdline);
	fake_write(f, "/etc/uniramfs/kver", KVER "\n");
	fake_write(f, "/dev/kmsg", "");
	fake_mkdir(f, "/run");
	fake_write(f, "/sys/power/resume", "0:0\n");
	fake_write(f, "/sys/power/resume_offset", "");
	fake_write(f, MODDIR "/kernel/drivers/block/virtio_blk.ko", "");
	fake_write(f, MODDIR "/modules.dep", "kernel/drivers/block/virtio_blk.ko:\n");
	fake_write(f, MODDIR "/modules.alias", "alias virtio:d00000002v* virtio_blk\n");
	fake_write(f, MODDIR "/modules.softdep", "");
	fake_write(f, MODDIR "/modules.builtin", "");
	fake_boot_virtio_disk(f, ext4_image);
	if (dev2)
		fake_boot_virtio_part2(f, dev2);
	fake_mkdir(f, "/sysroot/usr");
	make_exec(f, "/sysroot/sbin/init", "#!/bin/true\n");
	return f;
}

static char **run_env = fake_boot_kernel_env; /* what the kernel gives /init */

static int run(struct fake_ops *f, struct init *in)
{
	return fake_boot_run(f, in, &fake_initops, run_env);
}

static void done(struct fake_ops *f, struct init *in)
{
	init_free(in);
	fake_ops_free(f);
}

/* ------------------------------------------------------------ resume */

static void test_swap_signatures(void)
{
	CHECK(swap_signature("S1SUSPEND\0") == SWAP_KERNEL);
	CHECK(swap_signature("S2SUSPEND\0") == SWAP_KERNEL);
	CHECK(swap_signature("ULSUSPEND\0") == SWAP_USWSUSP);
	CHECK(swap_signature("SWAPSPACE2") == SWAP_PLAIN);
	CHECK(swap_signature("SWAP-SPACE") == SWAP_PLAIN);
	CHECK(swap_signature("\0\0\0\0\0\0\0\0\0\0") == SWAP_NONE);
	CHECK(swap_signature("S3SUSPEND\0") == SWAP_NONE);
}

/* A kernel image on resume=: MAJ:MIN written before the root is mounted;
 * the fake write returns, so the boot goes on with a warning. */
static void test_resume_kernel_image(void)
{
	struct fake_ops *f;
	struct init in;
	char *t;

	if (!make_images())
		SKIP("mkfs.ext4 or mkswap not available");
	f = setup("root=UUID=" UUID " resume=UUID=" SWAPUUID " rd.timeout=5", swap_image);
	put_sig(f, "/dev/vda2", 0, "S1SUSPEND\0");
	CHECK(run(f, &in) == 0);
	const char *order[] = { "open /dev/vda2", "open /sys/power/resume",
				"mount /dev/vda1 /sysroot", "execve /sbin/init" };
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "open /sys/power/resume_offset") == 0);
	t = fake_boot_read(f, "/sys/power/resume");
	CHECK_STR(t, "254:2");
	free(t);
	CHECK(fake_boot_logged("<6>resume=UUID=" SWAPUUID " is /dev/vda2\n"
		     "<5>resuming from hibernation on /dev/vda2 (254:2)\n"
		     "<4>resume from /dev/vda2 failed: the kernel did not restore the image; "
		     "booting normally\n"));
	done(f, &in);

	/* a swap file: the offset first, the header read at that page */
	f = setup("root=UUID=" UUID " resume=/dev/vda2 resume_offset=8", swap_image);
	put_sig(f, "/dev/vda2", 0, "SWAPSPACE2");
	put_sig(f, "/dev/vda2", 8, "S2SUSPEND\0");
	CHECK(run(f, &in) == 0);
	const char *order2[] = { "open /sys/power/resume_offset", "open /sys/power/resume",
				 "mount /dev/vda1 /sysroot" };
	CHECK(fake_log_in_order(f, order2, ARRAY_SIZE(order2)));
	t = fake_boot_read(f, "/sys/power/resume_offset");
	CHECK_STR(t, "8");
	free(t);
	done(f, &in);

	/* MAJ:MIN names it too; a write the kernel refuses is a warning */
	f = setup("root=UUID=" UUID " resume=254:2", swap_image);
	put_sig(f, "/dev/vda2", 0, "S1SUSPEND\0");
	fake_fail(f, "open", "/sys/power/resume", EACCES);
	CHECK(run(f, &in) == 0);
	CHECK(fake_boot_logged("<4>resume from /dev/vda2 failed: cannot open /sys/power/resume: "
		     "Permission denied; booting normally\n"));
	CHECK(fake_log_find_prefix(f, "execve /sbin/init", 0) >= 0);
	done(f, &in);
}

static void test_resume_no_image(void)
{
	struct fake_ops *f;
	struct init in;
	char *t;

	if (!make_images())
		SKIP("mkfs.ext4 or mkswap not available");
	f = setup("root=UUID=" UUID " resume=UUID=" SWAPUUID, swap_image);
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_count(f, "open /sys/power/resume") == 0);
	CHECK(fake_boot_logged("<6>no hibernation image on /dev/vda2, booting normally\n"));
	done(f, &in);

	f = setup("root=UUID=" UUID " resume=/dev/vda2", swap_image);
	put_sig(f, "/dev/vda2", 0, "ULSUSPEND\0");
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_count(f, "open /sys/power/resume") == 0);
	CHECK(fake_boot_logged("<4>/dev/vda2 holds a uswsusp image (ULSUSPEND) that only uswsusp's resume "
		     "can restore; booting normally\n"));
	done(f, &in);

	/* noresume: not even with an image there */
	f = setup("root=UUID=" UUID " resume=/dev/vda2 noresume", swap_image);
	put_sig(f, "/dev/vda2", 0, "S1SUSPEND\0");
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_count(f, "open /sys/power/resume") == 0);
	CHECK(fake_boot_logged("<6>noresume: not resuming from resume=/dev/vda2\n"));
	t = fake_boot_read(f, "/sys/power/resume");
	CHECK_STR(t, "0:0\n");
	free(t);
	done(f, &in);

	/* the resume device never comes: the root waits for it, bounded */
	f = setup("root=UUID=" UUID " resume=UUID=0000-1111 rd.timeout=1", NULL);
	CHECK(run(f, &in) == 0);
	CHECK(fake_boot_logged("<6>waiting for resume=UUID=0000-1111\n"
		     "<4>resume device resume=UUID=0000-1111 did not appear in time; "
		     "booting normally\n"));
	CHECK(fake_log_find_prefix(f, "execve /sbin/init", 0) >= 0);
	done(f, &in);

	/* a stale resume= (the swap is gone): once the devices are quiet,
	 * rd.resume.timeout, not the root's 30 s */
	f = setup("root=UUID=" UUID " resume=UUID=0000-1111 rd.resume.timeout=1", NULL);
	CHECK(run(f, &in) == 0);
	CHECK(fake_boot_logged("<6>waiting for resume=UUID=0000-1111\n"
		     "<4>resume device resume=UUID=0000-1111 did not appear within 1 seconds of "
		     "the last device event (rd.resume.timeout=); booting normally\n"));
	CHECK(fake_log_find_prefix(f, "execve /sbin/init", 0) >= 0);
	done(f, &in);

	/* an offset whose byte position overflows: named, not read */
	f = setup("root=UUID=" UUID " resume=/dev/vda2 resume_offset=9223372036854775807", swap_image);
	CHECK(run(f, &in) == 0);
	CHECK(fake_boot_logged("<4>resume_offset=9223372036854775807 is past the end of any device; "
		     "booting normally\n"));
	CHECK(fake_log_count(f, "open /dev/vda2") == 0);
	CHECK(fake_log_count(f, "open /sys/power/resume") == 0);
	done(f, &in);
}

/* Devices still coming (here a disk every 0.9 s, four times) are not
 * quiet: the short resume wait counts from the last of them. */
static int churn_left;

static void churn(struct fake_ops *f)
{
	char *msg;

	if (!churn_left--) {
		f->on_idle = NULL;
		return;
	}
	f->now += 900;
	msg = xasprintf("add@/devices/virtual/block/vd%c|ACTION=add|SUBSYSTEM=block|DEVNAME=vd%c|"
			"DEVTYPE=disk|MAJOR=254|MINOR=%d", 'w' + churn_left, 'w' + churn_left,
			100 + churn_left);
	fake_recv_msg(f, msg);
	free(msg);
}

static void test_resume_waits_while_devices_come(void)
{
	struct fake_ops *f;
	struct init in;

	if (!make_images())
		SKIP("mkfs.ext4 or mkswap not available");
	f = setup("root=UUID=" UUID " resume=UUID=0000-1111 rd.resume.timeout=1", NULL);
	churn_left = 4;
	f->on_idle = churn;
	CHECK(run(f, &in) == 0);
	CHECK(fake_boot_logged("<4>resume device resume=UUID=0000-1111 did not appear within 1 seconds of "
		     "the last device event (rd.resume.timeout=); booting normally\n"));
	/* on the fake clock: the four disks' 3.6 s, then the quiet second */
	CHECK(f->now - FAKE_T0 >= 4 * 900 + 1000);
	CHECK(f->now - FAKE_T0 < 30000);
	done(f, &in);
}

/* Once a filesystem is mounted, a resume device that shows up late is
 * never resumed from. */
static void test_never_resume_after_mount(void)
{
	struct fake_ops *f;
	struct init in;
	struct blockdev bd = { .name = "vda2", .devnode = "/dev/vda2", .major = 254, .minor = 2 };
	struct cmdline c = { 0 };

	if (!make_images())
		SKIP("mkfs.ext4 or mkswap not available");
	f = setup("", swap_image);
	put_sig(f, "/dev/vda2", 0, "S1SUSPEND\0");
	memset(&in, 0, sizeof(in));
	in.ops = &f->ops;
	in.xops = &fake_initops;
	init_setup(&in);
	kmsg_setup();
	cmdline_parse_layers(&c, NULL, "resume=/dev/vda2");
	options_parse(&in.opt, &c);
	cmdline_free(&c);
	in.fs_mounted = true;
	resume_seen(&in, DEV_ADDED, &bd);
	CHECK(fake_log_count(f, "open") == 0);
	CHECK(fake_boot_logged("<4>not resuming from /dev/vda2: a filesystem is mounted already\n"));
	/* and dealt with: not looked at again */
	in.fs_mounted = false;
	resume_seen(&in, DEV_ADDED, &bd);
	CHECK(fake_log_count(f, "open") == 0);
	kmsg_free();
	done(f, &in);
}

/* ------------------------------------------------------------ device events */

/* An init at the device stage without a boot around it: the fake tree
 * of setup(), root= and the log sink ready, nothing probed yet. */
static void bare_init(struct fake_ops *f, struct init *in, const char *cmdline)
{
	struct cmdline c = { 0 };

	memset(in, 0, sizeof(*in));
	in->ops = &f->ops;
	in->xops = &fake_initops;
	init_setup(in);
	kmsg_setup();
	cmdline_parse_layers(&c, NULL, cmdline);
	options_parse(&in->opt, &c);
	cmdline_free(&c);
}

/* The kernel's uevent for vda1, the root's partition: ACTION add or remove. */
#define VDA1_UEVENT(action)                                                               \
	action "@/devices/virtio1/block/vda/vda1|ACTION=" action "|SUBSYSTEM=block|" \
	       "DEVNAME=vda1|DEVTYPE=partition|MAJOR=254|MINOR=1"

/* A root that goes away is looked for again: the next wait does not
 * end on a device that is no longer there. */
static void test_remove_forgets_root(void)
{
	struct fake_ops *f;
	struct init in;

	if (!make_images())
		SKIP("mkfs.ext4 or mkswap not available");
	f = setup("", NULL);
	bare_init(f, &in, "root=UUID=" UUID);
	fake_recv_msg(f, VDA1_UEVENT("add"));
	devevents_ready(&in.events);
	CHECK(in.devs.n == 1 && in.root && !strcmp(in.root, "vda1"));
	fake_recv_msg(f, VDA1_UEVENT("remove"));
	devevents_ready(&in.events);
	CHECK(in.devs.n == 0);
	CHECK(in.root == NULL);
	CHECK(fake_boot_logged("<4>root device /dev/vda1 went away; waiting for root=UUID=" UUID " again\n"));
	/* back again: found again */
	fake_recv_msg(f, VDA1_UEVENT("add"));
	devevents_ready(&in.events);
	CHECK(in.devs.n == 1 && in.root && !strcmp(in.root, "vda1"));
	init_free(&in);
	fake_ops_free(f);
}

/* The kernel's add event of a blank SCSI disk sdxI. */
static void queue_blank_disk(struct fake_ops *f, int i)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "add@/devices/scsi/block/sdx%d|ACTION=add|SUBSYSTEM=block|"
		 "DEVNAME=sdx%d|DEVTYPE=disk|MAJOR=8|MINOR=%d", i, i, i);
	fake_recv_msg(f, msg);
}

/* The root is found at coldplug, so its wait ends without polling the
 * socket, with 40 blank disks' events and then vdb's (the /usr image's
 * filesystem) unread: the root's own fstab may name vdb by a /dev/disk
 * link, which must be there before the hand-over (boot test
 * dracut44-driver-export, which failed when a cap of 16 events a wakeup
 * left them so), and a pre-mount hook sees it too. */
static void test_queued_disks_linked_before_handover(void)
{
	static const char by_uuid[] = "/dev/disk/by-uuid/" USRUUID;
	struct fake_ops *f;
	struct init in;
	char *t;
	int link, hook, exec;

	if (!make_images())
		SKIP("mkfs.ext4 or mkswap not available");
	for (int with_hook = 0; with_hook < 2; with_hook++) {
		f = setup("root=/dev/vda1 rd.fstab=0", NULL);
		/* virtio_blk built in: no driver left to load, so the loop
		 * ends the wait without reading the socket at all */
		t = fake_path(f, VIRTIO "/virtio1/modalias");
		CHECK(unlink(t) == 0);
		free(t);
		fake_boot_copy_into(f, usr_image, "/dev/vdb");
		if (with_hook)
			make_exec(f, HOOKS_DIR "/pre-mount/10-look", "");
		for (int i = 0; i < 40; i++)
			queue_blank_disk(f, i);
		fake_recv_msg(f, "add@/devices/virtio2/block/vdb|ACTION=add|SUBSYSTEM=block|"
			      "DEVNAME=vdb|DEVTYPE=disk|MAJOR=254|MINOR=16");
		CHECK(run(f, &in) == 0);
		t = fake_readlink(f, by_uuid);
		CHECK_STR(t, "../../vdb");
		free(t);
		CHECK(registry_get(&in.devs, "sdx39") != NULL);
		t = xasprintf("symlink ../../vdb %s", by_uuid);
		link = fake_log_find(f, t);
		free(t);
		hook = fake_log_find_prefix(f, "run " HOOKS_DIR "/pre-mount/10-look", 0);
		exec = fake_log_find(f, "execve /sbin/init");
		CHECK(link >= 0 && exec > link);
		CHECK(!with_hook || (hook >= 0 && hook > link));
		done(f, &in);
	}
}

/* ENOBUFS: events were lost; sysfs says what is there now. */
static void test_overrun_rescans(void)
{
	struct fake_ops *f;
	struct init in;

	if (!make_images())
		SKIP("mkfs.ext4 or mkswap not available");
	f = setup("", NULL);
	bare_init(f, &in, "root=UUID=" UUID);
	/* a disk whose remove was lost, then the overrun */
	fake_recv_msg(f, "add@/devices/virtio9/block/vdz|ACTION=add|SUBSYSTEM=block|"
		      "DEVNAME=vdz|DEVTYPE=disk|MAJOR=254|MINOR=99");
	fake_recv_err(f, ENOBUFS);
	devevents_ready(&in.events);
	CHECK(fake_boot_logged("<4>uevent buffer overrun, some device events were lost; reading the devices "
		     "from sysfs again\n"));
	CHECK(in.devs.n == 2);
	CHECK(in.devs.n == 2 && !strcmp(in.devs.v[0].name, "vda") && !strcmp(in.devs.v[1].name, "vda1"));
	CHECK(in.root && !strcmp(in.root, "vda1"));
	/* the driver of what sysfs has is queued again */
	CHECK(in.drivers.n == 1);
	init_free(&in);
	fake_ops_free(f);
}

/* ------------------------------------------------------------ fsck */

static char *joined(char **argv)
{
	struct buf b = { 0 };

	if (!argv)
		return xstrdup("(none)");
	for (size_t i = 0; argv[i]; i++) {
		buf_printf(&b, "%s%s", i ? " " : "", argv[i]);
		free(argv[i]);
	}
	free(argv);
	return b.p;
}

static void test_fsck_argv(void)
{
	static const struct {
		const char *cmdline, *fstype, *want;
	} cases[] = {
		{ "", "ext4", "e2fsck -a /dev/vda1" },
		{ "", "ext2", "e2fsck -a /dev/vda1" },
		{ "fsck.mode=force", "ext4", "e2fsck -a -f /dev/vda1" },
		{ "fsck.repair=yes", "ext3", "e2fsck -y /dev/vda1" },
		{ "fsck.repair=no fsck.mode=force", "ext4", "e2fsck -n -f /dev/vda1" },
		{ "fsck.repair=preen", "vfat", "fsck.vfat -a /dev/vda1" },
		{ "fsck.mode=force", "vfat", "fsck.vfat -a /dev/vda1" },
		{ "fsck.mode=skip", "ext4", "(none)" },
		{ "rd.skipfsck", "ext4", "(none)" },
		{ "", "xfs", "(none)" },
		{ "", "btrfs", "(none)" },
		{ "", "f2fs", "fsck.f2fs -a /dev/vda1" },
		{ "fsck.mode=force fsck.repair=yes", "f2fs", "fsck.f2fs -y -f /dev/vda1" },
		/* fsck.f2fs has no -n */
		{ "fsck.repair=no", "f2fs", "fsck.f2fs --dry-run /dev/vda1" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cmdline c = { 0 };
		struct options o;
		char *got;

		cmdline_parse_layers(&c, NULL, cases[i].cmdline);
		options_parse(&o, &c);
		got = joined(fsck_argv(&o, cases[i].fstype, "/dev/vda1"));
		CHECK_STR(got, cases[i].want);
		free(got);
		options_free(&o);
		cmdline_free(&c);
	}
}

/* A child that runs in place: what it does lands in the log at once,
 * and its pid is nobody's child, so waiting for it is ECHILD. */
static pid_t x_run_child(void (*fn)(void *arg), void *arg)
{
	strv_push(&fake_boot_tree->log, "run_child");
	fn(arg);
	return 999999;
}

/* The filesystem's modules load in a child while the checker runs, and
 * the mount loads none again once sysfs says they are live. */
static void test_fsck_fs_modules_meanwhile(void)
{
	static const struct initops xops = {
		.uname_release = fake_boot_uname,
		.free_initramfs = fake_free_initramfs,
		.reboot = fake_reboot,
		.spawn = fake_boot_spawn,
		.run = x_run,
		.run_child = x_run_child,
	};
	struct fake_ops *f;
	struct init in;

	if (!make_images())
		SKIP("mkfs.ext4 or mkswap not available");
	f = setup("root=/dev/vda1", NULL);
	make_exec(f, "/usr/sbin/e2fsck", "");
	fake_write(f, MODDIR "/kernel/fs/ext4/ext4.ko", "");
	fake_write(f, MODDIR "/modules.dep", "kernel/drivers/block/virtio_blk.ko:\n"
					     "kernel/fs/ext4/ext4.ko:\n");
	CHECK(fake_boot_run(f, &in, &xops, run_env) == 0);
	const char *order[] = { "run_child", "finit_module ext4", "run /usr/sbin/e2fsck",
				"mount /dev/vda1 /sysroot" };
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "finit_module ext4") == 1);
	done(f, &in);

	/* in the kernel already: the mount asks sysfs, not finit_module */
	f = setup("root=/dev/vda1", NULL);
	make_exec(f, "/usr/sbin/e2fsck", "");
	fake_write(f, MODDIR "/kernel/fs/ext4/ext4.ko", "");
	fake_write(f, MODDIR "/modules.dep", "kernel/drivers/block/virtio_blk.ko:\n"
					     "kernel/fs/ext4/ext4.ko:\n");
	fake_write(f, "/sys/module/ext4/initstate", "live\n");
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_count(f, "finit_module ext4") == 0);
	CHECK(fake_log_find_prefix(f, "mount /dev/vda1 /sysroot", 0) >= 0);
	done(f, &in);
}

static void test_fsck_exit_codes(void)
{
	struct fake_ops *f;
	struct init in;

	if (!make_images())
		SKIP("mkfs.ext4 or mkswap not available");
	/* 0: clean, mounted after the check */
	f = setup("root=/dev/vda1", NULL);
	make_exec(f, "/usr/sbin/e2fsck", "");
	CHECK(run(f, &in) == 0);
	const char *order[] = { "run /usr/sbin/e2fsck e2fsck -a /dev/vda1", "mount /dev/vda1 /sysroot",
				"execve /sbin/init" };
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_boot_logged("<6>checking /dev/vda1 (ext4): e2fsck -a /dev/vda1\n"));
	done(f, &in);

	/* a read-only device (a read-only NBD export): e2fsck could not
	 * open it to repair, so it is not run; mounted */
	f = setup("root=/dev/vda1", NULL);
	make_exec(f, "/usr/sbin/e2fsck", "");
	fake_write(f, "/sys/class/block/vda1/ro", "1\n");
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_count(f, "run /usr/sbin/e2fsck e2fsck -a /dev/vda1") == 0);
	CHECK(fake_boot_logged("<6>/dev/vda1 is read-only: not checking it\n"));
	CHECK(fake_log_find_prefix(f, "mount /dev/vda1 /sysroot", 0) >= 0);
	done(f, &in);

	/* 1: corrected, going on */
	f = setup("root=/dev/vda1 fsck.mode=force fsck.repair=yes", NULL);
	make_exec(f, "/sbin/fsck.ext4", ""); /* only the fsck.TYPE name packed */
	statuses[0] = 1;
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_find(f, "run /sbin/fsck.ext4 e2fsck -y -f /dev/vda1") >= 0);
	CHECK(fake_boot_logged("<5>e2fsck corrected errors on /dev/vda1, going on\n"));
	CHECK(fake_log_find_prefix(f, "execve /sbin/init", 0) >= 0);
	done(f, &in);

	/* 2: reboot, never mounted */
	f = setup("root=/dev/vda1 panic=-1", NULL);
	make_exec(f, "/usr/sbin/e2fsck", "");
	statuses[0] = 2;
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>e2fsck corrected errors on /dev/vda1 and asks for a reboot (exit status 2): "
		     "rebooting now\n"));
	CHECK(fake_log_find(f, "reboot 0x1234567") > fake_log_find_prefix(f, "run /usr/sbin/e2fsck", 0));
	CHECK(fake_log_count(f, "mount /dev/vda1") == 0);
	done(f, &in);

	/* 4: the failure path, no mount */
	f = setup("root=/dev/vda1 panic=-1 rd.shell=0", NULL);
	make_exec(f, "/usr/sbin/e2fsck", "");
	statuses[0] = 4;
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>e2fsck left errors on /dev/vda1 (exit status 4, see its output above); "
		     "repair it by hand: e2fsck -f /dev/vda1\n"
		     "<3>not starting a shell: rd.shell=0\n"));
	CHECK(fake_log_count(f, "mount /dev/vda1") == 0);
	CHECK(fake_log_count(f, "reboot 0x1234567") == 1);
	done(f, &in);

	/* killed (or not executable): as status 4, never mounted unchecked */
	f = setup("root=/dev/vda1 panic=-1 rd.shell=0", NULL);
	make_exec(f, "/usr/sbin/e2fsck", "");
	statuses[0] = -1;
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>e2fsck did not check /dev/vda1: /usr/sbin/e2fsck killed by signal 9; "
		     "treating it as exit status 4 (errors left), not mounting /dev/vda1 unchecked\n"
		     "<3>not starting a shell: rd.shell=0\n"));
	CHECK(fake_log_count(f, "mount /dev/vda1") == 0);
	CHECK(fake_log_count(f, "reboot 0x1234567") == 1);
	done(f, &in);

	/* skipped: no checker run at all */
	f = setup("root=/dev/vda1 fsck.mode=skip fsck.repair=maybe", NULL);
	make_exec(f, "/usr/sbin/e2fsck", "");
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_count(f, "run") == 0);
	CHECK(fake_boot_logged("<4>ignoring fsck.repair=maybe: not preen, yes or no\n"));
	done(f, &in);

	/* no checker in the image: said, and mounted */
	f = setup("root=/dev/vda1", NULL);
	CHECK(run(f, &in) == 0);
	CHECK(fake_boot_logged("<6>no e2fsck in this image, not checking /dev/vda1\n"));
	CHECK(fake_log_find_prefix(f, "mount /dev/vda1 /sysroot", 0) >= 0);
	done(f, &in);
}

/* ------------------------------------------------------------ /usr */

static void test_fstab_parse(void)
{
	struct fstab_entry e;
	const char *t = "# comment /usr\n"
			"\n"
			"UUID=1 / ext4 defaults 0 1\n"
			"   # indented comment\n"
			"LABEL=my\\040usr\t/usr/\t  ext4\tro,noatime\t0\t2\n"
			"/dev/sdb1 /srv xfs defaults 0 0\n";

	CHECK(fstab_find(t, "/usr", &e) == 0);
	CHECK_STR(e.spec, "LABEL=my usr");
	CHECK_STR(e.file, "/usr/");
	CHECK_STR(e.type, "ext4");
	CHECK_STR(e.opts, "ro,noatime");
	CHECK(e.passno == 2);
	fstab_entry_free(&e);
	CHECK(fstab_find(t, "/srv", &e) == 0 && e.passno == 0);
	fstab_entry_free(&e);
	CHECK(fstab_find(t, "/var", &e) == 1);
	/* short lines: type auto, options defaults */
	CHECK(fstab_find("/dev/sdb2 /usr\n", "/usr", &e) == 0);
	CHECK_STR(e.type, "auto");
	CHECK_STR(e.opts, "defaults");
	CHECK(e.passno == 0);
	fstab_entry_free(&e);
	CHECK(fstab_find("", "/usr", &e) == 1);
	CHECK(fstab_find("# only /usr\n", "/usr", &e) == 1);
}

static void test_usr_mount(void)
{
	struct fake_ops *f;
	struct init in;
	char flags[160];

	if (!make_images())
		SKIP("mkfs.ext4 or mkswap not available");
	f = setup("root=/dev/vda1", usr_image);
	fake_write(f, "/sysroot/etc/fstab", "UUID=" UUID " / ext4 defaults 0 1\n"
		   "LABEL=usr\\040disk /usr auto ro,noatime,commit=30 0 2\n");
	make_exec(f, "/usr/sbin/e2fsck", "");
	CHECK(run(f, &in) == 0);
	snprintf(flags, sizeof(flags), "mount /dev/vda2 /sysroot/usr ext4 0x%x commit=30",
		 0x1 | 0x400); /* MS_RDONLY | MS_NOATIME */
	const char *order[] = { "run /usr/sbin/e2fsck e2fsck -a /dev/vda1", "mount /dev/vda1 /sysroot",
				"run /usr/sbin/e2fsck e2fsck -a /dev/vda2", flags,
				"mount /dev /sysroot/dev", "execve /sbin/init" };
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_boot_logged("<6>mounted /dev/vda2 (ext4, ro) on /sysroot/usr\n"));
	done(f, &in);

	/* pass 0: not checked; rd.fstab=0 and noauto: not mounted */
	f = setup("root=/dev/vda1", usr_image);
	fake_write(f, "/sysroot/etc/fstab", "UUID=" USRUUID " /usr ext4 defaults 0 0\n");
	make_exec(f, "/usr/sbin/e2fsck", "");
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_count(f, "run /usr/sbin/e2fsck e2fsck -a /dev/vda2") == 0);
	CHECK(fake_log_find(f, "mount /dev/vda2 /sysroot/usr ext4 0x0 -") >= 0);
	done(f, &in);
	f = setup("root=/dev/vda1 rd.fstab=0", usr_image);
	fake_write(f, "/sysroot/etc/fstab", "UUID=" USRUUID " /usr ext4 defaults 0 0\n");
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_count(f, "mount /dev/vda2") == 0);
	done(f, &in);
	f = setup("root=/dev/vda1", usr_image);
	fake_write(f, "/sysroot/etc/fstab", "UUID=" USRUUID " /usr ext4 noauto 0 0\n");
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_count(f, "mount /dev/vda2") == 0);
	CHECK(fake_boot_logged("<6>/usr (UUID=" USRUUID ") is noauto in /sysroot/etc/fstab, not mounting it\n"));
	done(f, &in);

	/* the /usr device never appears: the failure path */
	f = setup("root=/dev/vda1 rd.timeout=1 panic=-1 rd.shell=0", NULL);
	fake_write(f, "/sysroot/etc/fstab", "PARTUUID=0badc0de-01 /usr ext4 defaults 0 2\n");
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<6>waiting for the /usr device PARTUUID=0badc0de-01\n"
		     "<3>the /usr device PARTUUID=0badc0de-01 (from /sysroot/etc/fstab) did not "
		     "appear within 1 seconds\n"));
	CHECK(fake_log_count(f, "execve") == 0);
	done(f, &in);
}

/* ------------------------------------------------------------ hooks, breaks */

/* A log line equal to line after index a and before b. */
static bool between(struct fake_ops *f, const char *line, int a, int b)
{
	for (int i = a + 1; i < b; i++)
		if (!strcmp(f->log.v[i], line))
			return true;
	return false;
}

static void test_hooks(void)
{
	struct fake_ops *f;
	struct init in;
	int a, b, env;

	if (!make_images())
		SKIP("mkfs.ext4 or mkswap not available");
	f = setup("root=LABEL=rootfs disablehooks=99-off", NULL);
	make_exec(f, HOOKS_DIR "/pre-pivot/20-b", "");
	make_exec(f, HOOKS_DIR "/pre-pivot/10-a", "");
	make_exec(f, HOOKS_DIR "/pre-pivot/99-off", "");
	make_exec(f, HOOKS_DIR "/pre-pivot/.hidden", "");
	fake_write(f, HOOKS_DIR "/pre-pivot/30-notexec", "");
	make_exec(f, HOOKS_DIR "/cmdline/x", "");
	make_exec(f, HOOKS_DIR "/pre-udev/x", "");
	make_exec(f, HOOKS_DIR "/pre-mount/x", "");
	make_exec(f, HOOKS_DIR "/mount/x", "");
	statuses[0] = 0; /* cmdline */
	statuses[1] = 0; /* pre-udev */
	statuses[2] = 0; /* pre-mount */
	statuses[3] = 0; /* mount */
	statuses[4] = 7; /* pre-pivot/10-a */
	run_env = (char *[]){ "HOME=/", "TERM=vt100", "LD_PRELOAD=/evil.so", "PATH=/evil",
			      "rootfstype=x", "IMSM_NO_PLATFORM=1", "IMSM_DEVNAME_AS_SERIAL=1", NULL };
	CHECK(run(f, &in) == 0);
	run_env = fake_boot_kernel_env;
	const char *order[] = {
		"run " HOOKS_DIR "/cmdline/x", "env UNIRAMFS_STAGE=cmdline",
		"run " HOOKS_DIR "/pre-udev/x", "finit_module virtio_blk",
		"run " HOOKS_DIR "/pre-mount/x", "mount /dev/vda1 /sysroot",
		"run " HOOKS_DIR "/mount/x", "env UNIRAMFS_ROOT_MOUNTED=1",
		"run " HOOKS_DIR "/pre-pivot/10-a", "run " HOOKS_DIR "/pre-pivot/20-b",
		"mount /dev /sysroot/dev", "execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "run ") == 6);
	CHECK(fake_log_count(f, "run " HOOKS_DIR "/pre-pivot/99-off") == 0);
	CHECK(fake_log_count(f, "run " HOOKS_DIR "/pre-pivot/.hidden") == 0);
	/* the state, in the environment of the pre-pivot hooks */
	a = fake_log_find(f, "run " HOOKS_DIR "/pre-pivot/10-a " HOOKS_DIR "/pre-pivot/10-a");
	b = fake_log_find_prefix(f, "run " HOOKS_DIR "/pre-pivot/20-b", 0);
	CHECK(a >= 0 && b > a);
	env = fake_log_find(f, "env UNIRAMFS_STAGE=pre-pivot");
	CHECK(env > a && env < b);
	CHECK(between(f, "env UNIRAMFS_ROOT=LABEL=rootfs", a, b));
	CHECK(between(f, "env UNIRAMFS_ROOT_DEV=/dev/vda1", a, b));
	CHECK(between(f, "env UNIRAMFS_SYSROOT=/sysroot", a, b));
	CHECK(between(f, "env UNIRAMFS_KVER=" KVER, a, b));
	CHECK(between(f, "env UNIRAMFS_ROOT_MOUNTED=1", a, b));
	/* a clean environment: the command line's words do not reach it */
	CHECK(between(f, "env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", a, b));
	CHECK(between(f, "env HOME=/", a, b));
	CHECK(between(f, "env TERM=vt100", a, b));
	CHECK(fake_log_count(f, "env LD_PRELOAD") == 0);
	CHECK(fake_log_count(f, "env PATH=/evil") == 0);
	CHECK(fake_log_count(f, "env rootfstype") == 0);
	/* but mdadm's switches for Intel firmware RAID without its ROM do */
	CHECK(between(f, "env IMSM_NO_PLATFORM=1", a, b));
	CHECK(between(f, "env IMSM_DEVNAME_AS_SERIAL=1", a, b));
	CHECK(fake_boot_logged("<4>hook pre-pivot/10-a failed with status 7\n"));
	CHECK(fake_boot_logged("<4>hook pre-pivot/30-notexec is not executable, skipping it\n"));
	CHECK(fake_boot_logged("<6>hook pre-pivot/99-off disabled by disablehooks=\n"));
	/* the cmdline hook ran before the root was known */
	CHECK(fake_log_find(f, "env UNIRAMFS_ROOT_DEV=/dev/vda1") >
	      fake_log_find_prefix(f, "run " HOOKS_DIR "/pre-mount/x", 0));
	done(f, &in);
}

static void test_break_mount(void)
{
	struct fake_ops *f;
	struct init in;

	if (!make_images())
		SKIP("mkfs.ext4 or mkswap not available");
	f = setup("root=/dev/vda1 rd.break=mount,pre-pivot", usr_image);
	fake_write(f, "/sysroot/etc/fstab", "UUID=" USRUUID " /usr ext4 defaults 0 0\n");
	make_exec(f, "/bin/sh", "");
	make_exec(f, HOOKS_DIR "/mount/x", "");
	fake_boot_spawns = 2;
	CHECK(run(f, &in) == 0);
	const char *order[] = { "mount /dev/vda1 /sysroot", "spawn /bin/sh /bin/sh",
				"run " HOOKS_DIR "/mount/x", "mount /dev/vda2 /sysroot/usr",
				"spawn /bin/sh /bin/sh", "mount /dev /sysroot/dev" };
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_boot_logged("<3>starting /bin/sh (mount); exit it to continue\n"));
	CHECK(fake_boot_logged("<3>starting /bin/sh (pre-pivot); exit it to continue\n"));
	done(f, &in);
}

int main(void)
{
	RUN(test_swap_signatures);
	RUN(test_resume_kernel_image);
	RUN(test_resume_no_image);
	RUN(test_resume_waits_while_devices_come);
	RUN(test_never_resume_after_mount);
	RUN(test_remove_forgets_root);
	RUN(test_queued_disks_linked_before_handover);
	RUN(test_overrun_rescans);
	RUN(test_fsck_argv);
	RUN(test_fsck_exit_codes);
	RUN(test_fsck_fs_modules_meanwhile);
	RUN(test_fstab_parse);
	RUN(test_usr_mount);
	RUN(test_hooks);
	RUN(test_break_mount);
	if (ext4_image) {
		unlink(ext4_image);
		unlink(usr_image);
		unlink(swap_image);
	}
	free(ext4_image);
	free(usr_image);
	free(swap_image);
	return test_done();
}
