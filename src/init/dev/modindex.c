// SPDX-License-Identifier: GPL-2.0-or-later
/* The module index: modules.dep, modules.alias, modules.softdep,
 * modules.builtin(.modinfo), /proc/modules and modprobe.d, read into
 * struct modload (modload_priv.h) for modload.c to look up and load. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "init/dev/modload.h"
#include "init/dev/modload_priv.h"
#include "layout.h"
#include "log.h"

/* strchr first: most names and patterns have no '-', and a walk by
 * hand over the 3000 patterns of a generic image is boot time. */
void normalize_name(char *s)
{
	while ((s = strchr(s, '-')))
		*s++ = '_';
}

/* kmod's alias_normalize: '-' is '_' except inside a [...] class. */
void normalize_alias(char *s)
{
	bool in_class = false;

	if (!strchr(s, '-'))
		return;
	for (; *s; s++) {
		if (*s == '[')
			in_class = true;
		else if (*s == ']')
			in_class = false;
		else if (*s == '-' && !in_class)
			*s = '_';
	}
}

int mod_find(const struct modload *m, const char *name)
{
	return (int)(intptr_t)nameset_get(&m->names, name) - 1;
}

/* name must be normalised. */
int mod_get(struct modload *m, const char *name)
{
	int idx = mod_find(m, name);

	if (idx >= 0)
		return idx;
	ARRAY_GROW(m->mods, m->capmods, m->nmods + 1);
	idx = (int)m->nmods++;
	m->mods[idx] = (struct mod){ .name = xstrdup(name) };
	nameset_put(&m->names, name, (void *)(intptr_t)(idx + 1));
	return idx;
}

/* "kernel/fs/ext4/ext4.ko" -> "ext4" */
static int mod_from_path(struct modload *m, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	char *name = xstrndup(base, strcspn(base, "."));
	normalize_name(name);
	int idx = mod_get(m, name);
	free(name);
	return idx;
}

/* The scanning below is by hand, not strcspn/strspn: without SSE4.2
 * (QEMU's default CPU) glibc's generic ones fill a 256-byte table on
 * every call, a fifth of reading a generic image's index. */
static size_t literal_len(const char *pat)
{
	size_t n = 0;

	while (pat[n] && pat[n] != '*' && pat[n] != '?' && pat[n] != '[' && pat[n] != '\\')
		n++;
	return n;
}

static void push_alias(struct alias **v, size_t *n, size_t *cap, char *pat, int mod)
{
	ARRAY_GROW(*v, *cap, *n + 1);
	normalize_alias(pat);
	(*v)[*n] = (struct alias){ pat, literal_len(pat), mod, (unsigned)*n };
	(*n)++;
}

/* Read a file of the image into a buffer the parsed strings point into.
 * NULL when it is absent. */
static char *load_text(struct modload *m, const char *path)
{
	char *real = m->ops->path(path), *data;
	int r = read_file(real, &data, NULL);
	free(real);
	if (r < 0) {
		if (r != -ENOENT)
			log_warn("cannot read %s: %s", path, strerror(-r));
		return NULL;
	}
	strv_push_owned(&m->bufs, data);
	return data;
}

static char *next_line(char **p)
{
	char *line = *p, *nl;
	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = line + strlen(line);
	}
	return line;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static char *next_tok(char **p)
{
	char *s = *p, *e;

	while (is_blank(*s))
		s++;
	if (!*s)
		return NULL;
	for (e = s; *e && !is_blank(*e); e++)
		;
	*p = *e ? e + 1 : e;
	*e = '\0';
	return s;
}

static void parse_dep(struct modload *m, char *data)
{
	char *line;
	while ((line = next_line(&data))) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		int idx = mod_from_path(m, line);
		m->mods[idx].path = line;
		char *rest = colon + 1, *tok;
		size_t cap = 0;
		while ((tok = next_tok(&rest))) {
			int d = mod_from_path(m, tok);
			struct mod *mod = &m->mods[idx]; /* mod_from_path may move mods */
			if (!m->mods[d].path)
				m->mods[d].path = tok;
			ARRAY_GROW(mod->deps, cap, mod->ndeps + 1);
			mod->deps[mod->ndeps++] = d;
		}
	}
}

