// SPDX-License-Identifier: GPL-2.0-or-later
#include <sys/stat.h>

#include "cpio.h"
#include "err.h"
#include "test.h"
#include "util.h"

static void test_round_trip(void)
{
	struct sink *mem = sink_mem_new();
	struct cpio_writer *w = cpio_writer_new(mem);
	struct cpio_entry dir = { .name = "etc", .mode = S_IFDIR | 0755, .nlink = 2, .mtime = 7 };
	struct cpio_entry file = { .name = "etc/hello", .mode = S_IFREG | 0644, .size = 5, .mtime = 7 };
	struct cpio_entry link = { .name = "etc/link", .mode = S_IFLNK | 0777, .size = 5 };
	struct cpio_entry node = { .name = "dev/console", .mode = S_IFCHR | 0600, .rdev_major = 5, .rdev_minor = 1 };
	struct cpio_reader r;
	struct cpio_entry e;
	const uint8_t *data;
	const void *buf;
	size_t len;

	CHECK(cpio_write(w, &dir, NULL) == 0);
	CHECK(cpio_write(w, &file, "hello") == 0);
	CHECK(cpio_write(w, &link, "hello") == 0);
	CHECK(cpio_write(w, &node, NULL) == 0);
	CHECK(cpio_write_trailer(w) == 0);
	buf = sink_mem_data(mem, &len);
	CHECK(len % 512 == 0);

	cpio_reader_init(&r, buf, len);
	CHECK(cpio_read_next(&r, &e, &data) == 1);
	CHECK_STR(e.name, "etc");
	CHECK(e.mode == (S_IFDIR | 0755) && e.mtime == 7 && e.nlink == 2);
	CHECK(cpio_read_next(&r, &e, &data) == 1);
	CHECK_STR(e.name, "etc/hello");
	CHECK(e.size == 5 && memcmp(data, "hello", 5) == 0);
	CHECK(cpio_read_next(&r, &e, &data) == 1);
	CHECK(S_ISLNK(e.mode) && e.size == 5 && memcmp(data, "hello", 5) == 0);
	CHECK(cpio_read_next(&r, &e, &data) == 1);
	CHECK(S_ISCHR(e.mode) && e.rdev_major == 5 && e.rdev_minor == 1);
	CHECK(cpio_read_next(&r, &e, &data) == 0);
	cpio_reader_free(&r);
	cpio_writer_free(w);
	sink_free(mem);
}

static void test_streamed_data_must_match_size(void)
{
	struct sink *mem = sink_mem_new();
	struct cpio_writer *w = cpio_writer_new(mem);
	struct cpio_entry file = { .name = "f", .mode = S_IFREG | 0644, .size = 4 };

	CHECK(cpio_write_begin(w, &file) == 0);
	CHECK(cpio_write_data(w, "ab", 2) == 0);
	CHECK(cpio_write_end(w) < 0);
	CHECK(strstr(err_msg(), "missing") != NULL);
	CHECK(cpio_write_data(w, "abcd", 4) < 0);
	cpio_writer_free(w);
	sink_free(mem);
}

static void test_reader_rejects_garbage(void)
{
	static const char junk[200] = "070701zzzz";
	struct cpio_reader r;
	struct cpio_entry e;
	const uint8_t *data;

	cpio_reader_init(&r, junk, sizeof(junk));
	CHECK(cpio_read_next(&r, &e, &data) < 0);
	CHECK(strstr(err_msg(), "bad header field at offset 0") != NULL);
	cpio_reader_init(&r, "07070", 5);
	CHECK(cpio_read_next(&r, &e, &data) < 0);
	CHECK(strstr(err_msg(), "truncated header") != NULL);
	cpio_reader_free(&r);
}

static void test_truncated_data(void)
{
	struct sink *mem = sink_mem_new();
	struct cpio_writer *w = cpio_writer_new(mem);
	struct cpio_entry file = { .name = "big", .mode = S_IFREG | 0644, .size = 100 };
	char payload[100] = { 0 };
	struct cpio_reader r;
	struct cpio_entry e;
	const uint8_t *data;
	size_t len;
	const void *buf;

	CHECK(cpio_write(w, &file, payload) == 0);
	buf = sink_mem_data(mem, &len);
	cpio_reader_init(&r, buf, len - 50);
	CHECK(cpio_read_next(&r, &e, &data) < 0);
	CHECK(strstr(err_msg(), "truncated data") != NULL);
	cpio_reader_free(&r);
	cpio_writer_free(w);
	sink_free(mem);
}

static void test_path_has_dotdot(void)
{
	CHECK(path_has_dotdot(".."));
	CHECK(path_has_dotdot("../x"));
	CHECK(path_has_dotdot("/a/../b"));
	CHECK(path_has_dotdot("/a/.."));
	CHECK(path_has_dotdot("a/../"));
	CHECK(!path_has_dotdot("/a/..b/c"));
	CHECK(!path_has_dotdot("/a/b../c"));
	CHECK(!path_has_dotdot("/a/.../c"));
	CHECK(!path_has_dotdot(""));
	CHECK(!path_has_dotdot("/etc/keys/root.key"));
}

static void test_path_normalize(void)
{
	char *p;
	CHECK_STR(p = path_normalize("/a//b/./c/../d"), "/a/b/d");
	free(p);
	CHECK_STR(p = path_normalize("../../etc"), "/etc");
	free(p);
	CHECK_STR(p = path_normalize(""), "/");
	free(p);
}

int main(void)
{
	RUN(test_round_trip);
	RUN(test_streamed_data_must_match_size);
	RUN(test_reader_rejects_garbage);
	RUN(test_truncated_data);
	RUN(test_path_normalize);
	RUN(test_path_has_dotdot);
	return test_done();
}
