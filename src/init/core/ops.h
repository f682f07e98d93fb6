/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_OPS_H
#define UNIRAMFS_INIT_OPS_H

#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

struct loop;
struct askpass;

/* Every effect the init has on the system goes through this table, so
 * unit tests can run the stages without root against a fake that
 * records what was asked (tests/unit/fake_ops.c). Paths are as the init
 * sees them ("/dev/vda1"); the real table passes them straight through,
 * a fake may prefix a temporary directory. Returns are the syscall's
 * value (>= 0) or -errno, never -1 with errno set: the real table takes
 * errno right after the call (ops_real.c), a fake returns -E... itself,
 * and a caller tests < 0 and uses the code, never errno. */
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
	/* The uevent socket (uevent_open) and recv(2) on it. */
	int (*uevent_open)(void);
	ssize_t (*recv)(int fd, void *buf, size_t len, int flags);
	/* The waiting: poll(2), signalfd(2), waitpid(2), and the clock
	 * the deadlines are in (CLOCK_MONOTONIC, ms). A fake's clock moves
	 * on when poll would sleep, so tests never wait real seconds. */
	int (*poll)(struct pollfd *fds, nfds_t n, int timeout_ms);
	int (*signalfd)(int fd, const sigset_t *mask, int flags);
	pid_t (*waitpid)(pid_t pid, int *status, int options);
	long long (*now_ms)(void);
	/* The network, only ever touched when the boot needs it: socket(2)
	 * (rtnetlink, the DHCP AF_PACKET socket), bind(2), sendto(2),
	 * recvfrom(2). */
	int (*socket)(int domain, int type, int protocol);
	int (*bind)(int fd, const void *addr, unsigned len);
	ssize_t (*sendto)(int fd, const void *buf, size_t len, int flags, const void *addr,
			  unsigned alen);
	ssize_t (*recvfrom)(int fd, void *buf, size_t len, int flags, void *addr, unsigned *alen);
	/* close(2) of a socket from socket(): a fake records it, so a test
	 * sees the DHCP socket go once DHCP has settled. */
	int (*close)(int fd);
	void (*sync)(void);
	/* ioctl(2): a console's keymap and font (stages/vconsole.c), the
	 * loop devices', dm's rename, btrfs's DEVICES_READY. The ioctl's
	 * value (LOOP_CTL_GET_FREE's number, DEVICES_READY's 1), or -errno. */
	int (*ioctl)(int fd, unsigned long req, void *arg);
	/* Prefix a path for reading (sysfs, /proc, the image's files):
	 * the real one returns a copy of path, a fake its tree + path. */
	char *(*path)(const char *path);
};

extern const struct sysops real_ops;

/* The effects of the init that struct sysops does not cover: process
 * control and the end of the initramfs. A unit test passes a fake that
 * records; nothing here may touch the host from a test. */
