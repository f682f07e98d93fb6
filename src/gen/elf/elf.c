// SPDX-License-Identifier: GPL-2.0-or-later
/* Which files a program needs to run, found the way ld.so would find
 * them, by reading ELF headers only: nothing is executed.
 *
 * Library search order for a DT_NEEDED name (glibc's, minus what cannot
 * apply to a file that is not running):
 *   1. a name with a '/' is a path;
 *   2. DT_RPATH of the needing object and then of each object that
 *      loaded it, up to the executable, skipping objects that have a
 *      DT_RUNPATH (ld.so ignores RPATH there), and only if the needing
 *      object itself has no DT_RUNPATH;
 *   3. LD_LIBRARY_PATH: never (it belongs to a shell, not the image);
 *   4. DT_RUNPATH of the needing object;
 *   5. the directories of sysroot/etc/ld.so.conf (ld.so reads the cache
 *      ldconfig built from them, so the image gets one: elf_ldcache.c;
 *      `include` globs are followed);
 *   6. the default dirs: /lib/TUPLE, /usr/lib/TUPLE, /lib64 (64-bit
 *      objects), /usr/lib64, /lib, /usr/lib.
 * A candidate only counts when it is an ELF file of the executable's
 * class, byte order and machine (an i386 libc in /usr/lib32 is skipped
 * for an x86_64 program). glibc-hwcaps subdirectories are not searched.
 *
 * In RPATH/RUNPATH, $ORIGIN is the directory of the object's real path
 * (symlinks resolved), $PLATFORM the AT_PLATFORM the kernel would pass
 * (x86_64, i686, aarch64...), and $LIB what this sysroot's ld.so uses:
 * the directory its real file is in, relative to / or /usr (Debian
 * lib/x86_64-linux-gnu, Fedora lib64, Arch lib); for a program without
 * interpreter "lib/TUPLE" when sysroot/lib/TUPLE exists, else lib64 or lib.
 *
 * A program whose interpreter is musl's (ld-musl-ARCH.so.1) is searched
 * by musl's rules instead (elf_search.c, musl_find): its own names
 * (libc.so...) are the loader; one RPATH or RUNPATH per object, of the
 * needing object and those that loaded it; then the dirs of
 * PREFIX/etc/ld-musl-ARCH.path, which the image then carries, or musl's
 * /lib:/usr/local/lib:/usr/lib. */
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
#include "layout.h"
#include "log.h"
#include "util.h"

#define MAX_SCRIPT_DEPTH 4

/* Add a library found for node i under the path it was found as, and
 * queue it for its own dependencies unless this walk already has it. */
static int add_library(struct walk *w, size_t i, const char *name, const char *found,
		       const char *real)
{
	struct obj *o;

	if (image_add_host_path(w->img, w->r->sysroot, found, NULL) < 0)
		return err_wrap("%s (needed by %s)", name, w->nodes[i].o->path);
	strv_push(&w->loaded, name);
	o = elf_obj_get(w->r, real);
	if (o->elf.soname && !strv_contains(&w->loaded, o->elf.soname))
		strv_push(&w->loaded, o->elf.soname);
	for (size_t k = 0; k < w->n; k++)
		if (w->nodes[k].o == o)
			return 0;
	ARRAY_GROW(w->nodes, w->cap, w->n + 1);
	w->nodes[w->n].o = o;
	w->nodes[w->n].as = xstrdup(found);
	w->nodes[w->n++].parent = i;
	return 0;
}

void elf_resolver_stand_in(struct elf_resolver *r, const char *soname, const char *path)
{
	free(r->stand_soname);
	free(r->stand_path);
	if (r->stand_kind == 1)
		elf_file_free(&r->stand_elf);
	r->stand_soname = xstrdup(soname);
	r->stand_path = xstrdup(path);
	elf_symbols_free(&r->stand_syms);
	r->stand_kind = elf_parse_path(path, &r->stand_elf);
	if (r->stand_kind == 1)
		elf_symbols_path(path, &r->stand_syms); /* empty when unreadable: never used */
	if (r->stand_kind != 1) {
		log_debug("%s: not an ELF file, %s packed as it is", path, soname);
		r->stand_kind = -1;
	}
}

/* Whether the stand-in defines every symbol node i imports that the
 * real library (at real, in the sysroot) defines, and every symbol
 * version node i asks of it: a binary of another version may call one it
 * lacks, and ld.so would fail it at start (or at the call). Unreadable
 * tables: no. */
