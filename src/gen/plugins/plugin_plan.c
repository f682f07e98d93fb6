// SPDX-License-Identifier: GPL-2.0-or-later
/* Which plugins an image takes, and what they put in it: programs with
 * their libraries, firmware, files and hooks from the sysroot, and the
 * boot-time rows for the init. */
#include "gen/plugins/plugin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "gen/elf/elf.h"
#include "gen/host/sysroot.h"
#include "layout.h"
#include "log.h"

/* The blkid type of what holds each layer hostonly recognises
 * (hostonly.c's names for h->stack); a filesystem's type is its own. */
static const struct {
	const char *layer, *type;
} layer_types[] = {
	{ "dm-crypt", "crypto_LUKS" },   { "lvm", "LVM2_member" },
	{ "md", "linux_raid_member" },   { "dm-integrity", "DM_integrity" },
	{ "dm-verity", "DM_verity_hash" },
};

void plugin_facts_hostonly(struct plugin_facts *f, const struct hostonly *h)
{
	f->hostonly = true;
	for (size_t i = 0; i < h->fstypes.n; i++) {
		strv_push(&f->fstypes, h->fstypes.v[i]);
		strv_push(&f->blkid_types, h->fstypes.v[i]);
		/* a ZFS root's disks are its pool's members (hostonly_zfs.c) */
		if (!strcmp(h->fstypes.v[i], "zfs"))
			strv_push(&f->blkid_types, "zfs_member");
	}
	for (size_t i = 0; i < h->modules.n; i++)
		strv_push(&f->modules, h->modules.v[i]);
	for (size_t i = 0; i < h->stack.n; i++)
		for (size_t j = 0; j < ARRAY_SIZE(layer_types); j++)
			if (!strcmp(h->stack.v[i], layer_types[j].layer))
				strv_push(&f->blkid_types, layer_types[j].type);
}

void plugin_facts_free(struct plugin_facts *f)
{
	strv_free(&f->fstypes);
	strv_free(&f->blkid_types);
	strv_free(&f->modules);
	strv_free(&f->features);
}

/* name: a program name (the one tool search) or a path in the sysroot;
 * *found (may be NULL) its path inside the sysroot. */
static bool host_has_program(const char *sysroot, const char *name, char **found)
{
	struct stat st;
	char *host, *p;

	if (name[0] != '/') {
		p = sysroot_find_tool(sysroot, name);
	} else if (sysroot_path(sysroot, name, &host, &st) == 0) {
		free(host);
		p = S_ISREG(st.st_mode) && (st.st_mode & 0111) ? xstrdup(name) : NULL;
	} else {
		err_clear();
		p = NULL;
	}
	if (found)
		*found = p;
	else
		free(p);
	return p != NULL;
}

/* The first value of l that set holds, or NULL. */
static const char *any_in(const struct plugin_list *l, const struct strv *set)
{
	for (size_t i = 0; i < l->v.n; i++) {
		if (strv_contains(set, l->v.v[i]))
			return l->v.v[i];
		/* modules: hostonly spells them with '_', a plugin may not */
		char *u = xstrdup(l->v.v[i]);
		for (char *c = u; *c; c++)
			if (*c == '-')
				*c = '_';
		bool hit = strv_contains(set, u);
		free(u);
		if (hit)
			return l->v.v[i];
	}
	return NULL;
}

static bool wanted(const struct plugin *p, const char *sysroot, const struct plugin_facts *f, const char **why)
{
	if (p->if_feature.v.n && !any_in(&p->if_feature, &f->features)) {
		*why = "its if-feature is not in this image";
		return false;
	}
	if (f->hostonly && (p->if_fstype.v.n || p->if_blkid_type.v.n || p->if_module.v.n)) {
		const char *hit;
		if ((hit = any_in(&p->if_fstype, &f->fstypes)) || (hit = any_in(&p->if_blkid_type, &f->blkid_types)) ||
		    (hit = any_in(&p->if_module, &f->modules))) {
			*why = hit;
			return true;
		}
		*why = "the root uses none of its hostonly-if-* values";
		return false;
	}
	if (!p->if_program.v.n) {
		*why = "always";
		return true;
	}
	for (size_t i = 0; i < p->if_program.v.n; i++)
		if (host_has_program(sysroot, p->if_program.v.v[i], NULL)) {
			*why = p->if_program.v.v[i];
			return true;
		}
	*why = "the host has none of its generic-if-program";
	return false;
}

