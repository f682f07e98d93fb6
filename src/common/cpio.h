/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_CPIO_H
#define UNIRAMFS_CPIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where bytes go: a file, a compressor, a memory buffer. */
struct sink {
	int (*write)(struct sink *s, const void *data, size_t n); /* 0 or -errno + err_* */
	int (*finish)(struct sink *s);  /* flush; 0 or -errno + err_* */
	void (*free)(struct sink *s);
};
int sink_write(struct sink *s, const void *data, size_t n);
int sink_finish(struct sink *s);
void sink_free(struct sink *s);

/* A sink that appends to a memory buffer (tests, small segments). */
struct sink *sink_mem_new(void);
const void *sink_mem_data(struct sink *s, size_t *len);
/* A sink that writes to an fd it does not own. */
struct sink *sink_fd_new(int fd);

/* One "newc" (070701) entry. name has no leading "/". */
struct cpio_entry {
	const char *name;
	uint32_t mode;     /* file type and permission bits */
	uint32_t uid, gid;
	uint32_t nlink;
	uint32_t mtime;
	uint64_t size;     /* data bytes that follow */
	uint32_t rdev_major, rdev_minor;
	uint32_t ino;
};

struct cpio_writer;
struct cpio_writer *cpio_writer_new(struct sink *out);
/* Write header+name, then the data (size bytes). For a symlink, data is
 * the target. */
int cpio_write(struct cpio_writer *w, const struct cpio_entry *e, const void *data);
/* Header first, then the caller streams exactly e->size bytes via
 * cpio_write_data, then cpio_write_end pads. Lets big files be copied
 * through without a second buffer. */
int cpio_write_begin(struct cpio_writer *w, const struct cpio_entry *e);
int cpio_write_data(struct cpio_writer *w, const void *data, size_t n);
int cpio_write_end(struct cpio_writer *w);
/* TRAILER!!! and padding to a 512-byte boundary, as the kernel's
 * gen_init_cpio leaves it; does not finish the sink. */
int cpio_write_trailer(struct cpio_writer *w);
uint64_t cpio_writer_offset(const struct cpio_writer *w);
void cpio_writer_free(struct cpio_writer *w);

/* Reader over a memory buffer holding (at least) one cpio archive.
 * cpio_read_next returns 1 with *e filled (e->name points into a
 * reader-owned copy, *data into buf), 0 at the trailer (*off then points
 * just past it), -EINVAL on malformed input (err_set says where). Accepts
 * newc (070701) and crc (070702). */
struct cpio_reader {
	const uint8_t *buf;
	size_t len;
	size_t off;
	char *name;
};
void cpio_reader_init(struct cpio_reader *r, const void *buf, size_t len);
int cpio_read_next(struct cpio_reader *r, struct cpio_entry *e, const uint8_t **data);
void cpio_reader_free(struct cpio_reader *r);

#endif
