// SPDX-License-Identifier: GPL-2.0-or-later
/* The "newc" format as the kernel reads it (Documentation/driver-api/
 * early-userspace/buffer-format.rst): a 110-byte ASCII header, the name
 * with its NUL padded to 4 bytes, the data padded to 4 bytes. */
#include "cpio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "util.h"

#define HDR_LEN 110
/* Sanity bound for the reader: no real path is this long. */
#define NAME_MAX_LEN 4096

int sink_write(struct sink *s, const void *data, size_t n)
{
	return n ? s->write(s, data, n) : 0;
}

int sink_finish(struct sink *s)
{
	return s->finish ? s->finish(s) : 0;
}

void sink_free(struct sink *s)
{
	if (s)
		s->free(s);
}

struct mem_sink {
	struct sink s;
	struct buf b;
};

static int mem_write(struct sink *s, const void *data, size_t n)
{
	buf_append(&((struct mem_sink *)s)->b, data, n);
	return 0;
}

static void mem_free(struct sink *s)
{
	buf_free(&((struct mem_sink *)s)->b);
	free(s);
}

struct sink *sink_mem_new(void)
{
	struct mem_sink *m = xcalloc(1, sizeof(*m));
	m->s.write = mem_write;
	m->s.free = mem_free;
	return &m->s;
}

const void *sink_mem_data(struct sink *s, size_t *len)
{
	struct mem_sink *m = (struct mem_sink *)s;
	*len = m->b.len;
	return m->b.p ? m->b.p : "";
}

struct fd_sink {
	struct sink s;
	int fd;
};

static int fd_write(struct sink *s, const void *data, size_t n)
{
	int r = write_all(((struct fd_sink *)s)->fd, data, n);
	return r < 0 ? err_errno(r, "write") : 0;
}

static void fd_free(struct sink *s)
{
	free(s);
}

struct sink *sink_fd_new(int fd)
{
	struct fd_sink *f = xcalloc(1, sizeof(*f));
	f->s.write = fd_write;
	f->s.free = fd_free;
	f->fd = fd;
	return &f->s;
}

struct cpio_writer {
	struct sink *out;
	uint64_t off;
	uint64_t remaining; /* data bytes still owed for the current entry */
};

struct cpio_writer *cpio_writer_new(struct sink *out)
{
	struct cpio_writer *w = xcalloc(1, sizeof(*w));
	w->out = out;
	return w;
}

void cpio_writer_free(struct cpio_writer *w)
{
	free(w);
}

uint64_t cpio_writer_offset(const struct cpio_writer *w)
{
	return w->off;
}

static int emit(struct cpio_writer *w, const void *data, size_t n)
{
	int r = sink_write(w->out, data, n);

	if (r < 0)
		return r;
	w->off += n;
	return 0;
}

static int pad(struct cpio_writer *w, unsigned align)
{
	static const char zeros[512];
	size_t n = (align - (w->off % align)) % align;
	return emit(w, zeros, n);
}

int cpio_write_begin(struct cpio_writer *w, const struct cpio_entry *e)
{
	char hdr[HDR_LEN + 32];
	size_t namesize = strlen(e->name) + 1;
	int r;

	if (e->size > UINT32_MAX)
		return err_set("%s: too large for cpio newc (%llu bytes)", e->name,
			       (unsigned long long)e->size);
	snprintf(hdr, sizeof(hdr),
		 "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08zX%08X",
		 e->ino, e->mode, e->uid, e->gid, e->nlink ? e->nlink : 1, e->mtime,
		 (unsigned)e->size, 0u, 0u, e->rdev_major, e->rdev_minor, (size_t)(uint32_t)namesize, 0u);
	if ((r = emit(w, hdr, HDR_LEN)) < 0 || (r = emit(w, e->name, namesize)) < 0 || (r = pad(w, 4)) < 0)
		return r;
	w->remaining = e->size;
	return 0;
}

int cpio_write_data(struct cpio_writer *w, const void *data, size_t n)
{
	if (n > w->remaining)
		return err_set("cpio: more data than the header announced");
	w->remaining -= n;
	return emit(w, data, n);
}

int cpio_write_end(struct cpio_writer *w)
{
	if (w->remaining)
		return err_set("cpio: %llu bytes of data missing", (unsigned long long)w->remaining);
	return pad(w, 4);
}

int cpio_write(struct cpio_writer *w, const struct cpio_entry *e, const void *data)
{
	int r = cpio_write_begin(w, e);

	if (r < 0)
		return r;
	if (e->size && (r = cpio_write_data(w, data, e->size)) < 0)
		return r;
	return cpio_write_end(w);
}

int cpio_write_trailer(struct cpio_writer *w)
{
	struct cpio_entry e = { .name = "TRAILER!!!", .nlink = 1 };
	int r = cpio_write(w, &e, NULL);

	return r < 0 ? r : pad(w, 512);
}

void cpio_reader_init(struct cpio_reader *r, const void *buf, size_t len)
{
	r->buf = buf;
	r->len = len;
	r->off = 0;
	r->name = NULL;
}

void cpio_reader_free(struct cpio_reader *r)
{
	free(r->name);
	r->name = NULL;
}

static int hex8(const uint8_t *p, uint32_t *out)
{
	uint32_t v = 0;
	for (int i = 0; i < 8; i++) {
		uint8_t c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -EINVAL;
	}
	*out = v;
	return 0;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

int cpio_read_next(struct cpio_reader *r, struct cpio_entry *e, const uint8_t **data)
{
	uint32_t f[13];
	const uint8_t *h;
	size_t start = r->off, name_end, data_end;

	if (r->len - r->off < HDR_LEN)
		return err_set("cpio: truncated header at offset %zu", start);
	h = r->buf + r->off;
	if (memcmp(h, "070701", 6) != 0 && memcmp(h, "070702", 6) != 0)
		return err_set("cpio: bad magic at offset %zu", start);
	for (int i = 0; i < 13; i++)
		if (hex8(h + 6 + 8 * i, &f[i]) < 0)
			return err_set("cpio: bad header field at offset %zu", start);
	if (f[11] == 0 || f[11] > NAME_MAX_LEN)
		return err_set("cpio: bad name size %u at offset %zu", f[11], start);
	if (f[11] > r->len - r->off - HDR_LEN)
		return err_set("cpio: truncated name at offset %zu", start);
	name_end = align4(r->off + HDR_LEN + f[11]);
	if (h[HDR_LEN + f[11] - 1] != '\0')
		return err_set("cpio: name not terminated at offset %zu", start);
	if (name_end > r->len || f[6] > r->len - name_end)
		return err_set("cpio: truncated data at offset %zu", start);
	data_end = align4(name_end + f[6]);
	if (data_end > r->len)
		data_end = r->len;

	free(r->name);
	r->name = xstrndup((const char *)h + HDR_LEN, f[11] - 1);
	memset(e, 0, sizeof(*e));
	e->name = r->name;
	e->ino = f[0];
	e->mode = f[1];
	e->uid = f[2];
	e->gid = f[3];
	e->nlink = f[4];
	e->mtime = f[5];
	e->size = f[6];
	e->rdev_major = f[9];
	e->rdev_minor = f[10];
	*data = r->buf + name_end;
	r->off = data_end;
	if (strcmp(r->name, "TRAILER!!!") == 0)
		return 0;
	return 1;
}
