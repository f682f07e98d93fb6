// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading plugins: the directories under the sysroot, the override by
 * file name, one file's keys. A plugin is a stranger's file (any package
 * may drop one): bounded in size, every value checked here, before the
 * build does any work. */
#include "gen/plugins/plugin.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "buildconf.h"
#include "gen/host/keyval.h"
#include "gen/host/sysroot.h"
#include "layout.h"
#include "log.h"

enum kind {
	K_TEXT,    /* free text, once */
	K_TOKEN,   /* a list of names */
	K_TOOL,    /* a list of program names or absolute paths */
	K_PATH,    /* a list of absolute paths */
	K_PROGRAM, /* one absolute path */
	K_FIRMWARE,
	K_HOOK,    /* a list of STAGE:PATH */
	K_REPLACES,
	K_PREFIX,  /* a list of root= prefixes */
	K_GLOB,    /* a list of kernel device name patterns (sd*) */
	K_RUN,     /* one run of a layer's program: its words, one line each */
	K_ONE,     /* one name, once */
	K_SECONDS, /* a time limit, once */
	K_FEATURE, /* one of PLUGIN_FEATURES */
};

struct pkey {
	const char *name;
	enum kind kind;
	size_t off;
};

#define L(field) offsetof(struct plugin, field)

static const struct pkey pkeys[] = {
	{ "description", K_TEXT, 0 },
	{ "replaces", K_REPLACES, L(replaces) },
	{ "generic-if-program", K_TOOL, L(if_program) },
	{ "if-feature", K_FEATURE, L(if_feature) },
	{ "hostonly-if-fstype", K_TOKEN, L(if_fstype) },
	{ "hostonly-if-blkid-type", K_TOKEN, L(if_blkid_type) },
	{ "hostonly-if-module", K_TOKEN, L(if_module) },
	{ "programs", K_TOOL, L(programs) },
	{ "optional-programs", K_TOOL, L(optional_programs) },
	{ "modules", K_TOKEN, L(modules) },
	{ "optional-modules", K_TOKEN, L(optional_modules) },
	{ "firmware", K_FIRMWARE, L(firmware) },
	{ "files", K_PATH, L(files) },
	{ "optional-files", K_PATH, L(optional_files) },
	{ "hooks", K_HOOK, L(hooks) },
	{ "layer-blkid-type", K_TOKEN, L(layer_types) },
	{ "layer-program", K_PROGRAM, L(layer_program) },
	{ "layer-modules", K_TOKEN, L(layer_modules) },
	{ "layer-options", K_TOKEN, L(layer_options) },
	{ "layer-run", K_RUN, L(layer_runs) },
	{ "layer-switch", K_ONE, L(layer_switch) },
	{ "layer-retry-modules", K_TOKEN, L(layer_retry_modules) },
	{ "layer-time-limit", K_SECONDS, L(layer_limit) },
	{ "root-prefix", K_PREFIX, L(root_prefixes) },
	{ "root-program", K_PROGRAM, L(root_program) },
	{ "root-modules", K_TOKEN, L(root_modules) },
	{ "claim-devices", K_GLOB, L(claim_globs) },
	{ "claim-program", K_PROGRAM, L(claim_program) },
	{ "claim-modules", K_TOKEN, L(claim_modules) },
	{ "claim-options", K_TOKEN, L(claim_options) },
	{ "root-time-limit", K_SECONDS, L(root_limit) },
};

static const char *const hook_stages[] = { LAYOUT_HOOK_STAGES };
static const char *const features[] = { PLUGIN_FEATURES };

static const struct pkey *find_pkey(const char *key)
{
	char canon[64];
	size_t n = strlen(key);

	if (n >= sizeof(canon))
		return NULL;
	/* as in uniramfs.conf: if_program and if-program are one key */
	for (size_t i = 0; i <= n; i++)
		canon[i] = key[i] == '_' ? '-' : key[i];
	for (size_t i = 0; i < ARRAY_SIZE(pkeys); i++)
		if (!strcmp(pkeys[i].name, canon))
			return &pkeys[i];
	return NULL;
}

