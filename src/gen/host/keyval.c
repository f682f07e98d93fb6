// SPDX-License-Identifier: GPL-2.0-or-later
/* One tokenizer for every "key = value" file the generator reads, so a
 * plugin is written exactly as uniramfs.conf is. */
#include "gen/host/keyval.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "util.h"

/* Strip one pair of matching quotes, as shell-style configs have them. */
static char *unquote(char *v)
{
	size_t n = strlen(v);
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		return v + 1;
	}
	return v;
}

/* A # at the start of the value or after a blank begins a comment, as
 * in most key = value formats ("compress = xz  # smaller"); a # inside
 * a word (a#b) or inside a quoted value is text. */
static void strip_comment(char *v)
{
	char *c = v;

	while (*c == ' ' || *c == '\t')
		c++;
	if (*c == '"' || *c == '\'') {
		char *close = strchr(c + 1, *c);
		if (close)
			c = close + 1;
	}
	for (; *c; c++)
		if (*c == '#' && (c == v || c[-1] == ' ' || c[-1] == '\t')) {
			*c = '\0';
			return;
		}
}

int keyval_parse(char *data, const char *name, size_t max_line, keyval_fn fn, void *ctx)
{
	unsigned lineno = 0;
	int r = 0;

	/* strtok_r would skip empty lines and break line numbers */
	for (char *line = data, *next; line && r == 0; line = next) {
		char *eq, *key, *value, where[PATH_MAX + 32];
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		snprintf(where, sizeof(where), "%s:%u", name, lineno);
		if (max_line && strlen(line) > max_line)
			return err_set("%s: line longer than %zu bytes", where, max_line);
		char *t = str_trim(line);
		if (!*t || *t == '#')
			continue;
		eq = strchr(t, '=');
		if (!eq)
			return err_set("%s: expected 'key = value', got '%s'", where, t);
		*eq = '\0';
		key = str_trim(t);
		strip_comment(eq + 1);
		value = unquote(str_trim(eq + 1));
		if (!*key)
			return err_set("%s: missing key before '=' in '%s'", where, value);
		for (const char *c = key; *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_')
				return err_set("%s: bad key '%s'", where, key);
		r = fn(ctx, key, value, where);
	}
	return r;
}

int keyval_check_text(const char *data, size_t len, const char *name)
{
	const char *nul = memchr(data, '\0', len);
	unsigned lineno = 1;

	if (!nul)
		return 0;
	for (const char *c = data; c < nul; c++)
		lineno += *c == '\n';
	return err_set("%s:%u: NUL byte (is this a text file?)", name, lineno);
}
