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
 * A module for some CPUs only (a cpu: alias) is not loaded for a
 * softdep's or the crypto API's name on a CPU none of those aliases
 * matches (cpu_refuses): its init would only say ENODEV.
 *
 * One deliberate difference from kmod 30: it takes only the first
 * "softdep M" line of modules.softdep, we merge them all (depmod writes
 * btrfs's four pre: softdeps as four lines), so a crypto module a
 * filesystem needs is in before its mount, not asked for by the kernel
 * in the middle of it (init/modprobe.c answers those requests too). A
 * modprobe.d softdep still replaces modules.softdep's, as in kmod.
 *
 * Loading is sequential for now: simple and deterministic, and the few
 * modules a root needs spend little time in finit_module (each load's
 * time is logged under rd.debug, to measure exactly that). The kernel
 * does run module inits concurrently, so a dependency-ordered pool could
 * overlap slow probes. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "init/dev/modload.h"
#include "init/dev/modload_priv.h"
#include "log.h"

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
			ARRAY_GROW(hits, cap, n + 1);
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

/* Is the module in the kernel already, loaded by a child (the root's
 * filesystem, while fsck ran) or before us? As modprobe, ask sysfs
 * before finit_module: that would read and verify the whole file again
 * only to say EEXIST. */
static bool is_live(struct modload *m, const struct mod *mod)
{
	char *rel = xasprintf("/sys/module/%s/initstate", mod->name);
	char *p = m->ops->path(rel), *state = NULL;
	bool live = read_line(p, &state) == 0 && !strcmp(str_trim(state), "live");

	free(state);
	free(p);
	free(rel);
	return live;
}

static int insmod(struct modload *m, int idx)
{
	struct mod *mod = &m->mods[idx];

	if (is_live(m, mod)) {
		log_debug("%s was already loaded", mod->name);
		return 0;
	}
	char *p = mod->path[0] == '/' ? xstrdup(mod->path) : path_join(m->moddir, mod->path);
	/* the open may load modules itself (the squashfs segment's, to
	 * mount it: stages/squashlazy.c), and the table may move */
	int fd = m->ops->open(p, O_RDONLY | O_CLOEXEC, 0);
	mod = &m->mods[idx];
	if (fd < 0) {
		log_warn("failed to load %s: %s: %s", mod->name, p, strerror(-fd));
		err_errno(fd, "failed to load %s: %s", mod->name, p);
		free(p);
		return fd;
	}
	free(p);
	double t0 = now_ms();
	int r = m->ops->finit_module(fd, mod->opts.len ? mod->opts.p : "", 0);
	double dt = now_ms() - t0;
	close(fd);
	if (r < 0 && r != -EEXIST) {
		/* ENODEV is a driver declining hardware it matched by alias
		 * but cannot drive (crc32c_intel on a CPU without SSE4.2): no
		 * fault of the boot, so it only shows with rd.debug. */
		log_msg(r == -ENODEV ? LOG_DEBUG : LOG_WARNING, "failed to load %s: %s", mod->name, strerror(-r));
		return err_errno(r, "failed to load %s", mod->name);
	}
	if (r < 0)
		log_debug("%s was already loaded", mod->name);
	else if (m->announce)
		log_info("%s: loaded %s%s%s", m->announce, mod->name, mod->opts.len ? " " : "",
			 mod->opts.len ? mod->opts.p : "");
	else
		log_debug("loaded %s%s%s in %.1f ms", mod->name, mod->opts.len ? " " : "",
			  mod->opts.len ? mod->opts.p : "", dt);
	return 0;
}

static int load_mod(struct modload *m, int idx);

/* A module with a cpu: alias (an x86cpu device table: crc32c_intel,
 * aesni_intel, ghash_clmulni_intel) refuses any CPU without its feature
 * in its init, with ENODEV, but only after the kernel read, verified and
 * linked all of it: crc32c_intel, which ext4's softdep on crc32c reaches
 * on every CPU without SSE4.2 (QEMU's default one), was 45 ms of each
 * boot (bench/results/floor.md). So for a name a softdep or the crypto
 * API asks for (no ':' in it: "crc32c", "crypto-aes"), where a generic
 * implementation answers beside the fast ones, such a module is loaded
 * only if one of its cpu: aliases matches this CPU's modalias. A
 * device's modalias (with a ':') loads as before, and so does every name
 * when sysfs has no CPU modalias to match. */
static bool cpu_refuses(struct modload *m, int idx, const char *spec)
{
	if (!m->mods[idx].cpu_alias || strchr(spec, ':'))
		return false;
	if (!m->cpu_read) {
		char *p = m->ops->path("/sys/devices/system/cpu/modalias"), *alias = NULL;

		m->cpu_read = true;
		if (read_line(p, &alias) == 0 && *alias) {
			normalize_alias(alias);
			m->ncpu_mods = alias_lookup(m, alias, &m->cpu_mods);
			m->cpu_known = true;
		}
		free(alias);
		free(p);
	}
	if (!m->cpu_known)
		return false;
	for (size_t i = 0; i < m->ncpu_mods; i++)
		if (m->cpu_mods[i] == idx)
			return false;
	return true;
}

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
		if (by_alias && mod->state == M_NEW && cpu_refuses(m, v[i], spec)) {
			log_debug("not loading %s for %s: none of its cpu: aliases matches this CPU",
				  mod->name, spec);
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
		return err_set_code(-ENOENT, "module %s is not in %s", mod->name, m->moddir);
	}
	mod->state = M_BUSY;
	for (size_t i = mod->ndeps; i-- > 0;)
		load_mod(m, m->mods[idx].deps[i]);
	load_softdeps(m, idx, true);
	int r = insmod(m, idx);
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
		return err_set_code(-ENOENT, "module %s not found in %s", name, m->moddir);
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

void modload_announce(struct modload *m, const char *why)
{
	m->announce = why;
}

void modload_fs(struct modload *m, const char *type)
{
	char *alias;

	if (!m || modload_name(m, type) == 0)
		return;
	alias = xasprintf("fs-%s", type);
	if (modload_alias(m, alias) <= 0)
		log_debug("no module for filesystem %s in the image (built in?)", type);
	free(alias);
}
