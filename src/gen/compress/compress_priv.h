/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What compress.c needs of one format, and what the format files share
 * (codec.c).
 * Not an API: compress.h is. */
#ifndef UNIRAMFS_COMPRESS_PRIV_H
#define UNIRAMFS_COMPRESS_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen/compress/compress.h"

struct codec {
	/* The highest level the library takes (levels are 0..this); NULL:
	 * the format has no levels. */
	int (*max_level)(void);
	/* A sink compressing into out: level < 0 is the format's default;
	 * threads 0 = all cores, where the format uses threads. NULL +
	 * err_set on failure. */
	struct sink *(*sink_new)(struct sink *out, int level, int threads);
	/* One stream from in[0..len), appended to out; *consumed: the input
	 * it used. */
	int (*decompress)(const uint8_t *in, size_t len, struct buf *out, size_t *consumed);
};

/* Compiled in per meson option (-Dzstd=, -Dxz=, -Dlz4=, -Dzlib=). */
extern const struct codec codec_none;
#if HAVE_ZSTD
extern const struct codec codec_zstd;
#define CODEC_ZSTD (&codec_zstd)
#else
#define CODEC_ZSTD NULL
#endif
#if HAVE_XZ
extern const struct codec codec_xz;
#define CODEC_XZ (&codec_xz)
#else
#define CODEC_XZ NULL
#endif
#if HAVE_LZ4
extern const struct codec codec_lz4;
#define CODEC_LZ4 (&codec_lz4)
#else
#define CODEC_LZ4 NULL
#endif
#if HAVE_ZLIB
extern const struct codec codec_gzip;
#define CODEC_GZIP (&codec_gzip)
#else
#define CODEC_GZIP NULL
#endif

/* The part every compressing sink has: where it writes, its output
 * buffer, and whether the stream was ended. */
struct csink {
	struct sink s;
	struct sink *out;
	uint8_t *obuf;
	size_t olen;
	bool finished;
};

/* Allocates a codec's sink of size bytes (struct csink first). */
void *csink_new(size_t size, struct sink *out, size_t olen);
void csink_free(struct csink *c);

#define OBUF_SIZE (1u << 17)

int codec_cpus(void);

/* Decompressors grow out as they go: room for at least min more bytes
 * (plus the NUL struct buf keeps); returns how many bytes are free. */
size_t codec_out_room(struct buf *out, size_t min);
void codec_out_grew(struct buf *out, size_t n);
/* -errno + err_* once one stream made more than the limit (from start). */
int codec_over_limit(const char *what, const struct buf *out, size_t start);

#endif
