// SPDX-License-Identifier: GPL-2.0-or-later
/* The root's fstab as the initrd reads it (hostile text: every malformed
 * line named), and its x-initrd.mount entries mounted before switch_root
 * in a whole boot against fake_ops: vda1 the ext4 root, vda2 an ext4
 * disk for /srv. Also what switch_root (stages/switchroot.c) hands a
 * systemd: the initrd's start in the state it deserializes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "fake_boot.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "init/stages/xinitrd.h"
#include "test.h"

#define SRVUUID "5f0c1a4e-1b2d-4c3e-9f10-0000000007c1"

static char *root_image, *srv_image;
static int statuses[4]; /* what the fake tools exit with, in turn; then 0 */
static int nstatus;

static int x_run(const char *path, char *const argv[], char *const envp[], const void *input,
		 size_t len)
{
	struct buf b = { 0 };

	(void)envp, (void)input, (void)len;
	buf_printf(&b, "run %s", path);
	for (size_t i = 0; argv[i]; i++)
		buf_printf(&b, " %s", argv[i]);
	strv_push_owned(&fake_boot_tree->log, b.p);
	return nstatus < (int)ARRAY_SIZE(statuses) ? statuses[nstatus++] : 0;
}

static const struct initops fake_initops = {
	.uname_release = fake_boot_uname,
	.free_initramfs = fake_free_initramfs,
	.reboot = fake_reboot,
	.spawn = fake_boot_spawn,
	.run = x_run,
};

static bool make_images(void)
{
	const char *t = getenv("TMPDIR");
	char cmd[1024];

	if (root_image)
		return true;
	root_image = xasprintf("%s/uniramfs-test-xinitrd-root-%d.img", t && *t ? t : "/tmp",
			       (int)getpid());
	srv_image = xasprintf("%s/uniramfs-test-xinitrd-srv-%d.img", t && *t ? t : "/tmp",
			      (int)getpid());
	snprintf(cmd, sizeof(cmd),
		 "mkfs.ext4 -q -F -U " UUID " -L rootfs %s 8M >/dev/null 2>&1 && "
		 "mkfs.ext4 -q -F -U " SRVUUID " -L srv %s 8M >/dev/null 2>&1",
		 root_image, srv_image);
	return system(cmd) == 0;
}

static void make_exec(struct fake_ops *f, const char *p, const char *content)
{
	char *real;

	fake_write(f, p, content);
	real = fake_path(f, p);
	chmod(real, 0755);
	free(real);
}

/* vda1 the root, vda2 the /srv disk (when srv); fstab the root's. */
static struct fake_ops *setup(const char *cmdline, bool srv, const char *fstab)
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
	fake_write(f, MODDIR "/kernel/drivers/block/virtio_blk.ko", "");
	fake_write(f, MODDIR "/modules.dep", "kernel/drivers/block/virtio_blk.ko:\n");
	fake_write(f, MODDIR "/modules.alias", "alias virtio:d00000002v* virtio_blk\n");
	fake_write(f, MODDIR "/modules.softdep", "");
	fake_write(f, MODDIR "/modules.builtin", "");
	fake_boot_virtio_disk(f, root_image);
	if (srv)
		fake_boot_virtio_part2(f, srv_image);
	make_exec(f, "/sysroot/sbin/init", "#!/bin/true\n");
	make_exec(f, "/usr/sbin/e2fsck", "");
	if (fstab)
		fake_write(f, "/sysroot/etc/fstab", fstab);
	return f;
}

static int run(struct fake_ops *f, struct init *in)
{
	return fake_boot_run(f, in, &fake_initops, fake_boot_kernel_env);
}

static void done(struct fake_ops *f, struct init *in)
{
	init_free(in);
	fake_ops_free(f);
}

/* ------------------------------------------------------------ the parser */

static void parse(const char *text, struct fstab *t)
{
	fstab_parse(text, strlen(text), "/sysroot/etc/fstab", t);
}

