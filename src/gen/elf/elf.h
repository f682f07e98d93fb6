/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_ELF_H
#define UNIRAMFS_ELF_H

#include "gen/image/image.h"

/* ELF dependency resolution done by reading the files, never by running
 * them (ldd runs the target). One resolver caches across binaries. */
struct elf_resolver;

/* sysroot "" or "/" is the host. */
struct elf_resolver *elf_resolver_new(const char *sysroot);
void elf_resolver_free(struct elf_resolver *r);
/* name: an absolute path, or a command searched in the usual bin dirs.
 * Adds it, its interpreter, and every library it needs (recursively,
 * DT_NEEDED, RPATH/RUNPATH with $ORIGIN, ld.so.conf dirs, .note.dlopen
 * entries when present) to img with symlinks preserved. */
int elf_add_binary(struct elf_resolver *r, struct image *img, const char *name);
/* From now on, pack the host file path in place of the library soname
 * (a stand-in with fewer needs, src/notls/), under the name soname in
 * the real library's directory: only where the stand-in is an ELF of the
 * binary's class and machine and the image has no file there yet; else
 * the real library, as before. One stand-in per resolver. */
void elf_resolver_stand_in(struct elf_resolver *r, const char *soname, const char *path);

#endif
