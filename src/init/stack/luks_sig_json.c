// SPDX-License-Identifier: GPL-2.0-or-later
/* A PCR signature's JSON checked for its shape (luks_sig_json.h): a
 * recursive descent over RFC 8259's grammar that keeps nothing, bounded
 * in depth, reading only the bytes it was given. */
#include "init/stack/luks_sig_json.h"

#include <stdbool.h>
#include <string.h>

/* what a value must be where it stands */
enum role { ANY, TOP, BANK, ENTRY };

struct scan {
	const char *s;
	size_t n, i;
	enum luks_sig_json err; /* the syntax error, then the first shape one */
	size_t err_at;
	enum luks_sig_json shape;
	size_t shape_at;
};

static bool fail(struct scan *p, enum luks_sig_json e)
{
	p->err = e;
	p->err_at = p->i;
	return false;
}

static void space(struct scan *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
			       p->s[p->i] == '\r'))
		p->i++;
}

static bool at(const struct scan *p, char c)
{
	return p->i < p->n && p->s[p->i] == c;
}

static bool digit(const struct scan *p)
{
	return p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9';
}

static bool hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool string(struct scan *p)
{
	p->i++; /* the opening quote */
	while (p->i < p->n) {
		unsigned char c = (unsigned char)p->s[p->i];

		if (c == '"') {
			p->i++;
			return true;
		}
		if (c < 0x20) /* a control byte, NUL among them, unescaped */
			return fail(p, LUKS_SIG_JSON_SYNTAX);
		p->i++;
		if (c != '\\')
			continue;
		if (p->i >= p->n)
			break;
		c = (unsigned char)p->s[p->i];
		if (c == 'u') {
			for (int k = 1; k <= 4; k++)
				if (p->i + k >= p->n || !hex(p->s[p->i + k])) {
					p->i += k;
					return fail(p, LUKS_SIG_JSON_SYNTAX);
				}
			p->i += 5;
		} else if (c && strchr("\"\\/bfnrt", c)) {
			p->i++;
		} else {
			return fail(p, LUKS_SIG_JSON_SYNTAX);
		}
	}
	return fail(p, LUKS_SIG_JSON_SYNTAX); /* cut short */
}

static bool number(struct scan *p)
{
	if (at(p, '-'))
		p->i++;
	if (at(p, '0'))
		p->i++; /* no digit after a leading 0 */
	else if (!digit(p))
		return fail(p, LUKS_SIG_JSON_SYNTAX);
	else
		while (digit(p))
			p->i++;
	if (at(p, '.')) {
		p->i++;
		if (!digit(p))
			return fail(p, LUKS_SIG_JSON_SYNTAX);
		while (digit(p))
			p->i++;
	}
	if (at(p, 'e') || at(p, 'E')) {
		p->i++;
		if (at(p, '+') || at(p, '-'))
			p->i++;
		if (!digit(p))
			return fail(p, LUKS_SIG_JSON_SYNTAX);
		while (digit(p))
			p->i++;
	}
	return true;
}

static bool word(struct scan *p, const char *w)
{
	size_t k = strlen(w);

	if (p->n - p->i < k || memcmp(p->s + p->i, w, k))
		return fail(p, LUKS_SIG_JSON_SYNTAX);
	p->i += k;
	return true;
}

static bool value(struct scan *p, int depth, enum role role);

/* a list of values or members up to close, each taken by one() */
static bool list(struct scan *p, int depth, enum role inner, char close, bool members)
{
	p->i++; /* the opening bracket */
	space(p);
	if (at(p, close)) {
		p->i++;
		return true;
	}
	for (;;) {
		if (members) {
			if (!at(p, '"'))
				return fail(p, LUKS_SIG_JSON_SYNTAX);
			if (!string(p))
				return false;
			space(p);
			if (!at(p, ':'))
				return fail(p, LUKS_SIG_JSON_SYNTAX);
			p->i++;
		}
		if (!value(p, depth, inner))
			return false;
		space(p);
		if (at(p, close)) {
			p->i++;
			return true;
		}
		if (!at(p, ','))
			return fail(p, LUKS_SIG_JSON_SYNTAX);
		p->i++;
		space(p);
	}
}

static bool value(struct scan *p, int depth, enum role role)
{
	char c;

	space(p);
	if (p->i >= p->n)
		return fail(p, LUKS_SIG_JSON_SYNTAX);
	c = p->s[p->i];
	if (!p->shape && role != ANY && c != (role == BANK ? '[' : '{')) {
		p->shape = role == TOP ? LUKS_SIG_JSON_NOT_OBJECT : LUKS_SIG_JSON_NOT_BANK;
		p->shape_at = p->i;
	}
	if (c == '{' || c == '[') {
		if (depth >= LUKS_SIG_JSON_DEPTH)
			return fail(p, LUKS_SIG_JSON_DEEP);
		if (c == '{')
			return list(p, depth + 1, role == TOP ? BANK : ANY, '}', true);
		return list(p, depth + 1, role == BANK ? ENTRY : ANY, ']', false);
	}
	if (c == '"')
		return string(p);
	if (c == 't')
		return word(p, "true");
	if (c == 'f')
		return word(p, "false");
	if (c == 'n')
		return word(p, "null");
	return number(p);
}

enum luks_sig_json luks_sig_json_check(const char *text, size_t len, size_t *where)
{
	struct scan p = { .s = text, .n = len };

	space(&p);
	if (p.i == p.n) {
		*where = 0;
		return LUKS_SIG_JSON_EMPTY;
	}
	if (value(&p, 0, TOP)) {
		space(&p);
		if (p.i < p.n)
			fail(&p, LUKS_SIG_JSON_SYNTAX); /* more after the value */
	}
	if (p.err) {
		*where = p.err_at;
		return p.err;
	}
	*where = p.shape_at;
	return p.shape;
}