static void test_parse(void)
{
	struct fstab t;

	parse("# /etc/fstab\n"
	      "UUID=1 / ext4 errors=remount-ro 0 1\n"
	      "\n"
	      "  LABEL=my\\040srv\t/srv\txfs\tx-initrd.mount,nofail 0 2\n"
	      "/dev/sdb1 /data\n"
	      "/dev/sdc1 none swap sw 0 0\r\n",
	      &t);
	CHECK(t.n == 4 && t.warnings.n == 0);
	CHECK_STR(t.v[0].file, "/");
	CHECK(t.v[0].passno == 1 && t.v[0].lineno == 2);
	CHECK_STR(t.v[1].spec, "LABEL=my srv");
	CHECK_STR(t.v[1].opts, "x-initrd.mount,nofail");
	CHECK(t.v[1].passno == 2 && t.v[1].lineno == 4);
	CHECK_STR(t.v[1].line, "  LABEL=my\\040srv?/srv?xfs?x-initrd.mount,nofail 0 2");
	CHECK_STR(t.v[2].type, "auto");
	CHECK_STR(t.v[2].opts, "defaults");
	CHECK(t.v[2].passno == 0);
	CHECK_STR(t.v[3].file, "none");
	CHECK_STR(t.v[3].type, "swap");
	CHECK(fstab_has_opt(t.v[1].opts, "nofail") && !fstab_has_opt(t.v[1].opts, "nofai") &&
	      !fstab_has_opt("x-initrd.mountx", "x-initrd.mount"));
	fstab_free(&t);
}

static void test_parse_malformed(void)
{
	struct fstab t;
	char *big = xmalloc(5000), *text;

	parse("lonely\n"
	      "/dev/a /a ext4 rw 0 2 extra\n"
	      "/dev/b /b ext4 rw zero 2\n"
	      "/dev/c /c ext4 rw 0 -1\n"
	      "/dev/d relative ext4 rw 0 0\n"
	      "/dev/e /e\\000x ext4 rw 0 0\n"
	      "/dev/f /f ext4 rw 0 12345\n"
	      "/dev/ok /ok ext4 rw 0 0\n",
	      &t);
	CHECK(t.n == 1);
	CHECK_STR(t.v[0].file, "/ok");
	CHECK(t.v[0].lineno == 8);
	CHECK(t.warnings.n == 7);
	if (t.warnings.n == 7) {
		CHECK_STR(t.warnings.v[0], "/sysroot/etc/fstab line 1: \"lonely\": no mount point, "
			  "ignoring it");
		CHECK_STR(t.warnings.v[1], "/sysroot/etc/fstab line 2: \"/dev/a /a ext4 rw 0 2 extra\": "
			  "more than 6 fields, ignoring it");
		CHECK_STR(t.warnings.v[2], "/sysroot/etc/fstab line 3: \"/dev/b /b ext4 rw zero 2\": "
			  "the fifth field (dump) is not a number, ignoring it");
		CHECK_STR(t.warnings.v[3], "/sysroot/etc/fstab line 4: \"/dev/c /c ext4 rw 0 -1\": "
			  "the sixth field (fsck pass) is not a number, ignoring it");
		CHECK_STR(t.warnings.v[4], "/sysroot/etc/fstab line 5: \"/dev/d relative ext4 rw 0 0\": "
			  "the mount point is not an absolute path, ignoring it");
		CHECK_STR(t.warnings.v[5], "/sysroot/etc/fstab line 6: \"/dev/e /e\\000x ext4 rw 0 0\": "
			  "an escaped NUL (\\000), ignoring it");
		CHECK_STR(t.warnings.v[6], "/sysroot/etc/fstab line 7: \"/dev/f /f ext4 rw 0 12345\": "
			  "the sixth field (fsck pass) is not a number, ignoring it");
	}
	fstab_free(&t);

	/* a NUL byte, a line too long (quoted short), control bytes */
	fstab_parse("/dev/a /a\0x\n/dev/b\x1b[2J /b\n", 26, "fstab", &t);
	CHECK(t.n == 1 && t.warnings.n == 1);
	CHECK_STR(t.warnings.v[0], "fstab line 1: \"/dev/a /a?x\": a NUL byte in it, ignoring it");
	CHECK_STR(t.v[0].line, "/dev/b?[2J /b");
	fstab_free(&t);
	memset(big, 'x', 4999);
	big[0] = '/';
	big[4999] = '\0';
	text = xasprintf("%s /big\n/dev/ok /ok\n", big);
	parse(text, &t);
	CHECK(t.n == 1 && t.warnings.n == 1);
	CHECK(t.warnings.n == 1 && strstr(t.warnings.v[0], "/sysroot/etc/fstab line 1: \"/xxx") &&
	      strstr(t.warnings.v[0], "xxx...\": longer than 4096 bytes, ignoring it") &&
	      strlen(t.warnings.v[0]) < 200);
	fstab_free(&t);
	free(text);
	free(big);

	/* bounded: the rest after FSTAB_MAX_ENTRIES said once */
	struct buf b = { 0 };
	for (int i = 0; i < FSTAB_MAX_ENTRIES + 10; i++)
		buf_printf(&b, "/dev/x /m%d\n", i);
	parse(b.p, &t);
	CHECK(t.n == FSTAB_MAX_ENTRIES && t.warnings.n == 1);
	CHECK_STR(t.warnings.v[0], "/sysroot/etc/fstab line 257: more than 256 entries, ignoring the rest");
	fstab_free(&t);
	buf_free(&b);
}

