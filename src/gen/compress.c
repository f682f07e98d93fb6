// SPDX-License-Identifier: GPL-2.0-or-later
/* Compression for images, done in-process with the libraries, in the exact
 * stream formats the kernel's initramfs unpacker (init/initramfs.c and
 * lib/decompress_*.c) reads; and the matching decompressors, which report
 * how much input one stream used so concatenated segments can be walked the
 * way the kernel walks them. */
#include "compress.h"

#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <lz4hc.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "err.h"

#define LZ4_LEGACY_MAGIC 0x184C2102u
/* The kernel's unlz4 decodes every block into a buffer of this size. */
#define LZ4_LEGACY_BLOCK (8u << 20)
/* The kernel's unzstd refuses frames whose window is above 128 MiB. */
#define ZSTD_KERNEL_WINDOWLOG_MAX 27
#define XZ_MEMLIMIT (1ull << 30)

/* Default levels, measured on the 142 MB cpio of Debian's MODULES=most
 * initrd, 2 cores (compressed size, time):
 *   zstd 1 29.8% 0.2s, 3 27.5% 0.2s, 6 25.2% 0.6s, 9 24.2% 1.3s,
 *        12 24.1% 2.7s, 15 23.9% 9.9s, 19 21.4% 33s
 *   xz 6 19.5% 83s; gzip 6 28.9% 4.0s, 9 28.7% 37s;
 *   lz4 1 43.4% 0.2s, 9 (HC) 35.0% 4.2s, 12 34.8% 29s.
 * zstd 6 is the default: on a generic image (~40 MB of modules) it keeps
 * the whole build well under a second and the peak RSS under 64 MB (level
 * 9 took 1.2 s and 87 MB there for 4% less), at one point of size above
 * the knee at 9. xz 6 and gzip 6 are the tools' defaults; lz4 HC 9 for a
 * third less than the fast mode at the same decompression speed. xz's x86
 * BCJ filter made this input 5% larger (relocatable .ko code), so it is
 * not used. */
#define ZSTD_DEFAULT_LEVEL 6
#define XZ_DEFAULT_PRESET 6
#define GZIP_DEFAULT_LEVEL 6
#define LZ4_DEFAULT_LEVEL 9

static uint64_t decompress_limit = 2ull << 30;

void decompress_set_limit(uint64_t max)
{
	decompress_limit = max;
}

uint64_t decompress_get_limit(void)
{
	return decompress_limit;
}

static const char *const names[] = {
	[COMP_NONE] = "none", [COMP_ZSTD] = "zstd",   [COMP_XZ] = "xz",
	[COMP_LZ4] = "lz4",   [COMP_GZIP] = "gzip",   [COMP_BZIP2] = "bzip2",
	[COMP_LZMA] = "lzma", [COMP_LZO] = "lzo",     [COMP_UNKNOWN] = "unknown",
};

const char *compression_name(enum compression c)
{
	return (unsigned)c < ARRAY_SIZE(names) ? names[c] : "unknown";
}

int compression_from_name(const char *name, enum compression *out)
{
	static const struct {
		const char *name;
		enum compression c;
	} aliases[] = {
		{ "none", COMP_NONE }, { "cat", COMP_NONE }, { "zstd", COMP_ZSTD },
		{ "zst", COMP_ZSTD },  { "xz", COMP_XZ },    { "lz4", COMP_LZ4 },
		{ "gzip", COMP_GZIP }, { "gz", COMP_GZIP },
	};
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++) {
		if (strcmp(name, aliases[i].name) == 0) {
			*out = aliases[i].c;
			return 0;
		}
	}
	return err_set("unknown compression '%s' (use zstd, xz, lz4, gzip or none)", name);
}

enum compression compression_detect(const uint8_t *buf, size_t len)
{
	static const struct {
		const char *magic;
		size_t len;
		enum compression c;
	} magics[] = {
		{ "070701", 6, COMP_NONE },
		{ "070702", 6, COMP_NONE },
		{ "\x28\xb5\x2f\xfd", 4, COMP_ZSTD },
		{ "\xfd" "7zXZ\0", 6, COMP_XZ },
		{ "\x02\x21\x4c\x18", 4, COMP_LZ4 },
		{ "\x1f\x8b", 2, COMP_GZIP },
		{ "\x1f\x9e", 2, COMP_GZIP }, /* old gzip, the kernel accepts it too */
		{ "BZh", 3, COMP_BZIP2 },
		{ "\x5d\0\0", 3, COMP_LZMA },
		{ "\x89LZO", 4, COMP_LZO },
	};
	for (size_t i = 0; i < ARRAY_SIZE(magics); i++)
		if (len >= magics[i].len && memcmp(buf, magics[i].magic, magics[i].len) == 0)
			return magics[i].c;
	return COMP_UNKNOWN;
}

