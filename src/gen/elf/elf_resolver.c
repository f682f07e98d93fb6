// SPDX-License-Identifier: GPL-2.0-or-later
/* The files a resolver has parsed, once each, keyed by their real path
 * inside the sysroot; and the sysroot's ld.so.conf, read once. Below
 * elf_search.c and elf.c. */
#include "gen/elf/elf.h"

/* Not <elf.h>: our own elf.h shadows it on the include path. */
#include <linux/elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "gen/elf/elf_ldconf.h"
#include "gen/elf/elf_parse.h"
#include "gen/elf/elf_priv.h"
#include "gen/host/sysroot.h"
#include "log.h"
#include "util.h"

static size_t hash(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

struct elf_resolver *elf_resolver_new(const char *sysroot)
{
	struct elf_resolver *r = xcalloc(1, sizeof(*r));
	size_t n = sysroot ? strlen(sysroot) : 0;

	while (n && sysroot[n - 1] == '/')
		n--;
	r->sysroot = xstrndup(sysroot ? sysroot : "", n);
	return r;
}

void elf_resolver_free(struct elf_resolver *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(r->table); i++) {
		struct obj *o = r->table[i], *next;
		for (; o; o = next) {
			next = o->next;
			free(o->path);
			free(o->error);
			elf_file_free(&o->elf);
			free(o);
		}
	}
	strv_free(&r->conf_dirs);
	free(r->stand_soname);
	free(r->stand_path);
	if (r->stand_kind == 1)
		elf_file_free(&r->stand_elf);
	elf_symbols_free(&r->stand_syms);
	free(r->sysroot);
	free(r);
}

/* The real path (inside the sysroot) of an existing regular file, or
 * NULL: a library search tries many paths that do not exist. */
char *elf_real_path(const struct elf_resolver *r, const char *path)
{
	struct stat st;
	char *real;

	if (sysroot_resolve(r->sysroot, path, NULL, NULL, &real, &st) < 0)
		return NULL;
	if (S_ISREG(st.st_mode))
		return real;
	free(real);
	return NULL;
}

struct obj *elf_obj_get(struct elf_resolver *r, const char *real)
{
	size_t b = hash(real) % ARRAY_SIZE(r->table);
	struct obj *o;

	for (o = r->table[b]; o; o = o->next)
		if (strcmp(o->path, real) == 0)
			return o;
	o = xcalloc(1, sizeof(*o));
	o->path = xstrdup(real);
	char *host = path_join(r->sysroot, real);
	o->kind = elf_parse_path(host, &o->elf);
	free(host);
	if (o->kind < 0)
		o->error = xstrdup(err_msg());
	o->next = r->table[b];
	r->table[b] = o;
	return o;
}

const struct strv *elf_conf_dirs(struct elf_resolver *r)
{
	if (!r->conf_loaded) {
		ldconf_read(r->sysroot, &r->conf_dirs);
		r->conf_loaded = true;
	}
	return &r->conf_dirs;
}