void plugins_select(struct plugins *ps, const char *sysroot, const struct plugin_facts *f)
{
	for (size_t i = 0; i < ps->n; i++) {
		const char *why = "";
		ps->v[i].on = wanted(&ps->v[i], sysroot, f, &why);
		log_info("plugin %s: %s (%s)", ps->v[i].name, ps->v[i].on ? "packed" : "not packed", why);
	}
}

int plugins_each_module(const struct plugins *ps, plugin_module_fn fn, void *ctx)
{
	for (size_t i = 0; i < ps->n; i++) {
		const struct plugin *p = &ps->v[i];
		const struct plugin_list *ls[] = { &p->modules, &p->optional_modules, &p->layer_modules,
						   &p->layer_retry_modules, &p->root_modules, &p->claim_modules };
		if (!p->on)
			continue;
		for (size_t l = 0; l < ARRAY_SIZE(ls); l++)
			for (size_t j = 0; j < ls[l]->v.n; j++) {
				const char *m = ls[l]->v.v[j];
				if (fn(ctx, m, !strv_contains(&p->optional_modules.v, m)) < 0)
					return err_wrap("%s", ls[l]->where.v[j]);
			}
	}
	return 0;
}

static int add_program(struct elf_resolver *er, struct image *img, const char *sysroot, const char *name,
		       const char *where)
{
	char *path;
	int r;

	if (!host_has_program(sysroot, name, &path))
		return err_set("%s: program %s not found in %s", where, name, sysroot);
	r = elf_add_binary(er, img, path);
	free(path);
	return r < 0 ? err_wrap("%s", where) : 0;
}

/* A regular file of the sysroot, by its path there. */
static int sysroot_file(const char *sysroot, const char *path, const char *where, char **host)
{
	struct stat st;
	int r = sysroot_path(sysroot, path, host, &st);

	if (r < 0)
		return err_wrap("%s", where);
	if (!S_ISREG(st.st_mode)) {
		free(*host);
		return err_set("%s: %s is not a regular file", where, path);
	}
	return 0;
}

static int add_files(struct image *img, const char *sysroot, const struct plugin_list *l, bool optional)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < l->v.n; i++) {
		char *host;
		r = sysroot_file(sysroot, l->v.v[i], l->where.v[i], &host);
		if (r == -ENOENT && optional) {
			err_clear();
			r = 0;
			continue;
		}
		if (r < 0)
			break;
		free(host);
		/* under its own name, each link on the way kept as a link */
		r = image_add_host_path(img, sysroot, l->v.v[i], NULL);
		if (r < 0)
			r = err_wrap("%s", l->where.v[i]);
	}
	return r;
}

static int add_firmware(struct image *img, const char *sysroot, const char *kver, const struct plugin_list *l)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < l->v.n; i++) {
		/* the kernel's search order (firmware_loader/main.c) */
		char *dirs[] = { xasprintf("/lib/firmware/updates/%s", kver), xstrdup("/lib/firmware/updates"),
				 xasprintf("/lib/firmware/%s", kver), xstrdup("/lib/firmware") };
		bool found = false;
		for (size_t d = 0; d < ARRAY_SIZE(dirs); d++) {
			char *path = xasprintf("%s/%s", dirs[d], l->v.v[i]), *host;
			struct stat st;
			if (!found && sysroot_path(sysroot, path, &host, &st) == 0) {
				free(host);
				if (S_ISREG(st.st_mode)) {
					found = true;
					r = image_add_host_path(img, sysroot, path, NULL);
				}
			}
			err_clear();
			free(path);
			free(dirs[d]);
		}
		if (r < 0)
			r = err_wrap("%s", l->where.v[i]);
		else if (!found)
			r = err_set("%s: firmware %s not found in %s/lib/firmware", l->where.v[i], l->v.v[i],
				    strcmp(sysroot, "/") ? sysroot : "");
	}
	return r;
}

