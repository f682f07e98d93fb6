// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading initramfs images made by anyone, walked the way the kernel's
 * unpack_to_rootfs() walks them: NUL bytes between members are skipped,
 * a plain cpio archive is read in place, anything else is one compressed
 * stream whose content is one or more cpio archives.
 *
 * The image is hostile: it must be a regular file of bounded size, and
 * what it unpacks to is bounded in all and per segment relative to the
 * segment's size, so a small bomb stops after a few MiB of work. */
#include "gen/read/image_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/read/imagefile.h"
#include "util.h"

#define MiB (1ull << 20)

/* A real generic image is 20-200 MB and unpacks to 3-5 times that: the
 * bounds leave an order of magnitude of room. Kernel modules and
 * firmware compress 2-10 times; 200 only happens for runs of zeros. */
#define DEFAULT_LIMITS { .max_file = 1024 * MiB, .max_total = 4096 * MiB, \
			 .ratio_floor = 64 * MiB, .max_ratio = 200 }

const struct image_limits image_default_limits = DEFAULT_LIMITS;
static struct image_limits limits = DEFAULT_LIMITS;

void image_set_limits(const struct image_limits *l)
{
	limits = l ? *l : image_default_limits;
}

/* Every archive in buf[0..len) (only the first if one), NUL padding
 * allowed between them, nothing else: what the kernel's cpio state
 * machine accepts inside one decompressed stream. */
static int walk_archives(const uint8_t *buf, size_t len, bool one, size_t *used,
			 struct segment *seg, const struct walk *w)
{
	size_t off = 0;

	for (;;) {
		struct cpio_reader r;
		struct cpio_entry e;
		const uint8_t *data;
		int rc;

		while (!one && off < len && buf[off] == '\0')
			off++;
		if (off == len)
			break;
		seg->archive++;
		cpio_reader_init(&r, buf + off, len - off);
		while ((rc = cpio_read_next(&r, &e, &data)) > 0) {
			seg->entries++;
			if (w->entry && (rc = w->entry(seg, &e, data, w->userdata)) < 0) {
				cpio_reader_free(&r);
				return rc;
			}
		}
		cpio_reader_free(&r);
		if (rc < 0)
			return err_wrap("segment %u (%s) at offset %zu: archive at %zu", seg->n,
					compression_name(seg->c), seg->offset, off);
		off += r.off;
		if (one)
			break;
	}
	*used = off;
	return 0;
}

static uint64_t ratio_bound(uint64_t in)
{
	uint64_t b = in > UINT64_MAX / limits.max_ratio ? UINT64_MAX : in * limits.max_ratio;
	return b > limits.ratio_floor ? b : limits.ratio_floor;
}

/* Decompress the segment at buf[0..len) into out, within what is left
 * of the total and the expansion bound; *used gets its compressed size. */
static int unpack_segment(const struct segment *seg, const uint8_t *buf, size_t len,
			  uint64_t *total, struct buf *out, size_t *used)
{
	uint64_t left = limits.max_total - *total, by_ratio = ratio_bound(len);
	uint64_t bound = left < by_ratio ? left : by_ratio;
	uint64_t saved = decompress_get_limit();
	int r;

	if (bound > saved)
		bound = saved;
	decompress_set_limit(bound);
	r = decompress_buf(seg->c, buf, len, out, used);
	decompress_set_limit(saved);
	if (r < 0 && out->len > bound && bound == left)
		return err_set("segment %u (%s) at offset %zu: the image unpacks to more than "
			       "%llu MiB in all, refusing", seg->n, compression_name(seg->c),
			       seg->offset, (unsigned long long)(limits.max_total / MiB));
	if (r < 0 && out->len > bound && bound == by_ratio)
		return err_set("segment %u (%s) at offset %zu: unpacks to more than %llu bytes "
			       "(%u times the %zu bytes left in the image, at least %llu MiB), "
			       "refusing", seg->n, compression_name(seg->c), seg->offset,
			       (unsigned long long)bound, limits.max_ratio, len,
			       (unsigned long long)(limits.ratio_floor / MiB));
	if (r < 0)
		return err_wrap("segment %u at offset %zu", seg->n, seg->offset);
	/* the bound above was for all that is left; this is the segment's own */
	if (out->len > ratio_bound(*used))
		return err_set("segment %u (%s) at offset %zu: unpacks to %zu bytes, more than "
			       "%u times its %zu bytes (and %llu MiB), refusing", seg->n,
			       compression_name(seg->c), seg->offset, out->len, limits.max_ratio,
			       *used, (unsigned long long)(limits.ratio_floor / MiB));
	*total += out->len;
	return 0;
}

