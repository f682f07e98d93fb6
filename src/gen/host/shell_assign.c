// SPDX-License-Identifier: GPL-2.0-or-later
/* The other generators' configs are shell scripts sourced by shell
 * scripts. Sourcing one would run it; this reads the subset real config
 * files use (assignments with quotes, +=, arrays, comments) and reports
 * anything else as a statement it cannot carry over. */
#include "gen/host/shell_assign.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

struct lexer {
	const char *name;
	const char *p;
	unsigned line;
};

static bool is_name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Blanks, comments and (when newlines) line ends before a word. */
static void skip_blanks(struct lexer *l, bool newlines)
{
	for (;;) {
		if (*l->p == ' ' || *l->p == '\t' || (*l->p == '\\' && l->p[1] == '\n')) {
			if (*l->p == '\\') {
				l->p++;
				l->line++;
			}
			l->p++;
		} else if (newlines && *l->p == '\n') {
			l->p++;
			l->line++;
		} else if (newlines && *l->p == '#') {
			while (*l->p && *l->p != '\n')
				l->p++;
		} else {
			return;
		}
	}
}

/* One shell word, quotes removed. 0, or -errno + err_* on a quote that
 * is not closed. */
static int read_word(struct lexer *l, struct buf *w, bool in_array, bool *expands)
{
	unsigned start = l->line;

	buf_append(w, "", 0);
	for (;;) {
		char c = *l->p;
		if (!c || c == ' ' || c == '\t' || c == '\n' || c == ';' || (in_array && c == ')'))
			return 0;
		l->p++;
		if (c == '\'') {
			const char *end = strchr(l->p, '\'');
			if (!end)
				return err_set("%s:%u: unterminated ' quote", l->name, start);
			for (const char *q = l->p; q < end; q++)
				l->line += *q == '\n';
			buf_append(w, l->p, (size_t)(end - l->p));
			l->p = end + 1;
		} else if (c == '"') {
			while (*l->p && *l->p != '"') {
				if (*l->p == '\\' && l->p[1] && strchr("\"\\$`\n", l->p[1])) {
					if (l->p[1] != '\n')
						buf_append(w, l->p + 1, 1);
					else
						l->line++;
					l->p += 2;
					continue;
				}
				if (*l->p == '$' || *l->p == '`')
					*expands = true;
				l->line += *l->p == '\n';
				buf_append(w, l->p++, 1);
			}
			if (!*l->p)
				return err_set("%s:%u: unterminated \" quote", l->name, start);
			l->p++;
		} else if (c == '\\') {
			if (*l->p == '\n') {
				l->line++;
				l->p++;
			} else if (*l->p) {
				buf_append(w, l->p++, 1);
			}
		} else {
			if (c == '$' || c == '`')
				*expands = true;
			buf_append(w, &c, 1);
		}
	}
}

static void set_text(struct buf *text, const char *from, const char *to)
{
	text->len = 0;
	buf_append(text, from, (size_t)(to - from));
}

int shell_assignments(const char *name, const char *data, shell_assign_fn fn, void *userdata)
{
	struct lexer l = { name, data, 1 };
	struct buf word = { 0 }, text = { 0 }, var = { 0 };
	int r = 0;

	while (r == 0) {
		struct shell_assign a = { 0 };
		const char *start, *q;

		skip_blanks(&l, true);
		while (*l.p == ';')
			l.p++;
		skip_blanks(&l, true);
		if (!*l.p)
			break;
		start = l.p;
		a.line = l.line;
		q = l.p;
		if (is_name_start(*q))
			while (is_name_char(*q))
				q++;
		if (q == l.p || !(*q == '=' || (q[0] == '+' && q[1] == '='))) {
			/* no assignment: the rest of the line, as written */
			while (*l.p && *l.p != '\n')
				l.p++;
			set_text(&text, start, l.p);
			a.text = text.p;
			r = fn(userdata, &a);
			continue;
		}
		var.len = 0;
		buf_append(&var, l.p, (size_t)(q - l.p));
		a.name = var.p;
		a.append = *q == '+';
		l.p = q + (a.append ? 2 : 1);
		if (*l.p == '(') {
			a.array = true;
			l.p++;
			for (;;) {
				skip_blanks(&l, true);
				if (*l.p == ')') {
					l.p++;
					break;
				}
				if (!*l.p) {
					r = err_set("%s:%u: unterminated array %s=(", name, a.line, a.name);
					break;
				}
				word.len = 0;
				r = read_word(&l, &word, true, &a.expands);
				if (r < 0)
					break;
				if (word.len == 0 && *l.p == ';')
					l.p++;
				else
					strv_push(&a.words, word.p);
			}
		} else {
			word.len = 0;
			r = read_word(&l, &word, false, &a.expands);
			if (r == 0)
				strv_push(&a.words, word.p);
		}
		if (r == 0) {
			set_text(&text, start, l.p);
			a.text = text.p;
			skip_blanks(&l, false);
			/* "A=b cmd" runs cmd: not a config statement */
			if (*l.p && *l.p != '\n' && *l.p != ';' && *l.p != '#') {
				a.name = NULL;
				while (*l.p && *l.p != '\n')
					l.p++;
				set_text(&text, start, l.p);
				a.text = text.p;
			}
			r = fn(userdata, &a);
		}
		strv_free(&a.words);
	}
	buf_free(&word);
	buf_free(&text);
	buf_free(&var);
	return r;
}