static int add_hooks(struct image *img, const char *sysroot, const struct plugin_list *l)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < l->v.n; i++) {
		const char *colon = strchr(l->v.v[i], ':'), *base = strrchr(colon, '/') + 1;
		char *host, *dst;
		r = sysroot_file(sysroot, colon + 1, l->where.v[i], &host);
		if (r < 0)
			break;
		dst = xasprintf(LAYOUT_HOOKS_DIR "/%.*s/%s", (int)(colon - l->v.v[i]), l->v.v[i], base);
		r = image_add_file(img, dst, host, 0755, 0);
		if (r < 0)
			r = err_wrap("%s", l->where.v[i]);
		free(dst);
		free(host);
	}
	return r;
}

static void join(struct buf *b, const struct strv *v)
{
	if (!v->n)
		buf_printf(b, "-");
	for (size_t i = 0; i < v->n; i++)
		buf_printf(b, "%s%s", i ? "," : "", v->v[i]);
}

/* A run's words, one blank between them. */
static void words(struct buf *b, const char *run)
{
	bool first = true;

	for (const char *w = run; *w;) {
		size_t n = strcspn(w, " \t");
		if (n) {
			buf_printf(b, "%s%.*s", first ? "" : " ", (int)n, w);
			first = false;
		}
		w += n ? n : 1;
	}
}

/* The fields after the six: run=, switch=, retry-modules=, limit=,
 * each only when the plugin says it (docs/plugins.md). */
static void layer_extra(struct buf *b, const struct plugin *p)
{
	for (size_t i = 0; i < p->layer_runs.v.n; i++) {
		buf_printf(b, "\trun=");
		words(b, p->layer_runs.v.v[i]);
	}
	if (p->layer_switch.v.n)
		buf_printf(b, "\tswitch=%s", p->layer_switch.v.v[0]);
	if (p->layer_retry_modules.v.n) {
		buf_printf(b, "\tretry-modules=");
		join(b, &p->layer_retry_modules.v);
	}
	if (p->layer_limit.v.n)
		buf_printf(b, "\tlimit=%s", p->layer_limit.v.v[0]);
}

/* A program by name is written as its path in the sysroot, which is
 * its path in the image (add_program packed it there). */
static char *row_program(const char *sysroot, const char *name)
{
	char *path = NULL;

	if (name[0] == '/' || !host_has_program(sysroot, name, &path))
		return xstrdup(name);
	return path;
}

/* The columns every row starts with: kind, plugin, what it answers
 * (a type, prefix or glob), program, modules, then the tab before the
 * row's own fields. */
static void row_head(struct buf *b, const char *kind, const struct plugin *p, const char *key,
		     const char *program, const struct strv *modules, const char *sysroot)
{
	char *prog = row_program(sysroot, program);

	buf_printf(b, "%s\t%s\t%s\t%s\t", kind, p->name, key, prog);
	join(b, modules);
	buf_printf(b, "\t");
	free(prog);
}

static void rows(struct buf *b, const struct plugin *p, const char *sysroot)
{
	for (size_t i = 0; i < p->layer_types.v.n; i++) {
		row_head(b, "layer", p, p->layer_types.v.v[i], p->layer_program.v.v[0],
			 &p->layer_modules.v, sysroot);
		join(b, &p->layer_options.v);
		layer_extra(b, p);
		buf_printf(b, "\n");
	}
	for (size_t i = 0; i < p->root_prefixes.v.n; i++) {
		row_head(b, "root", p, p->root_prefixes.v.v[i], p->root_program.v.v[0],
			 &p->root_modules.v, sysroot);
		buf_printf(b, "-");
		if (p->root_limit.v.n)
			buf_printf(b, "\tlimit=%s", p->root_limit.v.v[0]);
		buf_printf(b, "\n");
	}
	for (size_t i = 0; i < p->claim_globs.v.n; i++) {
		row_head(b, "claim", p, p->claim_globs.v.v[i], p->claim_program.v.v[0],
			 &p->claim_modules.v, sysroot);
		join(b, &p->claim_options.v);
		buf_printf(b, "\n");
	}
}

