// SPDX-License-Identifier: GPL-2.0-or-later
/* dracut's dmsquash-live-autooverlay (TEST-30 "autooverlay"): a live
 * stick written from an image has free space after its one partition;
 * rd.overlay=LABEL=NAME names a persistent upper layer that is not there
 * yet, so the init makes it there at the first boot and finds it by its
 * label at the next. Only the live medium's own disk is touched, only
 * after its last partition, and only when that is the medium's. sfdisk
 * writes the table (MBR or GPT alike); it cannot tell the kernel while
 * the medium is mounted from the same disk (BLKRRPART is refused then),
 * so the init adds the one new partition itself with BLKPG, as partx
 * does. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/blkpg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/overlayupper.h"
#include "log.h"

#define MIB 2048ULL /* sectors */
#define MAX_PARTS 256

int autooverlay_place(const struct part_extent *parts, size_t n, unsigned medium,
		      unsigned long long disk_sectors, struct part_extent *out)
{
	const struct part_extent *m = NULL, *last = NULL;
	unsigned long long start, end;
	unsigned partno = 1;

	for (size_t i = 0; i < n; i++) {
		if (parts[i].partno == medium)
			m = &parts[i];
		/* unsigned: a wrapped sum only misplaces "last"; the medium is checked below */
		if (!last || parts[i].start + parts[i].size > last->start + last->size)
			last = &parts[i];
	}
	if (!m)
		return err_set("the medium is not a partition of its disk");
	if (last != m)
		return err_set("partition %u ends after the medium's (%u): the free space is not after "
			       "the medium", last->partno, medium);
	if (m->start + m->size < m->start || m->start + m->size > disk_sectors)
		return err_set("the medium ends past its disk's end");
	start = (m->start + m->size + MIB - 1) / MIB * MIB;
	end = disk_sectors / MIB * MIB;
	end = end >= MIB ? end - MIB : 0;
	if (end <= start || end - start < AUTOOVERLAY_MIN_MB * MIB)
		return err_set("only %llu MiB free after the medium (at least %u needed)",
			       end > start ? (end - start) / MIB : 0, AUTOOVERLAY_MIN_MB);
	for (bool used = true; used; partno += used) {
		used = false;
		for (size_t i = 0; i < n && !used; i++)
			used = parts[i].partno == partno;
	}
	*out = (struct part_extent){ .partno = partno, .start = start, .size = end - start };
	return 0;
}

static bool read_ull(const char *dir, const char *attr, unsigned long long *v)
{
	char *s = read_attr(dir, attr), *end;
	bool ok = s && *s >= '0' && *s <= '9';

	if (ok) {
		errno = 0;
		*v = strtoull(s, &end, 10);
		ok = !*end && errno == 0;
	}
	free(s);
	return ok;
}

/* The disk's partitions from sysfs (their start, size and number). */
static int read_parts(const char *real, struct part_extent *parts, size_t *n)
{
	DIR *d = opendir(real);
	struct dirent *de;
	int r = 0;

	if (!d)
		return err_errno(-errno, "cannot read %s", real);
	*n = 0;
	while ((de = readdir(d)) && r == 0) {
		char *dir = xasprintf("%s/%s", real, de->d_name);
		unsigned long long no;

		if (de->d_name[0] != '.' && read_ull(dir, "partition", &no)) {
			struct part_extent *p = &parts[*n];
			if (*n == MAX_PARTS)
				r = err_set("more than %d partitions", MAX_PARTS);
			else if (no > 0xffff || !read_ull(dir, "start", &p->start) ||
				 !read_ull(dir, "size", &p->size))
				r = err_set("cannot read partition %s's place", de->d_name);
			else
				p->partno = (unsigned)no, (*n)++;
		}
		free(dir);
	}
	closedir(d);
	return r;
}

static bool writable(const char *real)
{
	unsigned long long ro;

	return read_ull(real, "ro", &ro) && ro == 0;
}

/* Where on the medium's disk, from sysfs: 0 and *out, *lbs (the logical
 * block size), or -EINVAL (err set). */
static int plan(struct init *in, const struct blockdev *m, struct part_extent *out, unsigned *lbs)
{
	char *p = xasprintf("/sys/class/block/%s", m->disk), *real = in->ops->path(p);
	struct part_extent *parts = xcalloc(MAX_PARTS, sizeof(*parts));
	unsigned long long size = 0, bs = 512;
	size_t n = 0;
	int r;

	if (!read_ull(real, "size", &size) || !read_ull(real, "queue/logical_block_size", &bs) ||
	    bs < 512 || bs > 65536 || bs % 512)
		r = err_set("cannot read its size");
	else if (!writable(real))
		r = err_set("it is read-only");
	else if ((r = read_parts(real, parts, &n)) == 0)
		r = autooverlay_place(parts, n, m->partno, size, out);
	*lbs = (unsigned)bs;
	free(parts);
	free(p);
	free(real);
	return r;
}