/* ---- compressing sinks ---- */

#define OBUF_SIZE (1u << 17)

struct csink {
	struct sink s;
	struct sink *out;
	uint8_t *obuf;
	size_t olen;
	bool finished;
	union {
		ZSTD_CCtx *zstd;
		lzma_stream xz;
		z_stream gz;
		struct {
			uint8_t *in;
			size_t inlen;
			int level;
			bool magic_written;
		} lz4;
	};
};

static struct csink *csink_new(struct sink *out, size_t olen)
{
	struct csink *c = xcalloc(1, sizeof(*c));
	c->out = out;
	c->olen = olen;
	c->obuf = xmalloc(olen);
	return c;
}

static void csink_free_common(struct csink *c)
{
	free(c->obuf);
	free(c);
}

static int none_write(struct sink *s, const void *data, size_t n)
{
	return sink_write(((struct csink *)s)->out, data, n);
}

static void none_free(struct sink *s)
{
	free(s);
}

/* zstd */

static int zstd_step(struct csink *c, ZSTD_inBuffer *in, ZSTD_EndDirective mode, size_t *left)
{
	ZSTD_outBuffer o = { c->obuf, c->olen, 0 };
	size_t r = ZSTD_compressStream2(c->zstd, &o, in, mode);
	if (ZSTD_isError(r))
		return err_set("zstd: %s", ZSTD_getErrorName(r));
	*left = r;
	return sink_write(c->out, c->obuf, o.pos);
}

static int zstd_write(struct sink *s, const void *data, size_t n)
{
	struct csink *c = (struct csink *)s;
	ZSTD_inBuffer in = { data, n, 0 };
	size_t left;
	while (in.pos < in.size)
		if (zstd_step(c, &in, ZSTD_e_continue, &left) < 0)
			return -1;
	return 0;
}

static int zstd_finish(struct sink *s)
{
	struct csink *c = (struct csink *)s;
	ZSTD_inBuffer in = { NULL, 0, 0 };
	size_t left = 1;
	if (c->finished)
		return 0;
	while (left)
		if (zstd_step(c, &in, ZSTD_e_end, &left) < 0)
			return -1;
	c->finished = true;
	return 0;
}

