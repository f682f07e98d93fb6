// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: the ELF reader the generator runs on every program
 * and library of a sysroot, which may hold anything: program headers,
 * the dynamic section, .note.dlopen, and the dynamic symbols and symbol
 * versions. Nothing may be read past what was given; whatever it returns
 * is freed. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gen/elf/elf_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* its own copy: exactly size bytes, so a read past them is seen */
	unsigned char *p = malloc(size ? size : 1);
	struct elf_symbols s;
	struct elf_file f;
	int r;

	memcpy(p, data, size);
	memset(&s, 0, sizeof(s));
	r = elf_parse_symbols(p, size, "fuzz", &f, &s);
	if (r > 1)
		abort();
	if (r == 1)
		elf_file_free(&f);
	elf_symbols_free(&s);
	free(p);
	return 0;
}
