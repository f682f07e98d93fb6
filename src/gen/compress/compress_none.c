// SPDX-License-Identifier: GPL-2.0-or-later
/* No compression: the cpio as it is. */
#include <stdlib.h>

#include "gen/compress/compress_priv.h"

static int none_write(struct sink *s, const void *data, size_t n)
{
	return sink_write(((struct csink *)s)->out, data, n);
}

static void none_free(struct sink *s)
{
	free(s);
}

static struct sink *none_sink_new(struct sink *out, int level, int threads)
{
	struct csink *c = xcalloc(1, sizeof(*c));
	(void)level, (void)threads;
	c->out = out;
	c->s.write = none_write;
	c->s.free = none_free;
	return &c->s;
}

static int none_decompress(const uint8_t *in, size_t len, struct buf *out, size_t *consumed)
{
	buf_append(out, in, len);
	*consumed = len;
	return 0;
}

/* no level to check: any is accepted and means nothing */
const struct codec codec_none = { NULL, none_sink_new, none_decompress };