static int check_item(const struct pkey *k, const char *v, const char *where)
{
	const char *colon;

	switch (k->kind) {
	case K_TEXT:
		return 0;
	case K_TOKEN:
		if (!plugin_token_ok(v))
			return err_set("%s: bad value '%s' for %s (letters, digits and ._-+:=@ only)", where, v,
				       k->name);
		return 0;
	case K_TOOL:
		if (v[0] == '/' ? plugin_path_ok(v) : plugin_token_ok(v))
			return 0;
		return err_set("%s: bad program '%s' for %s (a name, or an absolute path without '..')", where, v,
			       k->name);
	case K_PROGRAM:
		/* a name is searched as `programs` are, its path written in the row */
		if (v[0] == '/' ? plugin_path_ok(v) : plugin_token_ok(v))
			return 0;
		return err_set("%s: bad program '%s' for %s (a name, or an absolute path without '..')", where, v,
			       k->name);
	case K_PATH:
		if (!plugin_path_ok(v))
			return err_set("%s: bad path '%s' for %s (absolute, inside the sysroot: no '..')", where, v,
				       k->name);
		return 0;
	case K_FIRMWARE: {
		char *abs = xasprintf("/%s", v);
		bool ok = sysroot_name_plain(v) && plugin_path_ok(abs);
		free(abs);
		if (!ok)
			return err_set("%s: bad firmware name '%s' (relative to /lib/firmware, no '..')", where, v);
		return 0;
	}
	case K_HOOK:
		colon = strchr(v, ':');
		if (!colon || !plugin_path_ok(colon + 1))
			return err_set("%s: bad hook '%s' (expected STAGE:/PATH)", where, v);
		for (size_t i = 0; i < ARRAY_SIZE(hook_stages); i++)
			if (strlen(hook_stages[i]) == (size_t)(colon - v) && !strncmp(v, hook_stages[i], (size_t)(colon - v)))
				return 0;
		return err_set("%s: unknown hook stage '%.*s' (use cmdline, pre-udev, pre-mount, mount or pre-pivot)",
			       where, (int)(colon - v), v);
	case K_RUN:
		return plugin_run_ok(v) ? 0
					: err_set("%s: bad value '%s' for %s (words of letters, digits and "
						  "._-+:=@/, or {device} or {OPTION}; at most %u words)",
						  where, v, k->name, PLUGIN_MAX_WORDS);
	case K_ONE:
		if (!plugin_token_ok(v))
			return err_set("%s: bad value '%s' for %s (letters, digits and ._-+:=@ only)", where, v,
				       k->name);
		return 0;
	case K_FEATURE:
		for (size_t i = 0; i < ARRAY_SIZE(features); i++)
			if (!strcmp(v, features[i]))
				return 0;
		return err_set("%s: unknown feature '%s' for if-feature (clevis, clevis-tpm2, ssh-unlock, overlay-tools, live-https, plymouth or kdump)", where, v);
	case K_SECONDS: {
		char *end;
		unsigned long n = strtoul(v, &end, 10);
		if (v[0] < '0' || v[0] > '9' || *end || n < 1 || n > PLUGIN_MAX_SECONDS)
			return err_set("%s: bad value '%s' for %s (seconds, 1 to %u)", where, v, k->name,
				       PLUGIN_MAX_SECONDS);
		return 0;
	}
	case K_PREFIX:
		if (!plugin_prefix_ok(v))
			return err_set("%s: bad value '%s' for %s (letters, digits and ._-+:=@/ only)", where, v,
				       k->name);
		return 0;
	case K_GLOB:
		if (!plugin_glob_ok(v))
			return err_set("%s: bad value '%s' for %s (a kernel device name, letters, digits, "
				       "_- and the wildcards *?)", where, v, k->name);
		return 0;
	case K_REPLACES:
		colon = strchr(v, ':');
		if (!colon || !colon[1] || !plugin_token_ok(colon + 1) || strchr(colon + 1, '/') ||
		    (strncmp(v, "initramfs-tools:", 16) && strncmp(v, "dracut:", 7)))
			return err_set("%s: bad value '%s' for replaces (expected initramfs-tools:HOOK or "
				       "dracut:MODULE)", where, v);
		return 0;
	}
	return err_set("%s: unhandled key %s", where, k->name);
}