static void test_read_bounded(void)
{
	struct fake_ops *f = fake_ops_new();
	char *text = NULL, *big = xmalloc(FSTAB_MAX_BYTES + 2);
	size_t len;

	fake_mkdir(f, "/sysroot/etc");
	CHECK(fstab_read(&f->ops, "/sysroot", &text, &len) == -ENOENT);
	fake_write(f, "/sysroot/etc/fstab", "/dev/a /a\n");
	CHECK(fstab_read(&f->ops, "/sysroot", &text, &len) == 0 && len == 10);
	free(text);
	memset(big, '#', FSTAB_MAX_BYTES + 1);
	big[FSTAB_MAX_BYTES + 1] = '\0';
	fake_write(f, "/sysroot/etc/fstab", big);
	CHECK(fstab_read(&f->ops, "/sysroot", &text, &len) == -EFBIG);
	fake_ops_free(f);

	/* not a regular file: a directory (a FIFO would block the boot) */
	f = fake_ops_new();
	fake_mkdir(f, "/sysroot/etc/fstab");
	CHECK(fstab_read(&f->ops, "/sysroot", &text, &len) == -EINVAL);
	fake_ops_free(f);
	free(big);
}

/* A root whose /etc/fstab is a link (an image-based system keeps it in
 * a writable place): the link is followed as the root would see it, an
 * absolute target inside the root and never the initramfs's own file;
 * one that climbs out with .. stays in the root too. */
static void test_read_link_in_root(void)
{
	struct fake_ops *f = fake_ops_new();
	char *text = NULL;
	size_t len;

	fake_write(f, "/etc/fstab", "/dev/initramfs /wrong\n");
	fake_write(f, "/sysroot/var/etc/fstab", "/dev/b /b\n");
	fake_symlink(f, "/var/etc/fstab", "/sysroot/etc/fstab");
	CHECK(fstab_read(&f->ops, "/sysroot", &text, &len) == 0);
	CHECK_STR(text, "/dev/b /b\n");
	free(text);
	fake_ops_free(f);

	f = fake_ops_new();
	fake_write(f, "/etc/fstab", "/dev/initramfs /wrong\n");
	fake_write(f, "/sysroot/etc/real", "/dev/c /c\n");
	fake_symlink(f, "../../../../etc/real", "/sysroot/etc/fstab");
	CHECK(fstab_read(&f->ops, "/sysroot", &text, &len) == 0);
	CHECK_STR(text, "/dev/c /c\n");
	free(text);
	fake_ops_free(f);

	/* a link to a link to itself: a loop, told as one */
	f = fake_ops_new();
	fake_symlink(f, "/etc/fstab", "/sysroot/etc/fstab");
	CHECK(fstab_read(&f->ops, "/sysroot", &text, &len) == -ELOOP);
	fake_ops_free(f);
}

/* ------------------------------------------------------------ whole boots */

#define ROOTLINE "UUID=" UUID " / ext4 defaults 0 1\n"