static void parse_alias_file(struct modload *m, char *data)
{
	char *line, *kw, *pat, *name;
	while ((line = next_line(&data))) {
		if (!(kw = next_tok(&line)) || strcmp(kw, "alias") != 0)
			continue;
		if (!(pat = next_tok(&line)) || !(name = next_tok(&line)))
			continue;
		normalize_name(name);
		int idx = mod_get(m, name);
		if (str_has_prefix(pat, "cpu:"))
			m->mods[idx].cpu_alias = true;
		push_alias(&m->aliases, &m->naliases, &m->capaliases, pat, idx);
	}
}

static void parse_builtin(struct modload *m, char *data)
{
	char *line;
	while ((line = next_line(&data))) {
		line = str_trim(line);
		if (*line) {
			int idx = mod_from_path(m, line);
			m->mods[idx].builtin = true;
		}
	}
}

/* NUL-separated "module.key=value" records; the alias= ones let a
 * builtin driver's devices count as handled. */
static void parse_builtin_modinfo(struct modload *m, char *data, size_t len)
{
	for (char *p = data; p < data + len; p += strlen(p) + 1) {
		char *dot = strchr(p, '.');
		if (!dot || !str_has_prefix(dot + 1, "alias="))
			continue;
		*dot = '\0';
		normalize_name(p);
		int idx = mod_get(m, p);
		m->mods[idx].builtin = true;
		push_alias(&m->aliases, &m->naliases, &m->capaliases, dot + 7, idx);
	}
}

/* "softdep M pre: a b post: c" after "softdep" was consumed. Tokens
 * before any "pre:"/"post:" are ignored, as kmod does. */
static void parse_softdep(struct modload *m, char *rest, bool conf)
{
	char *name = next_tok(&rest), *tok;
	struct strv *to = NULL;
	if (!name)
		return;
	normalize_name(name);
	int idx = mod_get(m, name);
	struct mod *mod = &m->mods[idx];
	if (mod->softdep_conf)
		return; /* the first modprobe.d softdep wins */
	if (conf) {
		strv_free(&mod->pre);
		strv_free(&mod->post);
		mod->softdep_conf = true;
	}
	while ((tok = next_tok(&rest))) {
		if (strcmp(tok, "pre:") == 0)
			to = &mod->pre;
		else if (strcmp(tok, "post:") == 0)
			to = &mod->post;
		else if (to)
			strv_push(to, tok);
	}
}

static void add_opts(struct buf *b, const char *opt)
{
	if (b->len)
		buf_append(b, " ", 1);
	buf_append(b, opt, strlen(opt));
}

static void parse_conf(struct modload *m, char *data, const char *file)
{
	char *line;
	/* join "\"-continued lines in place */
	for (char *c = data; (c = strstr(c, "\\\n"));)
		c[0] = c[1] = ' ';
	while ((line = next_line(&data))) {
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *kw = next_tok(&line), *a, *b;
		if (!kw)
			continue;
		if (strcmp(kw, "options") == 0 && (a = next_tok(&line))) {
			normalize_name(a);
			int idx = mod_get(m, a);
			while ((b = next_tok(&line)))
				add_opts(&m->mods[idx].opts, b);
		} else if (strcmp(kw, "blacklist") == 0 && (a = next_tok(&line))) {
			normalize_name(a);
			int idx = mod_get(m, a);
			m->mods[idx].bl_conf = true;
		} else if (strcmp(kw, "softdep") == 0) {
			parse_softdep(m, line, true);
		} else if (strcmp(kw, "alias") == 0 && (a = next_tok(&line)) &&
			   (b = next_tok(&line))) {
			normalize_name(b);
			int idx = mod_get(m, b);
			push_alias(&m->cfg_aliases, &m->ncfg, &m->capcfg, a, idx);
		} else {
			log_debug("%s: ignoring \"%s\"", file, kw);
		}
	}
}

static int cmp_cstr(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;
	const char *bx = strrchr(*x, '/') + 1, *by = strrchr(*y, '/') + 1;
	return strcmp(bx, by);
}

/* modprobe.d files in kmod's order: sorted by name, and a name in an
 * earlier directory hides the same name in a later one. */