struct initops {
	/* These return >= 0 or a negative errno code too; where a member
	 * says "(err set)", the message for the report is recorded in err.c.
	 * uname(2)'s release into buf. 0 or -errno (err set). */
	int (*uname_release)(char *buf, size_t len);
	/* Delete the initramfs's files, never crossing into another mount
	 * and never touching newroot: from a child at idle priority that
	 * outlives the exec of the real init. Only ever acts as PID 1 on a
	 * ramfs/tmpfs root. 0 or a negative code (err set). */
	int (*free_initramfs)(const char *newroot);
	/* reboot(2); returns (-errno) only if that failed (or in a test). */
	int (*reboot)(int how);
	/* Start path on the console in its own session; the child's pid
	 * or -errno (err set). */
	pid_t (*spawn)(const char *path, char *const argv[], char *const envp[]);
	/* Run path to its end (cryptsetup, lvm, mdadm) with len bytes of
	 * input on its stdin (nothing: /dev/null) and the console as its
	 * stdout and stderr. Its exit status 0-255, or a negative code
	 * (err set) when it could not run or died of a signal. */
	int (*run)(const char *path, char *const argv[], char *const envp[],
		   const void *input, size_t len);
	/* The same with stdin /dev/null and stdout read into out (a
	 * crypttab keyscript's key): at most size bytes kept, *len the
	 * whole count read, which may exceed size. */
	int (*run_output)(const char *path, char *const argv[], char *const envp[], char *out,
			  size_t size, size_t *len);
	/* run, with its stderr read into err (at most size - 1 bytes
	 * kept, then a NUL) instead of shown: for a tool whose reasons only
	 * its messages give (cryptsetup's token plugins), which the caller
	 * logs. input fits a pipe's buffer (a PIN). NULL: run (tests). */
	int (*run_stderr)(const char *path, char *const argv[], char *const envp[],
			  const void *input, size_t len, char *err, size_t size);
	/* run with stdin /dev/null, in its own process group, which is
	 * killed when path has not ended after limit_ms: -ETIMEDOUT (err
	 * set) then. NULL: run, with no limit (unit tests' fakes). */
	int (*run_limit)(const char *path, char *const argv[], char *const envp[], long limit_ms);
	/* run_limit, and the child's fd 3 one end of a socket pair whose
	 * other end is served by serve(ctx, fd) each time it is readable,
	 * until serve returns < 0 or the child exits (a plugin's program
	 * asking the init: stack/plugin_ask.h). The time serve takes (a
	 * person at the prompt) does not count against limit_ms. NULL: no
	 * channel (unit tests). */
	int (*run_asking)(const char *path, char *const argv[], char *const envp[],
			  long limit_ms, int (*serve)(void *ctx, int fd), void *ctx);
	/* mount(2) in a child (the mount is the whole system's), so a
	 * server that never answers cannot hang PID 1: its pid, which
	 * exits with 0 or the errno; or -errno (err set) when it cannot
	 * start. NULL: mount through sysops in place (unit tests). */
	pid_t (*mount_child)(const char *src, const char *target, const char *fstype,
			     unsigned long flags, const char *data);
	/* fn(arg) in a child, so that it runs while PID 1 waits for
	 * something else (the root's filesystem modules while fsck checks
	 * the device): its pid, which exits with 0; or -errno (err set).
	 * NULL: no child (unit tests); the caller does without. */
	pid_t (*run_child)(void (*fn)(void *arg), void *arg);
	/* Print prompt on the console and read one line there with echo
	 * off into buf (NUL-terminated, no newline). Its length or a
	 * negative code (err set). remote (may be NULL) is asked too, and
	 * the first answer from a console or a remote client wins.
	 * While waiting, the loop (may be NULL) is pumped whenever one of
	 * its fds is readable or a timer of it is due: a USB keyboard's
	 * driver must still load, DHCP go on, SSH come up. */
	ssize_t (*read_secret)(const char *prompt, char *buf, size_t size, struct loop *loop,
			       struct askpass *remote);
	/* Start path in its own session without a terminal, stdin
	 * /dev/null, stdout and stderr the console's (dropbear): its pid
	 * or -errno (err set). */
	pid_t (*start_daemon)(const char *path, char *const argv[], char *const envp[]);
	/* Kill it and everything it started, and reap it. */
	void (*stop_daemon)(pid_t pid);
	/* The kernel's user keyring of uid 0, which outlives the exec of
	 * the real init: set the "user" key desc to len bytes of data,
	 * expiring timeout_s seconds from now (0: never); 0 or -errno.
	 * Read it into buf: its whole length (which may exceed size; then
	 * buf holds the first size bytes) or -errno (-ENOKEY: none). NULL
	 * in a test that has no keyring: nothing is kept. */
	int (*key_set)(const char *desc, const void *data, size_t len, unsigned timeout_s);
	ssize_t (*key_get)(const char *desc, void *buf, size_t size);
};
extern const struct initops real_initops;

#endif
