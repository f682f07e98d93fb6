// SPDX-License-Identifier: GPL-2.0-or-later
/* fstab(5) text, parsed with checks: the root's /etc/fstab decides what
 * the initrd mounts (/usr, x-initrd.mount), and a root is any disk. A
 * malformed line is left out and said, as libmount skips it. */
#include "init/stages/xinitrd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "init/core/ops.h"
#include "init/core/regfile.h"

#define QUOTE_MAX 80 /* of a line, in a message */
#define MAX_FIELDS 6

/* The line for a message: printable bytes only, at most QUOTE_MAX. */
static char *quote(const char *s, size_t n)
{
	size_t m = n > QUOTE_MAX ? QUOTE_MAX : n;
	char *out = xmalloc(m + 4);

	for (size_t i = 0; i < m; i++)
		out[i] = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f ? s[i] : '?';
	strcpy(out + m, n > m ? "..." : "");
	return out;
}

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/* fstab escapes space, tab, newline and backslash as \ooo (getmntent);
 * NULL for an escaped NUL, which would cut the name short. */
static char *unescape(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;

	for (size_t i = 0; i < n;) {
		if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    is_octal(s[i + 2]) && is_octal(s[i + 3])) {
			char c = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			if (!c) {
				free(out);
				return NULL;
			}
			*o++ = c;
			i += 4;
		} else {
			*o++ = s[i++];
		}
	}
	*o = '\0';
	return out;
}

/* freq and pass: a number, as libmount reads them (0 when absent). */
static bool number(const char *s, size_t n, int *v)
{
	*v = 0;
	if (!n || n > 4)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (s[i] - '0');
	}
	return true;
}

void fstab_entry_free(struct fstab_entry *e)
{
	free(e->spec);
	free(e->file);
	free(e->type);
	free(e->opts);
	free(e->line);
	memset(e, 0, sizeof(*e));
}

/* One line (no newline; n bytes, NUL-free). 1: an entry in e; 0: blank
 * or a comment; -1: malformed, *why says how. */
static int parse_line(const char *s, size_t n, struct fstab_entry *e, const char **why)
{
	const char *f[MAX_FIELDS];
	size_t fl[MAX_FIELDS], nf = 0, i = 0;
	int freq;

	memset(e, 0, sizeof(*e));
	while (i < n) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i == n || (nf == 0 && s[i] == '#'))
			break;
		if (nf == MAX_FIELDS) {
			*why = "more than 6 fields";
			return -1;
		}
		f[nf] = s + i;
		while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			i++;
		fl[nf] = (size_t)(s + i - f[nf]);
		nf++;
	}
	if (nf == 0)
		return 0;
	if (nf == 1) {
		*why = "no mount point";
		return -1;
	}
	if (nf > 4 && !number(f[4], fl[4], &freq)) {
		*why = "the fifth field (dump) is not a number";
		return -1;
	}
	if (nf > 5 && !number(f[5], fl[5], &e->passno)) {
		*why = "the sixth field (fsck pass) is not a number";
		return -1;
	}
	e->spec = unescape(f[0], fl[0]);
	e->file = unescape(f[1], fl[1]);
	e->type = nf > 2 ? unescape(f[2], fl[2]) : xstrdup("auto");
	e->opts = nf > 3 ? unescape(f[3], fl[3]) : xstrdup("defaults");
	if (!e->spec || !e->file || !e->type || !e->opts) {
		*why = "an escaped NUL (\\000)";
		fstab_entry_free(e);
		return -1;
	}
	if (e->file[0] != '/' && strcmp(e->file, "none") && strcmp(e->file, "swap")) {
		*why = "the mount point is not an absolute path";
		fstab_entry_free(e);
		return -1;
	}
	e->line = quote(s, n);
	return 1;
}

static void warn_line(struct fstab *t, const char *from, int lineno, const char *s, size_t n,
		      const char *why)
{
	char *q = quote(s, n);

	strv_push_owned(&t->warnings,
			xasprintf("%s line %d: \"%s\": %s, ignoring it", from, lineno, q, why));
	free(q);
}

void fstab_parse(const char *text, size_t len, const char *from, struct fstab *out)
{
	size_t cap = 0;
	int lineno = 0;

	memset(out, 0, sizeof(*out));
	for (size_t at = 0; at < len;) {
		const char *s = text + at, *nl = memchr(s, '\n', len - at);
		size_t n = nl ? (size_t)(nl - s) : len - at;
		struct fstab_entry e;
		const char *why = NULL;
		int r;

		at += n + (nl != NULL);
		lineno++;
		if (n > FSTAB_MAX_LINE) {
			warn_line(out, from, lineno, s, n, "longer than 4096 bytes");
			continue;
		}
		if (memchr(s, '\0', n)) {
			warn_line(out, from, lineno, s, n, "a NUL byte in it");
			continue;
		}
		if ((r = parse_line(s, n, &e, &why)) < 0)
			warn_line(out, from, lineno, s, n, why);
		if (r <= 0)
			continue;
		if (out->n == FSTAB_MAX_ENTRIES) {
			strv_push_owned(&out->warnings,
					xasprintf("%s line %d: more than %d entries, ignoring the rest",
						  from, lineno, FSTAB_MAX_ENTRIES));
			fstab_entry_free(&e);
			break;
		}
		if (out->n == cap) {
			cap = cap ? cap * 2 : 8;
			out->v = xrealloc(out->v, cap * sizeof(*out->v));
		}
		e.from = from;
		e.lineno = lineno;
		out->v[out->n++] = e;
	}
}

void fstab_free(struct fstab *t)
{
	for (size_t i = 0; i < t->n; i++)
		fstab_entry_free(&t->v[i]);
	free(t->v);
	strv_free(&t->warnings);
	memset(t, 0, sizeof(*t));
}

int fstab_read(const struct sysops *ops, const char *root, char **text, size_t *len)
{
	return regfile_read_in_root(ops, root, "etc/fstab", FSTAB_MAX_BYTES, text, len);
}

bool fstab_has_opt(const char *opts, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = opts; p && *p;) {
		size_t l = strcspn(p, ",");
		if (l == n && !strncmp(p, word, n))
			return true;
		p += l;
		p += *p == ',';
	}
	return false;
}
