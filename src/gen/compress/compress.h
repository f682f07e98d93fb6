/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_COMPRESS_H
#define UNIRAMFS_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpio.h"
#include "util.h"

enum compression {
	COMP_NONE,
	COMP_ZSTD,
	COMP_XZ,
	COMP_LZ4, /* lz4 legacy frame, the only one the kernel unpacks */
	COMP_GZIP,
	COMP_BZIP2, /* detected when reading other tools' images; not written */
	COMP_LZMA,  /* likewise */
	COMP_LZO,   /* likewise */
	COMP_UNKNOWN,
};

int compression_from_name(const char *name, enum compression *out); /* -errno + err_* */
const char *compression_name(enum compression c);
/* Was the library for c compiled in (meson -Dzstd= -Dxz= -Dlz4= -Dzlib=)? */
bool compression_built_in(enum compression c);
/* 0, or -errno + err_* saying c cannot be written by this build and why. */
int compression_check_built_in(enum compression c);

/* The default levels. Why 6: see the measurements in compress.c. */
#define ZSTD_DEFAULT_LEVEL 6
#define GZIP_DEFAULT_LEVEL 6
/* The squashfs segment's zstd level when none is asked: a boot reads a
 * few MB of it, so its size matters less than the build's time, most of
 * which is this segment's compression (bench/results/build.md: level 3
 * halves the generic build's CPU for 5% more bytes). */
#define SQUASH_ZSTD_DEFAULT_LEVEL 3

/* A sink that compresses into out. sink_finish ends the stream (writes
 * the compressor's trailer into out) but does not finish out. level < 0
 * picks the default; threads 0 = all cores (zstd and xz; their output is
 * the same for any thread count, so builds are reproducible). */
struct sink *compress_sink_new(enum compression c, struct sink *out, int level, int threads);

/* Look at the first bytes: cpio magic gives COMP_NONE. */
enum compression compression_detect(const uint8_t *buf, size_t len);

/* Decompress one stream from in[0..len) and append it to out; *consumed
 * gets the number of input bytes that stream used, so a caller can find
 * what follows it (images concatenate segments). */
int decompress_buf(enum compression c, const uint8_t *in, size_t len, struct buf *out, size_t *consumed);

/* Decompress a whole file chosen by its suffix (.xz, .zst, .gz) or by
 * magic, into out. */
int decompress_file(const char *path, struct buf *out);

/* Bound on what one decompress_buf call may produce (default 2 GiB), so
 * a hostile image cannot eat all memory; fuzzers lower it. */
void decompress_set_limit(uint64_t max);
uint64_t decompress_get_limit(void);

/* Bound on the memory a decoder may take for its history (zstd's window,
 * xz's dictionary); 0, the default, is each format's own: the kernel's
 * 128 MiB zstd window, 1 GiB for xz. A stream that asks for more is
 * refused. Fuzzers lower it: under ASan a 128 MiB window costs more
 * than the rest of an input's run. */
void decompress_set_memory(uint64_t bytes);
uint64_t decompress_memory(uint64_t format_max);

#endif