static int set_key(void *ctx, const char *key, const char *value, const char *where)
{
	struct plugin *p = ctx;
	const struct pkey *k = find_pkey(key);
	struct plugin_list *l;
	struct strv items = { 0 };
	int r = 0;

	if (!k)
		return err_set("%s: unknown key '%s' in a plugin (see docs/plugins.md)", where, key);
	if (!*value)
		return err_set("%s: empty value for %s", where, k->name);
	if (k->kind == K_TEXT) {
		if (p->description)
			return err_set("%s: %s given twice", where, k->name);
		p->description = xstrdup(value);
		return 0;
	}
	l = (struct plugin_list *)((char *)p + k->off);
	if ((k->kind == K_PROGRAM || k->kind == K_ONE || k->kind == K_SECONDS) && l->v.n)
		return err_set("%s: %s given twice (first at %s)", where, k->name, l->where.v[0]);
	/* lists as in uniramfs.conf (commas), and blanks as initramfs-tools
	 * and dracut write them; a run is one line of words */
	if (k->kind == K_RUN)
		strv_push(&items, value);
	else
		strv_split(&items, value, k->kind == K_PROGRAM || k->kind == K_ONE ? "" : ", \t");
	for (size_t i = 0; r == 0 && i < items.n; i++) {
		if (++p->nitems > PLUGIN_MAX_ITEMS)
			r = err_set("%s: more than %u values in one plugin", where, PLUGIN_MAX_ITEMS);
		else
			r = check_item(k, items.v[i], where);
		if (r == 0 && !strv_contains(&l->v, items.v[i])) {
			strv_push(&l->v, items.v[i]);
			strv_push(&l->where, where);
		}
	}
	strv_free(&items);
	return r;
}

/* A row the init would take must be whole: a type and its program. */
static int check_rows(const struct plugin *p)
{
	const struct plugin_list *claim[] = { &p->claim_program, &p->claim_modules, &p->claim_options };
	const struct plugin_list *layer[] = { &p->layer_program, &p->layer_modules, &p->layer_options,
					       &p->layer_runs, &p->layer_switch, &p->layer_retry_modules,
					       &p->layer_limit };
	const struct plugin_list *root[] = { &p->root_program, &p->root_modules, &p->root_limit };

	for (size_t i = 0; i < ARRAY_SIZE(layer); i++)
		if (layer[i]->v.n && !p->layer_types.v.n)
			return err_set("%s: a layer row needs layer-blkid-type", layer[i]->where.v[0]);
	if (p->layer_types.v.n && !p->layer_program.v.n)
		return err_set("%s: layer-blkid-type needs layer-program (the program that opens it)",
			       p->layer_types.where.v[0]);
	for (size_t i = 0; i < ARRAY_SIZE(root); i++)
		if (root[i]->v.n && !p->root_prefixes.v.n)
			return err_set("%s: a root handler needs root-prefix", root[i]->where.v[0]);
	if (p->root_prefixes.v.n && !p->root_program.v.n)
		return err_set("%s: root-prefix needs root-program (the program that mounts it)",
			       p->root_prefixes.where.v[0]);
	for (size_t i = 0; i < ARRAY_SIZE(claim); i++)
		if (claim[i]->v.n && !p->claim_globs.v.n)
			return err_set("%s: a claim row needs claim-devices", claim[i]->where.v[0]);
	if (p->claim_globs.v.n && !p->claim_program.v.n)
		return err_set("%s: claim-devices needs claim-program (the program that claims them)",
			       p->claim_globs.where.v[0]);
	for (size_t i = 0; i < p->layer_runs.v.n; i++) {
		const char *bad = plugin_run_unknown(p->layer_runs.v.v[i], &p->layer_options.v);
		if (bad)
			return err_set("%s: layer-run names {%s}, which is neither {device} nor one of its "
				       "layer-options", p->layer_runs.where.v[i], bad);
	}
	return 0;
}

