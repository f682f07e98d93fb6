/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_OPS_H
#define UNIRAMFS_INIT_OPS_H

#include <stddef.h>
#include <sys/types.h>

/* Every effect the init has on the system goes through this table, so
 * unit tests can run the stages without root against a fake that
 * records what was asked (tests/unit/fake_ops.c). Paths are as the init
 * sees them ("/dev/vda1"); the real table passes them straight through,
 * a fake may prefix a temporary directory. Returns follow the syscalls:
 * -1 with errno set. */
struct sysops {
	int (*mount)(const char *src, const char *target, const char *fstype,
		     unsigned long flags, const char *data);
	int (*umount)(const char *target, int flags);
	int (*mkdir)(const char *path, mode_t mode);
	int (*symlink)(const char *target, const char *linkpath);
	int (*unlink)(const char *path);
	int (*open)(const char *path, int flags, mode_t mode);
	/* finit_module(2) on an fd from open. */
	int (*finit_module)(int fd, const char *params, int flags);
	int (*chdir)(const char *path);
	int (*chroot)(const char *path);
	int (*execve)(const char *path, char *const argv[], char *const envp[]);
	int (*access)(const char *path, int mode);
	/* recv(2) on the uevent socket. */
	ssize_t (*recv)(int fd, void *buf, size_t len, int flags);
	/* Prefix a path for reading (sysfs, /proc, the image's files):
	 * the real one returns a copy of path, a fake its tree + path. */
	char *(*path)(const char *path);
	void *data; /* the fake's state */
};

extern const struct sysops real_ops;

#endif
