/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by elf.c (the walk from a program to its libraries), elf_search.c
 * (where ld.so would find one library) and elf_resolver.c (the files parsed
 * once per resolver, below both). Not an API: elf.h is. */
#ifndef UNIRAMFS_ELF_PRIV_H
#define UNIRAMFS_ELF_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/elf/elf.h"
#include "gen/elf/elf_parse.h"
#include "util.h"

/* One file parsed once per resolver, keyed by its real path. */
struct obj {
	char *path; /* real path inside the sysroot */
	int kind;   /* 1 ELF, 0 not ELF, -1 malformed (message kept) */
	char *error;
	struct elf_file elf;
	struct obj *next;
};

struct elf_resolver {
	char *sysroot; /* "" for the host */
	struct obj *table[1024];
	struct strv conf_dirs;
	bool conf_loaded;
	/* elf_resolver_stand_in; kind as struct obj's, 0 when unset */
	char *stand_soname, *stand_path;
	int stand_kind;
	struct elf_file stand_elf;
	struct elf_symbols stand_syms;
};

/* What one elf_add_binary call has pulled in so far. */
struct walk {
	struct elf_resolver *r;
	struct image *img;
	const struct elf_file *exe;
	struct node {
		struct obj *o;
		size_t parent; /* index of the object that needed it, or SIZE_MAX */
		char *as;      /* the path it was found as (musl's $ORIGIN) */
	} *nodes;
	size_t n, cap;
	struct strv loaded; /* names (as needed, and sonames) already satisfied */
	char *lib;          /* what $LIB expands to */
	/* The executable's loader is musl's: its search (elf_search.c) in
	 * these directories (its ld-musl-ARCH.path or built-in path). */
	bool musl;
	struct strv musl_dirs;
};

/* elf_resolver.c. The real path (inside the sysroot) of an existing
 * regular file, or NULL: a library search tries many paths that do not
 * exist. */
char *elf_real_path(const struct elf_resolver *r, const char *path);
/* The file at a real path, parsed the first time it is asked for. */
struct obj *elf_obj_get(struct elf_resolver *r, const char *real);
/* The sysroot's ld.so.conf directories, read the first time. */
const struct strv *elf_conf_dirs(struct elf_resolver *r);

/* elf_search.c. What $LIB expands to for the executable e (interp: its
 * interpreter, or NULL). */
char *elf_lib_dir(const struct elf_resolver *r, const struct elf_file *e, const char *interp);
/* The path node i of the walk finds name at (*found: as found, the
 * return: its real path), or NULL; by musl's rules when w->musl. */
char *elf_find_library(struct walk *w, size_t i, const char *name, char **found);

#endif
