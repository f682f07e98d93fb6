/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_ELF_PARSE_H
#define UNIRAMFS_ELF_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* What dependency resolution needs from one ELF file: read from the
 * program headers and the dynamic section only, as ld.so does, so
 * stripped files and files without section headers work. */

enum elf_dlopen_priority {
	ELF_DLOPEN_REQUIRED,
	ELF_DLOPEN_RECOMMENDED, /* the spec's default when none is given */
	ELF_DLOPEN_SUGGESTED,
	ELF_DLOPEN_UNKNOWN,
};

/* One entry of a .note.dlopen JSON array: any one of the sonames will
 * do (they are alternatives, e.g. libfoo.so.2 and libfoo.so.1). */
struct elf_dlopen {
	struct strv sonames;
	enum elf_dlopen_priority priority;
};

struct elf_file {
	unsigned char cls;  /* ELFCLASS32 / ELFCLASS64 */
	unsigned char data; /* ELFDATA2LSB / ELFDATA2MSB */
	uint16_t type;
	uint16_t machine;
	char *interp;  /* PT_INTERP, or NULL */
	char *soname;  /* DT_SONAME, or NULL */
	char *rpath;   /* DT_RPATH as written, or NULL */
	char *runpath; /* DT_RUNPATH as written, or NULL */
	struct strv needed;
	struct elf_dlopen *dlopen;
	size_t n_dlopen;
};

/* Parse n bytes at p. Returns 1 for an ELF file (f filled in), 0 when p
 * is not ELF at all (no magic), -EINVAL (err_set, naming `name`) when it claims
 * to be ELF but is malformed: every offset is checked against n. */
int elf_parse(const void *p, size_t n, const char *name, struct elf_file *f);
/* Same for a file on disk (mapped read-only). Also -errno (err_* set) when unreadable. */
int elf_parse_path(const char *path, struct elf_file *f);
void elf_file_free(struct elf_file *f);

/* A file's dynamic symbols, by name: the ones it imports, and the
 * global or weak ones it defines; the symbol versions it needs of each
 * library ("FILE:VERSION") and those it defines. */
struct elf_symbols {
	struct strv undefined, defined;
	struct strv need_versions, versions;
};
/* As elf_parse, filling syms too when not NULL (zeroed by the caller). */
int elf_parse_symbols(const void *p, size_t n, const char *name, struct elf_file *f,
		      struct elf_symbols *syms);
/* As elf_parse_path, filling s (empty when the table cannot be read:
 * no DT_HASH or DT_GNU_HASH says how long it is). */
int elf_symbols_path(const char *path, struct elf_symbols *s);
void elf_symbols_free(struct elf_symbols *s);

/* Parse the JSON text of one .note.dlopen descriptor and append its
 * entries to f. Returns 0, or -EINVAL on malformed JSON (nothing appended; no message). */
int elf_parse_dlopen_json(const char *json, size_t n, struct elf_file *f);

#endif
