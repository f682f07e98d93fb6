// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gen/compress/compress.h"
#include "err.h"
#include "image_helpers.h"
#include "gen/read/imagefile.h"
#include "test.h"
#include "util.h"

static int collect(unsigned seg, enum compression c, const struct cpio_entry *e,
		   const uint8_t *data, void *userdata)
{
	(void)data;
	buf_printf(userdata, "%u:%s:%s\n", seg, compression_name(c), e->name);
	return 0;
}

static const struct ent early[] = {
	{ "kernel", S_IFDIR | 0755, NULL, 0, 0, 0, 0, 0, 0 },
	{ "kernel/x86/microcode/GenuineIntel.bin", S_IFREG | 0644, "ucode", 0, 0, 0, 0, 0, 0 },
};
static const struct ent mainz[] = {
	{ "init", S_IFREG | 0755, "#!/bin/sh\n", 0, 0, 0, 0, 0, 0 },
	{ "dev/console", S_IFCHR | 0600, NULL, 5, 1, 0, 0, 0, 0 },
	{ "bin", S_IFLNK | 0777, "usr/bin", 0, 0, 0, 0, 0, 0 },
};
static const struct ent extra1[] = { { "etc/extra1", S_IFREG | 0644, "1", 0, 0, 0, 0, 0, 0 } };
static const struct ent extra2[] = { { "etc/extra2", S_IFREG | 0600, "22", 0, 0, 0, 0, 0, 0 } };

/* Early microcode (plain) + padding + zstd main + gzip segment holding
 * two archives with padding between: what initramfs-tools, dracut and
 * boot loaders concatenate. */
static void build_multi(struct buf *img)
{
	struct buf inner = { 0 };
	struct sink *mem = sink_mem_new(), *z;
	const void *d;
	size_t len;

	add_archive(img, COMP_NONE, early, ARRAY_SIZE(early));
	buf_append(img, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
	add_archive(img, COMP_ZSTD, mainz, ARRAY_SIZE(mainz));
	buf_append(img, "\0\0\0", 3);
	add_archive(&inner, COMP_NONE, extra1, 1);
	buf_append(&inner, "\0\0\0\0", 4);
	add_archive(&inner, COMP_NONE, extra2, 1);
	z = compress_sink_new(COMP_GZIP, mem, -1, 0);
	CHECK(sink_write(z, inner.p, inner.len) == 0 && sink_finish(z) == 0);
	d = sink_mem_data(mem, &len);
	buf_append(img, d, len);
	sink_free(z);
	sink_free(mem);
	buf_free(&inner);
}

/* Hostile names: C0 and DEL, a C1 CSI (U+009B as UTF-8), a lone byte
 * that is no UTF-8; readable UTF-8 (é) stays. */
static const struct ent odd[] = {
	{ "a\033[2Jb", S_IFREG | 0644, "x", 0, 0, 0, 0, 0, 0 },
	{ "c\xc2\x9b" "31md\x7f", S_IFREG | 0644, "x", 0, 0, 0, 0, 0, 0 },
	{ "caf\xc3\xa9\xff", S_IFREG | 0644, "x", 0, 0, 0, 0, 0, 0 },
};

static void test_ls_escapes_names(void)
{
	struct buf img = { 0 };
	char *dir = tmpdir(), *path, *text = NULL;
	size_t textlen;
	FILE *f;

	add_archive(&img, COMP_NONE, odd, ARRAY_SIZE(odd));
	path = write_tmp(dir, "odd.img", &img);
	f = open_memstream(&text, &textlen);
	CHECK(image_ls(path, f) == 0);
	fclose(f);
	CHECK(strstr(text, " a\\x1b[2Jb\n") != NULL);
	CHECK(strstr(text, " c\\xc2\\x9b31md\\x7f\n") != NULL);
	CHECK(strstr(text, " caf\xc3\xa9\\xff\n") != NULL);
	free(text);
	free(path);
	rm_rf(dir);
	free(dir);
	buf_free(&img);
}

static void test_foreach_multi_segment(void)
{
	struct buf img = { 0 }, got = { 0 };

	build_multi(&img);
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) == 0);
	CHECK_STR(got.p, "1:none:kernel\n"
			 "1:none:kernel/x86/microcode/GenuineIntel.bin\n"
			 "2:zstd:init\n"
			 "2:zstd:dev/console\n"
			 "2:zstd:bin\n"
			 "3:gzip:etc/extra1\n"
			 "3:gzip:etc/extra2\n");
	buf_free(&got);
	buf_free(&img);
}

