// SPDX-License-Identifier: GPL-2.0-or-later
/* Module loading the way modprobe does it, from depmod's text files.
 *
 * Order, checked against libkmod's dry run (kmod 30) in the tests: a
 * line of modules.dep lists every transitive dependency with the deepest
 * one last, and kmod loads the list from its end. For each dependency
 * its softdeps "pre:" come first and "post:" after; then the module's
 * own pre softdeps, the module, its post softdeps. Softdep names go
 * through the normal lookup, so "pre: crypto-crc32c" loads every module
 * whose alias matches.
 *
 * Lookup of a name or modalias (kmod_module_new_from_lookup's order):
 * modprobe.d "alias" lines, then a module of that name, then
 * modules.alias (every match, fnmatch globs), then builtin aliases from
 * modules.builtin.modinfo (nothing to load, but the alias is handled).
 * '-' and '_' are the same in names and, outside [...], in aliases.
 *
 * Blacklists: modprobe.d "blacklist" only stops loads that come from an
 * alias, as in modprobe. The command line's (modload_blacklist) also
 * stops an explicit modload_name: the user said not to load it. A
 * blacklisted module may still load as another module's dependency.
 *
 * One deliberate difference from kmod 30: it takes only the first
 * "softdep M" line of modules.softdep, we merge them all (depmod writes
 * btrfs's four pre: softdeps as four lines). The image has no modprobe
 * for the kernel's request_module, so a crypto module not loaded now
 * (xxhash64 for a btrfs root) cannot be loaded later. A modprobe.d
 * softdep still replaces modules.softdep's, as in kmod.
 *
 * Loading is sequential for now: simple and deterministic, and the few
 * modules a root needs spend little time in finit_module (each load's
 * time is logged under rd.debug, to measure exactly that). The kernel
 * does run module inits concurrently, so a dependency-ordered pool could
 * overlap slow probes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "layout.h"
#include "log.h"
#include "init/dev/modload.h"
#include "util.h"

enum mod_state { M_NEW, M_BUSY, M_LOADED, M_FAILED };

struct mod {
	char *name;         /* normalised */
	const char *path;   /* relative to moddir, NULL if not in modules.dep */
	int *deps;          /* modules.dep order */
	size_t ndeps;
	struct strv pre, post;
	bool softdep_conf;  /* softdeps set by modprobe.d: modules.softdep is ignored */
	struct buf opts;    /* modprobe.d options, then the command line's */
	bool builtin, bl_conf, bl_cmd;
	enum mod_state state;
};

struct alias {
	const char *pat;
	size_t lit;         /* length of the literal prefix before any glob */
	int mod;
	unsigned order;     /* position in the files, to keep modprobe's order */
};

struct modload {
	const struct sysops *ops;
	char *moddir;
	struct mod *mods;
	size_t nmods, capmods;
	int *hash;          /* open addressing, index+1, 0 = empty */
	size_t hsize;
	struct alias *aliases; /* sorted by literal prefix, then order */
	size_t naliases, capaliases;
	struct alias *cfg_aliases; /* modprobe.d, in file order */
	size_t ncfg, capcfg;
	struct strv bufs;   /* file contents the strings above point into */
};

static void normalize_name(char *s)
{
	for (; *s; s++)
		if (*s == '-')
			*s = '_';
}

/* kmod's alias_normalize: '-' is '_' except inside a [...] class. */
static void normalize_alias(char *s)
{
	bool in_class = false;
	for (; *s; s++) {
		if (*s == '[')
			in_class = true;
		else if (*s == ']')
			in_class = false;
		else if (*s == '-' && !in_class)
			*s = '_';
	}
}

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void hash_insert(struct modload *m, int idx)
{
	size_t mask = m->hsize - 1;
	for (size_t i = hash_str(m->mods[idx].name) & mask;; i = (i + 1) & mask) {
		if (!m->hash[i]) {
			m->hash[i] = idx + 1;
			return;
		}
	}
}

static int mod_find(const struct modload *m, const char *name)
{
	size_t mask = m->hsize - 1;
	for (size_t i = hash_str(name) & mask; m->hash[i]; i = (i + 1) & mask)
		if (strcmp(m->mods[m->hash[i] - 1].name, name) == 0)
			return m->hash[i] - 1;
	return -1;
}

