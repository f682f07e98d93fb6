// SPDX-License-Identifier: GPL-2.0-or-later
/* The converter every source's table (import_map.c) and the reader
 * (import.c) stand on: one item per statement read, carried over as a
 * key or skipped with the reason. import.c and import_map.c call down
 * here; nothing here calls them. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "gen/import/import_priv.h"

/* Text read from a config, shown on a # line: a control character
 * becomes a blank, so a newline in it cannot start a line that
 * uniramfs.conf would obey. */
static void show_into(struct buf *b, const char *text, size_t max)
{
	size_t n = 0;
	buf_append(b, "", 0);
	for (const char *c = text; *c && n < max; c++, n++) {
		char ch = (unsigned char)*c < 0x20 || *c == 0x7f ? ' ' : *c;
		buf_append(b, &ch, 1);
	}
	if (strlen(text) > max)
		buf_append(b, "...", 3);
}

char *conv_show(const char *text)
{
	struct buf b = { 0 };
	show_into(&b, text, 160);
	return b.p;
}

void conv_comment(struct buf *out, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		abort();
	va_end(ap);
	buf_append(out, "#", 1);
	show_into(out, text, SIZE_MAX);
	buf_append(out, "\n", 1);
	free(text);
}

struct item *conv_add(struct conv *c, const struct shell_assign *a, const char *key, const char *value,
			const char *note)
{
	struct item *it;
	char *text = conv_show(a->text);

	c->items = grow_array(c->items, &c->cap, c->n + 1, sizeof(*c->items));
	it = &c->items[c->n++];
	memset(it, 0, sizeof(*it));
	it->where = xasprintf("%s:%u: %s", c->file, a->line, text);
	free(text);
	it->var = a->name ? xstrdup(a->name) : NULL;
	it->key = key ? xstrdup(key) : NULL;
	it->value = value ? xstrdup(value) : NULL;
	it->note = note ? xstrdup(note) : NULL;
	return it;
}

void conv_skip(struct conv *c, const struct shell_assign *a, const char *why)
{
	conv_add(c, a, NULL, NULL, why);
}

/* Nothing to carry over: uniramfs behaves so without a setting. */
void conv_same(struct conv *c, const struct shell_assign *a, const char *why)
{
	conv_add(c, a, NULL, NULL, why)->same = true;
}

/* NAME= (not +=) replaces what earlier lines gave NAME */
void conv_replace_earlier(struct conv *c, const struct shell_assign *a)
{
	if (a->append || !a->name)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (c->items[i].var && strcmp(c->items[i].var, a->name) == 0 && c->items[i].key)
			c->items[i].dropped = true;
}

/* The words of a value: an array's, or a string's split at blanks as
 * the generators split their lists. */
void conv_words_of(const struct shell_assign *a, struct strv *w)
{
	if (a->array) {
		for (size_t i = 0; i < a->words.n; i++)
			strv_push(w, a->words.v[i]);
	} else if (a->words.n) {
		strv_split(w, a->words.v[0], " \t\n");
	}
}

const char *conv_scalar(const struct shell_assign *a)
{
	return a->words.n ? a->words.v[0] : "";
}

bool conv_has_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* One list key from words; a word uniramfs.conf cannot hold (a comma
 * separates its items) is left out with its own comment. */
void conv_add_list(struct conv *c, const struct shell_assign *a, const char *key, struct strv *w, const char *note)
{
	struct buf v = { 0 };
	size_t n = 0;

	conv_replace_earlier(c, a);
	for (size_t i = 0; i < w->n; i++) {
		if (strchr(w->v[i], ',') || conv_has_ctl(w->v[i]) || strchr(w->v[i], '#')) {
			char *why = xasprintf("'%s' is not carried over: a comma, # or control character cannot be "
					      "written in a uniramfs.conf list", w->v[i]);
			conv_skip(c, a, why);
			free(why);
			continue;
		}
		buf_printf(&v, "%s%s", n++ ? "," : "", w->v[i]);
	}
	if (n)
		conv_add(c, a, key, v.p, note);
	else if (w->n == 0)
		conv_same(c, a, "empty: nothing to set");
	buf_free(&v);
}

void conv_add_words(struct conv *c, const struct shell_assign *a, const char *key, const char *note)
{
	struct strv w = { 0 };
	conv_words_of(a, &w);
	conv_add_list(c, a, key, &w, note);
	strv_free(&w);
}

/* zstd, xz, lz4, gzip and none are what uniramfs writes. */
void conv_add_compress(struct conv *c, const struct shell_assign *a, const char *v)
{
	static const char *const names[][2] = {
		{ "zstd", "zstd" }, { "xz", "xz" }, { "lz4", "lz4" }, { "gzip", "gzip" },
		{ "pigz", "gzip" }, { "cat", "none" }, { "none", "none" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(v, names[i][0]) == 0) {
			conv_add(c, a, "compress", names[i][1], NULL);
			return;
		}
	if (!*v) {
		conv_same(c, a, "empty: the default (zstd)");
		return;
	}
	conv_skip(c, a, "uniramfs compresses with zstd, xz, lz4, gzip or none (no compressor command lines): the "
		   "default (zstd) stays");
}

void conv_add_mode(struct conv *c, const struct shell_assign *a, bool hostonly, const char *note)
{
	conv_add(c, a, "mode", hostonly ? "hostonly" : "generic", note);
}
