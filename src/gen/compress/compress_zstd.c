// SPDX-License-Identifier: GPL-2.0-or-later
/* zstd: one frame with a checksum, as the kernel's unzstd reads it. */
/* ZSTD_getCParams: exported by every libzstd since 1.0, outside the
 * stable API only because its struct may grow. */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "err.h"
#include "gen/compress/compress_priv.h"

/* The kernel's unzstd refuses frames whose window is above 128 MiB. */
#define ZSTD_KERNEL_WINDOWLOG_MAX 27

struct zstd_sink {
	struct csink c;
	ZSTD_CCtx *cctx;
};

static int zstd_max_level(void)
{
	return ZSTD_maxCLevel();
}

static int zstd_step(struct zstd_sink *z, ZSTD_inBuffer *in, ZSTD_EndDirective mode, size_t *left)
{
	ZSTD_outBuffer o = { z->c.obuf, z->c.olen, 0 };
	size_t r = ZSTD_compressStream2(z->cctx, &o, in, mode);
	if (ZSTD_isError(r))
		return err_set("zstd: %s", ZSTD_getErrorName(r));
	*left = r;
	return sink_write(z->c.out, z->c.obuf, o.pos);
}

static int zstd_write(struct sink *s, const void *data, size_t n)
{
	struct zstd_sink *z = (struct zstd_sink *)s;
	ZSTD_inBuffer in = { data, n, 0 };
	size_t left;
	while (in.pos < in.size)
		if (zstd_step(z, &in, ZSTD_e_continue, &left) < 0)
			return err_code();
	return 0;
}

static int zstd_finish(struct sink *s)
{
	struct zstd_sink *z = (struct zstd_sink *)s;
	ZSTD_inBuffer in = { NULL, 0, 0 };
	size_t left = 1;
	if (z->c.finished)
		return 0;
	while (left)
		if (zstd_step(z, &in, ZSTD_e_end, &left) < 0)
			return err_code();
	z->c.finished = true;
	return 0;
}

static void zstd_free(struct sink *s)
{
	struct zstd_sink *z = (struct zstd_sink *)s;
	ZSTD_freeCCtx(z->cctx);
	csink_free(&z->c);
}

static struct sink *zstd_sink_new(struct sink *out, int level, int threads)
{
	struct zstd_sink *z = csink_new(sizeof(*z), out, ZSTD_CStreamOutSize());
	z->cctx = ZSTD_createCCtx();
	if (!z->cctx) {
		csink_free(&z->c);
		err_set("zstd: cannot create a compression context");
		return NULL;
	}
	if (level < 0)
		level = ZSTD_DEFAULT_LEVEL;
	ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_checksumFlag, 1);
	/* Always at least one worker: zstd's output is then the same for any
	 * worker count, so builds stay reproducible across machines. A
	 * libzstd built without threads refuses, and compresses inline. */
	ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_nbWorkers, threads > 0 ? threads : codec_cpus());
	/* zstd's jobs are four windows (8 MiB at level 6) and it holds
	 * workers + 3 of them in its input ring: 40 MiB on 2 cores, most of
	 * a generic build's peak RSS. Two windows halve that for 0.13% more
	 * image and ~4% more CPU (each job re-reads its overlap), the same
	 * wall time on 2 cores (bench/results/build.md). The job size only
	 * depends on the level: the output is still the same for any worker
	 * count. */
	ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_jobSize, 2 << ZSTD_getCParams(level, 0, 0).windowLog);
	z->c.s.write = zstd_write;
	z->c.s.finish = zstd_finish;
	z->c.s.free = zstd_free;
	return &z->c.s;
}

/* The largest window decompress_memory() allows, as a power of two. */
static int window_log_max(void)
{
	uint64_t mem = decompress_memory(1ull << ZSTD_KERNEL_WINDOWLOG_MAX);
	int log = ZSTD_WINDOWLOG_MIN;

	while (log < ZSTD_KERNEL_WINDOWLOG_MAX && (2ull << log) <= mem)
		log++;
	return log;
}

static int unzstd(const uint8_t *in, size_t len, struct buf *out, size_t *consumed)
{
	/* One context for every frame (the generator decompresses on one
	 * thread): its window and buffers are kept, not mapped and cleared
	 * again per segment, which cost an image of many small segments
	 * (and the fuzzers) most of their time. */
	static ZSTD_DCtx *d;
	ZSTD_inBuffer ib = { in, len, 0 };
	size_t start = out->len;
	int ret = -1;

	if (!d)
		d = ZSTD_createDCtx();
	if (!d)
		return err_set("zstd: cannot create a decompression context");
	ZSTD_DCtx_reset(d, ZSTD_reset_session_and_parameters);
	ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, window_log_max());
	/* One frame, as the kernel's unzstd reads it: what follows is the
	 * next segment. */
	for (;;) {
		size_t room = codec_out_room(out, 1u << 17), r;
		ZSTD_outBuffer ob = { out->p + out->len, room, 0 };
		r = ZSTD_decompressStream(d, &ob, &ib);
		codec_out_grew(out, ob.pos);
		if (ZSTD_isError(r)) {
			err_set("zstd: %s", ZSTD_getErrorName(r));
			goto out;
		}
		if (codec_over_limit("zstd", out, start) < 0)
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
	/* every way to out: has recorded its message */
	return ret == 0 ? 0 : err_code();
}

const struct codec codec_zstd = { zstd_max_level, zstd_sink_new, unzstd };
