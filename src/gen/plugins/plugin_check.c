// SPDX-License-Identifier: GPL-2.0-or-later
/* What no plugin may say: a path leaving the sysroot by "..", a name
 * with blanks or controls (the rows file is tab-separated, messages are
 * one line), and a claim on a layer or root= form that something else
 * already answers. */
#include "gen/plugins/plugin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

static bool chars_ok(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      strchr(extra, *c)))
			return false;
	return true;
}

bool plugin_token_ok(const char *s)
{
	return chars_ok(s, "._-+:=@");
}

bool plugin_prefix_ok(const char *s)
{
	return chars_ok(s, "._-+:=@/");
}

bool plugin_glob_ok(const char *s)
{
	return strlen(s) <= 32 && chars_ok(s, "_-*?");
}

bool plugin_path_ok(const char *path)
{
	if (path[0] != '/' || !chars_ok(path, "._-+:=@/"))
		return false;
	/* sysroot_path would stop a ".." at the sysroot, but a plugin that
	 * writes one means something else than it gets: refuse it */
	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if (p[-1] == '/' && (p[2] == '/' || !p[2]))
			return false;
	return true;
}

/* {NAME} with NAME a name; the name's start and length. */
static bool placeholder(const char *w, size_t n, const char **name, size_t *len)
{
	char buf[PLUGIN_MAX_LINE];

	if (n < 3 || w[0] != '{' || w[n - 1] != '}' || n - 2 >= sizeof(buf))
		return false;
	memcpy(buf, w + 1, n - 2);
	buf[n - 2] = '\0';
	*name = w + 1;
	*len = n - 2;
	return plugin_token_ok(buf);
}

bool plugin_run_ok(const char *run)
{
	size_t words = 0;

	for (const char *w = run; *w;) {
		size_t n = strcspn(w, " \t"), len;
		const char *name;
		char *word;
		bool ok;
		if (!n) {
			w++;
			continue;
		}
		word = strndup(w, n);
		ok = word && (placeholder(w, n, &name, &len) || plugin_token_ok(word) ||
			      (word[0] == '/' && plugin_path_ok(word)));
		free(word);
		if (!ok || ++words > PLUGIN_MAX_WORDS)
			return false;
		w += n;
	}
	return words > 0;
}

const char *plugin_run_unknown(const char *run, const struct strv *options)
{
	static char bad[PLUGIN_MAX_LINE];

	for (const char *w = run; *w;) {
		size_t n = strcspn(w, " \t"), len;
		const char *name;
		if (!n) {
			w++;
			continue;
		}
		if (placeholder(w, n, &name, &len)) {
			snprintf(bad, sizeof(bad), "%.*s", (int)len, name);
			if (strcmp(bad, "device") && !strv_contains(options, bad))
				return bad;
		}
		w += n;
	}
	return NULL;
}

/* The init's own: its layer table (src/init/stack/layer.c) and root
 * matcher (docs/cmdline.md, root=). LVM2_member is not among them: LVM
 * is uniramfs's own plugin (plugins/lvm.conf), which a package or the
 * administrator may replace by name. */
static const char *const builtin_types[] = { "crypto_LUKS", "linux_raid_member", "isw_raid_member",
					     "ddf_raid_member" };
static const char *const builtin_prefixes[] = { "/", "UUID=", "LABEL=", "PARTUUID=", "PARTLABEL=",
						"WWID=", "HWPATH=", "nfs:", "nfs4:", "dhcp",
						"iscsi:", "nbd:" };

static bool overlaps(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	return !strncmp(a, b, na < nb ? na : nb);
}

static int check_types(const struct plugins *ps, size_t i)
{
	const struct plugin_list *l = &ps->v[i].layer_types;

	for (size_t t = 0; t < l->v.n; t++) {
		for (size_t b = 0; b < ARRAY_SIZE(builtin_types); b++)
			if (!strcmp(l->v.v[t], builtin_types[b]))
				return err_set("%s: layer-blkid-type %s is the init's own layer", l->where.v[t],
					       l->v.v[t]);
		for (size_t j = 0; j < i; j++) {
			const struct plugin_list *o = &ps->v[j].layer_types;
			for (size_t u = 0; u < o->v.n; u++)
				if (!strcmp(l->v.v[t], o->v.v[u]))
					return err_set("%s: layer-blkid-type %s is claimed by %s too",
						       l->where.v[t], l->v.v[t], o->where.v[u]);
		}
	}
	return 0;
}

static int check_prefixes(const struct plugins *ps, size_t i)
{
	const struct plugin_list *l = &ps->v[i].root_prefixes;

	for (size_t t = 0; t < l->v.n; t++) {
		for (size_t b = 0; b < ARRAY_SIZE(builtin_prefixes); b++)
			if (overlaps(l->v.v[t], builtin_prefixes[b]))
				return err_set("%s: root-prefix %s overlaps the init's own root=%s",
					       l->where.v[t], l->v.v[t], builtin_prefixes[b]);
		for (size_t j = 0; j < i; j++) {
			const struct plugin_list *o = &ps->v[j].root_prefixes;
			for (size_t u = 0; u < o->v.n; u++)
				if (overlaps(l->v.v[t], o->v.v[u]))
					return err_set("%s: root-prefix %s overlaps %s of %s", l->where.v[t],
						       l->v.v[t], o->v.v[u], o->where.v[u]);
		}
	}
	return 0;
}

int plugins_check_conflicts(const struct plugins *ps)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < ps->n; i++) {
		r = check_types(ps, i);
		if (r == 0)
			r = check_prefixes(ps, i);
	}
	return r;
}
