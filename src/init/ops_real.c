// SPDX-License-Identifier: GPL-2.0-or-later
/* The real system operations: thin wrappers over the syscalls. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <linux/magic.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
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
#include "init/stack/plugin_ask.h"
#include "log.h"

/* Each wrapper turns the syscall's "-1 with errno set" into -errno right
 * after the call, before anything else can change errno. A function, not
 * a macro: the call must happen once. */
static long ret(long r)
{
	return r < 0 ? -errno : r;
}

static int r_finit_module(int fd, const char *params, int flags)
{
	return ret((int)syscall(SYS_finit_module, fd, params, flags));
}

static int r_mount(const char *src, const char *target, const char *fstype,
		   unsigned long flags, const char *data)
{
	return ret(mount(src, target, fstype, flags, data));
}

static int r_umount(const char *target, int flags)
{
	return ret(umount2(target, flags));
}

static int r_mkdir(const char *path, mode_t mode)
{
	return ret(mkdir(path, mode));
}

static int r_symlink(const char *target, const char *linkpath)
{
	return ret(symlink(target, linkpath));
}

static int r_unlink(const char *path)
{
	return ret(unlink(path));
}

static int r_open(const char *path, int flags, mode_t mode)
{
	return ret(open(path, flags, mode));
}

static int r_chdir(const char *path)
{
	return ret(chdir(path));
}

static int r_chroot(const char *path)
{
	return ret(chroot(path));
}

static int r_execve(const char *path, char *const argv[], char *const envp[])
{
	return ret(execve(path, argv, envp));
}

static int r_access(const char *path, int mode)
{
	return ret(access(path, mode));
}

static ssize_t r_recv(int fd, void *buf, size_t len, int flags)
{
	return ret(recv(fd, buf, len, flags));
}

static int r_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	return ret(poll(fds, n, timeout_ms));
}

static int r_signalfd(int fd, const sigset_t *mask, int flags)
{
	return ret(signalfd(fd, mask, flags));
}

static pid_t r_waitpid(pid_t pid, int *status, int options)
{
	return ret(waitpid(pid, status, options));
}

static int r_socket(int domain, int type, int protocol)
{
	return ret(socket(domain, type, protocol));
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
	return ret(bind(fd, addr, len));
}

static ssize_t r_sendto(int fd, const void *buf, size_t len, int flags, const void *addr,
			unsigned alen)
{
	return ret(sendto(fd, buf, len, flags, addr, alen));
}

static int r_close(int fd)
{
	/* Linux frees the fd even when close reports EINTR: never retried */
	return close(fd) < 0 ? -errno : 0;
}

static ssize_t r_recvfrom(int fd, void *buf, size_t len, int flags, void *addr, unsigned *alen)
{
	socklen_t l = alen ? *alen : 0;
	ssize_t n = recvfrom(fd, buf, len, flags, addr, alen ? &l : NULL);

	if (n < 0)
		return -errno;
	if (alen)
		*alen = l;
	return n;
}

static int r_ioctl(int fd, unsigned long req, void *arg)
{
	return (int)ret(ioctl(fd, req, arg));
}

const struct sysops real_ops = {
	.mount = r_mount,
	.umount = r_umount,
	.mkdir = r_mkdir,
	.symlink = r_symlink,
	.unlink = r_unlink,
	.open = r_open,
	.finit_module = r_finit_module,
	.chdir = r_chdir,
	.chroot = r_chroot,
	.execve = r_execve,
	.access = r_access,
	.uevent_open = uevent_open,
	.recv = r_recv,
	.poll = r_poll,
	.signalfd = r_signalfd,
	.waitpid = r_waitpid,
	.now_ms = r_now_ms,
	.socket = r_socket,
	.bind = r_bind,
	.sendto = r_sendto,
	.recvfrom = r_recvfrom,
	.close = r_close,
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
	pid_t pid;
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
	/* Tens of MB of tmpfs take 0.1 s to delete under TCG, and the real
	 * init need not wait for that: a child at SCHED_IDLE deletes them
	 * while it starts. fd still reaches the old root once the new one
	 * is moved over it (util-linux's switch_root deletes through such
	 * an fd after the move too); the child becomes the real init's,
	 * reaped as any orphan. No child: here and now. */
	pid = fork();
	if (pid == 0) {
		struct sched_param sp = { 0 };
		unsigned long long t0 = timing_now_us(CLOCK_MONOTONIC);

		if (sched_setscheduler(0, SCHED_IDLE, &sp) < 0)
			setpriority(PRIO_PROCESS, 0, 19);
		remove_below(fd, root.st_dev);
		log_debug("freed the initramfs in %llu ms, in the background",
			  (timing_now_us(CLOCK_MONOTONIC) - t0) / 1000);
		_exit(0);
	}
	if (pid < 0) {
		remove_below(fd, root.st_dev);
		return 0;
	}
	close(fd);
	return 0;
}

static int r_reboot(int how)
{
	return ret(reboot(how));
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

static pid_t r_run_child(void (*fn)(void *arg), void *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		return err_errno(errno, "fork");
	if (pid == 0) {
		fn(arg);
		_exit(0);
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

/* glibc wraps neither add_key(2) nor keyctl(2). */
static int r_key_set(const char *desc, const void *data, size_t len, unsigned timeout_s)
{
	long id = ret(syscall(SYS_add_key, "user", desc, data, len, KEY_SPEC_USER_KEYRING));

	if (id < 0 || timeout_s == 0)
		return id < 0 ? (int)id : 0;
	return (int)ret(syscall(SYS_keyctl, KEYCTL_SET_TIMEOUT, id, timeout_s));
}

static ssize_t r_key_get(const char *desc, void *buf, size_t size)
{
	long id = ret(syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user", desc, 0));

	if (id < 0)
		return id;
	return ret(syscall(SYS_keyctl, KEYCTL_READ, id, buf, size));
}

const struct initops real_initops = {
	.mount_child = r_mount_child,
	.run_child = r_run_child,
	.uname_release = r_uname_release,
	.free_initramfs = r_free_initramfs,
	.reboot = r_reboot,
	.spawn = r_spawn,
	.run = real_run,
	.run_output = real_run_output,
	.run_stderr = real_run_stderr,
	.run_limit = real_run_limit,
	.run_asking = real_run_asking,
	.read_secret = real_read_secret,
	.start_daemon = real_start_daemon,
	.stop_daemon = real_stop_daemon,
	.key_set = r_key_set,
	.key_get = r_key_get,
};
