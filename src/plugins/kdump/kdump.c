// SPDX-License-Identifier: GPL-2.0-or-later
/* uniramfs-kdump: the kdump plugin's pre-pivot hook (plugins/kdump.conf.in,
 * docs/kdump.md). In a crash kernel (/proc/vmcore exists) it saves the
 * crashed kernel's log and memory below the mounted root's /var/crash
 * with makedumpfile, as Debian's kdump-tools names them
 * (STAMP/dmesg.STAMP, STAMP/dump.STAMP, written as dump-incomplete and
 * renamed once whole), then syncs and reboots, as Fedora's kdump does:
 * the crashed system's own init never runs in the crash kernel's little
 * memory. In any other kernel it does nothing and the boot goes on.
 *
 * The root is the crashed system's: every path below it is resolved
 * inside it (openat2 RESOLVE_IN_ROOT), so a link there cannot send the
 * dump into the initramfs or another filesystem's place. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kdump.h"

#define VMCORE "/proc/vmcore"

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("uniramfs-kdump: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static int open_in_root(int rootfd, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	while (*path == '/')
		path++;
	fd = syscall(SYS_openat2, rootfd, *path ? path : ".", &how, sizeof(how));
	return fd < 0 ? -errno : (int)fd;
}

/* dir (absolute) below the root, made as mkdir -p would (0755): each
 * component resolved inside the root (a filesystem the initramfs mounted
 * below it, an x-initrd.mount /var, is the root's too), each missing one
 * made in its parent (mkdirat follows no link). */
static int open_dir(int rootfd, const char *dir)
{
	char path[KDUMP_DIR_MAX];
	int fd = open_in_root(rootfd, dir);

	for (size_t i = 1; fd == -ENOENT; i++) {
		if (dir[i] != '/' && dir[i] != '\0')
			continue;
		snprintf(path, sizeof(path), "%.*s", (int)i, dir);
		fd = open_in_root(rootfd, path);
		if (fd == -ENOENT) {
			char *last = strrchr(path, '/');
			int parent;
			*last = '\0';
			parent = open_in_root(rootfd, path);
			if (parent < 0)
				return parent;
			if (mkdirat(parent, last + 1, 0755) < 0 && errno != EEXIST)
				fd = -errno;
			close(parent);
			*last = '/';
			if (fd == -ENOENT)
				fd = open_in_root(rootfd, path);
		}
		if (fd < 0 || !dir[i])
			break;
		close(fd);
		fd = -ENOENT;
	}
	return fd;
}

/* makedumpfile ARGS in dirfd, its output on the console. 0, or the
 * reason it failed, said. */