static void zstd_free(struct sink *s)
{
	struct csink *c = (struct csink *)s;
	ZSTD_freeCCtx(c->zstd);
	csink_free_common(c);
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static struct sink *zstd_sink_new(struct sink *out, int level, int threads)
{
	struct csink *c = csink_new(out, ZSTD_CStreamOutSize());
	c->zstd = ZSTD_createCCtx();
	if (!c->zstd) {
		csink_free_common(c);
		err_set("zstd: cannot create a compression context");
		return NULL;
	}
	ZSTD_CCtx_setParameter(c->zstd, ZSTD_c_compressionLevel,
			       level < 0 ? ZSTD_DEFAULT_LEVEL : level);
	ZSTD_CCtx_setParameter(c->zstd, ZSTD_c_checksumFlag, 1);
	/* Always at least one worker: zstd's output is then the same for any
	 * worker count, so builds stay reproducible across machines. A
	 * libzstd built without threads refuses, and compresses inline. */
	ZSTD_CCtx_setParameter(c->zstd, ZSTD_c_nbWorkers, threads > 0 ? threads : online_cpus());
	c->s.write = zstd_write;
	c->s.finish = zstd_finish;
	c->s.free = zstd_free;
	return &c->s;
}

/* xz */

static int xz_run(struct csink *c, lzma_action action)
{
	for (;;) {
		lzma_ret r;
		c->xz.next_out = c->obuf;
		c->xz.avail_out = c->olen;
		r = lzma_code(&c->xz, action);
		if (r != LZMA_OK && r != LZMA_STREAM_END)
			return err_set("xz: compression failed (liblzma error %d)", (int)r);
		if (sink_write(c->out, c->obuf, c->olen - c->xz.avail_out) < 0)
			return -1;
		if (action == LZMA_FINISH ? r == LZMA_STREAM_END : c->xz.avail_in == 0)
			return 0;
	}
}

static int xz_write(struct sink *s, const void *data, size_t n)
{
	struct csink *c = (struct csink *)s;
	c->xz.next_in = data;
	c->xz.avail_in = n;
	return xz_run(c, LZMA_RUN);
}

static int xz_finish(struct sink *s)
{
	struct csink *c = (struct csink *)s;
	if (c->finished)
		return 0;
	c->xz.next_in = NULL;
	c->xz.avail_in = 0;
	if (xz_run(c, LZMA_FINISH) < 0)
		return -1;
	c->finished = true;
	return 0;
}

static void xz_free(struct sink *s)
{
	struct csink *c = (struct csink *)s;
	lzma_end(&c->xz);
	csink_free_common(c);
}

static struct sink *xz_sink_new(struct sink *out, int level, int threads)
{
	struct csink *c = csink_new(out, OBUF_SIZE);
	/* The kernel's xz decoder checks crc32 or nothing. The block encoder
	 * is used even for one thread: its output does not depend on the
	 * thread count, so images are reproducible across machines. */
	lzma_mt mt = {
		.threads = threads > 0 ? (uint32_t)threads : (uint32_t)online_cpus(),
		.preset = level < 0 ? XZ_DEFAULT_PRESET : (uint32_t)level,
		.check = LZMA_CHECK_CRC32,
	};
	lzma_stream init = LZMA_STREAM_INIT;
	lzma_ret r;

	c->xz = init;
	r = lzma_stream_encoder_mt(&c->xz, &mt);
	if (r == LZMA_OPTIONS_ERROR || r == LZMA_PROG_ERROR)
		r = lzma_easy_encoder(&c->xz, mt.preset, LZMA_CHECK_CRC32);
	if (r != LZMA_OK) {
		csink_free_common(c);
		err_set("xz: cannot start the encoder with preset %u (liblzma error %d)",
			mt.preset, (int)r);
		return NULL;
	}
	c->s.write = xz_write;
	c->s.finish = xz_finish;
	c->s.free = xz_free;
	return &c->s;
}

/* gzip */

static int gz_run(struct csink *c, int flush)
{
	for (;;) {
		int r;
		c->gz.next_out = c->obuf;
		c->gz.avail_out = (uInt)c->olen;
		r = deflate(&c->gz, flush);
		if (r == Z_STREAM_ERROR)
			return err_set("gzip: compression failed");
		if (sink_write(c->out, c->obuf, c->olen - c->gz.avail_out) < 0)
			return -1;
		if (flush == Z_FINISH ? r == Z_STREAM_END
				      : c->gz.avail_in == 0 && c->gz.avail_out != 0)
			return 0;
	}
}

static int gz_write(struct sink *s, const void *data, size_t n)
{
	struct csink *c = (struct csink *)s;
	const uint8_t *p = data;
	while (n) {
		uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
		c->gz.next_in = (Bytef *)p;
		c->gz.avail_in = chunk;
		if (gz_run(c, Z_NO_FLUSH) < 0)
			return -1;
		p += chunk;
		n -= chunk;
	}
	return 0;
}

static int gz_finish(struct sink *s)
{
	struct csink *c = (struct csink *)s;
	if (c->finished)
		return 0;
	c->gz.next_in = NULL;
	c->gz.avail_in = 0;
	if (gz_run(c, Z_FINISH) < 0)
		return -1;
	c->finished = true;
	return 0;
}

static void gz_free(struct sink *s)
{
	struct csink *c = (struct csink *)s;
	deflateEnd(&c->gz);
	csink_free_common(c);
}

static struct sink *gz_sink_new(struct sink *out, int level)
{
	struct csink *c = csink_new(out, OBUF_SIZE);
	/* 15 + 16: a gzip header and trailer, which the kernel's gunzip needs;
	 * no name and mtime 0 in the header, so output is reproducible. */
	if (deflateInit2(&c->gz, level < 0 ? GZIP_DEFAULT_LEVEL : level, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		csink_free_common(c);
		err_set("gzip: cannot start the compressor at level %d", level);
		return NULL;
	}
	c->s.write = gz_write;
	c->s.finish = gz_finish;
	c->s.free = gz_free;
	return &c->s;
}

/* lz4 legacy: the magic, then per 8 MiB of input a block preceded by its
 * compressed size (LE32). No end mark: the kernel stops at the end of the
 * data or at a zero size (padding). */

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int lz4_flush_block(struct csink *c)
{
	int n;
	if (!c->lz4.magic_written) {
		uint8_t m[4];
		put_le32(m, LZ4_LEGACY_MAGIC);
		if (sink_write(c->out, m, 4) < 0)
			return -1;
		c->lz4.magic_written = true;
	}
	if (!c->lz4.inlen)
		return 0;
	if (c->lz4.level < 3)
		n = LZ4_compress_default((const char *)c->lz4.in, (char *)c->obuf + 4,
					 (int)c->lz4.inlen, (int)c->olen - 4);
	else
		n = LZ4_compress_HC((const char *)c->lz4.in, (char *)c->obuf + 4,
				    (int)c->lz4.inlen, (int)c->olen - 4, c->lz4.level);
	if (n <= 0)
		return err_set("lz4: compression of a %zu byte block failed", c->lz4.inlen);
	/* A block whose size reads as the magic would be taken for a new
	 * stream by the kernel; LZ4_compressBound(8 MiB) is far below it. */
	put_le32(c->obuf, (uint32_t)n);
	c->lz4.inlen = 0;
	return sink_write(c->out, c->obuf, (size_t)n + 4);
}

static int lz4_write(struct sink *s, const void *data, size_t n)
{
	struct csink *c = (struct csink *)s;
	const uint8_t *p = data;
	while (n) {
		size_t take = LZ4_LEGACY_BLOCK - c->lz4.inlen;
		if (take > n)
			take = n;
		memcpy(c->lz4.in + c->lz4.inlen, p, take);
		c->lz4.inlen += take;
		p += take;
		n -= take;
		if (c->lz4.inlen == LZ4_LEGACY_BLOCK && lz4_flush_block(c) < 0)
			return -1;
	}
	return 0;
}

static int lz4_finish(struct sink *s)
{
	struct csink *c = (struct csink *)s;
	if (c->finished)
		return 0;
	if (lz4_flush_block(c) < 0)
		return -1;
	c->finished = true;
	return 0;
}

static void lz4_free(struct sink *s)
{
	struct csink *c = (struct csink *)s;
	free(c->lz4.in);
	csink_free_common(c);
}

static struct sink *lz4_sink_new(struct sink *out, int level)
{
	struct csink *c = csink_new(out, 4 + (size_t)LZ4_compressBound(LZ4_LEGACY_BLOCK));
	c->lz4.in = xmalloc(LZ4_LEGACY_BLOCK);
	c->lz4.level = level < 0 ? LZ4_DEFAULT_LEVEL : level;
	c->s.write = lz4_write;
	c->s.finish = lz4_finish;
	c->s.free = lz4_free;
	return &c->s;
}

struct sink *compress_sink_new(enum compression c, struct sink *out, int level, int threads)
{
	switch (c) {
	case COMP_NONE: {
		struct csink *n = xcalloc(1, sizeof(*n));
		n->out = out;
		n->s.write = none_write;
		n->s.free = none_free;
		return &n->s;
	}
	case COMP_ZSTD:
		if (level > ZSTD_maxCLevel()) {
			err_set("zstd: level %d is above the maximum %d", level, ZSTD_maxCLevel());
			return NULL;
		}
		return zstd_sink_new(out, level, threads);
	case COMP_XZ:
		if (level > 9) {
			err_set("xz: level %d is above the maximum 9", level);
			return NULL;
		}
		return xz_sink_new(out, level, threads);
	case COMP_GZIP:
		if (level > 9) {
			err_set("gzip: level %d is above the maximum 9", level);
			return NULL;
		}
		return gz_sink_new(out, level);
	case COMP_LZ4:
		if (level > LZ4HC_CLEVEL_MAX) {
			err_set("lz4: level %d is above the maximum %d", level, LZ4HC_CLEVEL_MAX);
			return NULL;
		}
		return lz4_sink_new(out, level);
	default:
		err_set("%s: uniramfs can read but not write this compression",
			compression_name(c));
		return NULL;
	}
}

/* ---- decompression ---- */

/* Room for at least min more bytes after out->len (plus the NUL that
 * struct buf keeps); returns how many bytes are free. */
static size_t out_room(struct buf *out, size_t min)
{
	if (!out->p || out->cap - out->len < min + 1) {
		size_t cap = out->cap ? out->cap : 65536;
		while (cap - out->len < min + 1)
			cap *= 2;
		out->p = xrealloc(out->p, cap);
		out->cap = cap;
	}
	return out->cap - out->len - 1;
}

static void out_grew(struct buf *out, size_t n)
{
	out->len += n;
	out->p[out->len] = '\0';
}

static int over_limit(const char *what, const struct buf *out, size_t start)
{
	if (out->len - start <= decompress_limit)
		return 0;
	return err_set("%s: decompressed data larger than %llu MiB, refusing", what,
		       (unsigned long long)(decompress_limit >> 20));
}

static int unzstd(const uint8_t *in, size_t len, struct buf *out, size_t *consumed)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	ZSTD_inBuffer ib = { in, len, 0 };
	size_t start = out->len;
	int ret = -1;

	if (!d)
		return err_set("zstd: cannot create a decompression context");
	ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, ZSTD_KERNEL_WINDOWLOG_MAX);
	/* One frame, as the kernel's unzstd reads it: what follows is the
	 * next segment. */
	for (;;) {
		size_t room = out_room(out, 1u << 17), r;
		ZSTD_outBuffer ob = { out->p + out->len, room, 0 };
		r = ZSTD_decompressStream(d, &ob, &ib);
		out_grew(out, ob.pos);
		if (ZSTD_isError(r)) {
			err_set("zstd: %s", ZSTD_getErrorName(r));
			goto out;
		}
		if (over_limit("zstd", out, start) < 0)
			goto out;
		if (r == 0)
			break;
		if (ib.pos == ib.size && ob.pos < ob.size) {
			err_set("zstd: truncated stream");
			goto out;
		}
	}
	*consumed = ib.pos;
	ret = 0;
out:
	ZSTD_freeDCtx(d);
	return ret;
}