int plugin_parse(struct plugin *p, const char *name, const char *shown, char *data)
{
	int r;

	memset(p, 0, sizeof(*p));
	p->name = xstrdup(name);
	p->shown = xstrdup(shown);
	r = keyval_parse(data, shown, PLUGIN_MAX_LINE, set_key, p);
	return r < 0 ? r : check_rows(p);
}

static void list_free(struct plugin_list *l)
{
	strv_free(&l->v);
	strv_free(&l->where);
}

static void plugin_free(struct plugin *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(pkeys); i++)
		if (pkeys[i].kind != K_TEXT)
			list_free((struct plugin_list *)((char *)p + pkeys[i].off));
	free(p->name);
	free(p->shown);
	free(p->description);
}

void plugins_free(struct plugins *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		plugin_free(&ps->v[i]);
	free(ps->v);
	ps->v = NULL;
	ps->n = 0;
}

/* A bounded read of a regular file, never blocking on a FIFO a hostile
 * package put there; host: a path with no link in it. */
static int read_bounded(const char *host, const char *shown, char **data)
{
	struct stat st;
	size_t len = 0;
	ssize_t n;
	int fd = open(host, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return err_errno(errno, "plugin %s", shown);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set("plugin %s: not a regular file", shown);
	}
	if ((uint64_t)st.st_size > PLUGIN_MAX_BYTES) {
		close(fd);
		return err_set("plugin %s: larger than %u bytes", shown, PLUGIN_MAX_BYTES);
	}
	*data = xmalloc(PLUGIN_MAX_BYTES + 2);
	/* the size may grow under us: read one byte past the bound to know */
	while ((n = read(fd, *data + len, PLUGIN_MAX_BYTES + 1 - len)) > 0)
		len += (size_t)n;
	if (n < 0) {
		int e = errno;
		close(fd);
		free(*data);
		return err_errno(e, "plugin %s", shown);
	}
	close(fd);
	if (len > PLUGIN_MAX_BYTES) {
		free(*data);
		return err_set("plugin %s: larger than %u bytes", shown, PLUGIN_MAX_BYTES);
	}
	(*data)[len] = '\0';
	if (keyval_check_text(*data, len, shown) < 0) {
		free(*data);
		return err_code();
	}
	return 0;
}

static int read_one(struct plugins *ps, const char *name, const char *host, const char *shown)
{
	char *data = NULL;
	int r;

	if (ps->n >= PLUGIN_MAX_FILES)
		return err_set("plugin %s: more than %u plugins", shown, PLUGIN_MAX_FILES);
	r = read_bounded(host, shown, &data);
	if (r < 0)
		return r;
	ps->v = xrealloc(ps->v, (ps->n + 1) * sizeof(*ps->v));
	r = plugin_parse(&ps->v[ps->n], name, shown, data);
	ps->n++; /* freed with the rest, even half parsed */
	free(data);
	return r;
}

static bool plugin_file_name(const char *n)
{
	return n[0] != '.' && str_has_suffix(n, ".conf") && strlen(n) > 5;
}

/* The names of DIR (inside the sysroot) into names/shown, a later
 * directory's file replacing an earlier one's of the same name. */
static int scan_dir(const char *sysroot, const char *dir, struct strv *names, struct strv *shown,
		    struct strv *roots)
{
	struct dirent **list = NULL;
	struct stat st;
	char *host;
	int n, r = sysroot_path(sysroot, dir, &host, &st);

	if (r == -ENOENT || (r == 0 && !S_ISDIR(st.st_mode))) {
		if (r == 0)
			free(host);
		err_clear();
		return 0;
	}
	if (r < 0)
		return err_wrap("plugin directory %s", dir);
	n = scandir(host, &list, NULL, alphasort);
	if (n < 0) {
		r = err_errno(errno, "plugin directory %s", dir);
		free(host);
		return r;
	}
	for (int i = 0; i < n; i++) {
		const char *d = list[i]->d_name;
		if (plugin_file_name(d)) {
			size_t j;
			char *s = xasprintf("%s/%s", dir, d);
			for (j = 0; j < names->n && strcmp(names->v[j], d); j++)
				;
			if (j == names->n) {
				strv_push(names, d);
				strv_push(shown, s);
				strv_push(roots, sysroot);
			} else {
				free(shown->v[j]);
				shown->v[j] = xstrdup(s);
				free(roots->v[j]);
				roots->v[j] = xstrdup(sysroot);
			}
			free(s);
		}
		free(list[i]);
	}
	free(list);
	free(host);
	return 0;
}

