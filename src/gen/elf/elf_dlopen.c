// SPDX-License-Identifier: GPL-2.0-or-later
/* systemd's .note.dlopen descriptors: a JSON array of {"soname": [...],
 * "priority": ...} objects. Just enough of JSON to pick out the fields we
 * use and step over everything else; the text is untrusted (it comes from
 * a file in the sysroot), so every step is bounded by its end. */
#include "gen/elf/elf_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct js {
	const char *p, *end;
};

static void js_ws(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool js_eat(struct js *j, char c)
{
	js_ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

/* A string; its text goes to out (if not NULL), NUL-terminated. */
static int js_string(struct js *j, struct buf *out)
{
	if (!js_eat(j, '"'))
		return -EINVAL;
	while (j->p < j->end) {
		unsigned char c = (unsigned char)*j->p++;
		if (c == '"') {
			if (out)
				buf_append(out, "", 0); /* terminates */
			return 0;
		}
		if (c < 0x20)
			return -EINVAL;
		if (c == '\\') {
			if (j->p >= j->end)
				return -EINVAL;
			c = (unsigned char)*j->p++;
			switch (c) {
			case '"': case '\\': case '/': break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				/* Sonames are ASCII; anything else only has to be
				 * stepped over. */
				if (j->end - j->p < 4)
					return -EINVAL;
				unsigned v = 0;
				for (int i = 0; i < 4; i++) {
					char h = *j->p++;
					v <<= 4;
					if (h >= '0' && h <= '9')
						v |= (unsigned)(h - '0');
					else if ((h | 0x20) >= 'a' && (h | 0x20) <= 'f')
						v |= (unsigned)((h | 0x20) - 'a' + 10);
					else
						return -EINVAL;
				}
				c = v && v < 0x80 ? (unsigned char)v : '?';
				break;
			default:
				return -EINVAL;
			}
		}
		if (out)
			buf_append(out, &c, 1);
	}
	return -EINVAL;
}

static int js_skip(struct js *j, int depth)
{
	if (depth > 32)
		return -EINVAL;
	js_ws(j);
	if (j->p >= j->end)
		return -EINVAL;
	switch (*j->p) {
	case '"':
		return js_string(j, NULL);
	case '[':
	case '{': {
		char close = *j->p == '[' ? ']' : '}';
		bool obj = close == '}';
		j->p++;
		if (js_eat(j, close))
			return 0;
		do {
			if (obj && (js_string(j, NULL) < 0 || !js_eat(j, ':')))
				return -EINVAL;
			if (js_skip(j, depth + 1) < 0)
				return -EINVAL;
		} while (js_eat(j, ','));
		return js_eat(j, close) ? 0 : -EINVAL;
	}
	default: {
		/* number, true, false, null */
		const char *start = j->p;
		while (j->p < j->end && (strchr("+-.eE", *j->p) || (*j->p >= '0' && *j->p <= '9') ||
					 (*j->p >= 'a' && *j->p <= 'z')))
			j->p++;
		return j->p > start ? 0 : -EINVAL;
	}
	}
}

/* {"soname": ["a", "b"], "priority": "required", ...} */
static int js_dependency(struct js *j, struct elf_dlopen *d)
{
	struct buf key = { 0 }, val = { 0 };
	int r = -EINVAL;

	d->priority = ELF_DLOPEN_RECOMMENDED;
	if (!js_eat(j, '{'))
		return -EINVAL;
	if (js_eat(j, '}'))
		return 0;
	do {
		key.len = 0;
		if (js_string(j, &key) < 0 || !js_eat(j, ':'))
			goto out;
		if (strcmp(key.p, "soname") == 0) {
			if (!js_eat(j, '['))
				goto out;
			if (!js_eat(j, ']')) {
				do {
					val.len = 0;
					if (js_string(j, &val) < 0)
						goto out;
					if (val.p[0] && !strv_contains(&d->sonames, val.p))
						strv_push(&d->sonames, val.p);
				} while (js_eat(j, ','));
				if (!js_eat(j, ']'))
					goto out;
			}
		} else if (strcmp(key.p, "priority") == 0) {
			val.len = 0;
			if (js_string(j, &val) < 0)
				goto out;
			if (strcmp(val.p, "required") == 0)
				d->priority = ELF_DLOPEN_REQUIRED;
			else if (strcmp(val.p, "recommended") == 0)
				d->priority = ELF_DLOPEN_RECOMMENDED;
			else if (strcmp(val.p, "suggested") == 0)
				d->priority = ELF_DLOPEN_SUGGESTED;
			else
				d->priority = ELF_DLOPEN_UNKNOWN;
		} else if (js_skip(j, 1) < 0) {
			goto out;
		}
	} while (js_eat(j, ','));
	r = js_eat(j, '}') ? 0 : -EINVAL;
out:
	buf_free(&key);
	buf_free(&val);
	return r;
}

int elf_parse_dlopen_json(const char *json, size_t n, struct elf_file *f)
{
	struct js j = { json, json + n };
	struct elf_dlopen *v = NULL;
	size_t nv = 0, cap = 0;

	if (!js_eat(&j, '['))
		goto bad;
	if (!js_eat(&j, ']')) {
		do {
			ARRAY_GROW(v, cap, nv + 1);
			memset(&v[nv], 0, sizeof(v[nv]));
			if (js_dependency(&j, &v[nv++]) < 0)
				goto bad;
		} while (js_eat(&j, ','));
		if (!js_eat(&j, ']'))
			goto bad;
	}
	js_ws(&j);
	if (j.p != j.end)
		goto bad;
	for (size_t i = 0; i < nv; i++) {
		if (!v[i].sonames.n) {
			strv_free(&v[i].sonames);
			continue;
		}
		f->dlopen = xrealloc(f->dlopen, (f->n_dlopen + 1) * sizeof(*f->dlopen));
		f->dlopen[f->n_dlopen++] = v[i];
	}
	free(v);
	return 0;
bad:
	for (size_t i = 0; i < nv; i++)
		strv_free(&v[i].sonames);
	free(v);
	return -EINVAL;
}
