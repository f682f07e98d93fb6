// SPDX-License-Identifier: GPL-2.0-or-later
/* Putting the chosen modules into the image: the .ko files, the firmware
 * they name, depmod's text indexes for exactly that subset, and the
 * modprobe.d lines that concern them.
 *
 * Indexes: the host's text files are filtered to the chosen modules,
 * which is what depmod writes for the subset (same lines, same order,
 * as the order follows modules.order) with .ko.xz/.ko.zst/.ko.gz
 * spelled .ko, since the image holds them decompressed. The binary
 * indexes (*.bin) are not written: the image's /init reads the text
 * files, and a rescue shell with modprobe needs `depmod` run first.
 * modules.builtin and modules.builtin.modinfo are copied whole.
 *
 * Firmware: looked up in each firmware directory in turn, as name,
 * name.zst and name.xz; a compressed one is stored as it is (the kernel
 * decompresses it with CONFIG_FW_LOADER_COMPRESS_XZ/ZSTD, which kernels
 * shipping compressed firmware have). Names with wildcards (a driver's
 * MODULE_FIRMWARE with a "*" in it) are matched with fnmatch against the
 * files of that directory, and every match is taken. */
#include "gen/modules/modules.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <libkmod.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "gen/host/sysroot.h"
#include "gen/modules/modules_priv.h"
#include "log.h"
#include "util.h"

/* ---- firmware ---- */

static const char *const fw_suffixes[] = { "", ".zst", ".xz" };

/* DIR/NAME inside the sysroot, packed as /lib/firmware/NAME if it is a
 * readable regular file there: 1 packed or already in, 0 not there. */
static int fw_add(struct modules *m, struct image *img, const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name), *host = NULL, *dst;
	struct stat st;
	int r = 0;

	if (sysroot_path(m->root, p, &host, &st) < 0) {
		err_clear(); /* not in this directory: the next one may have it */
	} else if (S_ISREG(st.st_mode) && access(host, R_OK) == 0) {
		dst = xasprintf("/lib/firmware/%s", name);
		/* The first directory that has it wins, as in the kernel's loader. */
		r = image_has(img, dst) ? 1 : image_add_file(img, dst, host, 0644, 0);
		r = r < 0 ? r : 1;
		free(dst);
	}
	free(host);
	free(p);
	return r;
}

static int fw_glob(struct modules *m, struct image *img, const char *pattern, bool *found)
{
	const char *slash = strrchr(pattern, '/');
	char *sub = slash ? xstrndup(pattern, (size_t)(slash - pattern)) : xstrdup("");
	const char *base = slash ? slash + 1 : pattern;
	int r = 0;

	for (size_t i = 0; i < m->fwdirs.n && r >= 0; i++) {
		char *dir = xasprintf("%s/%s", m->fwdirs.v[i], sub), *host = NULL;
		struct stat st;
		DIR *dp = sysroot_path(m->root, dir, &host, &st) == 0 ? opendir(host) : (err_clear(), NULL);
		struct dirent *de;

		while (dp && r >= 0 && (de = readdir(dp))) {
			char *plain = xstrdup(de->d_name);
			for (size_t s = 1; s < ARRAY_SIZE(fw_suffixes); s++)
				if (str_has_suffix(plain, fw_suffixes[s]))
					plain[strlen(plain) - strlen(fw_suffixes[s])] = '\0';
			if (de->d_name[0] != '.' && fnmatch(base, plain, 0) == 0) {
				char *name = xasprintf("%s%s%s", sub, *sub ? "/" : "", de->d_name);
				r = fw_add(m, img, m->fwdirs.v[i], name);
				*found |= r > 0;
				free(name);
			}
			free(plain);
		}
		if (dp)
			closedir(dp);
		free(host);
		free(dir);
	}
	free(sub);
	return r < 0 ? r : 0;
}

static int fw_one(struct modules *m, struct image *img, const char *name, bool *found)
{
	if (strpbrk(name, "*?["))
		return fw_glob(m, img, name, found);
	for (size_t i = 0; i < m->fwdirs.n; i++)
		for (size_t s = 0; s < ARRAY_SIZE(fw_suffixes); s++) {
			char *n = xasprintf("%s%s", name, fw_suffixes[s]);
			int r = fw_add(m, img, m->fwdirs.v[i], n);
			free(n);
			if (r != 0) {
				*found = r > 0;
				return r < 0 ? r : 0;
			}
		}
	return 0;
}

