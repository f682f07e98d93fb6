// SPDX-License-Identifier: GPL-2.0-or-later
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/compress/compress.h"
#include "gen/config.h"
#include "err.h"
#include "test.h"
#include "util.h"

static const enum compression writable[] = { COMP_NONE, COMP_ZSTD, COMP_XZ, COMP_LZ4, COMP_GZIP };

/* Each format's library is a meson option (the row's name for it). */
static const struct {
	enum compression c;
	const char *option;
} optional[] = { { COMP_ZSTD, "zstd" }, { COMP_XZ, "xz" }, { COMP_LZ4, "lz4" }, { COMP_GZIP, "zlib" } };

static bool all_built_in(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(optional); i++)
		if (!compression_built_in(optional[i].c))
			return false;
	return true;
}

/* A build without a library: asking to write or read its format says
 * which option builds it in, before any work. */
static void test_not_built_in(void)
{
	struct build_opts o;
	if (all_built_in())
		SKIP("every compression is built in (meson -Dxz=disabled tests this)");
	build_opts_init(&o);
	for (size_t i = 0; i < ARRAY_SIZE(optional); i++) {
		enum compression c = optional[i].c;
		struct buf out = { 0 };
		size_t used = 0;
		char *want, *flag;
		if (compression_built_in(c))
			continue;
		want = xasprintf("compression \"%s\" is not built in (meson -D%s=enabled)", compression_name(c),
				 optional[i].option);
		flag = xasprintf("--compress: %s", want);
		CHECK(compress_sink_new(c, NULL, -1, 0) == NULL);
		CHECK_STR(err_msg(), want);
		CHECK(decompress_buf(c, (const uint8_t *)"x", 1, &out, &used) < 0);
		CHECK_STR(err_msg(), want);
		CHECK(compression_check_built_in(c) < 0);
		CHECK(config_set(&o, "compress", compression_name(c), "--compress") < 0);
		CHECK_STR(err_msg(), flag);
		buf_free(&out);
		free(want);
		free(flag);
	}
	CHECK(compression_built_in(COMP_NONE));
	build_opts_free(&o);
}

/* Compressible but not trivially so, like a cpio of binaries and text. */
static uint8_t *make_input(size_t len, uint32_t seed)
{
	uint8_t *p = xmalloc(len);
	uint32_t x = seed;
	for (size_t i = 0; i < len; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (i & 64) ? (uint8_t)("uniramfs initramfs "[i % 19]) : (uint8_t)(x >> 24) & 0x0f;
	}
	return p;
}

static struct sink *compress_all(enum compression c, const uint8_t *in, size_t len, int level)
{
	struct sink *mem = sink_mem_new();
	struct sink *s = compress_sink_new(c, mem, level, 0);
	size_t off = 0, step = 1;

	CHECK(s != NULL);
	if (!s)
		return mem;
	/* Uneven writes: the sinks must not depend on how data arrives. */
	while (off < len) {
		size_t n = len - off < step ? len - off : step;
		CHECK(sink_write(s, in + off, n) == 0);
		off += n;
		step = step * 3 + 7;
		if (step > (3u << 20))
			step = 1;
	}
	CHECK(sink_finish(s) == 0);
	CHECK(sink_finish(s) == 0); /* idempotent: nothing more is written */
	sink_free(s);
	return mem;
}

static void test_round_trip_every_compression(void)
{
	/* Over 8 MiB: two lz4 legacy blocks, several zstd jobs. */
	const size_t len = (9u << 20) + 12345;
	uint8_t *in = make_input(len, 1);

	for (size_t i = 0; i < ARRAY_SIZE(writable); i++) {
		enum compression c = writable[i];
		struct sink *mem = compress_all(c, in, len, c == COMP_XZ ? 1 : -1);
		struct buf out = { 0 };
		size_t clen, used = 0;
		const uint8_t *cd = sink_mem_data(mem, &clen);

		printf("# %s: %zu -> %zu\n", compression_name(c), len, clen);
		CHECK(compression_detect(cd, clen) == (c == COMP_NONE ? COMP_UNKNOWN : c));
		if (c != COMP_NONE)
			CHECK(clen < len / 2);
		CHECK(decompress_buf(c, cd, clen, &out, &used) == 0);
		CHECK(used == clen);
		CHECK(out.len == len && memcmp(out.p, in, len) == 0);
		if (c == COMP_LZ4) {
			/* magic, then [size][block] twice, nothing else */
			uint32_t b1 = cd[4] | cd[5] << 8 | cd[6] << 16 | (uint32_t)cd[7] << 24;
			CHECK(memcmp(cd, "\x02\x21\x4c\x18", 4) == 0);
			CHECK(8 + b1 + 4 < clen);
			const uint8_t *p = cd + 8 + b1;
			uint32_t b2 = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
			CHECK(8 + b1 + 4 + b2 == clen);
		}
		buf_free(&out);
		sink_free(mem);
	}
	free(in);
}

