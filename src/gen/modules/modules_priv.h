/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared between modules.c (resolution), modules_generic.c (the generic
 * set) and modules_index.c (emitting files and indexes). Not an API. */
#ifndef UNIRAMFS_MODULES_PRIV_H
#define UNIRAMFS_MODULES_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "gen/modules/modules.h"
#include "nameset.h"

struct kmod_ctx;
struct kmod_module;

struct mod {
	char *name;    /* kmod's name: underscores */
	char *path;    /* host path of the .ko[.xz|.zst|.gz] */
	char *relpath; /* relative to kmoddir, compression suffix removed */
	bool compressed;
	struct kmod_module *km;
	struct strv imports; /* symbols it uses (mod_read) */
	/* Filled by modules_emit: position in modules.order, and in
	 * depmod's topological order of the subset (modules.dep's lists
	 * are sorted by it). */
	size_t order_idx, dep_sort;
};

struct modules {
	struct kmod_ctx *ctx;
	char *kmoddir;  /* as given, no trailing slash */
	char *root;     /* the sysroot: firmware and modprobe.d are inside it */
	char *modroot;  /* kmoddir is modroot + modrel: the sysroot when it */
	char *modrel;   /* is inside it, else kmoddir itself (--kmoddir, a tree) */
	char *kver;
	struct strv fwdirs;
	bool fw_summary; /* missing firmware: one line, unless verbose */
	struct nameset omit;    /* normalised names */
	struct nameset seen;    /* every name met while resolving */
	struct nameset builtin; /* names from modules.builtin */
	struct nameset byname;  /* name -> struct mod */
	struct nameset byrel;   /* relpath (no suffix) -> struct mod */
	struct mod **mods;      /* chosen, dependencies before dependents */
	size_t n, cap;
};

/* Name as kmod spells it: '-' becomes '_'. Returns a new string. */
char *modname_normalize(const char *name);
/* The module name a path like kernel/fs/ext4/ext4.ko.xz stands for. */
char *modname_from_path(const char *path);
/* Length of path without a .xz/.zst/.gz suffix after .ko. */
size_t ko_strip_len(const char *path);
/* rel, a path below kmoddir, resolved inside the module root
 * (sysroot_path): *host the host path of the final file. */
int modules_file(const struct modules *m, const char *rel, char **host, struct stat *st);
/* The chosen module called name (any spelling), or NULL. */
struct mod *modules_find(const struct modules *m, const char *name);

/* modules_read.c: each module file is read once. */
struct buf;
struct kmod_list;
/* Read d's file: a compressed module's plain bytes into *plain (the
 * file decompressed within decompress_set_limit; an error names the
 * file), left empty for a plain one; its modinfo into *info
 * (kmod_module_info_free_list it) and the symbols it imports into
 * d->imports, both from that copy. */
int mod_read(const struct modules *m, struct mod *d, struct buf *plain, struct kmod_list **info);

#endif