static bool stand_in_covers(const struct walk *w, size_t i, const char *real)
{
	struct elf_symbols user, lib;
	char *host_user = path_join(w->r->sysroot, w->nodes[i].o->path);
	char *host_lib = path_join(w->r->sysroot, real);
	const char *missing = NULL;
	bool covers;

	if (elf_symbols_path(host_user, &user) != 1) {
		free(host_user);
		free(host_lib);
		return false;
	}
	elf_symbols_path(host_lib, &lib); /* empty when unreadable */
	for (size_t k = 0; k < user.undefined.n && !missing; k++) {
		const char *sym = user.undefined.v[k];
		if (strv_contains(&lib.defined, sym) && !strv_contains(&w->r->stand_syms.defined, sym))
			missing = sym;
	}
	for (size_t k = 0; k < user.need_versions.n && !missing; k++) {
		const char *nv = user.need_versions.v[k], *colon = strrchr(nv, ':');
		size_t len = strlen(w->r->stand_soname);
		if (colon && (size_t)(colon - nv) == len && !strncmp(nv, w->r->stand_soname, len) &&
		    !strv_contains(&w->r->stand_syms.versions, colon + 1))
			missing = colon + 1;
	}
	if (missing)
		log_info("%s imports %s, which the stand-in %s lacks: packing %s", host_user, missing,
			 w->r->stand_path, real);
	else if (!lib.defined.n)
		log_info("cannot read the symbols of %s: packing it, not the stand-in", host_lib);
	covers = !missing && lib.defined.n;
	free(host_user);
	free(host_lib);
	elf_symbols_free(&user);
	elf_symbols_free(&lib);
	return covers;
}

/* The stand-in for name, packed beside the real library (found at real)
 * if it fits this walk: 1 when packed, 0 when the real one is to be. Its
 * own needs are the binary's (libc) and are resolved as node i's. */
static int add_stand_in(struct walk *w, size_t i, const char *name, const char *real)
{
	const struct elf_resolver *r = w->r;
	char *dst;
	int rc;

	if (r->stand_kind != 1 || strcmp(name, r->stand_soname) != 0 ||
	    r->stand_elf.cls != w->exe->cls || r->stand_elf.data != w->exe->data ||
	    r->stand_elf.machine != w->exe->machine || !stand_in_covers(w, i, real))
		return 0;
	dst = xasprintf("%.*s/%s", (int)(strrchr(real, '/') - real), real, name);
	if (image_has(w->img, dst)) {
		free(dst);
		return 0;
	}
	rc = image_add_file(w->img, dst, r->stand_path, 0755, 0);
	free(dst);
	if (rc < 0)
		return err_wrap("%s (standing in for %s)", r->stand_path, name);
	strv_push(&w->loaded, name);
	for (size_t k = 0; k < r->stand_elf.needed.n; k++) {
		const char *need = r->stand_elf.needed.v[k];
		char *found = NULL, *lib;
		if (strv_contains(&w->loaded, need))
			continue;
		lib = elf_find_library(w, i, need, &found);
		if (!lib)
			return err_set("%s: library '%s' not found", r->stand_path, need);
		rc = add_library(w, i, need, found, lib);
		free(found);
		free(lib);
		if (rc < 0)
			return rc;
	}
	return 1;
}

static int resolve_needed(struct walk *w, size_t i)
{
	const struct obj *o = w->nodes[i].o;

	for (size_t k = 0; k < o->elf.needed.n; k++) {
		const char *name = o->elf.needed.v[k];
		char *found = NULL, *real;
		int rc;

		if (strv_contains(&w->loaded, name))
			continue;
		real = elf_find_library(w, i, name, &found);
		if (!real)
			return err_set("%s: library '%s' not found", o->path, name);
		rc = add_stand_in(w, i, name, real);
		if (rc == 0)
			rc = add_library(w, i, name, found, real);
		free(found);
		free(real);
		if (rc < 0)
			return rc;
	}
	/* dlopen() dependencies the object declares: any one soname of an
	 * entry will do; a missing one is the normal "feature off" case. */
	for (size_t k = 0; k < o->elf.n_dlopen; k++) {
		const struct elf_dlopen *d = &o->elf.dlopen[k];
		bool done = false;

		if (d->priority != ELF_DLOPEN_REQUIRED && d->priority != ELF_DLOPEN_RECOMMENDED)
			continue;
		for (size_t s = 0; s < d->sonames.n && !done; s++) {
			const char *name = d->sonames.v[s];
			char *found = NULL, *real;
			if (strv_contains(&w->loaded, name)) {
				done = true;
				break;
			}
			real = elf_find_library(w, i, name, &found);
			if (!real)
				continue;
			int rc = add_library(w, i, name, found, real);
			free(found);
			free(real);
			if (rc < 0)
				return rc;
			done = true;
		}
		if (!done)
			log_debug("%s: dlopen() dependency %s not found, skipped", o->path,
				  d->sonames.v[0]);
	}
	return 0;
}

/* A program of musl's loader: musl's library path for the walk, and the
 * file that sets it packed, which the loader reads at boot. */
static int add_musl_path(struct elf_resolver *r, struct image *img, struct walk *w,
			 const char *exe)
{
	char *file = NULL;
	int rc = musl_path_read(r->sysroot, w->exe->interp, &w->musl_dirs, &file);

	w->musl = true;
	if (rc == 0 && file)
		rc = image_add_host_path(img, r->sysroot, file, NULL);
	free(file);
	return rc < 0 ? err_wrap("%s: the library path of its loader %s", exe, w->exe->interp) : 0;
}

