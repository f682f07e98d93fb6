// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: the cpio newc reader, over archives back to back as an
 * image holds them. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cpio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpio_reader r;
	struct cpio_entry e;
	const uint8_t *body;
	size_t off = 0;
	volatile uint8_t sink = 0;

	while (off < size) {
		int rc;
		cpio_reader_init(&r, data + off, size - off);
		while ((rc = cpio_read_next(&r, &e, &body)) > 0) {
			/* touch what the reader says is there */
			sink ^= (uint8_t)strlen(e.name);
			if (e.size)
				sink ^= body[0] ^ body[e.size - 1];
		}
		cpio_reader_free(&r);
		if (rc < 0 || r.off == 0)
			break;
		off += r.off;
	}
	(void)sink;
	return 0;
}