static int unxz(const uint8_t *in, size_t len, struct buf *out, size_t *consumed)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t start = out->len;
	lzma_ret r;
	int ret = -1;

	/* A single stream: stream padding and what follows are left to the
	 * caller, as the kernel's unxz leaves them to the initramfs loop. */
	if (lzma_stream_decoder(&s, XZ_MEMLIMIT, 0) != LZMA_OK)
		return err_set("xz: cannot start the decoder");
	s.next_in = in;
	s.avail_in = len;
	for (;;) {
		size_t room = out_room(out, 1u << 17);
		s.next_out = (uint8_t *)out->p + out->len;
		s.avail_out = room;
		r = lzma_code(&s, LZMA_FINISH);
		out_grew(out, room - s.avail_out);
		if (over_limit("xz", out, start) < 0)
			goto out;
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK) {
			err_set("xz: %s", r == LZMA_BUF_ERROR ? "truncated stream" :
					  r == LZMA_MEMLIMIT_ERROR ? "needs too much memory" :
					  r == LZMA_FORMAT_ERROR ? "not an xz stream" :
					  r == LZMA_OPTIONS_ERROR ? "unsupported options" :
					  "corrupt data");
			goto out;
		}
	}
	*consumed = (size_t)s.total_in;
	ret = 0;