static void test_ls_multi_segment(void)
{
	struct buf img = { 0 };
	char *dir = tmpdir(), *path, *text = NULL;
	size_t textlen;
	FILE *f;

	build_multi(&img);
	path = write_tmp(dir, "multi.img", &img);
	f = open_memstream(&text, &textlen);
	CHECK(image_ls(path, f) == 0);
	fclose(f);
	for (char *l = text, *nl; l && *l; l = nl + 1) {
		nl = strchr(l, '\n');
		printf("# %.*s\n", (int)(nl - l), l);
	}
	CHECK(strncmp(text, "segment 1: none, 2 entries, 400 bytes at offset 0\n"
			    "drwxr-xr-x          0 kernel\n"
			    "-rw-r--r--          5 kernel/x86/microcode/GenuineIntel.bin\n"
			    "segment 2: zstd, 3 entries, ",
		      strlen("segment 1: none, 2 entries, 400 bytes at offset 0\n"
			     "drwxr-xr-x          0 kernel\n"
			     "-rw-r--r--          5 kernel/x86/microcode/GenuineIntel.bin\n"
			     "segment 2: zstd, 3 entries, ")) == 0);
	CHECK(strstr(text, " at offset 524, unpacks to 512 bytes") != NULL);
	CHECK(strstr(text, "\n-rwxr-xr-x         10 init\n"
			   "crw-------    5,    1 dev/console\n"
			   "lrwxrwxrwx          7 bin -> usr/bin\n"
			   "segment 3: gzip, 2 entries, ") != NULL);
	CHECK(strstr(text, "\n-rw-------          2 etc/extra2\n3 segments, 7 entries\n") != NULL);
	free(text);
	free(path);
	rm_rf(dir);
	free(dir);
	buf_free(&img);
}

static void test_unreadable_segments(void)
{
	struct buf img = { 0 }, got = { 0 };

	add_archive(&img, COMP_NONE, early, ARRAY_SIZE(early));
	buf_append(&img, "BZh91AY&SY\x01\x02", 12);
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) < 0);
	CHECK_STR(err_msg(), "segment 2 at offset 512: bzip2 compression is not supported "
			     "(uniramfs reads zstd, xz, lz4, gzip and plain cpio)");
	img.len = 512;
	buf_append(&img, "\x5d\0\0\x80\0", 5);
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) < 0);
	CHECK(strstr(err_msg(), "lzma compression is not supported") != NULL);
	img.len = 512;
	buf_append(&img, "junk", 4);
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) < 0);
	CHECK_STR(err_msg(), "offset 512: neither a cpio archive nor a known compression "
			     "(starts with 6a 75 6e 6b)");
	CHECK(image_foreach_buf((const uint8_t *)"\0\0\0\0", 4, collect, NULL) < 0);
	CHECK_STR(err_msg(), "no cpio archive in the image (4 bytes, all zero)");
	/* a compressed segment whose content is not cpio */
	img.len = 0;
	{
		struct sink *mem = sink_mem_new(), *z = compress_sink_new(COMP_ZSTD, mem, -1, 1);
		const void *d;
		size_t len;
		CHECK(sink_write(z, "hello world", 11) == 0 && sink_finish(z) == 0);
		d = sink_mem_data(mem, &len);
		buf_append(&img, d, len);
		sink_free(z);
		sink_free(mem);
	}
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) < 0);
	CHECK_STR(err_msg(), "segment 1 (zstd) at offset 0: archive at 0: cpio: truncated "
			     "header at offset 0");
	buf_free(&img);
	buf_free(&got);
}

