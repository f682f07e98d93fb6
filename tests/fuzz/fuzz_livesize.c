// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: the header of a live image (an ISO's primary volume
 * descriptor, a squashfs superblock) as src/init/stages/livesize.c reads
 * it from a medium, a hostile one. Rules beyond "no crash": a size is
 * claimed only with a type; an ISO's is whole blocks of 512, 1024 or
 * 2048 bytes; a squashfs's holds its own superblock and fits in 2^50. A
 * broken rule traps. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "init/stages/livesize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exactly size bytes: a read past them is ASan's to see */
	unsigned char *buf = malloc(size ? size : 1);
	const char *type;
	uint64_t claim;
	int r;

	memcpy(buf, data, size);
	r = live_header_size(buf, size, &type, &claim);
	if (r == 0 && (type || claim))
		abort();
	if (r == 1 && !type)
		abort();
	if (r == 1 && !strcmp(type, "iso9660") && claim % 512)
		abort();
	if (r == 1 && !strcmp(type, "squashfs") && (claim < 96 || claim > (uint64_t)1 << 50))
		abort();
	if (r < 0 && r != -22)
		abort();
	free(buf);
	return 0;
}
