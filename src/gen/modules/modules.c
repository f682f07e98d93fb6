// SPDX-License-Identifier: GPL-2.0-or-later
/* Choosing kernel modules: names and aliases are resolved through libkmod
 * (modules.dep, modules.alias, modules.softdep, modules.builtin and the
 * modprobe.d softdeps), in this process; modprobe is never run. */
#include "gen/modules/modules.h"

#include <errno.h>
#include <libkmod.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "gen/host/sysroot.h"
#include "gen/modules/modules_priv.h"
#include "layout.h"
#include "log.h"
#include "util.h"

char *modname_normalize(const char *name)
{
	char *r = xstrdup(name);
	for (char *p = r; *p; p++)
		if (*p == '-')
			*p = '_';
	return r;
}

size_t ko_strip_len(const char *path)
{
	static const char *const sfx[] = { ".ko.xz", ".ko.zst", ".ko.gz" };
	size_t len = strlen(path);

	for (size_t i = 0; i < ARRAY_SIZE(sfx); i++)
		if (str_has_suffix(path, sfx[i]))
			return len - strlen(sfx[i]) + 3;
	return len;
}

char *modname_from_path(const char *path)
{
	const char *base = strrchr(path, '/');
	char *name, *dot;

	base = base ? base + 1 : path;
	name = modname_normalize(base);
	dot = strstr(name, ".ko");
	if (dot)
		*dot = '\0';
	return name;
}

struct mod *modules_find(const struct modules *m, const char *name)
{
	char *n = modname_normalize(name);
	struct mod *r = nameset_get(&m->byname, n);
	free(n);
	return r;
}

bool modules_available(const struct modules *m, const char *name)
{
	char *n = modname_normalize(name);
	bool r = nameset_get(&m->byname, n) || nameset_has(&m->builtin, n);

	free(n);
	return r;
}

static void kmod_log(void *data, int prio, const char *file, int line, const char *fn,
		     const char *fmt, va_list args)
{
	(void)data, (void)prio, (void)file, (void)line, (void)fn;
	/* libkmod's own complaints (a bad modprobe.d line, a missing
	 * index) are worth seeing only when debugging. */
	log_vmsg(LOG_DEBUG, fmt, args);
}

static void load_builtin(struct modules *m)
{
	char *path = NULL, *data, *line, *save;
	struct stat st;
	size_t len;

	/* Without it (very old kernels) builtins look like missing modules:
	 * a required one is then an error, which is the safe side. */
	if (modules_file(m, "modules.builtin", &path, &st) == 0 && read_file(path, &data, &len) == 0) {
		for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *name = modname_from_path(line);
			nameset_put(&m->builtin, name, NULL);
			free(name);
		}
		free(data);
	}
	free(path);
}

/* The modprobe.d directories under the same root as kmoddir, so a build
 * for --sysroot follows that system's softdeps, not the host's. When
 * kmoddir is not ROOT/lib/modules/KVER (a test fixture), no modprobe.d
 * is read at all: only the kernel's own modules.softdep counts. */
static char **config_paths(const char *kmoddir, const char *kver)
{
	static const char *const dirs[] = { LAYOUT_MODPROBE_DIRS };
	char **v = xcalloc(ARRAY_SIZE(dirs) + 1, sizeof(*v));
	char *tail = xasprintf("/lib/modules/%s", kver);
	size_t n = 0;

	if (str_has_suffix(kmoddir, tail)) {
		size_t rootlen = strlen(kmoddir) - strlen(tail);
		if (rootlen >= 4 && strncmp(kmoddir + rootlen - 4, "/usr", 4) == 0)
			rootlen -= 4;
		for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
			v[n++] = xasprintf("%.*s%s", (int)rootlen, kmoddir, dirs[i]);
	}
	free(tail);
	return v;
}

int modules_file(const struct modules *m, const char *rel, char **host, struct stat *st)
{
	char *p = xasprintf("%s/%s", m->modrel, rel);
	int r = sysroot_path(m->modroot, p, host, st);
	free(p);
	return r;
}