static void test_ls_debian_initrd(void)
{
	glob_t g;
	char *text = NULL;
	size_t len;
	FILE *f;

	if (glob("/boot/initrd.img-*", 0, NULL, &g) != 0)
		SKIP("no /boot/initrd.img-* on this machine");
	f = open_memstream(&text, &len);
	if (image_ls(g.gl_pathv[0], f) != 0) {
		printf("# %s\n", err_msg());
		CHECK(0);
	}
	fclose(f);
	CHECK(text && strncmp(text, "segment 1: ", 11) == 0);
	CHECK(text && strstr(text, " init\n") != NULL);
	CHECK(text && strstr(text, "lib/modules/") != NULL);
	free(text);
	globfree(&g);
}

static void test_ls_dracut_image(void)
{
	char *dir = tmpdir(), *img = path_join(dir, "dracut.img"), *cmd, *text = NULL;
	glob_t g;
	size_t len;
	FILE *f;

	if (access("/usr/bin/dracut", X_OK) != 0 || glob("/lib/modules/*", 0, NULL, &g) != 0) {
		rm_rf(dir);
		free(dir);
		free(img);
		SKIP("dracut or /lib/modules/* missing");
	}
	cmd = xasprintf("dracut --quiet --no-kernel --no-hostonly -m base --zstd --force %s %s "
			">/dev/null 2>&1", img, strrchr(g.gl_pathv[0], '/') + 1);
	globfree(&g);
	if (system(cmd) != 0) {
		rm_rf(dir);
		free(dir);
		free(img);
		free(cmd);
		SKIP("dracut failed to build an image here");
	}
	free(cmd);
	f = open_memstream(&text, &len);
	CHECK(image_ls(img, f) == 0);
	fclose(f);
	CHECK(text && strstr(text, "segment 1: zstd") != NULL);
	CHECK(text && (strstr(text, " init -> ") || strstr(text, " init\n")));
	CHECK(text && strstr(text, " usr/lib/dracut/") != NULL);
	free(text);
	rm_rf(dir);
	free(dir);
	free(img);
}

static void test_image_must_be_a_regular_file(void)
{
	char *dir = tmpdir(), *fifo = path_join(dir, "fifo"), *want;

	/* each would read forever (or wait for a writer) */
	CHECK(image_ls("/dev/zero", stdout) < 0);
	CHECK_STR(err_msg(), "/dev/zero: not a regular file (a character device)");
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(image_foreach(fifo, collect, NULL) < 0);
	want = xasprintf("%s: not a regular file (a FIFO)", fifo);
	CHECK_STR(err_msg(), want);
	free(want);
	want = path_join(dir, "out");
	CHECK(image_extract(dir, want, 0) < 0);
	free(want);
	want = xasprintf("%s: not a regular file (a directory)", dir);
	CHECK_STR(err_msg(), want);
	free(want);
	rm_rf(dir);
	free(fifo);
	free(dir);
}

static void test_image_size_limit(void)
{
	struct image_limits l = image_default_limits;
	struct buf img = { 0 };
	char *dir = tmpdir(), *path, *want;

	add_archive(&img, COMP_NONE, early, ARRAY_SIZE(early));
	l.max_file = 1u << 20;
	while (img.len <= l.max_file)
		buf_append(&img, "\0\0\0\0\0\0\0\0", 8);
	path = write_tmp(dir, "big.img", &img);
	image_set_limits(&l);
	CHECK(image_ls(path, stdout) < 0);
	want = xasprintf("%s: %zu bytes, more than the 1 MiB an image may be", path, img.len);
	CHECK_STR(err_msg(), want);
	image_set_limits(NULL);
	free(want);
	free(path);
	rm_rf(dir);
	free(dir);
	buf_free(&img);
}