static int add_elf(struct elf_resolver *r, struct image *img, struct obj *exe)
{
	struct walk w = { .r = r, .img = img, .exe = &exe->elf };
	int rc = 0;

	if (exe->elf.interp) {
		char *real = elf_real_path(r, exe->elf.interp);
		if (!real)
			return err_set("%s: interpreter '%s' not found", exe->path,
				       exe->elf.interp);
		if (image_add_host_path(img, r->sysroot, exe->elf.interp, NULL) < 0) {
			free(real);
			return err_wrap("interpreter of %s", exe->path);
		}
		/* libc needs ld.so by soname; ld.so satisfies that with
		 * itself, already loaded, without a search. */
		struct obj *io = elf_obj_get(r, real);
		if (io->kind == 1 && io->elf.soname)
			strv_push(&w.loaded, io->elf.soname);
		w.lib = elf_lib_dir(r, &exe->elf, real);
		free(real);
		if (musl_loader(exe->elf.interp))
			rc = add_musl_path(r, img, &w, exe->path);
	} else {
		w.lib = elf_lib_dir(r, &exe->elf, NULL);
	}
	w.cap = 32;
	w.nodes = xmalloc(w.cap * sizeof(*w.nodes));
	w.nodes[0].o = exe;
	w.nodes[0].as = NULL;
	w.nodes[0].parent = SIZE_MAX;
	w.n = 1;
	/* Breadth first, as ld.so loads: the executable's own needs are
	 * searched with its own paths before any library's. */
	for (size_t i = 0; i < w.n && rc == 0; i++)
		rc = resolve_needed(&w, i);
	for (size_t i = 0; i < w.n; i++)
		free(w.nodes[i].as);
	free(w.nodes);
	free(w.lib);
	strv_free(&w.loaded);
	strv_free(&w.musl_dirs);
	return rc;
}

static int add_path(struct elf_resolver *r, struct image *img, const char *path, int depth);

/* "#!/usr/bin/env python3 -u": the interpreter, and for env the command. */
static int add_script_interpreter(struct elf_resolver *r, struct image *img, const char *script,
				  int depth)
{
	char *host = NULL, head[256];
	struct stat st;
	FILE *f = sysroot_path(r->sysroot, script, &host, &st) == 0 ? fopen(host, "re") : NULL;
	char *real;
	size_t n = 0;
	int rc = 0;

	free(host);
	if (!f)
		return err_errno(errno, "%s", script);
	n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	head[n] = '\0';
	if (n < 2 || head[0] != '#' || head[1] != '!')
		return 0;
	head[strcspn(head, "\n")] = '\0';

	struct strv argv = { 0 };
	strv_split(&argv, head + 2, " \t");
	if (!argv.n || argv.v[0][0] != '/') {
		rc = err_set("%s: bad interpreter line '%s'", script, head);
	} else if (depth >= MAX_SCRIPT_DEPTH) {
		rc = err_set("%s: interpreters nested too deep", script);
	} else if (!(real = elf_real_path(r, argv.v[0]))) {
		rc = err_set("%s: interpreter '%s' not found", script, argv.v[0]);
	} else {
		free(real);
		rc = add_path(r, img, argv.v[0], depth + 1);
		const char *base = strrchr(argv.v[0], '/') + 1;
		if (rc == 0 && strcmp(base, "env") == 0) {
			for (size_t i = 1; i < argv.n && rc == 0; i++) {
				if (argv.v[i][0] == '-' || strchr(argv.v[i], '='))
					continue;
				rc = elf_add_binary(r, img, argv.v[i]);
				break;
			}
		}
	}
	strv_free(&argv);
	return rc;
}

static int add_path(struct elf_resolver *r, struct image *img, const char *path, int depth)
{
	char *real = NULL;
	struct obj *o;

	if (image_add_host_path(img, r->sysroot, path, &real) < 0)
		return err_code();
	o = elf_obj_get(r, real);
	if (o->kind < 0) {
		free(real);
		return err_set("%s", o->error);
	}
	if (o->kind == 0) {
		int rc = add_script_interpreter(r, img, real, depth);
		free(real);
		return rc;
	}
	free(real);
	return add_elf(r, img, o);
}

int elf_add_binary(struct elf_resolver *r, struct image *img, const char *name)
{
	char *path = NULL;
	int rc;

	if (!*name)
		return err_set("binary '' not found");
	if (strchr(name, '/')) {
		char *real;
		if (name[0] != '/')
			return err_set("binary '%s': not an absolute path", name);
		real = elf_real_path(r, name);
		if (!real)
			return err_set("binary '%s' not found", name);
		free(real);
		return add_path(r, img, name, 0);
	}
	/* The tool directories in sysroot_find_tool's order, but any file
	 * that resolves inside the sysroot: a name given on the command
	 * line is looked for as PATH would find it. */
	static const char *const dirs[] = { LAYOUT_TOOL_DIRS };
	for (size_t i = 0; i < ARRAY_SIZE(dirs) && !path; i++) {
		char *p = xasprintf("%s/%s", dirs[i], name), *real = elf_real_path(r, p);
		if (real)
			path = p;
		else
			free(p);
		free(real);
	}
	if (!path)
		return err_set("binary '%s' not found in PATH", name);
	rc = add_path(r, img, path, 0);
	free(path);
	return rc;
}