struct fw_state {
	struct nameset done; /* firmware names met */
	bool each;	     /* a warning for each missing file */
	size_t missing;
};

/* The firmware d's modinfo names. */
static int add_firmware(struct modules *m, struct image *img, const struct mod *d, struct kmod_list *info,
			struct fw_state *fs)
{
	struct kmod_list *it;
	int r = 0;

	kmod_list_foreach(it, info) {
		const char *key = kmod_module_info_get_key(it);
		const char *fw = kmod_module_info_get_value(it);
		bool found = false;

		if (r < 0 || strcmp(key, "firmware") != 0 || !fw || !*fw)
			continue;
		if (!nameset_put(&fs->done, fw, NULL))
			continue;
		if (!sysroot_name_plain(fw)) {
			/* the kernel's loader refuses it too; packing it
			 * would copy a file from outside the firmware */
			log_warn("module %s: firmware name '%s' refused: absolute or with a '..' component, not "
				 "packed", d->name, fw);
			continue;
		}
		r = fw_one(m, img, fw, &found);
		if (r == 0 && !found) {
			fs->missing++;
			if (fs->each)
				log_warn("firmware %s for module %s not found", fw, d->name);
		}
	}
	return r;
}

/* One module and its firmware. A compressed one is decompressed once,
 * here (modules_read.c): its modinfo and imports are read from that
 * copy, and the image takes the copy, freeing it once written. */
static int add_module(struct modules *m, struct image *img, struct mod *d, struct fw_state *fs)
{
	struct buf plain = { 0 };
	struct kmod_list *info = NULL;
	char *dst;
	int r = mod_read(m, d, &plain, &info);

	if (r == 0)
		r = add_firmware(m, img, d, info, fs);
	kmod_module_info_free_list(info);
	dst = xasprintf("/lib/modules/%s/%s", m->kver, d->relpath);
	if (r == 0)
		r = d->compressed ? image_add_buf(img, dst, &plain, 0644) : image_add_file(img, dst, d->path, 0644, 0);
	free(dst);
	buf_free(&plain);
	return r;
}

static int add_modules(struct modules *m, struct image *img)
{
	struct fw_state fs = { .each = !m->fw_summary || log_get_level() >= LOG_INFO };
	int r = 0;

	for (size_t i = 0; i < m->n && r == 0; i++)
		r = add_module(m, img, m->mods[i], &fs);
	if (r == 0 && fs.missing && !fs.each)
		log_warn("%zu firmware file%s not found, -v lists %s", fs.missing, fs.missing == 1 ? "" : "s",
			 fs.missing == 1 ? "it" : "them");
	nameset_free(&fs.done);
	return r;
}

/* ---- depmod's text indexes ---- */

/* The chosen module a path in modules.dep or modules.order stands for. */
static struct mod *by_path(const struct modules *m, const char *path, size_t len)
{
	char *rel = xstrndup(path, len);
	char *plain = xstrndup(rel, ko_strip_len(rel));
	struct mod *d = nameset_get(&m->byrel, plain);

	free(plain);
	free(rel);
	return d;
}

static int cmp_order(const void *a, const void *b)
{
	const struct mod *x = *(struct mod *const *)a, *y = *(struct mod *const *)b;
	return x->order_idx < y->order_idx ? -1 : x->order_idx > y->order_idx;
}

static int cmp_dep_sort(const void *a, const void *b)
{
	const struct mod *x = *(struct mod *const *)a, *y = *(struct mod *const *)b;
	return x->dep_sort < y->dep_sort ? -1 : x->dep_sort > y->dep_sort;
}

struct modvec {
	struct mod **v;
	size_t n, cap;
};

static void modvec_push_unique(struct modvec *mv, struct mod *d)
{
	for (size_t i = 0; i < mv->n; i++)
		if (mv->v[i] == d)
			return;
	ARRAY_GROW(mv->v, mv->cap, mv->n + 1);
	mv->v[mv->n++] = d;
}