int plugins_feature_missing(const struct plugins *ps, const char *sysroot, const char *feature,
			    const char **prog, const char **where)
{
	for (size_t i = 0; i < ps->n; i++) {
		const struct plugin *p = &ps->v[i];
		const struct plugin_list *progs[] = { &p->programs, &p->layer_program, &p->root_program,
						      &p->claim_program };
		if (!strv_contains(&p->if_feature.v, feature))
			continue;
		for (size_t l = 0; l < ARRAY_SIZE(progs); l++)
			for (size_t j = 0; j < progs[l]->v.n; j++)
				if (!host_has_program(sysroot, progs[l]->v.v[j], NULL)) {
					*prog = progs[l]->v.v[j];
					*where = progs[l]->where.v[j];
					return 1;
				}
	}
	return 0;
}

bool plugins_pack_program(const struct plugins *ps, const char *name)
{
	for (size_t i = 0; i < ps->n; i++) {
		const struct plugin *p = &ps->v[i];
		const struct plugin_list *progs[] = { &p->programs, &p->layer_program, &p->root_program,
						      &p->claim_program };
		if (!p->on)
			continue;
		for (size_t l = 0; l < ARRAY_SIZE(progs); l++)
			for (size_t j = 0; j < progs[l]->v.n; j++) {
				const char *v = progs[l]->v.v[j], *base = strrchr(v, '/');
				if (!strcmp(base ? base + 1 : v, name))
					return true;
			}
	}
	return false;
}

static int add_one(struct elf_resolver *er, struct image *img, const char *sysroot, const char *kver,
		   const struct plugin *p)
{
	const struct plugin_list *progs[] = { &p->programs, &p->layer_program, &p->root_program,
					      &p->claim_program };
	int r = 0;

	for (size_t l = 0; l < ARRAY_SIZE(progs); l++)
		for (size_t i = 0; r == 0 && i < progs[l]->v.n; i++)
			r = add_program(er, img, sysroot, progs[l]->v.v[i], progs[l]->where.v[i]);
	for (size_t i = 0; r == 0 && i < p->optional_programs.v.n; i++)
		if (host_has_program(sysroot, p->optional_programs.v.v[i], NULL))
			r = add_program(er, img, sysroot, p->optional_programs.v.v[i],
					p->optional_programs.where.v[i]);
	if (r == 0)
		r = add_files(img, sysroot, &p->files, false);
	if (r == 0)
		r = add_files(img, sysroot, &p->optional_files, true);
	if (r == 0)
		r = add_firmware(img, sysroot, kver, &p->firmware);
	if (r == 0)
		r = add_hooks(img, sysroot, &p->hooks);
	return r;
}

void plugins_rows(const struct plugins *ps, const char *sysroot, struct buf *out)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->v[i].on)
			rows(out, &ps->v[i], sysroot);
}

int plugins_add(const struct plugins *ps, struct image *img, const char *sysroot, const char *kver)
{
	struct elf_resolver *er = NULL;
	struct buf b = { 0 };
	int r = 0;

	for (size_t i = 0; r == 0 && i < ps->n; i++) {
		if (!ps->v[i].on)
			continue;
		if (!er)
			er = elf_resolver_new(sysroot);
		r = add_one(er, img, sysroot, kver, &ps->v[i]);
	}
	if (r == 0)
		plugins_rows(ps, sysroot, &b);
	if (r == 0 && b.len)
		r = image_add_data(img, LAYOUT_PLUGIN_ROWS_FILE, b.p, b.len, 0644);
	buf_free(&b);
	if (er)
		elf_resolver_free(er);
	return r;
}
