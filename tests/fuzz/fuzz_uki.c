// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: the UKI's PE writer over a hostile stub. Whatever it
 * accepts must come out as a PE whose new sections lie inside the file
 * and hold what was given. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gen/image/uki.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t g32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char cmdline[] = "root=/dev/vda", kernel[] = "KERNEL";
	const struct uki_section s[] = { { ".cmdline", cmdline, sizeof(cmdline) - 1 },
					 { ".linux", kernel, sizeof(kernel) - 1 } };
	struct buf b = { 0 };

	if (uki_assemble(&b, "stub", data, size, s, 2) == 0) {
		const uint8_t *d = (const uint8_t *)b.p;
		uint32_t pe = g32(d + 0x3c);
		size_t opt = pe + 24, optlen = (size_t)(d[pe + 20] | d[pe + 21] << 8);
		size_t nsec = (size_t)(d[pe + 6] | d[pe + 7] << 8);
		for (size_t i = nsec - 2; i < nsec; i++) {
			const uint8_t *sh = d + opt + optlen + 40 * i;
			const struct uki_section *x = &s[i - (nsec - 2)];
			uint32_t len = g32(sh + 8), raw = g32(sh + 20);
			if (len != x->len || (uint64_t)raw + len > b.len || memcmp(d + raw, x->data, len) != 0)
				abort();
		}
	}
	buf_free(&b);
	return 0;
}