out:
	lzma_end(&s);
	return ret;
}

static int gunzip(const uint8_t *in, size_t len, struct buf *out, size_t *consumed)
{
	z_stream z = { 0 };
	size_t start = out->len, left = len;
	int r, ret = -1;

	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return err_set("gzip: cannot start the decompressor");
	z.next_in = (Bytef *)in;
	for (;;) {
		size_t room = out_room(out, 1u << 17);
		if (room > (1u << 30))
			room = 1u << 30;
		if (z.avail_in == 0 && left) {
			z.avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
			left -= z.avail_in;
		}
		z.next_out = (Bytef *)out->p + out->len;
		z.avail_out = (uInt)room;
		r = inflate(&z, Z_NO_FLUSH);
		out_grew(out, room - z.avail_out);
		if (over_limit("gzip", out, start) < 0)
			goto out;
		if (r == Z_STREAM_END)
			break;
		if (r == Z_BUF_ERROR && z.avail_in == 0 && !left) {
			err_set("gzip: truncated stream");
			goto out;
		}
		if (r != Z_OK && r != Z_BUF_ERROR) {
			err_set("gzip: %s", z.msg ? z.msg : "corrupt data");
			goto out;
		}
	}
	*consumed = (size_t)z.total_in;
	ret = 0;
out:
	inflateEnd(&z);
	return ret;
}

