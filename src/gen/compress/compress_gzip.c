// SPDX-License-Identifier: GPL-2.0-or-later
/* gzip (zlib's deflate with a gzip header and trailer). */
#include <zlib.h>

#include "err.h"
#include "gen/compress/compress_priv.h"


struct gz_sink {
	struct csink c;
	z_stream gz;
};

static int gz_max_level(void)
{
	return 9;
}

static int gz_run(struct gz_sink *g, int flush)
{
	for (;;) {
		int r;
		g->gz.next_out = g->c.obuf;
		g->gz.avail_out = (uInt)g->c.olen;
		r = deflate(&g->gz, flush);
		if (r == Z_STREAM_ERROR)
			return err_set("gzip: compression failed");
		if (sink_write(g->c.out, g->c.obuf, g->c.olen - g->gz.avail_out) < 0)
			return err_code();
		if (flush == Z_FINISH ? r == Z_STREAM_END : g->gz.avail_in == 0 && g->gz.avail_out != 0)
			return 0;
	}
}

static int gz_write(struct sink *s, const void *data, size_t n)
{
	struct gz_sink *g = (struct gz_sink *)s;
	const uint8_t *p = data;
	while (n) {
		uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
		g->gz.next_in = (Bytef *)p;
		g->gz.avail_in = chunk;
		if (gz_run(g, Z_NO_FLUSH) < 0)
			return err_code();
		p += chunk;
		n -= chunk;
	}
	return 0;
}

static int gz_finish(struct sink *s)
{
	struct gz_sink *g = (struct gz_sink *)s;
	if (g->c.finished)
		return 0;
	g->gz.next_in = NULL;
	g->gz.avail_in = 0;
	if (gz_run(g, Z_FINISH) < 0)
		return err_code();
	g->c.finished = true;
	return 0;
}

static void gz_free(struct sink *s)
{
	struct gz_sink *g = (struct gz_sink *)s;
	deflateEnd(&g->gz);
	csink_free(&g->c);
}

static struct sink *gz_sink_new(struct sink *out, int level, int threads)
{
	struct gz_sink *g = csink_new(sizeof(*g), out, OBUF_SIZE);
	(void)threads;
	/* 15 + 16: a gzip header and trailer, which the kernel's gunzip needs;
	 * no name and mtime 0 in the header, so output is reproducible. */
	if (deflateInit2(&g->gz, level < 0 ? GZIP_DEFAULT_LEVEL : level, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		csink_free(&g->c);
		err_set("gzip: cannot start the compressor at level %d", level);
		return NULL;
	}
	g->c.s.write = gz_write;
	g->c.s.finish = gz_finish;
	g->c.s.free = gz_free;
	return &g->c.s;
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
		size_t room = codec_out_room(out, 1u << 17);
		if (room > (1u << 30))
			room = 1u << 30;
		if (z.avail_in == 0 && left) {
			z.avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
			left -= z.avail_in;
		}
		z.next_out = (Bytef *)out->p + out->len;
		z.avail_out = (uInt)room;
		r = inflate(&z, Z_NO_FLUSH);
		codec_out_grew(out, room - z.avail_out);
		if (codec_over_limit("gzip", out, start) < 0)
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
	/* every way to out: has recorded its message */
	return ret == 0 ? 0 : err_code();
}

const struct codec codec_gzip = { gz_max_level, gz_sink_new, gunzip };