int plugins_read(struct plugins *ps, const char *sysroot, const struct strv *extra)
{
	return plugins_read_all(ps, NULL, sysroot, extra);
}

int plugins_read_all(struct plugins *ps, const char *own, const char *sysroot, const struct strv *extra)
{
	struct strv names = { 0 }, shown = { 0 }, hosts = { 0 }, roots = { 0 };
	/* uniramfs's own are host files, found as the generator found them */
	int r = own ? scan_dir("/", own, &names, &shown, &roots) : 0;

	if (r == 0)
		r = scan_dir(sysroot, PLUGINS_LIB_DIR, &names, &shown, &roots);
	if (r == 0)
		r = scan_dir(sysroot, PLUGINS_ETC_DIR, &names, &shown, &roots);
	/* inside the sysroot, through sysroot_path: a link in the directory
	 * cannot lead out of it */
	for (size_t i = 0; r == 0 && i < shown.n; i++) {
		struct stat st;
		char *host;
		r = sysroot_path(roots.v[i], shown.v[i], &host, &st);
		if (r < 0) {
			r = err_wrap("plugin %s", shown.v[i]);
			break;
		}
		strv_push(&hosts, host);
		free(host);
	}
	for (size_t i = 0; r == 0 && extra && i < extra->n; i++) {
		const char *base = strrchr(extra->v[i], '/');
		size_t j;
		base = base ? base + 1 : extra->v[i];
		if (!plugin_file_name(base)) {
			r = err_set("plugin %s: the file name must end in .conf", extra->v[i]);
			break;
		}
		for (j = 0; j < names.n && strcmp(names.v[j], base); j++)
			;
		if (j == names.n) {
			strv_push(&names, base);
			strv_push(&shown, extra->v[i]);
			strv_push(&hosts, extra->v[i]);
		} else {
			free(shown.v[j]), free(hosts.v[j]);
			shown.v[j] = xstrdup(extra->v[i]);
			hosts.v[j] = xstrdup(extra->v[i]);
		}
	}
	/* by name, wherever each came from: a plugin's place in the order
	 * does not change when the admin overrides it */
	for (size_t i = 1; i < names.n; i++)
		for (size_t j = i; j > 0 && strcmp(names.v[j - 1], names.v[j]) > 0; j--) {
			struct strv *all[] = { &names, &shown, &hosts };
			for (size_t a = 0; a < ARRAY_SIZE(all); a++) {
				char *t = all[a]->v[j];
				all[a]->v[j] = all[a]->v[j - 1];
				all[a]->v[j - 1] = t;
			}
		}
	for (size_t i = 0; r == 0 && i < names.n; i++) {
		char *name = xstrndup(names.v[i], strlen(names.v[i]) - 5);
		r = read_one(ps, name, hosts.v[i], shown.v[i]);
		if (r == 0)
			log_info("plugin %s: %s", name, shown.v[i]);
		free(name);
	}
	strv_free(&names);
	strv_free(&shown);
	strv_free(&hosts);
	strv_free(&roots);
	return r < 0 ? r : plugins_check_conflicts(ps);
}

char *plugins_own_dir(void)
{
	char self[PATH_MAX], *c;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct stat st;

	/* build/plugins beside build/uniramfs: what meson copied from the
	 * tree's plugins/, so a build tree packs what it ships */
	if (len > 0) {
		self[len] = '\0';
		*strrchr(self, '/') = '\0';
		c = path_join(self, "plugins");
		if (stat(c, &st) == 0 && S_ISDIR(st.st_mode))
			return c;
		free(c);
	}
	if (stat(UNIRAMFS_PLUGINDIR, &st) == 0 && S_ISDIR(st.st_mode))
		return xstrdup(UNIRAMFS_PLUGINDIR);
	return NULL;
}