int modules_open(struct modules **out, const char *sysroot, const char *kmoddir, const char *kver,
		 const char *firmware_dirs)
{
	struct modules *m = xcalloc(1, sizeof(*m));
	size_t sl = strlen(sysroot);
	char **conf;
	int r;

	m->kmoddir = xstrdup(kmoddir);
	for (size_t l = strlen(m->kmoddir); l > 1 && m->kmoddir[l - 1] == '/'; l--)
		m->kmoddir[l - 1] = '\0';
	while (sl && sysroot[sl - 1] == '/')
		sl--;
	m->root = xstrdup(sysroot);
	if (sl == 0 || (strncmp(m->kmoddir, sysroot, sl) == 0 && m->kmoddir[sl] == '/')) {
		m->modroot = xstrndup(sysroot, sl ? sl : 1);
		m->modrel = xstrdup(m->kmoddir + sl);
	} else {
		m->modroot = xstrdup(m->kmoddir);
		m->modrel = xstrdup("/");
	}
	m->kver = xstrdup(kver);
	if (firmware_dirs)
		strv_split(&m->fwdirs, firmware_dirs, ":");

	conf = config_paths(m->kmoddir, kver);
	m->ctx = kmod_new(m->kmoddir, (const char *const *)conf);
	for (char **p = conf; *p; p++)
		free(*p);
	free(conf);
	if (!m->ctx) {
		modules_free(m);
		return err_set("%s: cannot open with libkmod", kmoddir);
	}
	kmod_set_log_fn(m->ctx, kmod_log, NULL);
	r = kmod_load_resources(m->ctx);
	if (r < 0) {
		err_errno(r, "%s: cannot load the module indexes (was depmod run?)", kmoddir);
		modules_free(m);
		return err_code();
	}
	load_builtin(m);
	*out = m;
	return 0;
}

void modules_free(struct modules *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		struct mod *d = m->mods[i];
		kmod_module_unref(d->km);
		strv_free(&d->imports);
		free(d->name);
		free(d->path);
		free(d->relpath);
		free(d);
	}
	free(m->mods);
	nameset_free(&m->omit);
	nameset_free(&m->seen);
	nameset_free(&m->builtin);
	nameset_free(&m->byname);
	nameset_free(&m->byrel);
	strv_free(&m->fwdirs);
	kmod_unref(m->ctx);
	free(m->kmoddir);
	free(m->root);
	free(m->modroot);
	free(m->modrel);
	free(m->kver);
	free(m);
}

void modules_summarize_missing_firmware(struct modules *m)
{
	m->fw_summary = true;
}

int modules_closure(const struct modules *m, const char *name, struct strv *relpaths)
{
	struct mod *top = modules_find(m, name);
	struct kmod_list *deps, *it;
	int r = 0;

	if (!top)
		return 0;
	/* modules.dep lists every module needed, nearest last */
	deps = kmod_module_get_dependencies(top->km);
	for (it = kmod_list_last(deps); it; it = kmod_list_prev(deps, it)) {
		struct kmod_module *km = kmod_module_get_module(it);
		struct mod *d = modules_find(m, kmod_module_get_name(km));
		if (!d)
			r = err_set("module %s needs %s, which is not in the image", top->name,
				    kmod_module_get_name(km));
		else if (!strv_contains(relpaths, d->relpath))
			strv_push(relpaths, d->relpath);
		kmod_module_unref(km);
		if (r < 0)
			break;
	}
	kmod_module_unref_list(deps);
	if (r < 0)
		return r;
	if (!strv_contains(relpaths, top->relpath))
		strv_push(relpaths, top->relpath);
	return 0;
}

size_t modules_count(const struct modules *m)
{
	return m->n;
}

void modules_omit(struct modules *m, const struct strv *names)
{
	for (size_t i = 0; i < names->n; i++) {
		struct kmod_list *l = NULL, *it;
		char *n = modname_normalize(names->v[i]);

		nameset_put(&m->omit, n, NULL);
		free(n);
		/* An alias ("fs-btrfs") omits what it stands for. */
		if (kmod_module_new_from_lookup(m->ctx, names->v[i], &l) < 0)
			continue;
		kmod_list_foreach(it, l) {
			struct kmod_module *km = kmod_module_get_module(it);
			nameset_put(&m->omit, kmod_module_get_name(km), NULL);
			kmod_module_unref(km);
		}
		kmod_module_unref_list(l);
	}
}

