// SPDX-License-Identifier: GPL-2.0-or-later
#include "cmdline.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void add_param(struct cmdline *c, char *key, char *val)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 32;
		c->p = xrealloc(c->p, c->cap * sizeof(*c->p));
	}
	c->p[c->n].key = key;
	c->p[c->n].val = val;
	c->n++;
}

/* One word from *s, as the kernel's next_arg() reads it: a quote may
 * open the word or the value, and white space inside quotes does not
 * end the word. Returns the length consumed, 0 at the end. */
static size_t next_word(const char *s, char **key, char **val)
{
	const char *start = s;
	size_t i, eq = 0, len;
	bool in_quote = false, quoted = false;
	char *w;

	if (*s == '"') {
		s++;
		in_quote = quoted = true;
	}
	for (i = 0; s[i]; i++) {
		if (isspace((unsigned char)s[i]) && !in_quote)
			break;
		if (!eq && i && s[i] == '=')
			eq = i;
		if (s[i] == '"')
			in_quote = !in_quote;
	}
	len = i;
	w = xstrndup(s, len);
	/* A quoted word loses its closing quote, as does a quoted value. */
	if (eq) {
		char *v = w + eq + 1;
		w[eq] = '\0';
		if (*v == '"') {
			v++;
			if (len > 0 && w[len - 1] == '"' && w + len - 1 >= v)
				w[len - 1] = '\0';
		} else if (quoted && len > 0 && w[len - 1] == '"') {
			w[len - 1] = '\0';
		}
		*key = xstrdup(w);
		*val = xstrdup(v);
		free(w);
	} else {
		if (quoted && len > 0 && w[len - 1] == '"')
			w[len - 1] = '\0';
		*key = w;
		*val = NULL;
	}
	return (size_t)(s - start) + len;
}

void cmdline_parse(struct cmdline *c, const char *text)
{
	const char *s = text;
	bool init_args = false;

	while (s && *s) {
		char *key, *val;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		s += next_word(s, &key, &val);
		if (init_args) {
			/* The kernel hands these to init untouched. */
			if (val)
				strv_push_owned(&c->init_args, xasprintf("%s=%s", key, val));
			else
				strv_push(&c->init_args, key);
			free(key);
			free(val);
			continue;
		}
		if (!val && strcmp(key, "--") == 0) {
			init_args = true;
			free(key);
			continue;
		}
		add_param(c, key, val);
	}
}

void cmdline_parse_layers(struct cmdline *c, const char *defaults, const char *real)
{
	if (defaults)
		cmdline_parse(c, defaults);
	if (real)
		cmdline_parse(c, real);
}

void cmdline_free(struct cmdline *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->p[i].key);
		free(c->p[i].val);
	}
	free(c->p);
	strv_free(&c->init_args);
	memset(c, 0, sizeof(*c));
}

const struct cmdline_param *cmdline_last(const struct cmdline *c, const char *key)
{
	for (size_t i = c->n; i-- > 0;)
		if (strcmp(c->p[i].key, key) == 0)
			return &c->p[i];
	return NULL;
}

bool cmdline_has(const struct cmdline *c, const char *key)
{
	return cmdline_last(c, key) != NULL;
}

int cmdline_parse_bool(const char *val, bool *out)
{
	static const char *const yes[] = { "1", "yes", "y", "on", "true" };
	static const char *const no[] = { "0", "no", "n", "off", "false" };

	if (!val)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(val, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(val, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

int cmdline_parse_int(const char *val, long min, long max, long *out)
{
	char *end;
	long v;

	if (!val || !*val)
		return -EINVAL;
	errno = 0;
	v = strtol(val, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}
