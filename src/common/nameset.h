/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NAMESET_H
#define UNIRAMFS_NAMESET_H

#include <stdbool.h>
#include <stddef.h>

/* A string-keyed hash table (open addressing); keys are owned copies. */
struct nameset {
	char **keys;
	void **vals;
	size_t cap, n;
};
/* Returns true when key was new. */
bool nameset_put(struct nameset *s, const char *key, void *val);
bool nameset_has(const struct nameset *s, const char *key);
void *nameset_get(const struct nameset *s, const char *key);
void nameset_free(struct nameset *s);

#endif
