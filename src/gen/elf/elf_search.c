// SPDX-License-Identifier: GPL-2.0-or-later
/* Where ld.so would find one library for one object of a walk: the
 * search order of elf.c's opening comment, $ORIGIN, $PLATFORM and $LIB
 * expanded, a candidate counted only when it is an ELF file of the
 * executable's kind; or, for a program of musl's loader, musl's order
 * (below, musl_find). Called by elf.c; calls elf_resolver.c. */
#include "gen/elf/elf.h"

/* Not <elf.h>: our own elf.h shadows it on the include path. */
#include <linux/elf.h>
#include <ctype.h>
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

static const char *multiarch_tuple(const struct elf_file *e)
{
	switch (e->machine) {
	case EM_X86_64:
		return e->cls == ELFCLASS64 ? "x86_64-linux-gnu" : "x86_64-linux-gnux32";
	case EM_386:
		return "i386-linux-gnu";
	case EM_AARCH64:
		return "aarch64-linux-gnu";
	case EM_ARM:
		return "arm-linux-gnueabihf";
	case EM_PPC64:
		return e->data == ELFDATA2LSB ? "powerpc64le-linux-gnu" : "powerpc64-linux-gnu";
	case EM_S390:
		return "s390x-linux-gnu";
	case EM_RISCV:
		return "riscv64-linux-gnu";
	case EM_LOONGARCH:
		return "loongarch64-linux-gnu";
	case EM_MIPS:
		return e->cls == ELFCLASS64 ? "mips64el-linux-gnuabi64" : "mipsel-linux-gnu";
	}
	return NULL;
}

static const char *platform(const struct elf_file *e)
{
	switch (e->machine) {
	case EM_X86_64:
		return "x86_64";
	case EM_386:
		return "i686";
	case EM_AARCH64:
		return "aarch64";
	case EM_PPC64:
		return e->data == ELFDATA2LSB ? "power8" : "power7";
	case EM_S390:
		return "z900";
	case EM_RISCV:
		return "riscv64";
	}
	return "unknown";
}

/* $LIB is the directory ld.so itself was built for, relative to / or
 * /usr: where the interpreter's real file lives says it (Debian
 * lib/x86_64-linux-gnu, Fedora lib64, Arch lib). */
char *elf_lib_dir(const struct elf_resolver *r, const struct elf_file *e, const char *interp)
{
	const char *tuple = multiarch_tuple(e);

	if (interp) {
		const char *d = interp;
		size_t n = (size_t)(strrchr(interp, '/') - interp);
		if (n >= 5 && strncmp(d, "/usr/", 5) == 0) {
			d += 4;
			n -= 4;
		}
		if (n > 1)
			return xstrndup(d + 1, n - 1);
	}
	if (tuple) {
		char *rel = xasprintf("/lib/%s", tuple), *host = path_join(r->sysroot, rel);
		struct stat st;
		bool multiarch = stat(host, &st) == 0 && S_ISDIR(st.st_mode);
		free(host);
		free(rel);
		if (multiarch)
			return xasprintf("lib/%s", tuple);
	}
	return xstrdup(e->cls == ELFCLASS64 ? "lib64" : "lib");
}

/* Replace $ORIGIN/${ORIGIN}, $LIB, $PLATFORM in one RPATH entry. */
static char *expand_dst(const struct walk *w, const struct obj *o, const char *s)
{
	static const char *const names[] = { "ORIGIN", "LIB", "PLATFORM" };
	struct buf b = { 0 };

	buf_append(&b, "", 0);
	while (*s) {
		size_t k = ARRAY_SIZE(names), len = 0;
		bool brace = s[0] == '$' && s[1] == '{';
		if (s[0] == '$') {
			for (k = 0; k < ARRAY_SIZE(names); k++) {
				len = strlen(names[k]);
				const char *n = s + 1 + brace;
				if (strncmp(n, names[k], len) != 0)
					continue;
				/* $ORIGINX is not $ORIGIN: the name must end. */
				if (brace ? n[len] == '}'
					  : !(isalnum((unsigned char)n[len]) || n[len] == '_'))
					break;
			}
		}
		if (k == ARRAY_SIZE(names)) {
			buf_append(&b, s++, 1);
			continue;
		}
		if (k == 0) {
			const char *slash = strrchr(o->path, '/');
			buf_append(&b, o->path, (size_t)(slash - o->path));
		} else if (k == 1) {
			buf_append(&b, w->lib, strlen(w->lib));
		} else {
			buf_append(&b, platform(w->exe), strlen(platform(w->exe)));
		}
		s += 1 + brace + len + brace;
	}
	return b.p;
}

