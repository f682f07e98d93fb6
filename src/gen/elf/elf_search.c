// SPDX-License-Identifier: GPL-2.0-or-later
/* Where ld.so would find one library for one object of a walk: the
 * search order of elf.c's opening comment, $ORIGIN, $PLATFORM and $LIB
 * expanded, a candidate counted only when it is an ELF file of the
 * executable's kind. Called by elf.c; calls elf_resolver.c. */
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

/* Find name as needed by node i; returns the real path and sets *found
 * to the path as searched (whose symlinks the image keeps). */
char *elf_find_library(struct walk *w, size_t i, const char *name, char **found)
{
	const struct obj *o = w->nodes[i].o;
	char *real = NULL;

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