static int makedumpfile(int dirfd, char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (fchdir(dirfd) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "uniramfs-kdump: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		say("%s exited with status %d", argv[1], WEXITSTATUS(status));
	else
		say("%s was killed by signal %d", argv[1], WTERMSIG(status));
	return -EIO;
}

/* The root as the init mounted it is read-only unless `rw` was given:
 * the dump needs it writable, with its other flags kept. */
static int root_writable(const char *sysroot)
{
	static const struct {
		unsigned long st, ms;
	} keep[] = { { ST_NOSUID, MS_NOSUID }, { ST_NODEV, MS_NODEV }, { ST_NOEXEC, MS_NOEXEC },
		     { ST_NOATIME, MS_NOATIME }, { ST_NODIRATIME, MS_NODIRATIME },
		     { ST_RELATIME, MS_RELATIME } };
	struct statvfs sv;
	unsigned long flags = MS_REMOUNT;

	if (statvfs(sysroot, &sv) < 0)
		return -errno;
	if (!(sv.f_flag & ST_RDONLY))
		return 0;
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (sv.f_flag & keep[i].st)
			flags |= keep[i].ms;
	return mount(NULL, sysroot, NULL, flags, NULL) < 0 ? -errno : 0;
}

/* STAMP below dir, a new directory of the dump's own (0700: it is the
 * crashed system's memory); -N after it when a dump of the same minute
 * is there. Its name into name. */
static int new_stamp_dir(int dirfd, const char *stamp, char *name, size_t n)
{
	for (int i = 0; i < 100; i++) {
		if (i)
			snprintf(name, n, "%s-%d", stamp, i);
		else
			snprintf(name, n, "%s", stamp);
		if (mkdirat(dirfd, name, 0700) == 0) {
			int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			return fd < 0 ? -errno : fd;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static int save(const char *sysroot, const struct kdump_opts *o)
{
	char stamp[32], name[48], level[4], dmesg[64], dump[64];
	int rootfd = -1, dirfd = -1, sfd = -1, fd, r;
	struct timespec t0, t1;
	struct stat st;

	kdump_stamp(time(NULL), stamp, sizeof(stamp));
	r = root_writable(sysroot);
	if (r < 0) {
		say("cannot make %s writable: %s", sysroot, strerror(-r));
		return r;
	}
	rootfd = open(sysroot, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		r = -errno;
		say("cannot open %s: %s", sysroot, strerror(-r));
		return r;
	}
	dirfd = open_dir(rootfd, o->dir);
	if (dirfd < 0) {
		r = dirfd;
		say("cannot make %s on the root: %s", o->dir, strerror(-r));
		goto out;
	}
	sfd = new_stamp_dir(dirfd, stamp, name, sizeof(name));
	if (sfd < 0) {
		r = sfd;
		say("cannot make %s/%s: %s", o->dir, stamp, strerror(-r));
		goto out;
	}
	/* the log first: small, and worth having when the memory is not */
	snprintf(dmesg, sizeof(dmesg), "dmesg.%s", stamp);
	say("saving the crashed kernel's log to %s/%s/%s", o->dir, name, dmesg);
	char *dargv[] = { "makedumpfile", "--dump-dmesg", VMCORE, dmesg, NULL };
	if (makedumpfile(sfd, dargv) < 0)
		say("no log saved; the dump goes on");
	snprintf(level, sizeof(level), "%d", o->level);
	say("saving the crashed kernel's memory (dump level %s) to %s/%s/dump-incomplete", level, o->dir,
	    name);
	char *margv[] = { "makedumpfile", "-l", "--message-level", "7", "-d", level, VMCORE, "dump-incomplete", NULL };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = makedumpfile(sfd, margv);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r < 0) {
		unlinkat(sfd, "dump-incomplete", 0);
		say("no dump saved: makedumpfile failed (its messages above); removed %s/%s/dump-incomplete",
		    o->dir, name);
		goto out;
	}
	fd = openat(sfd, "dump-incomplete", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		say("cannot sync %s/%s/dump-incomplete: %s", o->dir, name, strerror(-r));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	snprintf(dump, sizeof(dump), "dump.%s", stamp);
	if (renameat(sfd, "dump-incomplete", sfd, dump) < 0 || fsync(sfd) < 0 || fsync(dirfd) < 0) {
		r = -errno;
		say("cannot rename %s/%s/dump-incomplete to %s: %s", o->dir, name, dump, strerror(-r));
		goto out;
	}
	say("saved %s/%s/%s (%lld bytes) in %.1f s", o->dir, name, dump, (long long)st.st_size,
	    (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
out:
	if (sfd >= 0)
		close(sfd);
	if (dirfd >= 0)
		close(dirfd);
	close(rootfd);
	return r;
}

int main(void)
{
	const char *sysroot = getenv("UNIRAMFS_SYSROOT");
	struct kdump_opts o;
	char why[400], *cmdline = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (access(VMCORE, F_OK) < 0) {
		say("no %s: not a crash kernel, booting on", VMCORE);
		return 0;
	}
	if (!sysroot || sysroot[0] != '/')
		sysroot = "/sysroot";
	f = fopen("/proc/cmdline", "re");
	if (f && getline(&cmdline, &len, f) < 0) {
		free(cmdline);
		cmdline = NULL;
	}
	if (f)
		fclose(f);
	if (kdump_parse(cmdline, &o, why, sizeof(why)) < 0)
		say("%s", why);
	free(cmdline);
	r = save(sysroot, &o);
	/* a dump or not, the crash kernel's work ends here (Fedora's
	 * default failure_action): back to the firmware, the machine's own
	 * kernel and its own memory */
	sync();
	if (mount(NULL, sysroot, NULL, MS_REMOUNT | MS_RDONLY, NULL) < 0)
		say("cannot remount %s read-only: %s; synced", sysroot, strerror(errno));
	say("%s; rebooting", r < 0 ? "no dump" : "done");
	reboot(RB_AUTOBOOT);
	say("reboot: %s", strerror(errno));
	return 1;
}