/* The kernel's /dev name of partition n of disk: sda2, nvme0n1p2. */
static char *part_node(const char *disk, unsigned n)
{
	size_t l = strlen(disk);

	return xasprintf("/dev/%s%s%u", disk, l && disk[l - 1] >= '0' && disk[l - 1] <= '9' ? "p" : "",
			 n);
}

static int tell_kernel(struct init *in, const char *disknode, const struct part_extent *pe)
{
	struct blkpg_partition bp = { .start = (long long)(pe->start * 512),
				      .length = (long long)(pe->size * 512), .pno = (int)pe->partno };
	struct blkpg_ioctl_arg a = { .op = BLKPG_ADD_PARTITION, .datalen = sizeof(bp), .data = &bp };
	int fd = in->ops->open(disknode, O_RDONLY | O_CLOEXEC, 0), r;

	if (fd < 0)
		return err_errno(fd, "cannot open %s", disknode);
	r = in->ops->ioctl(fd, BLKPG, &a);
	close(fd);
	/* EBUSY: the kernel has that partition already (sfdisk told it) */
	return r < 0 && r != -EBUSY ? err_errno(r, "cannot add partition %u to %s", pe->partno,
						 disknode) : 0;
}

static int make(struct init *in, const struct blockdev *m, const char *label, char **devnode)
{
	struct part_extent pe;
	unsigned lbs;
	char *disknode, *input, *node = NULL;
	const char *sfdisk[] = { "sfdisk", "--quiet", "--no-reread", "--no-tell-kernel", "--append",
				 NULL, NULL };
	const char *mkfs[] = { "mkfs.ext4", "-q", "-F", "-L", label, NULL, NULL };
	int r, st;

	if ((r = plan(in, m, &pe, &lbs)) < 0)
		return r;
	disknode = xasprintf("/dev/%s", m->disk);
	/* sfdisk counts the disk's own sectors; --no-reread: the disk is in
	 * use (the medium), tell_kernel adds the partition */
	input = xasprintf("start=%llu, size=%llu, type=L\n", pe.start * 512 / lbs,
			  pe.size * 512 / lbs);
	sfdisk[5] = disknode;
	st = tool_run(&in->stack_env, "sfdisk", (char *const *)sfdisk, input, strlen(input));
	free(input);
	if (st != 0)
		r = st < 0 ? st : err_set("sfdisk --append %s failed (exit status %d)", disknode, st);
	else if ((r = tell_kernel(in, disknode, &pe)) == 0) {
		node = part_node(m->disk, pe.partno);
		mkfs[5] = node;
		st = tool_run(&in->stack_env, "mkfs.ext4", (char *const *)mkfs, NULL, 0);
		if (st != 0)
			r = st < 0 ? st : err_set("mkfs.ext4 on %s failed (exit status %d)", node, st);
	}
	if (r == 0)
		*devnode = node;
	else
		free(node);
	free(disknode);
	return r;
}

int autooverlay_make(struct init *in, const char *spec, char **devnode)
{
	const struct blockdev *m = root_dev(in);
	const char *label = spec + strlen("LABEL=");
	char *sfdisk, *mkfs;
	bool tools;
	int r;

	*devnode = NULL;
	if (!in->opt.live || strncmp(spec, "LABEL=", 6) || !m)
		return 0;
	sfdisk = tool_find(&in->stack_env, "sfdisk");
	mkfs = tool_find(&in->stack_env, "mkfs.ext4");
	tools = sfdisk && mkfs;
	free(sfdisk);
	free(mkfs);
	if (!tools) {
		log_info("rd.overlay=%s: the image has no sfdisk and mkfs.ext4 to make it "
			 "(overlay-tools = yes)", spec);
		return 0;
	}
	/* a label blkid will read back, as mkfs.ext4 takes it */
	if (!*label || strlen(label) > 16 || strpbrk(label, "/\\\"'")) {
		log_warn("rd.overlay=%s: not made: an ext4 label is 1 to 16 characters, no quotes or "
			 "slashes", spec);
		return 0;
	}
	if (!m->disk || !m->partno) {
		log_warn("rd.overlay=%s: not made: the medium %s is not a partition", spec, m->devnode);
		return 0;
	}
	if ((r = make(in, m, label, devnode)) < 0) {
		log_warn("rd.overlay=%s: not made on /dev/%s after the medium %s: %s", spec, m->disk,
			 m->devnode, err_msg());
		return 0;
	}
	log_notice("rd.overlay=%s: made %s in the free space after %s on /dev/%s, an ext4 labelled %s",
		   spec, *devnode, m->devnode, m->disk, label);
	return 1;
}