/* One regular file of n bytes of 'a' (a C string, as struct ent wants). */
static void add_big_file(struct buf *img, enum compression c, const char *name, size_t n)
{
	char *data = xmalloc(n + 1);
	struct ent e[] = { { name, S_IFREG | 0644, data, 0, 0, 0, 0, 0, 0 } };

	memset(data, 'a', n);
	data[n] = '\0';
	add_archive(img, c, e, 1);
	free(data);
}

/* 80 MiB of one byte compress to a few KiB: refused once the output
 * passes the 64 MiB floor, with the default limits. */
static void test_zstd_bomb_stops_early(void)
{
	struct buf img = { 0 }, got = { 0 };
	char *want;

	add_big_file(&img, COMP_ZSTD, "bomb", 80u << 20);
	CHECK(img.len < 100000);
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) < 0);
	want = xasprintf("segment 1 (zstd) at offset 0: unpacks to more than 67108864 bytes "
			 "(200 times the %zu bytes left in the image, at least 64 MiB), refusing",
			 img.len);
	CHECK_STR(err_msg(), want);
	free(want);
	buf_free(&img);
	buf_free(&got);
}

static void test_expansion_and_total_limits(void)
{
	struct image_limits l = { .max_file = 1u << 30, .max_total = 4u << 20,
				  .ratio_floor = 1u << 20, .max_ratio = 200 };
	struct buf img = { 0 }, plain = { 0 }, got = { 0 };
	char *noise = xmalloc(20001), *want;
	struct ent e[] = { { "noise", S_IFREG | 0644, noise, 0, 0, 0, 0, 0, 0 } };
	size_t zlen;

	image_set_limits(&l);
	/* alone, the bound is known before decompressing */
	add_big_file(&img, COMP_ZSTD, "a", 3u << 20);
	zlen = img.len;
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) < 0);
	want = xasprintf("segment 1 (zstd) at offset 0: unpacks to more than 1048576 bytes "
			 "(200 times the %zu bytes left in the image, at least 1 MiB), refusing",
			 img.len);
	CHECK_STR(err_msg(), want);
	free(want);
	/* with 20 KB after it, only its own size tells */
	srand(1);
	for (int i = 0; i < 20000; i++)
		noise[i] = (char)(1 + rand() % 255);
	noise[20000] = '\0';
	add_archive(&img, COMP_NONE, e, 1);
	add_big_file(&plain, COMP_NONE, "a", 3u << 20);
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) < 0);
	want = xasprintf("segment 1 (zstd) at offset 0: unpacks to %zu bytes, more than 200 "
			 "times its %zu bytes (and 1 MiB), refusing", plain.len, zlen);
	CHECK_STR(err_msg(), want);
	free(want);
	/* each segment within its ratio, both together over the total */
	l.max_ratio = 1000000;
	image_set_limits(&l);
	img.len = 0;
	add_big_file(&img, COMP_ZSTD, "a", 3u << 20);
	add_big_file(&img, COMP_ZSTD, "b", 3u << 20);
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) < 0);
	want = xasprintf("segment 2 (zstd) at offset %zu: the image unpacks to more than 4 MiB "
			 "in all, refusing", zlen);
	CHECK_STR(err_msg(), want);
	free(want);
	/* and the reader is usable again with the defaults */
	image_set_limits(NULL);
	got.len = 0;
	CHECK(image_foreach_buf((uint8_t *)img.p, img.len, collect, &got) == 0);
	CHECK_STR(got.p, "1:zstd:a\n2:zstd:b\n");
	free(noise);
	buf_free(&img);
	buf_free(&plain);
	buf_free(&got);
}
int main(void)
{
	RUN(test_foreach_multi_segment);
	RUN(test_ls_multi_segment);
	RUN(test_ls_escapes_names);
	RUN(test_unreadable_segments);
	RUN(test_ls_debian_initrd);
	RUN(test_ls_dracut_image);
	RUN(test_image_must_be_a_regular_file);
	RUN(test_image_size_limit);
	RUN(test_zstd_bomb_stops_early);
	RUN(test_expansion_and_total_limits);
	return test_done();
}
