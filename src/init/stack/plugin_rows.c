// SPDX-License-Identifier: GPL-2.0-or-later
/* The plugins' boot-time rows (docs/plugins.md): the generator checked
 * them, but the file comes from an image, which anyone may have made:
 * every field is checked again here, and a bad row is named by its line
 * and skipped, so one broken plugin costs only its own rows. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/stack/plugin_rows.h"
#include "layout.h"
#include "log.h"

/* The generator's limits (src/gen/plugins): a plugin file is at most
 * 64 KiB with 256 values, a line 4096 bytes. */
#define ROWS_MAX_BYTES (64 * 1024)
#define ROWS_MAX 256
#define ROW_MAX_LINE 4096
#define NAME_MAX_LEN 64
#define LIST_MAX 64

enum field { F_KIND, F_PLUGIN, F_KEY, F_PROGRAM, F_MODULES, F_OPTIONS, F_N };
/* Fields past the six: NAME=VALUE, at most this many (runs among them). */
#define EXTRA_MAX 16
#define RUN_WORDS_MAX 64

/* The root= forms the init reads itself (docs/cmdline.md). */
static const char *const own_roots[] = { "/",     "UUID=", "LABEL=", "CDLABEL=", "PARTUUID=", "PARTLABEL=",
					 "WWID=", "HWPATH=", "nfs:", "nfs4:", "dhcp",
					 "iscsi:", "nbd:" };

static bool name_char(char c, const char *more)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr(more, c));
}

/* 1..max characters of letters, digits and more. */
static bool is_name(const char *s, const char *more, size_t max)
{
	size_t n = strlen(s);

	if (!n || n > max)
		return false;
	for (; *s; s++)
		if (!name_char(*s, more))
			return false;
	return true;
}

static bool is_program(const char *s)
{
	if (s[0] != '/' || strlen(s) > ROW_MAX_LINE || !is_name(s + 1, "/._-+", ROW_MAX_LINE) ||
	    strstr(s, "//") || str_has_suffix(s, "/"))
		return false;
	for (const char *c = s; (c = strstr(c, "/.")); c++)
		if (c[2] == '/' || !c[2] || (c[2] == '.' && (c[3] == '/' || !c[3])))
			return false;
	return true;
}

/* A comma list of names, or "-" for none. An option is a command-line
 * key as the tokenizer gives it (rd.zfs.force): no '=', no value. */