static void test_mounted_before_switch(void)
{
	struct fake_ops *f;
	struct init in;

	if (!make_images())
		SKIP("mkfs.ext4 not available");
	/* children listed first: mounted after their parents; /home has no
	 * x-initrd.mount and is the root's own */
	f = setup("root=/dev/vda1", true,
		  ROOTLINE
		  "tmpfs /srv/cache tmpfs x-initrd.mount,size=1m,mode=0700 0 0\n"
		  "UUID=" SRVUUID " /srv ext4 x-initrd.mount,ro,noatime,x-systemd.device-timeout=5 0 2\n"
		  "LABEL=home /home ext4 defaults 0 2\n"
		  "/dev/vdz /opt ext4 x-initrd.mount,noauto 0 0\n"
		  "/dev/vdz none swap sw,x-initrd.mount 0 0\n"
		  "garbage\n");
	CHECK(run(f, &in) == 0);
	const char *order[] = { "mount /dev/vda1 /sysroot ext4 0x1 -",
				"mkdir /sysroot/srv 0755",
				"run /usr/sbin/e2fsck e2fsck -a /dev/vda2",
				"mount /dev/vda2 /sysroot/srv ext4 0x401 -",
				"mkdir /sysroot/srv/cache 0755",
				"mount tmpfs /sysroot/srv/cache tmpfs 0x0 size=1m,mode=0700",
				"mount /dev /sysroot/dev - 0x2000 -", "execve /sbin/init" };
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "mount /dev/vdz") == 0);
	CHECK(fake_log_find_prefix(f, "mount LABEL=home", 0) < 0);
	CHECK(fake_boot_logged("<4>/sysroot/etc/fstab line 7: \"garbage\": no mount point, ignoring it\n"
			       "<6>/sysroot/etc/fstab line 5: /opt is noauto, not mounting it\n"));
	CHECK(fake_boot_logged("<6>mounted /dev/vda2 (ext4, ro) on /sysroot/srv\n"
			       "<6>mounted tmpfs (tmpfs) on /sysroot/srv/cache\n"));
	done(f, &in);

	/* the root's own device again (a subvolume, a second mount): mounted
	 * already, so not checked again */
	f = setup("root=/dev/vda1", false,
		  ROOTLINE "UUID=" UUID " /var ext4 x-initrd.mount 0 2\n");
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_count(f, "run /usr/sbin/e2fsck e2fsck -a /dev/vda1") == 1);
	CHECK(fake_log_find(f, "mount /dev/vda1 /sysroot/var ext4 0x0 -") >= 0);
	done(f, &in);

	/* rd.fstab=0: none */
	f = setup("root=/dev/vda1 rd.fstab=0", true,
		  "UUID=" SRVUUID " /srv ext4 x-initrd.mount 0 2\n");
	CHECK(run(f, &in) == 0);
	CHECK(fake_log_count(f, "mount /dev/vda2") == 0);
	done(f, &in);
}

static void test_failures(void)
{
	struct fake_ops *f;
	struct init in;

	if (!make_images())
		SKIP("mkfs.ext4 not available");
	/* the device never comes: the boot stops naming the line */
	f = setup("root=/dev/vda1 rd.timeout=1 panic=-1 rd.shell=0", false,
		  ROOTLINE "PARTUUID=0badc0de-02 /var ext4 defaults,x-initrd.mount 0 2\n");
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<6>waiting for the /var device PARTUUID=0badc0de-02\n"
			       "<3>the /var device PARTUUID=0badc0de-02 (from /sysroot/etc/fstab) did "
			       "not appear within 1 seconds; the root's /sysroot/etc/fstab line 2: "
			       "\"PARTUUID=0badc0de-02 /var ext4 defaults,x-initrd.mount 0 2\" asks for "
			       "it in the initramfs (x-initrd.mount)\n"));
	CHECK(fake_log_count(f, "execve") == 0);
	done(f, &in);

	/* nofail: not waited for, the boot goes on */
	f = setup("root=/dev/vda1 rd.timeout=1", false,
		  ROOTLINE "PARTUUID=0badc0de-02 /var ext4 nofail,x-initrd.mount 0 2\n");
	CHECK(run(f, &in) == 0);
	CHECK(fake_boot_logged("<6>/sysroot/etc/fstab line 2: PARTUUID=0badc0de-02 is not there and "
			       "the line says nofail: not mounting /var\n"));
	CHECK(fake_log_count(f, "execve /sbin/init") == 1);
	done(f, &in);

	/* the mount fails */
	f = setup("root=/dev/vda1 panic=-1 rd.shell=0", true,
		  "UUID=" SRVUUID " /srv xfs x-initrd.mount 0 0\n");
	fake_fail(f, "mount", "/sysroot/srv", EINVAL);
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>cannot mount /dev/vda2 (TYPE xfs) on /sysroot/srv: Invalid argument; "
			       "the root's /sysroot/etc/fstab line 1: \"UUID=" SRVUUID " /srv xfs "
			       "x-initrd.mount 0 0\" asks for it in the initramfs (x-initrd.mount)\n"));
	done(f, &in);

	/* a mount point through a link would land in the initramfs's tree */
	f = setup("root=/dev/vda1 panic=-1 rd.shell=0", true,
		  "UUID=" SRVUUID " /srv/data ext4 x-initrd.mount 0 0\n");
	fake_symlink(f, "/etc", "/sysroot/srv");
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>/sysroot/srv is a symbolic link in the root: not mounting over it; "
			       "the root's /sysroot/etc/fstab line 1: \"UUID=" SRVUUID " /srv/data ext4 "
			       "x-initrd.mount 0 0\" asks for it in the initramfs (x-initrd.mount)\n"));
	CHECK(fake_log_find_prefix(f, "mount /dev/vda2", 0) < 0);
	done(f, &in);

	/* a spec uniramfs cannot wait for, and a ".." */
	f = setup("root=/dev/vda1 panic=-1 rd.shell=0", false,
		  "server:/export /net nfs x-initrd.mount,nofail 0 0\n"
		  "/dev/vdb1 /a/../b ext4 x-initrd.mount 0 0\n");
	CHECK(run(f, &in) < 0);
	CHECK(fake_boot_logged("<4>server:/export is not a device uniramfs understands; going on "
			       "without /net (/sysroot/etc/fstab line 1 says nofail)\n"
			       "<3>the mount point /a/../b has a \"..\" in it; the root's "
			       "/sysroot/etc/fstab line 2: \"/dev/vdb1 /a/../b ext4 x-initrd.mount 0 0\" "
			       "asks for it in the initramfs (x-initrd.mount)\n"));
	done(f, &in);
}