/* name must be normalised. */
static int mod_get(struct modload *m, const char *name)
{
	int idx = mod_find(m, name);
	if (idx >= 0)
		return idx;
	if (m->nmods == m->capmods) {
		m->capmods = m->capmods ? m->capmods * 2 : 256;
		m->mods = xrealloc(m->mods, m->capmods * sizeof(*m->mods));
	}
	idx = (int)m->nmods++;
	m->mods[idx] = (struct mod){ .name = xstrdup(name) };
	if (m->nmods * 2 > m->hsize) {
		free(m->hash);
		m->hsize *= 2;
		m->hash = xcalloc(m->hsize, sizeof(*m->hash));
		for (size_t i = 0; i < m->nmods; i++)
			hash_insert(m, (int)i);
	} else {
		hash_insert(m, idx);
	}
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

static void push_alias(struct alias **v, size_t *n, size_t *cap, char *pat, int mod)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	normalize_alias(pat);
	(*v)[*n] = (struct alias){ pat, strcspn(pat, "*?[\\"), mod, (unsigned)*n };
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

static char *next_tok(char **p)
{
	char *s = *p + strspn(*p, " \t\r");
	if (!*s)
		return NULL;
	size_t n = strcspn(s, " \t\r");
	*p = s[n] ? s + n + 1 : s + n;
	s[n] = '\0';
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
			if (mod->ndeps == cap) {
				cap = cap ? cap * 2 : 4;
				mod->deps = xrealloc(mod->deps, cap * sizeof(*mod->deps));
			}
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

static int lit_cmp(const char *a, size_t la, const char *b, size_t lb)
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
	m->hsize = 1024;
	m->hash = xcalloc(m->hsize, sizeof(*m->hash));

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
	free(m->hash);
	free(m->aliases);
	free(m->cfg_aliases);
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

struct match {
	int mod;
	unsigned order;
};

static int match_cmp(const void *x, const void *y)
{
	const struct match *a = x, *b = y;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Every module whose modules.alias pattern matches q, in file order,
 * each once. A matching pattern's literal prefix is a prefix of q, so
 * for each length of q's prefix a binary search finds the patterns with
 * exactly that literal prefix; only those are fnmatch'ed. */
static size_t alias_lookup(const struct modload *m, const char *q, int **out)
{
	struct match *hits = NULL;
	size_t n = 0, cap = 0, qlen = strlen(q);

	for (size_t l = 0; l <= qlen; l++) {
		size_t lo = 0, hi = m->naliases;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct alias *a = &m->aliases[mid];
			if (lit_cmp(a->pat, a->lit, q, l) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t i = lo; i < m->naliases; i++) {
			const struct alias *a = &m->aliases[i];
			if (a->lit != l || memcmp(a->pat, q, l) != 0)
				break;
			if (fnmatch(a->pat, q, 0) != 0)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 8;
				hits = xrealloc(hits, cap * sizeof(*hits));
			}
			hits[n++] = (struct match){ a->mod, a->order };
		}
	}
	if (n > 1)
		qsort(hits, n, sizeof(*hits), match_cmp);
	*out = xmalloc((n ? n : 1) * sizeof(**out));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool dup = false;
		for (size_t j = 0; j < k && !dup; j++)
			dup = (*out)[j] == hits[i].mod;
		if (!dup)
			(*out)[k++] = hits[i].mod;
	}
	free(hits);
	return k;
}

/* Resolve a name or alias as modprobe does; *by_alias tells whether the
 * blacklist applies. */
static size_t resolve(const struct modload *m, const char *spec, int **out, bool *by_alias)
{
	char *q = xstrdup(spec);
	size_t n = 0;

	normalize_alias(q);
	*by_alias = true;
	*out = xmalloc((m->ncfg ? m->ncfg : 1) * sizeof(**out));
	for (size_t i = 0; i < m->ncfg; i++)
		if (fnmatch(m->cfg_aliases[i].pat, q, 0) == 0)
			(*out)[n++] = m->cfg_aliases[i].mod;
	if (!n) {
		free(*out);
		char *name = xstrdup(q);
		normalize_name(name);
		int idx = mod_find(m, name);
		free(name);
		if (idx >= 0 && (m->mods[idx].path || m->mods[idx].builtin)) {
			*by_alias = false;
			*out = xmalloc(sizeof(**out));
			(*out)[0] = idx;
			n = 1;
		} else {
			n = alias_lookup(m, q, out);
		}
	}
	free(q);
	return n;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int insmod(struct modload *m, struct mod *mod)
{
	char *p = mod->path[0] == '/' ? xstrdup(mod->path) : path_join(m->moddir, mod->path);
	int fd = m->ops->open(p, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0) {
		int e = errno;
		log_warn("failed to load %s: %s: %s", mod->name, p, strerror(e));
		err_errno(e, "failed to load %s: %s", mod->name, p);
		free(p);
		return -1;
	}
	free(p);
	double t0 = now_ms();
	int r = m->ops->finit_module(fd, mod->opts.len ? mod->opts.p : "", 0);
	int e = errno;
	double dt = now_ms() - t0;
	close(fd);
	if (r < 0 && e != EEXIST) {
		/* ENODEV is a driver declining hardware it matched by alias
		 * but cannot drive (crc32c_intel on a CPU without SSE4.2): no
		 * fault of the boot, so it only shows with rd.debug. */
		log_msg(e == ENODEV ? LOG_DEBUG : LOG_WARNING, "failed to load %s: %s", mod->name, strerror(e));
		return err_errno(e, "failed to load %s", mod->name);
	}
	if (r < 0)
		log_debug("%s was already loaded", mod->name);
	else
		log_debug("loaded %s%s%s in %.1f ms", mod->name, mod->opts.len ? " " : "",
			  mod->opts.len ? mod->opts.p : "", dt);
	return 0;
}

static int load_mod(struct modload *m, int idx);

/* Load what a lookup of spec found; the blacklist applies to alias hits. */
static void load_found(struct modload *m, const char *spec, const int *v, size_t n,
		       bool by_alias)
{
	for (size_t i = 0; i < n; i++) {
		struct mod *mod = &m->mods[v[i]];
		if (by_alias && (mod->bl_conf || mod->bl_cmd) && mod->state == M_NEW) {
			log_info("not loading %s for %s: blacklisted", mod->name, spec);
			continue;
		}
		load_mod(m, v[i]);
	}
}

static void load_spec(struct modload *m, const char *spec, const char *why)
{
	int *v;
	bool by_alias;
	size_t n = resolve(m, spec, &v, &by_alias);

	if (!n)
		log_debug("%s: no module for %s", why, spec);
	load_found(m, spec, v, n, by_alias);
	free(v);
}

static void load_softdeps(struct modload *m, int idx, bool pre)
{
	struct strv *s = pre ? &m->mods[idx].pre : &m->mods[idx].post;
	/* s may move if a lookup adds modules: index by position */
	for (size_t i = 0; i < s->n; i++) {
		char *spec = xstrdup(s->v[i]);
		load_spec(m, spec, m->mods[idx].name);
		free(spec);
		s = pre ? &m->mods[idx].pre : &m->mods[idx].post;
	}
}

static int load_mod(struct modload *m, int idx)
{
	struct mod *mod = &m->mods[idx];
	switch (mod->state) {
	case M_BUSY:   /* a softdep cycle: the outer call loads it */
	case M_LOADED:
		return 0;
	case M_FAILED:
		return err_set("failed to load %s", mod->name);
	case M_NEW:
		break;
	}
	if (mod->builtin && !mod->path) {
		mod->state = M_LOADED;
		return 0;
	}
	if (!mod->path) {
		mod->state = M_FAILED;
		log_warn("module %s is not in %s", mod->name, m->moddir);
		return err_set("module %s is not in %s", mod->name, m->moddir);
	}
	mod->state = M_BUSY;
	for (size_t i = mod->ndeps; i-- > 0;)
		load_mod(m, m->mods[idx].deps[i]);
	load_softdeps(m, idx, true);
	int r = insmod(m, &m->mods[idx]);
	m->mods[idx].state = r < 0 ? M_FAILED : M_LOADED;
	load_softdeps(m, idx, false);
	return r;
}

int modload_alias(struct modload *m, const char *modalias)
{
	int *v;
	bool by_alias;
	size_t n = resolve(m, modalias, &v, &by_alias);
	load_found(m, modalias, v, n, by_alias);
	free(v);
	return (int)n;
}

int modload_name(struct modload *m, const char *name)
{
	int *v;
	bool by_alias;
	size_t n = resolve(m, name, &v, &by_alias);
	int r = 0;

	if (!n) {
		free(v);
		return err_set("module %s not found in %s", name, m->moddir);
	}
	if (!by_alias) {
		struct mod *mod = &m->mods[v[0]];
		if (mod->bl_cmd && mod->state == M_NEW)
			log_info("not loading %s: blacklisted on the command line", mod->name);
		else
			r = load_mod(m, v[0]);
	} else {
		load_found(m, name, v, n, true);
	}
	free(v);
	return r;
}