/* If dir/name is a library the executable can load, its real path. */
static char *try_dir(struct walk *w, const char *dir, const char *name, char **found)
{
	char *path = xasprintf("%s/%s", dir, name);
	char *real = elf_real_path(w->r, path);

	if (real) {
		struct obj *o = elf_obj_get(w->r, real);
		if (o->kind == 1 && o->elf.cls == w->exe->cls && o->elf.data == w->exe->data &&
		    o->elf.machine == w->exe->machine) {
			*found = path;
			return real;
		}
		log_debug("%s: skipped, not a library for %s", path, w->nodes[0].o->path);
		free(real);
	}
	free(path);
	return NULL;
}

static char *try_list(struct walk *w, const struct obj *o, const char *list, const char *name,
		      char **found)
{
	struct strv dirs = { 0 };
	char *real = NULL;

	strv_split(&dirs, list, ":");
	for (size_t i = 0; i < dirs.n && !real; i++) {
		char *d = expand_dst(w, o, dirs.v[i]);
		/* A relative entry is relative to the working directory of
		 * the process: meaningless here. */
		if (d[0] == '/')
			real = try_dir(w, d, name, found);
		free(d);
	}
	strv_free(&dirs);
	return real;
}

/* One RPATH or RUNPATH as musl expands it: $ORIGIN and ${ORIGIN} are the
 * directory of the object as it was found (the executable's real path,
 * which musl reads from /proc/self/exe); any other $ makes musl drop
 * the whole list. NULL when dropped. */
static char *musl_expand(const struct walk *w, size_t i, const char *list)
{
	const char *as = i == 0 ? w->nodes[0].o->path : w->nodes[i].as;
	const char *slash = strrchr(as, '/');
	struct buf b = { 0 };

	buf_append(&b, "", 0);
	for (const char *s = list; *s;) {
		if (*s != '$') {
			buf_append(&b, s++, 1);
			continue;
		}
		size_t len = strncmp(s, "$ORIGIN", 7) == 0 ? 7 : strncmp(s, "${ORIGIN}", 9) == 0 ? 9 : 0;
		if (!len) {
			log_debug("%s: search path '%s' ignored, as musl does: only $ORIGIN expands", as, list);
			buf_free(&b);
			return NULL;
		}
		buf_append(&b, as, (size_t)(slash - as));
		s += len;
	}
	return b.p;
}

/* The first dir/name of a list that exists, as musl's path_open opens
 * it (it does not go on to the next one when that file is no library
 * of its kind: loading it fails). 1 found (*real, *found), 0 none,
 * -1 found but unfit. */
static int musl_try(struct walk *w, const struct strv *dirs, const char *name, char **found,
		    char **real)
{
	for (size_t k = 0; k < dirs->n; k++) {
		if (dirs->v[k][0] != '/')
			continue; /* relative to the working directory: meaningless here */
		char *path = xasprintf("%s/%s", dirs->v[k], name);
		*real = elf_real_path(w->r, path);
		if (!*real) {
			free(path);
			continue;
		}
		struct obj *o = elf_obj_get(w->r, *real);
		if (o->kind == 1 && o->elf.cls == w->exe->cls && o->elf.data == w->exe->data &&
		    o->elf.machine == w->exe->machine) {
			*found = path;
			return 1;
		}
		log_warn("%s: not a library for %s, and musl's loader would stop at it", path,
			 w->nodes[0].o->path);
		free(path);
		free(*real);
		*real = NULL;
		return -1;
	}
	return 0;
}