/* depmod lists a module's dependencies in a topological order of the
 * whole set it indexes, so the subset's order can differ from the
 * host's. Redo depmod's computation for the subset: modules in
 * modules.order order, each one's direct dependencies in the order of
 * the symbols it imports (their owners from modules.symbols), then
 * Kahn's algorithm with a stack, modules nobody uses first. */
static int compute_dep_sort(struct modules *m, const char *order, size_t order_len,
			    const char *symbols, size_t symbols_len)
{
	struct nameset owner = { 0 };
	struct modvec *direct;
	struct mod **byidx;
	size_t *users, *stack, nstack = 0, nsorted = 0;
	const char *line, *next;
	size_t pos = 0;
	int r = 0;

	for (size_t i = 0; i < m->n; i++)
		m->mods[i]->order_idx = SIZE_MAX / 2 + i; /* not listed: last */
	for (line = order; order && line < order + order_len; line = next, pos++) {
		const char *nl = memchr(line, '\n', (size_t)(order + order_len - line));
		next = nl ? nl + 1 : order + order_len;
		struct mod *d = by_path(m, line, (size_t)((nl ? nl : next) - line));
		if (d && d->order_idx >= SIZE_MAX / 2)
			d->order_idx = pos;
	}
	byidx = xmalloc((m->n ? m->n : 1) * sizeof(*byidx));
	memcpy(byidx, m->mods, m->n * sizeof(*byidx));
	qsort(byidx, m->n, sizeof(*byidx), cmp_order);
	for (size_t i = 0; i < m->n; i++)
		byidx[i]->order_idx = i;

	/* "alias symbol:NAME MODULE": only owners in the subset matter. */
	for (line = symbols; symbols && line < symbols + symbols_len; line = next) {
		const char *nl = memchr(line, '\n', (size_t)(symbols + symbols_len - line));
		next = nl ? nl + 1 : symbols + symbols_len;
		char *l = xstrndup(line, (size_t)((nl ? nl : next) - line));
		char *sym = strstr(l, " symbol:"), *mod = sym ? strchr(sym + 8, ' ') : NULL;
		if (mod) {
			*mod++ = '\0';
			struct mod *d = modules_find(m, mod);
			if (d)
				nameset_put(&owner, sym + 8, d);
		}
		free(l);
	}

	direct = xcalloc(m->n ? m->n : 1, sizeof(*direct));
	users = xcalloc(m->n ? m->n : 1, sizeof(*users));
	stack = xcalloc(m->n ? m->n : 1, sizeof(*stack));
	/* the imports were read with the module's file (add_modules) */
	for (size_t i = 0; i < m->n; i++) {
		const struct strv *imp = &byidx[i]->imports;
		for (size_t k = 0; k < imp->n; k++) {
			struct mod *d = nameset_get(&owner, imp->v[k]);
			if (d && d != byidx[i])
				modvec_push_unique(&direct[i], d);
		}
		for (size_t k = 0; k < direct[i].n; k++)
			users[direct[i].v[k]->order_idx]++;
	}
	for (size_t i = 0; i < m->n && r == 0; i++)
		if (users[i] == 0)
			stack[nstack++] = i;
	while (nstack > 0 && r == 0) {
		size_t i = stack[--nstack];
		byidx[i]->dep_sort = nsorted++;
		for (size_t k = 0; k < direct[i].n; k++) {
			size_t j = direct[i].v[k]->order_idx;
			if (--users[j] == 0)
				stack[nstack++] = j;
		}
	}
	if (r == 0 && nsorted < m->n)
		r = err_set("%s: the chosen modules depend on each other in a cycle", m->kmoddir);
	for (size_t i = 0; i < m->n; i++)
		free(direct[i].v);
	free(direct);
	free(users);
	free(stack);
	free(byidx);
	nameset_free(&owner);
	return r;
}