static int parse_list(const char *s, const char *more, struct strv *out)
{
	struct strv v = { 0 };

	if (!strcmp(s, "-"))
		return 0;
	/* strv_split trims blanks: none may be there to trim */
	for (const char *c = s; *c; c++)
		if (*c != ',' && !name_char(*c, more))
			return -EINVAL;
	strv_split(&v, s, ",");
	for (size_t i = 0; i < v.n; i++)
		if (!is_name(v.v[i], more, NAME_MAX_LEN) || !name_char(v.v[i][0], "")) {
			strv_free(&v);
			return -EINVAL;
		}
	if (!v.n || v.n > LIST_MAX || s[strlen(s) - 1] == ',' || strstr(s, ",,") || s[0] == ',') {
		strv_free(&v);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static bool prefixes_overlap(const char *a, const char *b)
{
	size_t n = strlen(a) < strlen(b) ? strlen(a) : strlen(b);

	return !strncmp(a, b, n);
}

/* The reason written into buf, returned. */
__attribute__((format(printf, 3, 4))) static const char *why_fmt(char *buf, size_t size,
								const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return buf;
}

/* Why the row is refused, or NULL when it is kept in r. */
static const char *check_row(char **f, const struct sysops *ops, bool (*is_builtin)(const char *),
			     const struct plugin_rows *have, struct plugin_row *r, char *why,
			     size_t size)
{
	bool root = !strcmp(f[F_KIND], "root"), claim = !strcmp(f[F_KIND], "claim");

	if (!root && !claim && strcmp(f[F_KIND], "layer"))
		return "unknown kind (layer, root or claim)";
	if (!is_name(f[F_PLUGIN], "._-+@", NAME_MAX_LEN))
		return "bad plugin name (letters, digits, ._-+@; at most 64)";
	if (claim && !is_name(f[F_KEY], "_-*?", 32))
		return "bad device pattern (letters, digits, _-*?; at most 32)";
	if (!root && !claim && !is_name(f[F_KEY], "._-", NAME_MAX_LEN))
		return "bad blkid type (letters, digits, ._-; at most 64)";
	if (root && !is_name(f[F_KEY], "._-+:=@/", NAME_MAX_LEN))
		return "bad root= prefix (letters, digits, ._-+:=@/; at most 64)";
	if (!is_program(f[F_PROGRAM]))
		return "bad program (an absolute path of letters, digits, ._-+/, without '.' or '..')";
	if (parse_list(f[F_MODULES], "_-", &r->modules) < 0)
		return "bad modules (a comma list of module names, or -)";
	if (parse_list(f[F_OPTIONS], "._-", &r->options) < 0)
		return "bad options (a comma list of command-line keys such as rd.foo, or -)";
	if (root && r->options.n)
		return "a root row takes no options";
	if (!root && !claim && is_builtin && is_builtin(f[F_KEY]))
		return why_fmt(why, size, "blkid type %s is the init's own layer", f[F_KEY]);
	for (size_t i = 0; root && i < ARRAY_SIZE(own_roots); i++)
		if (prefixes_overlap(f[F_KEY], own_roots[i]))
			return why_fmt(why, size, "root= prefix %s is the init's own (%s)", f[F_KEY],
					own_roots[i]);
	for (size_t i = 0; i < have->n; i++) {
		const struct plugin_row *o = &have->v[i];
		if (o->root != root || o->claim != claim || claim)
			continue;
		if (!root && !strcmp(o->key, f[F_KEY]))
			return why_fmt(why, size, "blkid type %s is taken by plugin %s (line %u)",
					f[F_KEY], o->plugin, o->line);
		if (root && prefixes_overlap(o->key, f[F_KEY]))
			return why_fmt(why, size, "root= prefix %s overlaps %s of plugin %s (line %u)",
					f[F_KEY], o->key, o->plugin, o->line);
	}
	if (ops->access(f[F_PROGRAM], X_OK) < 0)
		return "its program is not an executable of this image";
	return NULL;
}

/* One word of a run: a name or path, or {device} or {OPTION} of the
 * row's options. */
static bool run_word(const char *w, size_t n, const struct plugin_row *r)
{
	char buf[NAME_MAX_LEN + 3];

	if (n >= 3 && w[0] == '{' && w[n - 1] == '}' && n - 2 <= NAME_MAX_LEN) {
		memcpy(buf, w + 1, n - 2);
		buf[n - 2] = '\0';
		return !strcmp(buf, "device") || strv_contains(&r->options, buf);
	}
	for (size_t i = 0; i < n; i++)
		if (!name_char(w[i], "._-+:=@/,"))
			return false;
	return n > 0;
}

/* A run: words of run_word, one blank between them. */
static bool run_ok(const char *v, const struct plugin_row *r)
{
	size_t words = 0;

	if (!*v || v[0] == ' ' || str_has_suffix(v, " ") || strstr(v, "  "))
		return false;
	for (const char *w = v; *w;) {
		size_t n = strcspn(w, " ");
		if (!run_word(w, n, r) || ++words > RUN_WORDS_MAX)
			return false;
		w += n + (w[n] == ' ');
	}
	return true;
}

/* The fields past the six, NAME=VALUE each: why one is refused, or NULL. */
static const char *check_extra(char **x, size_t n, bool layer, struct plugin_row *r)
{
	if (n > EXTRA_MAX)
		return "more than 16 fields past the six";
	for (size_t i = 0; i < n; i++) {
		const char *v = strchr(x[i], '=');
		size_t k = v ? (size_t)(v - x[i]) : 0;
		if (!v)
			return "a field past the six is not NAME=VALUE";
		v++;
		if (k == 5 && !strncmp(x[i], "limit", 5)) {
			char *end;
			long s = strtol(v, &end, 10);
			if (*v < '0' || *v > '9' || *end || s < 1 || s > PLUGIN_LIMIT_MAX_S || r->limit_ms)
				return "bad limit (seconds, 1 to 3600, once)";
			r->limit_ms = s * 1000;
		} else if (!layer) {
			return "a root or claim row takes only limit= past the six";
		} else if (k == 3 && !strncmp(x[i], "run", 3)) {
			if (!run_ok(v, r))
				return "bad run (words of letters, digits, ._-+:=@/, or {device} or {OPTION} of its "
				       "options)";
			strv_push(&r->runs, v);
		} else if (k == 6 && !strncmp(x[i], "switch", 6)) {
			if (r->switch_opt || !is_name(v, "._-", NAME_MAX_LEN))
				return "bad switch (one command-line key such as rd.foo)";
			r->switch_opt = xstrdup(v);
		} else if (k == 13 && !strncmp(x[i], "retry-modules", 13)) {
			if (r->retry_modules.n || parse_list(v, "_-", &r->retry_modules) < 0)
				return "bad retry-modules (a comma list of module names, once)";
		} else {
			return "unknown field past the six (run=, switch=, retry-modules=, limit=)";
		}
	}
	if (!r->limit_ms)
		r->limit_ms = PLUGIN_LIMIT_MS;
	return NULL;
}

static void row_free(struct plugin_row *r)
{
	free(r->plugin);
	free(r->key);
	free(r->program);
	free(r->switch_opt);
	strv_free(&r->modules);
	strv_free(&r->options);
	strv_free(&r->runs);
	strv_free(&r->retry_modules);
}

/* One line, NUL-free and without its newline. True when kept. */
static bool parse_line(char *line, unsigned no, const struct sysops *ops,
		       bool (*is_builtin)(const char *), struct plugin_rows *out)
{
	char *f[F_N + EXTRA_MAX + 1] = { 0 }, why[160];
	struct plugin_row r = { .line = no };
	const char *bad = NULL;
	size_t n = 0;

	for (const char *c = line; (c = strchr(c, '\t')); c++)
		n++;
	if (n < F_N - 1) {
		bad = "fewer than 6 tab-separated fields";
	} else if (n > F_N - 1 + EXTRA_MAX) {
		bad = "more than 16 fields past the six";
	} else {
		f[0] = line;
		for (size_t i = 1; i <= n; i++) {
			f[i] = strchr(f[i - 1], '\t');
			*f[i]++ = '\0';
		}
		bad = check_row(f, ops, is_builtin, out, &r, why, sizeof(why));
		if (!bad)
			bad = check_extra(f + F_N, n + 1 - F_N, !strcmp(f[F_KIND], "layer"), &r);
	}
	if (bad) {
		log_warn(LAYOUT_PLUGIN_ROWS_FILE ":%u: %s; row skipped", no, bad);
		row_free(&r);
		return false;
	}
	r.root = !strcmp(f[F_KIND], "root");
	r.claim = !strcmp(f[F_KIND], "claim");
	r.plugin = xstrdup(f[F_PLUGIN]);
	r.key = xstrdup(f[F_KEY]);
	r.program = xstrdup(f[F_PROGRAM]);
	ARRAY_GROW(out->v, out->cap, out->n + 1);
	out->v[out->n++] = r;
	return true;
}

size_t plugin_rows_parse(const char *text, size_t len, const struct sysops *ops,
			 bool (*is_builtin)(const char *type), struct plugin_rows *out)
{
	size_t kept = 0;
	unsigned no = 0;

	if (len > ROWS_MAX_BYTES) {
		log_warn(LAYOUT_PLUGIN_ROWS_FILE ": %zu bytes, more than %d: no plugin row read",
			 len, ROWS_MAX_BYTES);
		return 0;
	}
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = (nl ? (size_t)(nl - text) : len) - at;
		char *line;
		no++;
		if (!n) {
			at++;
			continue;
		}
		if (kept >= ROWS_MAX) {
			log_warn(LAYOUT_PLUGIN_ROWS_FILE ":%u: more than %d rows; the rest skipped", no,
				 ROWS_MAX);
			break;
		}
		if (n > ROW_MAX_LINE || memchr(text + at, '\0', n)) {
			log_warn(LAYOUT_PLUGIN_ROWS_FILE ":%u: %s; row skipped", no,
				 n > ROW_MAX_LINE ? "longer than 4096 bytes" : "a NUL byte");
		} else {
			line = xstrndup(text + at, n);
			kept += parse_line(line, no, ops, is_builtin, out);
			free(line);
		}
		at += n + 1;
	}
	return kept;
}

void plugin_rows_read(const struct sysops *ops, bool (*is_builtin)(const char *type),
		      struct plugin_rows *out)
{
	char *p = ops->path(LAYOUT_PLUGIN_ROWS_FILE), *data = NULL;
	size_t len = 0;
	int r = read_file(p, &data, &len);

	free(p);
	if (r < 0) {
		if (r != -ENOENT)
			log_warn("cannot read " LAYOUT_PLUGIN_ROWS_FILE ": %s; no plugin row read",
				 strerror(-r));
		return;
	}
	plugin_rows_parse(data, len, ops, is_builtin, out);
	free(data);
}

const struct plugin_row *plugin_rows_layer(const struct plugin_rows *rows, const char *type)
{
	for (size_t i = 0; type && i < rows->n; i++)
		if (!rows->v[i].root && !rows->v[i].claim && !strcmp(rows->v[i].key, type))
			return &rows->v[i];
	return NULL;
}

const struct plugin_row *plugin_rows_root(const struct plugin_rows *rows, const char *root)
{
	for (size_t i = 0; root && i < rows->n; i++)
		if (rows->v[i].root && str_has_prefix(root, rows->v[i].key))
			return &rows->v[i];
	return NULL;
}

bool plugin_row_reads(const struct plugin_row *r, const char *kv)
{
	size_t k = strcspn(kv, "=");

	for (size_t i = 0; i < r->options.n; i++) {
		size_t n = strlen(r->options.v[i]);
		if (k >= n && !strncmp(kv, r->options.v[i], n) && (k == n || kv[n] == '.'))
			return true;
	}
	return false;
}

void plugin_rows_free(struct plugin_rows *rows)
{
	for (size_t i = 0; i < rows->n; i++)
		row_free(&rows->v[i]);
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}
