// SPDX-License-Identifier: GPL-2.0-or-later
/* What the format files share, below them and below compress.c's table:
 * the compressing sink's common part, the decompressors' output buffer
 * and the limit on what one stream may unpack to. The format files and
 * compress.c call down here; nothing here calls them. */
#include <stdlib.h>
#include <unistd.h>

#include "err.h"
#include "gen/compress/compress_priv.h"

static uint64_t decompress_limit = 2ull << 30;

void decompress_set_limit(uint64_t max)
{
	decompress_limit = max;
}

uint64_t decompress_get_limit(void)
{
	return decompress_limit;
}

static uint64_t decompress_mem;

void decompress_set_memory(uint64_t bytes)
{
	decompress_mem = bytes;
}

uint64_t decompress_memory(uint64_t format_max)
{
	return decompress_mem && decompress_mem < format_max ? decompress_mem : format_max;
}

void *csink_new(size_t size, struct sink *out, size_t olen)
{
	struct csink *c = xcalloc(1, size);
	c->out = out;
	c->olen = olen;
	c->obuf = xmalloc(olen);
	return c;
}

void csink_free(struct csink *c)
{
	free(c->obuf);
	free(c);
}

int codec_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

size_t codec_out_room(struct buf *out, size_t min)
{
	ARRAY_GROW(out->p, out->cap, out->len + min + 1);
	return out->cap - out->len - 1;
}

void codec_out_grew(struct buf *out, size_t n)
{
	out->len += n;
	out->p[out->len] = '\0';
}

int codec_over_limit(const char *what, const struct buf *out, size_t start)
{
	if (out->len - start <= decompress_limit)
		return 0;
	return err_set("%s: decompressed data larger than %llu MiB, refusing", what,
		       (unsigned long long)(decompress_limit >> 20));
}