static void filter_dep(const struct modules *m, char *line, struct buf *out)
{
	char *colon = strchr(line, ':');
	char *save, *tok;
	struct modvec deps = { 0 };
	struct mod *d;

	if (!colon)
		return;
	d = by_path(m, line, (size_t)(colon - line));
	if (!d)
		return;
	for (tok = strtok_r(colon + 1, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		struct mod *dep = by_path(m, tok, strlen(tok));
		/* Only a dependency the user omitted can be missing. */
		if (dep)
			modvec_push_unique(&deps, dep);
	}
	if (deps.n > 1)
		qsort(deps.v, deps.n, sizeof(*deps.v), cmp_dep_sort);
	buf_printf(out, "%s:", d->relpath);
	for (size_t i = 0; i < deps.n; i++)
		buf_printf(out, " %s", deps.v[i]->relpath);
	buf_append(out, "\n", 1);
	free(deps.v);
}

static void filter_order(const struct modules *m, char *line, struct buf *out)
{
	struct mod *d = by_path(m, line, strlen(line));
	if (d)
		buf_printf(out, "%s\n", d->relpath);
}

/* Lines whose module name is word number `field` (from 0). */
static void filter_field(const struct modules *m, char *line, struct buf *out, int field)
{
	const char *p = line;
	size_t len;
	char *name;

	if (*p == '#' || *p == '\0') {
		buf_printf(out, "%s\n", line);
		return;
	}
	for (int i = 0; i < field && *p; i++) {
		p += strcspn(p, " \t");
		p += strspn(p, " \t");
	}
	len = strcspn(p, " \t");
	name = xstrndup(p, len);
	if (modules_find(m, name))
		buf_printf(out, "%s\n", line);
	free(name);
}

enum kind { F_DEP, F_ORDER, F_FIELD0, F_FIELD1, F_FIELD2, F_COPY };
enum { I_DEP, I_ORDER, I_SYMBOLS };

static const struct {
	const char *name;
	enum kind kind;
} indexes[] = {
	[I_DEP] = { "modules.dep", F_DEP },
	[I_ORDER] = { "modules.order", F_ORDER },
	[I_SYMBOLS] = { "modules.symbols", F_FIELD2 }, /* alias symbol:NAME MODULE */
	{ "modules.alias", F_FIELD2 },   /* alias PATTERN MODULE */
	{ "modules.softdep", F_FIELD1 }, /* softdep MODULE ... */
	{ "modules.devname", F_FIELD0 }, /* MODULE DEVNAME TYPEMAJ:MIN */
	{ "modules.builtin", F_COPY },
	{ "modules.builtin.modinfo", F_COPY },
};

static int add_indexes(struct modules *m, struct image *img)
{
	char *data[ARRAY_SIZE(indexes)] = { 0 };
	size_t len[ARRAY_SIZE(indexes)] = { 0 };
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(indexes) && r == 0; i++) {
		char *src = NULL;
		struct stat st;
		int e = modules_file(m, indexes[i].name, &src, &st);

		if (e == 0)
			e = read_file(src, &data[i], &len[i]);
		if (e == -ENOENT && indexes[i].kind != F_DEP) {
			/* An older depmod did not write it: nor do we. */
			log_debug("%s/%s: not found, not packed", m->kmoddir, indexes[i].name);
			data[i] = NULL;
		} else if (e < 0) {
			r = err_errno(e, "%s/%s", m->kmoddir, indexes[i].name);
		}
		free(src);
	}
	if (r == 0)
		r = compute_dep_sort(m, data[I_ORDER], len[I_ORDER], data[I_SYMBOLS], len[I_SYMBOLS]);

	for (size_t i = 0; i < ARRAY_SIZE(indexes) && r == 0; i++) {
		char *dst, *line, *next;
		struct buf out = { 0 };

		if (!data[i])
			continue;
		dst = xasprintf("/lib/modules/%s/%s", m->kver, indexes[i].name);
		if (indexes[i].kind == F_COPY) {
			r = image_add_data(img, dst, data[i], len[i], 0644);
			free(dst);
			continue;
		}
		for (line = data[i]; line < data[i] + len[i]; line = next) {
			char *nl = memchr(line, '\n', (size_t)(data[i] + len[i] - line));
			next = nl ? nl + 1 : data[i] + len[i];
			if (nl)
				*nl = '\0';
			switch (indexes[i].kind) {
			case F_DEP:
				filter_dep(m, line, &out);
				break;
			case F_ORDER:
				filter_order(m, line, &out);
				break;
			case F_FIELD0:
			case F_FIELD1:
			case F_FIELD2:
				filter_field(m, line, &out, (int)(indexes[i].kind - F_FIELD0));
				break;
			case F_COPY:
				break;
			}
		}
		r = image_add_data(img, dst, out.p ? out.p : "", out.len, 0644);
		buf_free(&out);
		free(dst);
	}
	for (size_t i = 0; i < ARRAY_SIZE(indexes); i++)
		free(data[i]);
	return r;
}