/* The kernel's unlz4, without a fill function: after the magic, blocks
 * until fewer than 4 bytes are left or a size field of 0 (padding); a
 * size field equal to the magic starts another stream that continues
 * this one. */
static int unlz4(const uint8_t *in, size_t len, struct buf *out, size_t *consumed)
{
	size_t pos = 4, start = out->len;

	if (len < 4 || get_le32(in) != LZ4_LEGACY_MAGIC)
		return err_set("lz4: not a legacy lz4 stream");
	while (len - pos >= 4) {
		uint32_t n = get_le32(in + pos);
		int r;
		if (n == LZ4_LEGACY_MAGIC) {
			pos += 4;
			continue;
		}
		if (n == 0)
			break;
		pos += 4;
		if (n > (uint32_t)LZ4_compressBound(LZ4_LEGACY_BLOCK))
			return err_set("lz4: block size %u at offset %zu is more than 8 MiB can "
				       "compress to", n, pos - 4);
		if (n > len - pos)
			return err_set("lz4: block of %u bytes at offset %zu runs past the end",
				       n, pos - 4);
		out_room(out, LZ4_LEGACY_BLOCK);
		r = LZ4_decompress_safe((const char *)in + pos, out->p + out->len, (int)n,
					LZ4_LEGACY_BLOCK);
		if (r < 0)
			return err_set("lz4: corrupt block at offset %zu", pos - 4);
		out_grew(out, (size_t)r);
		pos += n;
		if (over_limit("lz4", out, start) < 0)
			return -1;
	}
	*consumed = pos;
	return 0;
}

int decompress_buf(enum compression c, const uint8_t *in, size_t len, struct buf *out,
		   size_t *consumed)
{
	switch (c) {
	case COMP_NONE:
		buf_append(out, in, len);
		*consumed = len;
		return 0;
	case COMP_ZSTD:
		return unzstd(in, len, out, consumed);
	case COMP_XZ:
		return unxz(in, len, out, consumed);
	case COMP_GZIP:
		return gunzip(in, len, out, consumed);
	case COMP_LZ4:
		return unlz4(in, len, out, consumed);
	case COMP_UNKNOWN:
		return err_set("unknown compression (no known magic)");
	default:
		return err_set("%s compression is not supported (uniramfs reads zstd, xz, "
			       "lz4, gzip and plain cpio)", compression_name(c));
	}
}

int decompress_file(const char *path, struct buf *out)
{
	enum compression c;
	char *data;
	size_t len, off = 0, used;
	int r = read_file(path, &data, &len);

	if (r < 0)
		return err_errno(r, "%s", path);
	if (str_has_suffix(path, ".xz"))
		c = COMP_XZ;
	else if (str_has_suffix(path, ".zst"))
		c = COMP_ZSTD;
	else if (str_has_suffix(path, ".gz"))
		c = COMP_GZIP;
	else
		c = compression_detect((const uint8_t *)data, len);
	if (c == COMP_UNKNOWN)
		c = COMP_NONE;
	/* The command-line tools write concatenated streams (xz/gzip/zstd a
	 * b > c) and xz may add stream padding: read them all. */
	do {
		if (decompress_buf(c, (const uint8_t *)data + off, len - off, out, &used) < 0) {
			free(data);
			return err_wrap("%s", path);
		}
		off += used;
		while (off < len && data[off] == '\0')
			off++;
	} while (off < len && compression_detect((const uint8_t *)data + off, len - off) == c);
	free(data);
	if (off < len)
		return err_set("%s: unexpected data after the %s stream at offset %zu", path,
			       compression_name(c), off);
	return 0;
}
