// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: authorized_keys as the generator checks and rewrites
 * it for the image. Whatever it accepts must come out as one line per
 * key, each with our forced command first and no control character. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gen/features/ssh.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OURS "no-port-forwarding,no-agent-forwarding,no-X11-forwarding,"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf out = { 0 };
	size_t n = 0, lines = 0;

	if (ssh_authorized_keys("fuzz", (const char *)data, size, &out, &n) == 0) {
		for (size_t i = 0; i < out.len;) {
			const char *nl = memchr(out.p + i, '\n', out.len - i);
			if (!nl || strncmp(out.p + i, OURS, strlen(OURS)))
				abort();
			for (const char *p = out.p + i; p < nl; p++)
				if ((unsigned char)*p < 0x20 && *p != '\t')
					abort();
			lines++;
			i = (size_t)(nl - out.p) + 1;
		}
		if (lines != n)
			abort();
	}
	buf_free(&out);
	return 0;
}
