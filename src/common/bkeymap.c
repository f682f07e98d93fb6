// SPDX-License-Identifier: GPL-2.0-or-later
#include "bkeymap.h"

#include <errno.h>
#include <string.h>

int bkeymap_check(const uint8_t *data, size_t len)
{
	size_t tables = 0;

	if (len < BKEYMAP_MAGIC_LEN + BKEYMAP_TABLES ||
	    memcmp(data, BKEYMAP_MAGIC, BKEYMAP_MAGIC_LEN) != 0)
		return -EINVAL;
	for (size_t t = 0; t < BKEYMAP_TABLES; t++) {
		uint8_t f = data[BKEYMAP_MAGIC_LEN + t];
		if (f > 1)
			return -EINVAL;
		tables += f;
	}
	if (len != BKEYMAP_MAGIC_LEN + BKEYMAP_TABLES + tables * BKEYMAP_KEYS * 2)
		return -EINVAL;
	return 0;
}

int bkeymap_walk(const uint8_t *data, size_t len, bkeymap_fn fn, void *arg)
{
	const uint8_t *p = data + BKEYMAP_MAGIC_LEN + BKEYMAP_TABLES;
	int r = bkeymap_check(data, len);

	for (unsigned t = 0; r == 0 && t < BKEYMAP_TABLES; t++) {
		if (!data[BKEYMAP_MAGIC_LEN + t])
			continue;
		for (unsigned k = 0; r == 0 && k < BKEYMAP_KEYS; k++, p += 2) {
			uint16_t v;
			memcpy(&v, p, sizeof(v));
			r = fn(arg, t, k, v);
		}
	}
	return r;
}
