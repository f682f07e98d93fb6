// SPDX-License-Identifier: GPL-2.0-or-later
/* The real system operations: thin wrappers over the syscalls. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/signalfd.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/uevent.h"
#include "init/init.h"
#include "init/stack/stack.h"
#include "log.h"

static int r_finit_module(int fd, const char *params, int flags)
{
	return (int)syscall(SYS_finit_module, fd, params, flags);
}

static int r_mount(const char *src, const char *target, const char *fstype,
		   unsigned long flags, const char *data)
{
	return mount(src, target, fstype, flags, data);
}

static int r_open(const char *path, int flags, mode_t mode)
{
	return open(path, flags, mode);
}

static int r_umount(const char *target, int flags)
{
	return umount2(target, flags);
}

static char *r_path(const char *path)
{
	return xstrdup(path);
}

static long long r_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int r_bind(int fd, const void *addr, unsigned len)
{
	return bind(fd, addr, len);
}

static ssize_t r_sendto(int fd, const void *buf, size_t len, int flags, const void *addr,
			unsigned alen)
{
	return sendto(fd, buf, len, flags, addr, alen);
}

static ssize_t r_recvfrom(int fd, void *buf, size_t len, int flags, void *addr, unsigned *alen)
{
	socklen_t l = alen ? *alen : 0;
	ssize_t n = recvfrom(fd, buf, len, flags, addr, alen ? &l : NULL);

	if (alen)
		*alen = l;
	return n;
}

static int r_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg);
}

const struct sysops real_ops = {
	.mount = r_mount,
	.umount = r_umount,
	.mkdir = mkdir,
	.symlink = symlink,
	.unlink = unlink,
	.open = r_open,
	.finit_module = r_finit_module,
	.chdir = chdir,
	.chroot = chroot,
	.execve = execve,
	.access = access,
	.uevent_open = uevent_open,
	.recv = recv,
	.poll = poll,
	.signalfd = signalfd,
	.waitpid = waitpid,
	.now_ms = r_now_ms,
	.socket = socket,
	.bind = r_bind,
	.sendto = r_sendto,
	.recvfrom = r_recvfrom,
	.sync = sync,
	.ioctl = r_ioctl,
	.path = r_path,
};

static int r_uname_release(char *buf, size_t len)
{
	struct utsname u;
	if (uname(&u) < 0)
		return err_errno(errno, "uname");
	snprintf(buf, len, "%s", u.release);
	return 0;
}

/* Remove everything below dfd that lives on dev; mount points (another
 * st_dev) are left alone, as util-linux's switch_root does. */
static void remove_below(int dfd, dev_t dev)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;

	if (!d) {
		close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int sub;
			if (st.st_dev != dev)
				continue;
			sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				remove_below(sub, dev);
			unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
		} else {
			unlinkat(dirfd(d), e->d_name, 0);
		}
	}
	closedir(d);
}

static int r_free_initramfs(const char *newroot)
{
	struct statfs sfs;
	struct stat root, nroot;
	int fd;

	/* Only the initramfs, only from PID 1: never a disk. */
	if (getpid() != 1)
		return err_set("not PID 1: not deleting anything");
	if (statfs("/", &sfs) < 0 ||
	    (sfs.f_type != RAMFS_MAGIC && sfs.f_type != TMPFS_MAGIC))
		return err_set("/ is not a ramfs or tmpfs: not deleting anything");
	if (stat("/", &root) < 0 || stat(newroot, &nroot) < 0)
		return err_errno(errno, "stat %s", newroot);
	if (root.st_dev == nroot.st_dev)
		return err_set("%s is not a mount point: not deleting anything", newroot);
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_errno(errno, "open /");
	remove_below(fd, root.st_dev);
	return 0;
}

static int r_reboot(int how)
{
	return reboot(how);
}

static pid_t r_spawn(const char *path, char *const argv[], char *const envp[])
{
	pid_t pid = fork();

	if (pid < 0)
		return err_errno(errno, "fork");
	if (pid == 0) {
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setsid();
		/* The console becomes the shell's terminal, so job control
		 * and ^C work there. */
		ioctl(STDIN_FILENO, TIOCSCTTY, 1);
		execve(path, argv, envp);
		_exit(127);
	}
	return pid;
}

static pid_t r_mount_child(const char *src, const char *target, const char *fstype,
			   unsigned long flags, const char *data)
{
	pid_t pid = fork();

	if (pid < 0)
		return err_errno(errno, "fork");
	if (pid == 0)
		_exit(mount(src, target, fstype, flags, data) == 0 ? 0 : errno & 0xff);
	return pid;
}

const struct initops real_initops = {
	.mount_child = r_mount_child,
	.uname_release = r_uname_release,
	.free_initramfs = r_free_initramfs,
	.reboot = r_reboot,
	.spawn = r_spawn,
	.run = real_run,
	.read_secret = real_read_secret,
};
