// SPDX-License-Identifier: GPL-2.0-or-later
/* The squashfs segment (src/gen/squash.h): the image's programs,
 * libraries and modules sit in LAYOUT_SQUASH_FILE, which the kernel only
 * copied; mounted through a loop device on LAYOUT_SQUASH_DIR, the main
 * segment's symlinks into it resolve, and a boot decompresses only the
 * blocks it reads. First thing after the kernel version check: nothing
 * of the image's but /init runs before it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/modload.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "layout.h"
#include "log.h"

/* By name through modload, as modprobe would: their dependencies from
 * modules.dep, their modprobe.d options and loop.max_part= from the
 * command line (loop's parameters are fixed once it is loaded, and the
 * root's own modprobe would then get EEXIST). Built-in ones cost
 * nothing. */
static int load_modules(struct init *in)
{
	static const char *const names[] = { LAYOUT_SQUASH_MODULE_NAMES };
	int r;

	if (!in->ml)
		return 0; /* said already; maybe they are built in */
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if ((r = modload_name(in->ml, names[i])) < 0)
			return r;
	return 0;
}

int mount_squash(struct init *in)
{
	char dev[32];
	int file, loopfd, r;

	if (in->ops->access(LAYOUT_SQUASH_FILE, F_OK) < 0)
		return 0;
	if ((r = load_modules(in)) < 0)
		return r;
	file = in->ops->open(LAYOUT_SQUASH_FILE, O_RDONLY | O_CLOEXEC, 0);
	if (file < 0)
		return err_errno(file, "cannot open " LAYOUT_SQUASH_FILE);
	loopfd = loop_attach(in, file, LAYOUT_SQUASH_FILE, dev, sizeof(dev));
	close(file);
	if (loopfd < 0)
		return loopfd;
	r = in->ops->mount(dev, LAYOUT_SQUASH_DIR, "squashfs", MS_RDONLY | MS_NODEV | MS_NOSUID, NULL);
	close(loopfd);
	if (r < 0)
		return err_errno(r, "cannot mount %s (" LAYOUT_SQUASH_FILE ") on " LAYOUT_SQUASH_DIR, dev);
	in->squash_mounted = true;
	snprintf(in->squash_loop, sizeof(in->squash_loop), "%s", dev + strlen("/dev/"));
	/* the image's own files: no root, key or array is on it */
	registry_ignore(&in->devs, dev + strlen("/dev/"));
	log_debug("mounted the squashfs segment from %s", dev);
	return 0;
}

/* One sysfs number of the loop device: field (0-based) of FILE. */
static bool loop_number(struct init *in, const char *file, int field, unsigned long long *v)
{
	char *p = xasprintf("/sys/class/block/%s/%s", in->squash_loop, file), *real = in->ops->path(p);
	char *line = NULL, *s, *end;
	bool ok = false;

	if (read_line(real, &line) == 0) {
		s = line;
		for (int i = 0; i < field && *s; i++)
			s += strspn(s, " "), s += strcspn(s, " ");
		*v = strtoull(s, &end, 10);
		ok = end != s;
	}
	free(line);
	free(real);
	free(p);
	return ok;
}

/* What a boot read of the segment (the block layer's sectors read, a
 * block decompressed once is cached) against its size: the segment may
 * grow with every driver, a boot should not read more for it. */
static void log_reads(struct init *in)
{
	unsigned long long rd, size;

	if (log_get_level() < LOG_DEBUG || !loop_number(in, "stat", 2, &rd) ||
	    !loop_number(in, "size", 0, &size))
		return;
	log_debug("read %llu KiB of the squashfs segment's %llu KiB", rd / 2, size / 2);
}

/* Lazily: a daemon that stays (nbd-client, the NBD root's) may still run
 * a program from it; it is freed when that one ends.
 * The file goes now too: it is most of the initramfs's RAM (27 of 31 MiB
 * in the generic image), which free_initramfs's idle-time child would
 * only give back once the root's init lets the CPU idle; one unlink of
 * a file costs little next to that (bench/results/meminfo.md). */
void unmount_squash(struct init *in)
{
	int r;

	if (!in->squash_mounted)
		return;
	log_reads(in);
	if ((r = in->ops->umount(LAYOUT_SQUASH_DIR, MNT_DETACH)) < 0)
		log_warn("cannot unmount " LAYOUT_SQUASH_DIR ": %s", strerror(-r));
	else if ((r = in->ops->unlink(LAYOUT_SQUASH_FILE)) < 0)
		log_warn("cannot delete " LAYOUT_SQUASH_FILE ": %s", strerror(-r));
	in->squash_mounted = false;
}
