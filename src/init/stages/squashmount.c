// SPDX-License-Identifier: GPL-2.0-or-later
/* The squashfs segment (src/gen/squash.h): the image's programs,
 * libraries and modules sit in LAYOUT_SQUASH_FILE, which the kernel only
 * copied; mounted through a loop device on LAYOUT_SQUASH_DIR, the main
 * segment's symlinks into it resolve, and a boot decompresses only the
 * blocks it reads. Mounted when first wanted (squashlazy.c); here what
 * the init's own state keeps of it. */
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
#include "init/stages/squashlazy.h"
#include "init/stages/stages.h"
#include "layout.h"
#include "log.h"

static void squash_mounted_cb(void *ctx, const char *loop)
{
	struct init *in = ctx;

	/* the image's own files: no root, key or array is on it */
	registry_ignore(&in->devs, loop);
}

void squash_prepare(struct init *in)
{
	if (!squash_lazy_start(&in->ops, &in->xops))
		return;
	squash_lazy_on_mount(squash_mounted_cb, in);
}

int squash_need(struct init *in)
{
	(void)in;
	return squash_lazy_mount();
}

/* One sysfs number of the loop device: field (0-based) of FILE. */
static bool loop_number(struct init *in, const char *loop, const char *file, int field, unsigned long long *v)
{
	char *p = xasprintf("/sys/class/block/%s/%s", loop, file), *real = in->ops->path(p);
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
static void log_reads(struct init *in, const char *loop)
{
	unsigned long long rd, size;

	if (log_get_level() < LOG_DEBUG || !loop_number(in, loop, "stat", 2, &rd) ||
	    !loop_number(in, loop, "size", 0, &size))
		return;
	log_debug("read %llu KiB of the squashfs segment's %llu KiB", rd / 2, size / 2);
}

/* Lazily: a daemon that stays (nbd-client, the NBD root's) may still run
 * a program from it; it is freed when that one ends.
 * The file goes now too: it is most of the initramfs's RAM (27 of 31 MiB
 * in the generic image), which free_initramfs's idle-time child would
 * only give back once the root's init lets the CPU idle
 * (bench/results/meminfo.md). Not when the boot never mounted it:
 * freeing its pages is about 18 ms of a boot on QEMU's instruction
 * clock, which that boot then pays for nothing it used
 * (bench/results/floor.md); the idle-time child frees it with the rest. */
void unmount_squash(struct init *in)
{
	const char *loop = squash_lazy_mounted();
	int r;

	if (!loop)
		return;
	log_reads(in, loop);
	if ((r = in->ops->umount(LAYOUT_SQUASH_DIR, MNT_DETACH)) < 0)
		log_warn("cannot unmount " LAYOUT_SQUASH_DIR ": %s", strerror(-r));
	else if ((r = in->ops->unlink(LAYOUT_SQUASH_FILE)) < 0)
		log_warn("cannot delete " LAYOUT_SQUASH_FILE ": %s", strerror(-r));
	squash_lazy_forget();
}