int walk_image(const uint8_t *buf, size_t len, const struct walk *w)
{
	size_t off = 0;
	uint64_t total = 0;
	unsigned n = 0, archives = 0;

	while (off < len) {
		struct segment seg = { .archive = archives };
		size_t used;

		if (buf[off] == '\0') {
			off++;
			continue;
		}
		seg.n = ++n;
		seg.offset = off;
		seg.c = compression_detect(buf + off, len - off);
		if (seg.c == COMP_UNKNOWN) {
			return err_set("offset %zu: neither a cpio archive nor a known compression "
				       "(starts with %02x %02x %02x %02x)", off, buf[off],
				       len - off > 1 ? buf[off + 1] : 0, len - off > 2 ? buf[off + 2] : 0,
				       len - off > 3 ? buf[off + 3] : 0);
		} else if (seg.c == COMP_NONE) {
			if (walk_archives(buf + off, len - off, true, &used, &seg, w) < 0)
				return err_code();
			seg.unpacked = used;
		} else {
			struct buf out = { 0 };
			size_t ignored;
			int r;

			if (unpack_segment(&seg, buf + off, len - off, &total, &out, &used) < 0) {
				buf_free(&out);
				return err_code();
			}
			seg.unpacked = out.len;
			r = walk_archives((const uint8_t *)out.p, out.len, false, &ignored, &seg, w);
			buf_free(&out);
			if (r < 0)
				return r;
			if (!seg.entries)
				return err_set("segment %u (%s) at offset %zu: no cpio archive inside",
					       seg.n, compression_name(seg.c), off);
		}
		archives = seg.archive;
		seg.size = used;
		off += used;
		if (w->done && w->done(&seg, w->userdata) < 0)
			return err_code();
	}
	if (!n)
		return err_set("no cpio archive in the image (%zu bytes, all zero)", len);
	return 0;
}

static const char *type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFDIR: return "a directory";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	default: return "not a regular file";
	}
}

/* The whole image in memory, if it is a regular file within the limit:
 * a device or FIFO (/dev/zero, a pipe) would never end. O_NONBLOCK so
 * that opening a FIFO does not wait for a writer. */
static int read_image(const char *path, char **data, size_t *len)
{
	struct stat st;
	size_t got = 0;
	char *p;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return err_errno(errno, "%s", path);
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return err_errno(e, "%s", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return err_set("%s: not a regular file (%s)", path, type_name(st.st_mode));
	}
	if ((uint64_t)st.st_size > limits.max_file) {
		close(fd);
		return err_set("%s: %llu bytes, more than the %llu MiB an image may be", path,
			       (unsigned long long)st.st_size,
			       (unsigned long long)(limits.max_file / MiB));
	}
	p = xmalloc((size_t)st.st_size + 1);
	/* up to the size it had when opened: a file that grows meanwhile
	 * cannot push past the limit */
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, p + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(p);
			close(fd);
			return err_errno(e, "%s", path);
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	p[got] = '\0';
	*data = p;
	*len = got;
	return 0;
}

int walk_file(const char *path, const struct walk *w)
{
	char *data = NULL;
	size_t len = 0;
	int r;

	if (read_image(path, &data, &len) < 0)
		return err_code();
	r = walk_image((const uint8_t *)data, len, w);
	free(data);
	return r < 0 ? err_wrap("%s", path) : 0;
}

/* The public walk, for callers that only want the entries. */
struct foreach {
	image_entry_fn fn;
	void *userdata;
};

static int foreach_entry(const struct segment *s, const struct cpio_entry *e,
			 const uint8_t *data, void *userdata)
{
	struct foreach *f = userdata;
	return f->fn(s->n, s->c, e, data, f->userdata);
}

int image_foreach_buf(const uint8_t *buf, size_t len, image_entry_fn fn, void *userdata)
{
	struct foreach f = { fn, userdata };
	struct walk w = { .entry = foreach_entry, .userdata = &f };
	return walk_image(buf, len, &w);
}

int image_foreach(const char *path, image_entry_fn fn, void *userdata)
{
	struct foreach f = { fn, userdata };
	struct walk w = { .entry = foreach_entry, .userdata = &f };
	return walk_file(path, &w);
}
