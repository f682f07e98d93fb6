// SPDX-License-Identifier: GPL-2.0-or-later
/* The squashfs segment mounted when first wanted (squashlazy.h). Loading
 * loop and squashfs and decompressing the root's modules out of it cost
 * a generic boot about 90 ms under QEMU (bench/results/floor.md); a boot
 * whose modules are all stored beside it (virtio, AHCI, NVMe, SCSI
 * disks; ext4) and that runs no program needs none of it.
 *
 * The table's users cannot say in advance what they will read, so the
 * wrapped calls decide: a file that is a link into the segment is
 * mounted for when it is opened, any program when it is run (its
 * libraries and loader live there). access() answers for such a link
 * from what the image promises, without a mount: the generator links
 * only the files it packed, so a check that a tool is there (a plugin's
 * program, LVM's) costs nothing until the tool runs. The wrapped calls
 * have no context, so the state is this process's one (the init's, or
 * the kernel's modprobe's, each its own). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/modload.h"
#include "init/stages/squashlazy.h"
#include "init/stages/stages.h"
#include "layout.h"
#include "log.h"

static struct {
	const struct sysops *lower;
	const struct initops *xlower;
	struct sysops ops;
	struct initops xops;
	struct modload *ml;
	bool pending;  /* the image has a segment, not mounted by us yet */
	bool mounting;
	bool mounted;
	long lock_ms;  /* how long to wait for another's mount; 0: as long as it takes */
	char loop[32]; /* its loop device ("loop0") once mounted */
	void (*on_mount)(void *ctx, const char *loop);
	void *ctx;
} lz;

/* Is path a link into the segment (as the generator leaves each file it
 * moved there)? */
static bool into_segment(const char *path)
{
	static const char dir[] = LAYOUT_SQUASH_DIR "/";
	char *real = lz.lower->path(path), target[sizeof(dir)];
	ssize_t n = readlink(real, target, sizeof(target));

	free(real);
	return n == (ssize_t)sizeof(target) && !memcmp(target, dir, sizeof(dir) - 1);
}

/* By name through modload, as modprobe would: their dependencies from
 * modules.dep, their modprobe.d options and loop.max_part= from the
 * command line (loop's parameters are fixed once it is loaded, and the
 * root's own modprobe would then get EEXIST). Built-in ones cost
 * nothing. */
static int load_modules(void)
{
	static const char *const names[] = { LAYOUT_SQUASH_MODULE_NAMES };
	int r;

	if (!lz.ml)
		return 0; /* said already; maybe they are built in */
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if ((r = modload_name(lz.ml, names[i])) < 0)
			return r;
	return 0;
}

/* Mounted by another process of the boot (a child of the init's, the
 * kernel's modprobe): its loop device's name from the mount's device. */
static bool mounted_elsewhere(void)
{
	char *dir = lz.lower->path(LAYOUT_SQUASH_DIR), *root = lz.lower->path("/"), *uevent, *line = NULL;
	struct stat d, r;
	bool there = stat(dir, &d) == 0 && stat(root, &r) == 0 && d.st_dev != r.st_dev;

	free(dir);
	free(root);
	if (!there)
		return false;
	/* loop's minors are its number unless max_part= spreads them */
	uevent = xasprintf("/sys/dev/block/%u:%u/uevent", major(d.st_dev), minor(d.st_dev));
	snprintf(lz.loop, sizeof(lz.loop), "loop%u", minor(d.st_dev));
	size_t n;
	if (read_file(uevent, &line, &n) == 0) {
		char *name = strstr(line, "DEVNAME=");
		if (name)
			snprintf(lz.loop, sizeof(lz.loop), "%.*s", (int)strcspn(name + 8, "\n"), name + 8);
	}
	free(line);
	free(uevent);
	return true;
}

/* The segment's own file is the lock. A process the kernel started for
 * a module (lock_ms set) waits a bounded time: the init may be the one
 * holding it and waiting in the kernel for that very module. */
static int lock(int file)
{
	for (long waited = 0; flock(file, LOCK_EX | (lz.lock_ms ? LOCK_NB : 0)) < 0; waited += 10) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK)
			return err_errno(-errno, "cannot lock " LAYOUT_SQUASH_FILE);
		if (waited >= lz.lock_ms)
			return err_set("another process has been mounting it for %ld ms", waited);
		usleep(10000);
	}
	return 0;
}

/* One process at a time, so the init and a modprobe the kernel started
 * never mount it twice. While it holds the lock a process only loads
 * loop and squashfs (and what modules.dep says they need), sets up the
 * loop device and mounts. */
