// SPDX-License-Identifier: GPL-2.0-or-later
/* lz4 legacy: the magic, then per 8 MiB of input a block preceded by its
 * compressed size (LE32). No end mark: the kernel stops at the end of the
 * data or at a zero size (padding). The only lz4 frame the kernel
 * unpacks. */
#include <lz4.h>
#include <lz4hc.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "gen/compress/compress_priv.h"

#define LZ4_LEGACY_MAGIC 0x184C2102u
/* The kernel's unlz4 decodes every block into a buffer of this size. */
#define LZ4_LEGACY_BLOCK (8u << 20)
/* Why HC 9: see the measurements in compress.c. */
#define LZ4_DEFAULT_LEVEL 9

struct lz4_sink {
	struct csink c;
	uint8_t *in;
	size_t inlen;
	int level;
	bool magic_written;
};

static int lz4_max_level(void)
{
	return LZ4HC_CLEVEL_MAX;
}

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

static int lz4_flush_block(struct lz4_sink *l)
{
	int n;
	if (!l->magic_written) {
		uint8_t m[4];
		put_le32(m, LZ4_LEGACY_MAGIC);
		if (sink_write(l->c.out, m, 4) < 0)
			return err_code();
		l->magic_written = true;
	}
	if (!l->inlen)
		return 0;
	if (l->level < 3)
		n = LZ4_compress_default((const char *)l->in, (char *)l->c.obuf + 4, (int)l->inlen,
					 (int)l->c.olen - 4);
	else
		n = LZ4_compress_HC((const char *)l->in, (char *)l->c.obuf + 4, (int)l->inlen,
				    (int)l->c.olen - 4, l->level);
	if (n <= 0)
		return err_set("lz4: compression of a %zu byte block failed", l->inlen);
	/* A block whose size reads as the magic would be taken for a new
	 * stream by the kernel; LZ4_compressBound(8 MiB) is far below it. */
	put_le32(l->c.obuf, (uint32_t)n);
	l->inlen = 0;
	return sink_write(l->c.out, l->c.obuf, (size_t)n + 4);
}

static int lz4_write(struct sink *s, const void *data, size_t n)
{
	struct lz4_sink *l = (struct lz4_sink *)s;
	const uint8_t *p = data;
	while (n) {
		size_t take = LZ4_LEGACY_BLOCK - l->inlen;
		if (take > n)
			take = n;
		memcpy(l->in + l->inlen, p, take);
		l->inlen += take;
		p += take;
		n -= take;
		if (l->inlen == LZ4_LEGACY_BLOCK && lz4_flush_block(l) < 0)
			return err_code();
	}
	return 0;
}

static int lz4_finish(struct sink *s)
{
	struct lz4_sink *l = (struct lz4_sink *)s;
	if (l->c.finished)
		return 0;
	if (lz4_flush_block(l) < 0)
		return err_code();
	l->c.finished = true;
	return 0;
}

static void lz4_free(struct sink *s)
{
	struct lz4_sink *l = (struct lz4_sink *)s;
	free(l->in);
	csink_free(&l->c);
}

static struct sink *lz4_sink_new(struct sink *out, int level, int threads)
{
	struct lz4_sink *l = csink_new(sizeof(*l), out, 4 + (size_t)LZ4_compressBound(LZ4_LEGACY_BLOCK));
	(void)threads;
	l->in = xmalloc(LZ4_LEGACY_BLOCK);
	l->level = level < 0 ? LZ4_DEFAULT_LEVEL : level;
	l->c.s.write = lz4_write;
	l->c.s.finish = lz4_finish;
	l->c.s.free = lz4_free;
	return &l->c.s;
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
			return err_set("lz4: block of %u bytes at offset %zu runs past the end", n, pos - 4);
		codec_out_room(out, LZ4_LEGACY_BLOCK);
		r = LZ4_decompress_safe((const char *)in + pos, out->p + out->len, (int)n, LZ4_LEGACY_BLOCK);
		if (r < 0)
			return err_set("lz4: corrupt block at offset %zu", pos - 4);
		codec_out_grew(out, (size_t)r);
		pos += n;
		if (codec_over_limit("lz4", out, start) < 0)
			return err_code();
	}
	*consumed = pos;
	return 0;
}

const struct codec codec_lz4 = { lz4_max_level, lz4_sink_new, unlz4 };