/* ------------------------------------------------------------ systemd's state */

static void fake_unlink(struct fake_ops *f, const char *p)
{
	char *real = fake_path(f, p);

	unlink(real);
	free(real);
}

static void test_systemd_state(void)
{
	struct fake_ops *f;
	struct init in;
	char want[128], got[128] = "", *exec;
	int fd = -1;
	ssize_t n;

	if (!make_images())
		SKIP("mkfs.ext4 not available");
	/* Debian's /sbin/init -> /lib/systemd/systemd, /lib -> usr/lib */
	f = setup("root=/dev/vda1", false, NULL);
	fake_unlink(f, "/sysroot/sbin/init");
	make_exec(f, "/sysroot/usr/lib/systemd/systemd", "");
	fake_symlink(f, "usr/lib", "/sysroot/lib");
	fake_symlink(f, "/lib/systemd/systemd", "/sysroot/sbin/init");
	fake_write(f, "/.extra/credentials/login.issue.cred", "sealed"); /* systemd-stub's */
	CHECK(run(f, &in) == 0);
	/* and its credentials where systemd's initrd leaves them (test_creds) */
	char *cred = fake_read(f, "/run/credentials/@encrypted/login.issue");
	CHECK(cred && !strcmp(cred, "sealed"));
	free(cred);
	exec = f->log.v[f->log.n - 1];
	CHECK(sscanf(exec, "execve /sbin/init --switched-root --system --deserialize=%d", &fd) == 1);
	CHECK(fake_log_find(f, "unlink /run/uniramfs/systemd-state") >= 0);
	snprintf(want, sizeof(want), "initrd-timestamp=%llu %llu\n\n", in.timing.start_realtime_us,
		 in.timing.start_monotonic_us);
	n = pread(fd, got, sizeof(got) - 1, 0);
	CHECK(fd > 2 && n > 0);
	CHECK_STR(got, want);
	CHECK(!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
	if (fd > 2)
		close(fd);
	done(f, &in);

	/* another init: argv as it was, no state */
	f = setup("root=/dev/vda1", false, NULL);
	CHECK(run(f, &in) == 0);
	CHECK_STR(f->log.v[f->log.n - 1], "execve /sbin/init");
	CHECK(fake_log_find(f, "open /run/uniramfs/systemd-state") < 0);
	done(f, &in);

	/* no state can be made: warned, systemd started without it */
	f = setup("root=/dev/vda1", false, NULL);
	fake_unlink(f, "/sysroot/sbin/init");
	make_exec(f, "/sysroot/lib/systemd/systemd", "");
	fake_symlink(f, "../lib/systemd/systemd", "/sysroot/sbin/init");
	fake_fail(f, "open", "/run/uniramfs/systemd-state", EROFS);
	CHECK(run(f, &in) == 0);
	CHECK_STR(f->log.v[f->log.n - 1], "execve /sbin/init");
	CHECK(fake_boot_logged("<4>cannot create /run/uniramfs/systemd-state: Read-only file system; "
			       "systemd-analyze will count this initrd's time as the kernel's\n"));
	done(f, &in);
}

int main(void)
{
	RUN(test_parse);
	RUN(test_parse_malformed);
	RUN(test_read_bounded);
	RUN(test_read_link_in_root);
	RUN(test_mounted_before_switch);
	RUN(test_failures);
	RUN(test_systemd_state);
	if (root_image) {
		unlink(root_image);
		unlink(srv_image);
	}
	free(root_image);
	free(srv_image);
	return test_done();
}