static void test_default_xz_is_kernel_readable(void)
{
	/* The kernel's xz only checks crc32 (flag byte 0x01 in the stream
	 * header); and the output must not depend on the thread count. */
	const size_t len = 300000;
	uint8_t *in = make_input(len, 2);
	struct sink *a = compress_all(COMP_XZ, in, len, -1);
	struct sink *m2 = sink_mem_new();
	struct sink *s = compress_sink_new(COMP_XZ, m2, -1, 1);
	size_t la, lb;
	const uint8_t *da = sink_mem_data(a, &la), *db;

	CHECK(da[6] == 0x00 && da[7] == 0x01);
	CHECK(sink_write(s, in, len) == 0 && sink_finish(s) == 0);
	db = sink_mem_data(m2, &lb);
	CHECK(la == lb && memcmp(da, db, la) == 0);
	sink_free(s);
	sink_free(m2);
	sink_free(a);
	free(in);
}

static void test_zstd_has_checksum_and_is_reproducible(void)
{
	const size_t len = 3u << 20;
	uint8_t *in = make_input(len, 3);
	struct sink *m1 = sink_mem_new(), *m2 = sink_mem_new();
	struct sink *s1 = compress_sink_new(COMP_ZSTD, m1, -1, 1);
	struct sink *s2 = compress_sink_new(COMP_ZSTD, m2, -1, 2);
	size_t l1, l2;
	const uint8_t *d1, *d2;

	CHECK(sink_write(s1, in, len) == 0 && sink_finish(s1) == 0);
	CHECK(sink_write(s2, in, len) == 0 && sink_finish(s2) == 0);
	d1 = sink_mem_data(m1, &l1);
	d2 = sink_mem_data(m2, &l2);
	CHECK(l1 == l2 && memcmp(d1, d2, l1) == 0);
	CHECK(d1[4] & 0x04); /* frame header descriptor: Content_Checksum_flag */
	sink_free(s1);
	sink_free(s2);
	sink_free(m1);
	sink_free(m2);
	free(in);
}

/* Input of several zstd jobs (2 << windowLog, 4 MiB at the default
 * level): the frame is the same whatever the worker count, and reads
 * back whole. */
static void test_zstd_many_jobs_same_for_any_worker_count(void)
{
	const size_t len = 13u << 20;
	uint8_t *in = make_input(len, 3);
	struct sink *m[3];
	const uint8_t *d[3];
	size_t l[3], used = 0;
	struct buf back = { 0 };

	for (int i = 0; i < 3; i++) {
		struct sink *s;
		m[i] = sink_mem_new();
		s = compress_sink_new(COMP_ZSTD, m[i], -1, i + 1);
		CHECK(s && sink_write(s, in, len) == 0 && sink_finish(s) == 0);
		sink_free(s);
		d[i] = sink_mem_data(m[i], &l[i]);
	}
	CHECK(l[0] == l[1] && memcmp(d[0], d[1], l[0]) == 0);
	CHECK(l[0] == l[2] && memcmp(d[0], d[2], l[0]) == 0);
	CHECK(decompress_buf(COMP_ZSTD, d[0], l[0], &back, &used) == 0);
	CHECK(used == l[0] && back.len == len && memcmp(back.p, in, len) == 0);
	buf_free(&back);
	for (int i = 0; i < 3; i++)
		sink_free(m[i]);
	free(in);
}

static void test_detect_every_magic(void)
{
	static const struct {
		const char *bytes;
		size_t len;
		enum compression c;
	} cases[] = {
		{ "070701000000", 12, COMP_NONE },
		{ "070702000000", 12, COMP_NONE },
		{ "070707000000", 12, COMP_UNKNOWN }, /* odc: the kernel does not read it */
		{ "\x28\xb5\x2f\xfd\x00", 5, COMP_ZSTD },
		{ "\xfd\x37\x7a\x58\x5a\x00\x00", 7, COMP_XZ },
		{ "\x02\x21\x4c\x18\x00", 5, COMP_LZ4 },
		{ "\x1f\x8b\x08", 3, COMP_GZIP },
		{ "BZh91AY&SY", 10, COMP_BZIP2 },
		{ "\x5d\x00\x00\x80\x00", 5, COMP_LZMA },
		{ "\x89LZO\x00", 5, COMP_LZO },
		{ "\xfd\x37\x7a", 3, COMP_UNKNOWN }, /* too short for xz */
		{ "\x00\x00\x00\x00", 4, COMP_UNKNOWN },
		{ "", 0, COMP_UNKNOWN },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum compression got = compression_detect((const uint8_t *)cases[i].bytes, cases[i].len);
		if (got != cases[i].c)
			printf("# case %zu: got %s, want %s\n", i, compression_name(got),
			       compression_name(cases[i].c));
		CHECK(got == cases[i].c);
	}
}