/* ---- modprobe.d ---- */

/* Keep a configuration line when the module it configures is in the
 * image. install/remove run a shell command, which the image's /init
 * does not do. */
static bool keep_conf_line(const struct modules *m, const char *line, const char *file)
{
	char cmd[16], arg1[256], arg2[256];
	int n = sscanf(line, "%15s %255s %255s", cmd, arg1, arg2);

	if (n < 2)
		return false;
	if (strcmp(cmd, "options") == 0 || strcmp(cmd, "blacklist") == 0 ||
	    strcmp(cmd, "softdep") == 0)
		return modules_find(m, arg1) != NULL;
	if (strcmp(cmd, "alias") == 0)
		return n == 3 && modules_find(m, arg2) != NULL;
	if ((strcmp(cmd, "install") == 0 || strcmp(cmd, "remove") == 0) && modules_find(m, arg1))
		log_debug("%s: '%s %s' needs a shell, not packed", file, cmd, arg1);
	return false;
}

static int filter_conf(const struct modules *m, struct image *img, const char *path,
		       const char *base)
{
	char *data, *line, *next;
	struct buf out = { 0 }, joined = { 0 };
	size_t len;
	char *host = NULL;
	struct stat st;
	int r = sysroot_path(m->root, path, &host, &st);

	if (r == 0)
		r = read_file(host, &data, &len);
	free(host);
	if (r < 0)
		return err_errno(r, "%s%s", m->root, path);
	for (line = data; line < data + len; line = next) {
		char *nl = memchr(line, '\n', (size_t)(data + len - line));
		size_t ll;

		next = nl ? nl + 1 : data + len;
		ll = (size_t)((nl ? nl : data + len) - line);
		/* A backslash at the end continues the line. */
		if (ll && line[ll - 1] == '\\') {
			buf_append(&joined, line, ll - 1);
			continue;
		}
		buf_append(&joined, line, ll);
		buf_append(&joined, "", 1);
		char *s = joined.p + strspn(joined.p, " \t");
		if (*s != '#' && keep_conf_line(m, s, path))
			buf_printf(&out, "%s\n", s);
		joined.len = 0;
	}
	if (out.len) {
		char *dst = xasprintf("/etc/modprobe.d/%s", base);
		r = image_add_data(img, dst, out.p, out.len, 0644);
		free(dst);
	}
	buf_free(&out);
	buf_free(&joined);
	free(data);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_modprobe_d(struct modules *m, struct image *img, const char *dirs)
{
	struct strv dv = { 0 }, names = { 0 };
	struct nameset files = { 0 };
	int r = 0;

	if (dirs)
		strv_split(&dv, dirs, ":");
	/* As in modprobe, a file name met in an earlier directory hides the
	 * same name in later ones (/etc overrides /usr/lib); this also
	 * reads /lib/modprobe.d once when /lib is a link to /usr/lib. */
	for (size_t i = 0; i < dv.n; i++) {
		char *host = NULL;
		struct stat st;
		DIR *dp = sysroot_path(m->root, dv.v[i], &host, &st) == 0 ? opendir(host) : (err_clear(), NULL);
		struct dirent *de;

		free(host);
		if (!dp)
			continue;
		while ((de = readdir(dp))) {
			if (de->d_name[0] == '.' || !str_has_suffix(de->d_name, ".conf"))
				continue;
			char *full = xasprintf("%s/%s", dv.v[i], de->d_name);
			if (nameset_put(&files, de->d_name, full))
				strv_push(&names, de->d_name);
			else
				free(full);
		}
		closedir(dp);
	}
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.n && r == 0; i++)
		r = filter_conf(m, img, nameset_get(&files, names.v[i]), names.v[i]);
	for (size_t i = 0; i < names.n; i++)
		free(nameset_get(&files, names.v[i]));
	nameset_free(&files);
	strv_free(&names);
	strv_free(&dv);
	return r;
}

int modules_emit(struct modules *m, struct image *img, const char *modprobe_dirs)
{
	if (add_modules(m, img) < 0 || add_indexes(m, img) < 0 ||
	    add_modprobe_d(m, img, modprobe_dirs) < 0)
		return err_code();
	return 0;
}