static void read_confdirs(struct modload *m)
{
	static const char *const dirs[] = { LAYOUT_MODPROBE_DIRS };
	struct strv files = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *real = m->ops->path(dirs[i]);
		DIR *d = opendir(real);
		free(real);
		if (!d)
			continue;
		struct dirent *de;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.' || !str_has_suffix(de->d_name, ".conf"))
				continue;
			bool seen = false;
			for (size_t j = 0; j < files.n && !seen; j++)
				seen = strcmp(strrchr(files.v[j], '/') + 1, de->d_name) == 0;
			if (!seen)
				strv_push_owned(&files, path_join(dirs[i], de->d_name));
		}
		closedir(d);
	}
	if (files.n)
		qsort(files.v, files.n, sizeof(*files.v), cmp_cstr);
	for (size_t i = 0; i < files.n; i++) {
		char *data = load_text(m, files.v[i]);
		if (data)
			parse_conf(m, data, files.v[i]);
	}
	strv_free(&files);
}

int lit_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	int c = memcmp(a, b, la < lb ? la : lb);
	if (c)
		return c;
	return la < lb ? -1 : la > lb;
}

static int alias_cmp(const void *x, const void *y)
{
	const struct alias *a = x, *b = y;
	int c = lit_cmp(a->pat, a->lit, b->pat, b->lit);
	if (c)
		return c;
	return a->order < b->order ? -1 : a->order > b->order;
}

static void read_proc_modules(struct modload *m)
{
	char *real = m->ops->path("/proc/modules"), *data, *p, *line;
	int r = read_file(real, &data, NULL);
	free(real);
	if (r < 0)
		return;
	p = data;
	while ((line = next_line(&p))) {
		char *name = next_tok(&line);
		int idx = name ? mod_find(m, name) : -1;
		if (idx >= 0)
			m->mods[idx].state = M_LOADED;
	}
	free(data);
}

struct modload *modload_new(const struct sysops *ops, const char *moddir)
{
	struct modload *m = xcalloc(1, sizeof(*m));
	char *p, *data;
	size_t len;

	m->ops = ops;
	m->moddir = xstrdup(moddir);

	p = path_join(moddir, "modules.dep");
	data = load_text(m, p);
	if (!data)
		log_warn("%s is missing: no module can be loaded", p);
	else
		parse_dep(m, data);
	free(p);

	p = path_join(moddir, "modules.builtin");
	if ((data = load_text(m, p)))
		parse_builtin(m, data);
	free(p);

	/* Before modules.softdep, so modprobe.d softdeps win. */
	read_confdirs(m);

	p = path_join(moddir, "modules.softdep");
	if ((data = load_text(m, p))) {
		char *line;
		while ((line = next_line(&data))) {
			char *kw = next_tok(&line);
			if (kw && strcmp(kw, "softdep") == 0)
				parse_softdep(m, line, false);
		}
	}
	free(p);

	p = path_join(moddir, "modules.alias");
	if ((data = load_text(m, p)))
		parse_alias_file(m, data);
	free(p);

	p = path_join(moddir, "modules.builtin.modinfo");
	char *real = ops->path(p);
	if (read_file(real, &data, &len) == 0) {
		strv_push_owned(&m->bufs, data);
		parse_builtin_modinfo(m, data, len);
	}
	free(real);
	free(p);

	if (m->naliases)
		qsort(m->aliases, m->naliases, sizeof(*m->aliases), alias_cmp);
	read_proc_modules(m);
	log_debug("module index: %zu modules, %zu aliases", m->nmods, m->naliases);
	return m;
}

void modload_free(struct modload *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nmods; i++) {
		struct mod *mod = &m->mods[i];
		free(mod->name);
		free(mod->deps);
		strv_free(&mod->pre);
		strv_free(&mod->post);
		buf_free(&mod->opts);
	}
	free(m->mods);
	nameset_free(&m->names);
	free(m->aliases);
	free(m->cfg_aliases);
	free(m->cpu_mods);
	strv_free(&m->bufs);
	free(m->moddir);
	free(m);
}

void modload_blacklist(struct modload *m, const char *name)
{
	char *n = xstrdup(name);
	normalize_name(n);
	int idx = mod_get(m, n);
	m->mods[idx].bl_cmd = true;
	free(n);
}

void modload_add_param(struct modload *m, const char *module, const char *param)
{
	char *n = xstrdup(module);
	normalize_name(n);
	int idx = mod_get(m, n);
	add_opts(&m->mods[idx].opts, param);
	free(n);
}