static void test_names(void)
{
	enum compression c = COMP_UNKNOWN;
	CHECK(compression_from_name("zstd", &c) == 0 && c == COMP_ZSTD);
	CHECK(compression_from_name("gz", &c) == 0 && c == COMP_GZIP);
	CHECK(compression_from_name("none", &c) == 0 && c == COMP_NONE);
	CHECK(compression_from_name("bzip2", &c) < 0);
	CHECK_STR(err_msg(), "unknown compression 'bzip2' (use zstd, xz, lz4, gzip or none)");
	CHECK_STR(compression_name(COMP_LZ4), "lz4");
	CHECK(compress_sink_new(COMP_BZIP2, NULL, -1, 0) == NULL);
	CHECK_STR(err_msg(), "bzip2: uniramfs can read but not write this compression");
	CHECK(compress_sink_new(COMP_XZ, NULL, 10, 0) == NULL);
	CHECK_STR(err_msg(), "xz: level 10 is above the maximum 9");
}

/* Two streams with zero padding between, as a boot loader or cat makes
 * them: the first decompression must stop exactly at its end. */
static void test_consumed_with_concatenated_streams(void)
{
	const enum compression cs[] = { COMP_ZSTD, COMP_XZ, COMP_GZIP, COMP_LZ4 };
	uint8_t *a = make_input(100000, 4), *b = make_input(50000, 5);

	for (size_t i = 0; i < ARRAY_SIZE(cs); i++) {
		struct sink *ma = compress_all(cs[i], a, 100000, -1);
		struct sink *mb = compress_all(cs[i], b, 50000, -1);
		struct buf img = { 0 }, out = { 0 };
		size_t la, lb, used = 0, off;
		const void *da = sink_mem_data(ma, &la), *db = sink_mem_data(mb, &lb);

		buf_append(&img, da, la);
		buf_append(&img, "\0\0\0\0\0\0\0", 7);
		buf_append(&img, db, lb);
		CHECK(decompress_buf(cs[i], (uint8_t *)img.p, img.len, &out, &used) == 0);
		CHECK(used == la);
		CHECK(out.len == 100000 && memcmp(out.p, a, 100000) == 0);
		off = used;
		while (off < img.len && img.p[off] == 0)
			off++;
		CHECK(off == la + 7);
		out.len = 0;
		CHECK(decompress_buf(cs[i], (uint8_t *)img.p + off, img.len - off, &out, &used) == 0);
		CHECK(used == lb && off + used == img.len);
		CHECK(out.len == 50000 && memcmp(out.p, b, 50000) == 0);
		buf_free(&out);
		buf_free(&img);
		sink_free(ma);
		sink_free(mb);
	}
	free(a);
	free(b);
}

/* Two lz4 legacy streams back to back are one stream to the kernel: the
 * second magic reads as a block size equal to the magic. */
static void test_lz4_concatenation_is_one_stream(void)
{
	uint8_t *a = make_input(70000, 6), *b = make_input(30000, 7);
	struct sink *ma = compress_all(COMP_LZ4, a, 70000, -1);
	struct sink *mb = compress_all(COMP_LZ4, b, 30000, 1);
	struct buf img = { 0 }, out = { 0 };
	size_t la, lb, used = 0;
	const void *da = sink_mem_data(ma, &la), *db = sink_mem_data(mb, &lb);

	buf_append(&img, da, la);
	buf_append(&img, db, lb);
	CHECK(decompress_buf(COMP_LZ4, (uint8_t *)img.p, img.len, &out, &used) == 0);
	CHECK(used == la + lb);
	CHECK(out.len == 100000 && memcmp(out.p, a, 70000) == 0 &&
	      memcmp(out.p + 70000, b, 30000) == 0);
	/* 1 to 3 trailing bytes cannot be a block size: left unconsumed */
	buf_append(&img, "\0\0", 2);
	out.len = 0;
	CHECK(decompress_buf(COMP_LZ4, (uint8_t *)img.p, img.len, &out, &used) == 0);
	CHECK(used == la + lb);
	buf_free(&out);
	buf_free(&img);
	sink_free(ma);
	sink_free(mb);
	free(a);
	free(b);
}

