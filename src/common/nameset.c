// SPDX-License-Identifier: GPL-2.0-or-later
/* One string-keyed hash table for both programs (module names, paths,
 * hard links): open addressing with linear probing, FNV-1a. */
#include "nameset.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static size_t str_hash(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static size_t slot(const struct nameset *s, const char *key)
{
	size_t i = str_hash(key) & (s->cap - 1);
	while (s->keys[i] && strcmp(s->keys[i], key) != 0)
		i = (i + 1) & (s->cap - 1);
	return i;
}

static void nameset_grow(struct nameset *s)
{
	struct nameset t = { .cap = s->cap ? s->cap * 2 : 256 };
	t.keys = xcalloc(t.cap, sizeof(*t.keys));
	t.vals = xcalloc(t.cap, sizeof(*t.vals));
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->keys[i])
			continue;
		size_t j = slot(&t, s->keys[i]);
		t.keys[j] = s->keys[i];
		t.vals[j] = s->vals[i];
	}
	t.n = s->n;
	free(s->keys);
	free(s->vals);
	*s = t;
}

bool nameset_put(struct nameset *s, const char *key, void *val)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap)
		nameset_grow(s);
	i = slot(s, key);
	if (s->keys[i])
		return false;
	s->keys[i] = xstrdup(key);
	s->vals[i] = val;
	s->n++;
	return true;
}

bool nameset_has(const struct nameset *s, const char *key)
{
	return s->cap && s->keys[slot(s, key)] != NULL;
}

void *nameset_get(const struct nameset *s, const char *key)
{
	return s->cap ? s->vals[slot(s, key)] : NULL;
}

void nameset_free(struct nameset *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->keys[i]);
	free(s->keys);
	free(s->vals);
	memset(s, 0, sizeof(*s));
}