/* musl's ldso/dynlink.c load_library(): the names of its own parts
 * (libc.*, libpthread.*, libm.*, ...) and its own path are the loader
 * itself; then the RPATH or RUNPATH (RUNPATH wins, one list per
 * object, glibc's inheritance rules do not apply) of the needing object
 * and of each object that loaded it, up to the executable; then its
 * library path (w->musl_dirs). No ld.so.conf, no cache. */
static char *musl_find(struct walk *w, size_t i, const char *name, char **found)
{
	static const char *const self[] = { "c.", "pthread.", "rt.", "m.", "dl.", "util.", "xnet." };
	const char *interp = w->exe->interp;
	char *real = NULL;
	int r = 0;

	for (size_t k = 0; k < ARRAY_SIZE(self); k++)
		if (strncmp(name, "lib", 3) == 0 && strncmp(name + 3, self[k], strlen(self[k])) == 0)
			name = interp;
	if (strcmp(name, interp) == 0 || strchr(name, '/')) {
		if (name[0] != '/')
			return NULL;
		real = elf_real_path(w->r, name);
		if (real)
			*found = xstrdup(name);
		return real;
	}
	for (size_t l = i; l != SIZE_MAX && r == 0; l = w->nodes[l].parent) {
		const struct obj *lo = w->nodes[l].o;
		const char *list = lo->elf.runpath ? lo->elf.runpath : lo->elf.rpath;
		char *exp = list ? musl_expand(w, l, list) : NULL;
		if (exp) {
			struct strv dirs = { 0 };
			strv_split(&dirs, exp, ":\n");
			r = musl_try(w, &dirs, name, found, &real);
			strv_free(&dirs);
			free(exp);
		}
	}
	if (r == 0)
		musl_try(w, &w->musl_dirs, name, found, &real);
	return real;
}

/* Find name as needed by node i; returns the real path and sets *found
 * to the path as searched (whose symlinks the image keeps). */
char *elf_find_library(struct walk *w, size_t i, const char *name, char **found)
{
	const struct obj *o = w->nodes[i].o;
	char *real = NULL;

	if (w->musl)
		return musl_find(w, i, name, found);
	if (strchr(name, '/')) {
		if (name[0] != '/')
			return NULL;
		real = elf_real_path(w->r, name);
		if (real)
			*found = xstrdup(name);
		return real;
	}
	if (!o->elf.runpath)
		for (size_t l = i; l != SIZE_MAX && !real; l = w->nodes[l].parent) {
			const struct obj *lo = w->nodes[l].o;
			if (lo->elf.rpath && !lo->elf.runpath)
				real = try_list(w, lo, lo->elf.rpath, name, found);
		}
	if (!real && o->elf.runpath)
		real = try_list(w, o, o->elf.runpath, name, found);

	const struct strv *conf = elf_conf_dirs(w->r);
	for (size_t k = 0; k < conf->n && !real; k++)
		real = try_dir(w, conf->v[k], name, found);

	if (!real) {
		const char *tuple = multiarch_tuple(w->exe);
		char *defaults[6] = { 0 };
		size_t nd = 0;
		if (tuple) {
			defaults[nd++] = xasprintf("/lib/%s", tuple);
			defaults[nd++] = xasprintf("/usr/lib/%s", tuple);
		}
		if (w->exe->cls == ELFCLASS64) {
			defaults[nd++] = xstrdup("/lib64");
			defaults[nd++] = xstrdup("/usr/lib64");
		}
		defaults[nd++] = xstrdup("/lib");
		defaults[nd++] = xstrdup("/usr/lib");
		for (size_t k = 0; k < nd; k++) {
			if (!real)
				real = try_dir(w, defaults[k], name, found);
			free(defaults[k]);
		}
	}
	return real;
}
