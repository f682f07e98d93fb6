// SPDX-License-Identifier: GPL-2.0-or-later
/* xz: crc32 checks, the only ones the kernel's xz decoder verifies. */
#include <lzma.h>

#include "err.h"
#include "gen/compress/compress_priv.h"

#define XZ_MEMLIMIT (1ull << 30)
/* Why 6: see the measurements in compress.c. */
#define XZ_DEFAULT_PRESET 6

struct xz_sink {
	struct csink c;
	lzma_stream xz;
};

static int xz_max_level(void)
{
	return 9;
}

static int xz_run(struct xz_sink *x, lzma_action action)
{
	for (;;) {
		lzma_ret r;
		x->xz.next_out = x->c.obuf;
		x->xz.avail_out = x->c.olen;
		r = lzma_code(&x->xz, action);
		if (r != LZMA_OK && r != LZMA_STREAM_END)
			return err_set("xz: compression failed (liblzma error %d)", (int)r);
		if (sink_write(x->c.out, x->c.obuf, x->c.olen - x->xz.avail_out) < 0)
			return err_code();
		if (action == LZMA_FINISH ? r == LZMA_STREAM_END : x->xz.avail_in == 0)
			return 0;
	}
}

static int xz_write(struct sink *s, const void *data, size_t n)
{
	struct xz_sink *x = (struct xz_sink *)s;
	x->xz.next_in = data;
	x->xz.avail_in = n;
	return xz_run(x, LZMA_RUN);
}

static int xz_finish(struct sink *s)
{
	struct xz_sink *x = (struct xz_sink *)s;
	if (x->c.finished)
		return 0;
	x->xz.next_in = NULL;
	x->xz.avail_in = 0;
	if (xz_run(x, LZMA_FINISH) < 0)
		return err_code();
	x->c.finished = true;
	return 0;
}

static void xz_free(struct sink *s)
{
	struct xz_sink *x = (struct xz_sink *)s;
	lzma_end(&x->xz);
	csink_free(&x->c);
}

static struct sink *xz_sink_new(struct sink *out, int level, int threads)
{
	struct xz_sink *x = csink_new(sizeof(*x), out, OBUF_SIZE);
	/* The kernel's xz decoder checks crc32 or nothing. The block encoder
	 * is used even for one thread: its output does not depend on the
	 * thread count, so images are reproducible across machines. */
	lzma_mt mt = {
		.threads = threads > 0 ? (uint32_t)threads : (uint32_t)codec_cpus(),
		.preset = level < 0 ? XZ_DEFAULT_PRESET : (uint32_t)level,
		.check = LZMA_CHECK_CRC32,
	};
	lzma_stream init = LZMA_STREAM_INIT;
	lzma_ret r;

	x->xz = init;
	r = lzma_stream_encoder_mt(&x->xz, &mt);
	if (r == LZMA_OPTIONS_ERROR || r == LZMA_PROG_ERROR)
		r = lzma_easy_encoder(&x->xz, mt.preset, LZMA_CHECK_CRC32);
	if (r != LZMA_OK) {
		csink_free(&x->c);
		err_set("xz: cannot start the encoder with preset %u (liblzma error %d)", mt.preset, (int)r);
		return NULL;
	}
	x->c.s.write = xz_write;
	x->c.s.finish = xz_finish;
	x->c.s.free = xz_free;
	return &x->c.s;
}

static int unxz(const uint8_t *in, size_t len, struct buf *out, size_t *consumed)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t start = out->len;
	lzma_ret r;
	int ret = -1;

	/* A single stream: stream padding and what follows are left to the
	 * caller, as the kernel's unxz leaves them to the initramfs loop. */
	if (lzma_stream_decoder(&s, decompress_memory(XZ_MEMLIMIT), 0) != LZMA_OK)
		return err_set("xz: cannot start the decoder");
	s.next_in = in;
	s.avail_in = len;
	for (;;) {
		size_t room = codec_out_room(out, 1u << 17);
		s.next_out = (uint8_t *)out->p + out->len;
		s.avail_out = room;
		r = lzma_code(&s, LZMA_FINISH);
		codec_out_grew(out, room - s.avail_out);
		if (codec_over_limit("xz", out, start) < 0)
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
	/* every way to out: has recorded its message */
	return ret == 0 ? 0 : err_code();
}

const struct codec codec_xz = { xz_max_level, xz_sink_new, unxz };
