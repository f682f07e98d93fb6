// SPDX-License-Identifier: GPL-2.0-or-later
/* How image_add_buf's contents wait for the write: lz4 (its fast mode),
 * when lz4 is built in. They are a build's decompressed modules (79 MB
 * for trixie's 6.12 amd64 kernel in a generic image), held from
 * modules_emit until image_write_cpio reaches them, across the squashfs
 * segment's compression: held plain, they raised that build's peak RSS
 * from 90 to 117 MiB. lz4 keeps them in 39% (85 MiB peak) for 1.0 G
 * instructions; zstd -1 in 25% (68 MiB) for 3.0 G, two thirds of the
 * 4.8 G that reading each module once saves (bench/results/build.md). */
#include "gen/image/image_hold.h"

#include <string.h>

#include "cpio.h"
#include "err.h"
#include "gen/compress/compress.h"
#include "util.h"

int image_hold(const void *p, size_t len, struct buf *held, bool *packed)
{
	struct sink *mem, *z;
	const void *out;
	size_t n;
	int r;

	*packed = false;
	if (!compression_built_in(COMP_LZ4) || len == 0)
		return 0;
	mem = sink_mem_new();
	z = compress_sink_new(COMP_LZ4, mem, 1, 0);
	r = z ? sink_write(z, p, len) : err_code();
	if (r == 0)
		r = sink_finish(z);
	if (r == 0) {
		out = sink_mem_data(mem, &n);
		held->p = xmalloc(n ? n : 1);
		memcpy(held->p, out, n);
		held->len = held->cap = n;
		*packed = true;
	}
	sink_free(z);
	sink_free(mem);
	return r;
}

int image_unhold(const struct buf *held, size_t len, struct buf *plain)
{
	size_t used;

	if (decompress_buf(COMP_LZ4, (const uint8_t *)held->p, held->len, plain, &used) < 0)
		return err_code();
	if (plain->len != len || used != held->len)
		return err_set("held contents changed size: %zu bytes, %zu expected", plain->len, len);
	return 0;
}