static int record(struct modules *m, struct kmod_module *km, const char *path)
{
	const char *dir = kmod_get_dirname(m->ctx);
	size_t dl = strlen(dir);
	struct mod *d;
	const char *rel = NULL;
	char *host;
	struct stat st;
	int r;

	if (strncmp(path, dir, dl) == 0 && path[dl] == '/')
		rel = path + dl + 1;
	else if (strncmp(path, m->kmoddir, strlen(m->kmoddir)) == 0 && path[strlen(m->kmoddir)] == '/')
		rel = path + strlen(m->kmoddir) + 1;
	if (!rel || !sysroot_name_plain(rel))
		return err_set("%s: module is outside %s", path, m->kmoddir);
	r = modules_file(m, rel, &host, &st);
	if (r < 0)
		return err_wrap("module %s", kmod_module_get_name(km));
	if (!S_ISREG(st.st_mode)) {
		free(host);
		return err_set("%s: module is not a regular file", path);
	}

	d = xcalloc(1, sizeof(*d));
	d->name = xstrdup(kmod_module_get_name(km));
	d->path = host;
	d->relpath = xstrndup(rel, ko_strip_len(rel));
	d->compressed = strlen(rel) != strlen(d->relpath);
	d->km = kmod_module_ref(km);
	ARRAY_GROW(m->mods, m->cap, m->n + 1);
	m->mods[m->n++] = d;
	nameset_put(&m->byname, d->name, d);
	nameset_put(&m->byrel, d->relpath, d);
	return 0;
}

enum via { VIA_USER, VIA_DEP, VIA_SOFTDEP };

static int add_kmod(struct modules *m, struct kmod_module *km, const char *parent, enum via via);

static int add_list(struct modules *m, struct kmod_list *l, const char *parent, enum via via)
{
	struct kmod_list *it;
	int r = 0;

	kmod_list_foreach(it, l) {
		struct kmod_module *km = kmod_module_get_module(it);
		if (r == 0)
			r = add_kmod(m, km, parent, via);
		kmod_module_unref(km);
	}
	return r;
}

static int add_kmod(struct modules *m, struct kmod_module *km, const char *parent, enum via via)
{
	const char *name = kmod_module_get_name(km);
	const char *path;
	struct kmod_list *deps, *pre = NULL, *post = NULL;
	int r;

	if (!nameset_put(&m->seen, name, NULL))
		return 0;
	if (nameset_has(&m->omit, name)) {
		if (via == VIA_DEP)
			log_warn("module %s needs %s, which is omitted", parent, name);
		else
			log_debug("module %s omitted", name);
		return 0;
	}
	path = kmod_module_get_path(km);
	if (!path) {
		/* A softdep or config alias naming nothing is not our
		 * problem; a builtin one is already in the kernel. */
		if (nameset_has(&m->builtin, name))
			log_debug("module %s is builtin", name);
		else
			log_debug("module %s not found (wanted by %s)", name, parent ? parent : "user");
		return 0;
	}

	deps = kmod_module_get_dependencies(km);
	r = add_list(m, deps, name, VIA_DEP);
	kmod_module_unref_list(deps);
	if (r < 0)
		return r;
	if (kmod_module_get_softdeps(km, &pre, &post) == 0) {
		r = add_list(m, pre, name, VIA_SOFTDEP);
		if (r == 0)
			r = add_list(m, post, name, VIA_SOFTDEP);
		kmod_module_unref_list(pre);
		kmod_module_unref_list(post);
		if (r < 0)
			return r;
	}
	return record(m, km, path);
}

int modules_add(struct modules *m, const char *name, bool required)
{
	struct kmod_list *l = NULL, *it;
	bool found = false;
	int r;

	r = kmod_module_new_from_lookup(m->ctx, name, &l);
	if (r < 0)
		return err_errno(r, "module '%s': lookup failed", name);
	kmod_list_foreach(it, l) {
		struct kmod_module *km = kmod_module_get_module(it);
		const char *n = kmod_module_get_name(km);
		/* A lookup may name a module that neither exists nor is
		 * builtin (a modprobe.d alias to nothing). */
		if (kmod_module_get_path(km) || nameset_has(&m->builtin, n) ||
		    nameset_has(&m->omit, n) || nameset_has(&m->byname, n))
			found = true;
		if (r == 0)
			r = add_kmod(m, km, NULL, VIA_USER);
		kmod_module_unref(km);
	}
	kmod_module_unref_list(l);
	if (r < 0)
		return r;
	if (!found) {
		if (required)
			return err_set("module '%s' not found for kernel %s", name, m->kver);
		log_debug("module '%s' not found for kernel %s, skipped", name, m->kver);
	}
	return 0;
}
