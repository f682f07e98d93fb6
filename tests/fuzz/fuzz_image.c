// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: the whole image reader (segments, every decompressor,
 * cpio inside), as `uniramfs ls` runs it on an untrusted file. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gen/compress/compress.h"
#include "gen/read/imagefile.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct image_limits l = image_default_limits;

	(void)argc;
	(void)argv;
	/* Small inputs may expand hugely (the corpus has bombs). Low
	 * limits keep the fuzzer inside its rss limit and fast: at 64 MiB a
	 * bomb took tens of ms, and a long run managed under 200 inputs a
	 * second. Both refusals stay reachable: the ratio one from 256 KiB,
	 * the total one at 2 MiB. */
	l.max_total = 2u << 20;
	l.ratio_floor = 256u << 10;
	image_set_limits(&l);
	/* a 128 MiB zstd window or xz dictionary costs an ASan build its
	 * shadow memory's clearing twice per input: most of a run's time */
	decompress_set_memory(8u << 20);
	decompress_set_limit(2u << 20);
	return 0;
}

static int touch(unsigned segment, enum compression c, const struct cpio_entry *e,
		 const uint8_t *data, void *userdata)
{
	volatile uint8_t *sink = userdata;
	*sink ^= (uint8_t)(segment + c + strlen(e->name));
	if (e->size)
		*sink ^= data[0] ^ data[e->size - 1];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	volatile uint8_t sink = 0;
	struct buf out = { 0 };
	size_t used;
	enum compression c = compression_detect(data, size);

	image_foreach_buf(data, size, touch, (void *)&sink);
	/* each decompressor alone, whatever the magic says */
	if (c != COMP_NONE && decompress_buf(c, data, size, &out, &used) == 0 && used > size)
		__builtin_trap();
	buf_free(&out);
	return 0;
}