static void test_truncated_and_corrupt(void)
{
	const enum compression cs[] = { COMP_ZSTD, COMP_XZ, COMP_GZIP, COMP_LZ4 };
	const char *want[] = { "zstd: truncated stream", "xz: truncated stream",
			       "gzip: truncated stream",
			       "lz4: block of %u bytes at offset 4 runs past the end" };
	uint8_t *a = make_input(200000, 8);

	for (size_t i = 0; i < ARRAY_SIZE(cs); i++) {
		struct sink *m = compress_all(cs[i], a, 200000, -1);
		struct buf out = { 0 };
		size_t len, used;
		const uint8_t *d = sink_mem_data(m, &len);
		char msg[128];

		snprintf(msg, sizeof(msg), want[i],
			 d[4] | d[5] << 8 | d[6] << 16 | (uint32_t)d[7] << 24);
		CHECK(decompress_buf(cs[i], d, len - 10, &out, &used) < 0);
		CHECK_STR(err_msg(), msg);
		buf_free(&out);
		sink_free(m);
	}
	size_t used;
	struct buf none = { 0 };
	CHECK(decompress_buf(COMP_BZIP2, (const uint8_t *)"BZh9", 4, &none, &used) < 0);
	CHECK_STR(err_msg(), "bzip2 compression is not supported (uniramfs reads zstd, xz, lz4, "
			     "gzip and plain cpio)");
	/* a size no 8 MiB block compresses to */
	CHECK(decompress_buf(COMP_LZ4, (const uint8_t *)"\x02\x21\x4c\x18\xff\xff\xff\x7f....",
			     12, &none, &used) < 0);
	CHECK_STR(err_msg(), "lz4: block size 2147483647 at offset 4 is more than 8 MiB can "
			     "compress to");
	CHECK(none.len == 0);
	free(a);
}

static void test_bomb_is_refused(void)
{
	const size_t len = 8u << 20;
	uint8_t *zeros = xcalloc(1, len);
	const enum compression cs[] = { COMP_ZSTD, COMP_XZ, COMP_GZIP, COMP_LZ4 };
	const char *names[] = { "zstd", "xz", "gzip", "lz4" };

	decompress_set_limit(1u << 20);
	for (size_t i = 0; i < ARRAY_SIZE(cs); i++) {
		struct sink *m = compress_all(cs[i], zeros, len, 1);
		struct buf out = { 0 };
		size_t clen, used;
		const uint8_t *d = sink_mem_data(m, &clen);
		char msg[128];

		snprintf(msg, sizeof(msg), "%s: decompressed data larger than 1 MiB, refusing",
			 names[i]);
		CHECK(decompress_buf(cs[i], d, clen, &out, &used) < 0);
		CHECK_STR(err_msg(), msg);
		CHECK(out.cap < (16u << 20) || cs[i] == COMP_LZ4);
		buf_free(&out);
		sink_free(m);
	}
	decompress_set_limit(2ull << 30);
	free(zeros);
}

static int run(const char *cmd)
{
	int r = system(cmd);
	return r == 0 ? 0 : -1;
}