static int mount_now(void)
{
	char dev[32];
	int file, loopfd, r;

	file = lz.lower->open(LAYOUT_SQUASH_FILE, O_RDONLY | O_CLOEXEC, 0);
	if (file < 0)
		return err_errno(file, "cannot open " LAYOUT_SQUASH_FILE);
	if ((r = lock(file)) < 0) {
		close(file);
		return r;
	}
	if (mounted_elsewhere()) {
		close(file);
		return 0;
	}
	if ((r = load_modules()) < 0)
		goto out;
	loopfd = loop_attach(lz.lower, file, LAYOUT_SQUASH_FILE, dev, sizeof(dev));
	if ((r = loopfd) < 0)
		goto out;
	r = lz.lower->mount(dev, LAYOUT_SQUASH_DIR, "squashfs", MS_RDONLY | MS_NODEV | MS_NOSUID, NULL);
	close(loopfd);
	if (r < 0) {
		r = err_errno(r, "cannot mount %s (" LAYOUT_SQUASH_FILE ") on " LAYOUT_SQUASH_DIR, dev);
		goto out;
	}
	snprintf(lz.loop, sizeof(lz.loop), "%s", dev + strlen("/dev/"));
	log_debug("mounted the squashfs segment from %s", dev);
out:
	close(file);
	return r;
}

int squash_lazy_mount(void)
{
	int r;

	if (!lz.pending || lz.mounting)
		return 0;
	lz.mounting = true;
	r = mount_now();
	lz.mounting = false;
	lz.pending = false; /* one try: a failure is said once */
	if (r < 0) {
		log_err("the squashfs segment: %s; its programs and modules are missing", err_msg());
		return r;
	}
	lz.mounted = true;
	if (lz.on_mount)
		lz.on_mount(lz.ctx, lz.loop);
	return 0;
}

static int w_open(const char *path, int flags, mode_t mode)
{
	int r = lz.lower->open(path, flags, mode);

	if (r == -ENOENT && lz.pending && into_segment(path) && squash_lazy_mount() == 0)
		r = lz.lower->open(path, flags, mode);
	return r;
}

static int w_access(const char *path, int mode)
{
	int r = lz.lower->access(path, mode);

	return r == -ENOENT && lz.pending && into_segment(path) ? 0 : r;
}

static pid_t w_spawn(const char *path, char *const argv[], char *const envp[])
{
	squash_lazy_mount();
	return lz.xlower->spawn(path, argv, envp);
}

static int w_run(const char *path, char *const argv[], char *const envp[], const void *input, size_t len)
{
	squash_lazy_mount();
	return lz.xlower->run(path, argv, envp, input, len);
}

static int w_run_output(const char *path, char *const argv[], char *const envp[], char *out, size_t size,
			size_t *len)
{
	squash_lazy_mount();
	return lz.xlower->run_output(path, argv, envp, out, size, len);
}

static int w_run_stderr(const char *path, char *const argv[], char *const envp[], const void *input, size_t len,
			char *err, size_t size)
{
	squash_lazy_mount();
	return lz.xlower->run_stderr(path, argv, envp, input, len, err, size);
}

static int w_run_limit(const char *path, char *const argv[], char *const envp[], long limit_ms)
{
	squash_lazy_mount();
	return lz.xlower->run_limit(path, argv, envp, limit_ms);
}

static int w_run_asking(const char *path, char *const argv[], char *const envp[], long limit_ms,
			int (*serve)(void *ctx, int fd), void *ctx)
{
	squash_lazy_mount();
	return lz.xlower->run_asking(path, argv, envp, limit_ms, serve, ctx);
}

static pid_t w_start_daemon(const char *path, char *const argv[], char *const envp[])
{
	squash_lazy_mount();
	return lz.xlower->start_daemon(path, argv, envp);
}

bool squash_lazy_start(const struct sysops **ops, const struct initops **xops)
{
	const struct sysops *lower = *ops;
	const struct initops *xlower = xops ? *xops : NULL;

	memset(&lz, 0, sizeof(lz));
	if (lower->access(LAYOUT_SQUASH_FILE, F_OK) < 0)
		return false;
	lz.lower = lower;
	lz.pending = true;
	lz.ops = *lower;
	lz.ops.open = w_open;
	lz.ops.access = w_access;
	*ops = &lz.ops;
	if (!xlower)
		return true;
	lz.xlower = xlower;
	lz.xops = *xlower;
#define WRAP(f) lz.xops.f = xlower->f ? w_##f : NULL
	WRAP(spawn);
	WRAP(run);
	WRAP(run_output);
	WRAP(run_stderr);
	WRAP(run_limit);
	WRAP(run_asking);
	WRAP(start_daemon);
#undef WRAP
	*xops = &lz.xops;
	return true;
}

void squash_lazy_set_modload(struct modload *ml)
{
	lz.ml = ml;
}

void squash_lazy_lock_limit(long ms)
{
	lz.lock_ms = ms;
}

void squash_lazy_on_mount(void (*fn)(void *ctx, const char *loop), void *ctx)
{
	lz.on_mount = fn;
	lz.ctx = ctx;
}

const char *squash_lazy_mounted(void)
{
	if (!lz.mounted && lz.pending && !lz.mounting && lz.lower && mounted_elsewhere()) {
		lz.pending = false;
		lz.mounted = true;
		if (lz.on_mount)
			lz.on_mount(lz.ctx, lz.loop);
	}
	return lz.mounted ? lz.loop : NULL;
}

void squash_lazy_forget(void)
{
	lz.mounted = false;
	lz.pending = false;
}
