/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_DEV_MODLOAD_PRIV_H
#define UNIRAMFS_INIT_DEV_MODLOAD_PRIV_H

/* Between modindex.c (reading depmod's files and modprobe.d into these)
 * and modload.c (looking up and loading from them). */
#include <stdbool.h>
#include <stddef.h>

#include "init/core/ops.h"
#include "nameset.h"
#include "util.h"

enum mod_state { M_NEW, M_BUSY, M_LOADED, M_FAILED };

struct mod {
	char *name;         /* normalised */
	const char *path;   /* relative to moddir, NULL if not in modules.dep */
	int *deps;          /* modules.dep order */
	size_t ndeps;
	struct strv pre, post;
	bool softdep_conf;  /* softdeps set by modprobe.d: modules.softdep is ignored */
	struct buf opts;    /* modprobe.d options, then the command line's */
	bool builtin, bl_conf, bl_cmd;
	bool cpu_alias;     /* a cpu: pattern in modules.alias: it is for some CPUs only */
	enum mod_state state;
};

struct alias {
	const char *pat;
	size_t lit;         /* length of the literal prefix before any glob */
	int mod;
	unsigned order;     /* position in the files, to keep modprobe's order */
};

struct modload {
	const struct sysops *ops;
	char *moddir;
	struct mod *mods;
	size_t nmods, capmods;
	struct nameset names; /* name -> index + 1 into mods */
	struct alias *aliases; /* sorted by literal prefix, then order */
	size_t naliases, capaliases;
	struct alias *cfg_aliases; /* modprobe.d, in file order */
	size_t ncfg, capcfg;
	struct strv bufs;   /* file contents the strings above point into */
	const char *announce; /* set: each module inserted is said at info level */
	bool cpu_read;      /* /sys/devices/system/cpu/modalias was looked at */
	bool cpu_known;     /* and read: cpu_mods are the modules its aliases match */
	int *cpu_mods;
	size_t ncpu_mods;
};

void normalize_name(char *s);
/* kmod's alias_normalize: '-' is '_' except inside a [...] class. */
void normalize_alias(char *s);
/* The module's index in m->mods, -1 if unknown (name normalised). */
int mod_find(const struct modload *m, const char *name);
/* The same, made (empty) if unknown. */
int mod_get(struct modload *m, const char *name);
/* Order of two literal prefixes (the sorted aliases). */
int lit_cmp(const char *a, size_t la, const char *b, size_t lb);

#endif