/* Module files as the command-line tools write them. */
static void test_decompress_file_from_tools(void)
{
	char dir[] = "/tmp/uniramfs-test-compress-XXXXXX";
	const size_t len = 500000;
	uint8_t *in = make_input(len, 9);
	static const char *const tools[][2] = {
		{ "xz --check=crc64 -k", "m.ko.xz" },
		{ "zstd -q -k", "m.ko.zst" },
		{ "gzip -k -n", "m.ko.gz" },
	};
	char *cmd, *path;
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	path = path_join(dir, "m.ko");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write_all(fd, in, len) == 0);
	close(fd);
	for (size_t i = 0; i < ARRAY_SIZE(tools); i++) {
		struct buf out = { 0 };
		char *f = path_join(dir, tools[i][1]);
		cmd = xasprintf("cd %s && %s m.ko", dir, tools[i][0]);
		if (run(cmd) < 0) {
			printf("# %s failed\n", cmd);
			CHECK(0);
		}
		CHECK(decompress_file(f, &out) == 0);
		CHECK(out.len == len && memcmp(out.p, in, len) == 0);
		free(cmd);
		free(f);
		buf_free(&out);
	}
	/* gzip members and xz streams concatenated by cat, with xz stream
	 * padding between, are read to the end; junk after is an error. */
	cmd = xasprintf("cd %s && cat m.ko.gz m.ko.gz > two.gz && cat m.ko.xz > two.xz && "
			"head -c 8 /dev/zero >> two.xz && cat m.ko.xz >> two.xz && "
			"cat m.ko.zst > junk.zst && echo junk >> junk.zst", dir);
	CHECK(run(cmd) == 0);
	free(cmd);
	for (int k = 0; k < 2; k++) {
		struct buf out = { 0 };
		char *f = path_join(dir, k ? "two.xz" : "two.gz");
		CHECK(decompress_file(f, &out) == 0);
		CHECK(out.len == 2 * len && memcmp(out.p + len, in, len) == 0);
		free(f);
		buf_free(&out);
	}
	{
		struct buf out = { 0 };
		char *f = path_join(dir, "junk.zst");
		char *want = xasprintf("%s: unexpected data after the zstd stream at offset", f);
		CHECK(decompress_file(f, &out) < 0);
		CHECK(strncmp(err_msg(), want, strlen(want)) == 0);
		free(want);
		free(f);
		buf_free(&out);
	}
	{
		/* no suffix: by magic; plain data: as is */
		struct buf out = { 0 };
		cmd = xasprintf("cd %s && cp m.ko.zst bymagic", dir);
		CHECK(run(cmd) == 0);
		free(cmd);
		char *f = path_join(dir, "bymagic");
		CHECK(decompress_file(f, &out) == 0 && out.len == len);
		out.len = 0;
		CHECK(decompress_file(path, &out) == 0 && out.len == len);
		free(f);
		buf_free(&out);
	}
	CHECK(decompress_file("/nonexistent/x.ko.xz", &(struct buf){ 0 }) < 0);
	CHECK_STR(err_msg(), "/nonexistent/x.ko.xz: No such file or directory");
	cmd = xasprintf("rm -rf %s", dir);
	CHECK(run(cmd) == 0);
	free(cmd);
	free(path);
	free(in);
}

/* A stream whose window or dictionary is above decompress_set_memory()
 * is refused before its history is allocated; the default is each
 * format's own bound. Made from a pipe, as a build's cpio is, so the
 * frame does not carry its size and the decoder must trust the header. */
static void test_history_memory_bound(void)
{
	char dir[] = "/tmp/uniramfs-test-compress-XXXXXX";
	static const struct {
		enum compression c;
		const char *tool, *file, *msg;
	} cases[] = {
		{ COMP_ZSTD, "zstd -q --long=24 -c", "w.zst",
		  "zstd: Frame requires too much memory for decoding" },
		{ COMP_XZ, "xz -6 -c", "w.xz", "xz: needs too much memory" },
	};

	CHECK(mkdtemp(dir) != NULL);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct buf out = { 0 };
		char *f = path_join(dir, cases[i].file);
		char *cmd = xasprintf("head -c 100000 /dev/zero | %s > %s", cases[i].tool, f);
		char *in = NULL;
		size_t len = 0, used;

		CHECK(run(cmd) == 0);
		CHECK(read_file(f, &in, &len) == 0);
		decompress_set_memory(1u << 20);
		CHECK(decompress_buf(cases[i].c, (uint8_t *)in, len, &out, &used) < 0);
		CHECK_STR(err_msg(), cases[i].msg);
		decompress_set_memory(0);
		out.len = 0;
		CHECK(decompress_buf(cases[i].c, (uint8_t *)in, len, &out, &used) == 0);
		CHECK(out.len == 100000 && used == len);
		free(cmd);
		free(f);
		free(in);
		buf_free(&out);
	}
	{
		char *cmd = xasprintf("rm -rf %s", dir);
		CHECK(run(cmd) == 0);
		free(cmd);
	}
}

int main(void)
{
	RUN(test_not_built_in);
	if (!all_built_in()) {
		/* the rest is about the formats themselves: all of them */
		RUN(test_detect_every_magic);
		return test_done();
	}
	RUN(test_round_trip_every_compression);
	RUN(test_default_xz_is_kernel_readable);
	RUN(test_zstd_has_checksum_and_is_reproducible);
	RUN(test_zstd_many_jobs_same_for_any_worker_count);
	RUN(test_detect_every_magic);
	RUN(test_names);
	RUN(test_consumed_with_concatenated_streams);
	RUN(test_lz4_concatenation_is_one_stream);
	RUN(test_truncated_and_corrupt);
	RUN(test_bomb_is_refused);
	RUN(test_decompress_file_from_tools);
	RUN(test_history_memory_bound);
	return test_done();
}
