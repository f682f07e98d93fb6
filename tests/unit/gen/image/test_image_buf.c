// SPDX-License-Identifier: GPL-2.0-or-later
/* image_add_buf: contents the image takes, holds (lz4-packed when lz4
 * is built in) and frees once written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpio.h"
#include "err.h"
#include "gen/compress/compress.h"
#include "gen/image/image.h"
#include "util.h"
#include "test.h"

/* A module-like 1 MiB: repetitive enough to pack, not constant. */
static void fill(struct buf *b, unsigned seed)
{
	for (unsigned i = 0; i < (1u << 20) / 4; i++) {
		uint32_t v = (i % 977) * 2654435761u + seed;
		buf_append(b, &v, sizeof(v));
	}
}

static int write_image(struct image *img, struct sink *s)
{
	struct cpio_writer *w = cpio_writer_new(s);
	int r = image_write_cpio(img, w, 0);

	if (r == 0)
		r = cpio_write_trailer(w);
	cpio_writer_free(w);
	return r;
}

/* The bytes at name in the written image, as a buf (empty if absent). */
static struct buf file_of(struct sink *s, const char *name, mode_t *mode)
{
	struct buf out = { 0 };
	struct cpio_reader rd;
	struct cpio_entry e;
	const uint8_t *data;
	size_t n;
	const void *p = sink_mem_data(s, &n);

	cpio_reader_init(&rd, p, n);
	while (cpio_read_next(&rd, &e, &data) == 1)
		if (strcmp(e.name, name) == 0) {
			buf_append(&out, data, e.size);
			*mode = e.mode;
		}
	cpio_reader_free(&rd);
	return out;
}

static void test_written_as_given(void)
{
	struct buf a = { 0 }, want = { 0 }, got, empty = { 0 };
	struct image *img = image_new();
	struct sink *s = sink_mem_new();
	mode_t mode = 0;

	fill(&a, 1);
	buf_append(&want, a.p, a.len);
	CHECK(image_add_buf(img, "/lib/modules/k/m.ko", &a, 0644) == 0);
	/* the image took the memory */
	CHECK(a.p == NULL && a.len == 0);
	CHECK(image_add_buf(img, "/empty", &empty, 0600) == 0);
	CHECK(write_image(img, s) == 0);
	got = file_of(s, "lib/modules/k/m.ko", &mode);
	CHECK(got.len == want.len && memcmp(got.p, want.p, want.len) == 0);
	CHECK(mode == (S_IFREG | 0644));
	buf_free(&got);
	got = file_of(s, "empty", &mode);
	CHECK(got.len == 0 && mode == (S_IFREG | 0600));
	buf_free(&got);
	buf_free(&want);
	sink_free(s);
	image_free(img);
}

/* The same contents twice merge, as for any entry; others conflict. */
static void test_added_twice(void)
{
	struct buf a = { 0 }, b = { 0 }, c = { 0 };
	struct image *img = image_new();

	fill(&a, 1);
	fill(&b, 1);
	fill(&c, 2);
	CHECK(image_add_buf(img, "/m.ko", &a, 0644) == 0);
	CHECK(image_add_buf(img, "/m.ko", &b, 0644) == 0);
	CHECK(image_count(img) == 1);
	CHECK(image_add_buf(img, "/m.ko", &c, 0644) < 0);
	CHECK_STR(err_msg(), "/m.ko: added twice with different contents");
	image_free(img);
}

/* Its contents are gone once written: a second write says so rather
 * than writing nothing. */
static void test_written_once(void)
{
	struct buf a = { 0 };
	struct image *img = image_new();
	struct sink *s = sink_mem_new();

	fill(&a, 3);
	CHECK(image_add_buf(img, "/m.ko", &a, 0644) == 0);
	CHECK(write_image(img, s) == 0);
	sink_free(s);
	s = sink_mem_new();
	CHECK(write_image(img, s) < 0);
	CHECK_STR(err_msg(), "/m.ko: written already: its contents were released");
	sink_free(s);
	image_free(img);
}

/* Freed unwritten: the image frees what it holds (ASan's leak check). */
static void test_freed_unwritten(void)
{
	struct buf a = { 0 };
	struct image *img = image_new();

	fill(&a, 4);
	CHECK(image_add_buf(img, "/m.ko", &a, 0644) == 0);
	image_free(img);
}

int main(void)
{
	if (!compression_built_in(COMP_LZ4))
		printf("# lz4 not built in: contents held as they are\n");
	RUN(test_written_as_given);
	RUN(test_added_twice);
	RUN(test_written_once);
	RUN(test_freed_unwritten);
	return test_done();
}
