/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_PLUGIN_H
#define UNIRAMFS_PLUGIN_H

#include <stdbool.h>

#include "gen/hostonly/hostonly.h"
#include "gen/image/image.h"
#include "util.h"

/* A package's extension of the image (docs/plugins.md): a file in the
 * syntax of uniramfs.conf, read from SYSROOT/usr/lib/uniramfs/plugins.d
 * and SYSROOT/etc/uniramfs/plugins.d (the same file name in /etc wins),
 * then the `plugin = FILE` files of the config (host paths, winning
 * over both). */
#define PLUGINS_LIB_DIR "/usr/lib/uniramfs/plugins.d"
#define PLUGINS_ETC_DIR "/etc/uniramfs/plugins.d"

/* Bounds on a hostile file: bytes, one line, items of one plugin, plugins. */
#define PLUGIN_MAX_BYTES (64u * 1024)
#define PLUGIN_MAX_LINE 4096u
#define PLUGIN_MAX_ITEMS 256u
#define PLUGIN_MAX_FILES 1024u
/* Words of one layer-run; a program's time limit, seconds. */
#define PLUGIN_MAX_WORDS 64u
#define PLUGIN_MAX_SECONDS 3600u

/* Values with the FILE:LINE each came from, for the messages of the
 * build (a program missing, a module unknown). */
struct plugin_list {
	struct strv v;
	struct strv where;
};

struct plugin {
	char *name;  /* the file name without .conf: the override key */
	char *shown; /* the file as messages name it */
	char *description;
	struct plugin_list replaces; /* "initramfs-tools:zfs", "dracut:90zfs" */
	/* conditions (docs/plugins.md, "When a plugin is packed") */
	struct plugin_list if_program;    /* generic-if-program */
	struct plugin_list if_fstype;     /* hostonly-if-fstype */
	struct plugin_list if_blkid_type; /* hostonly-if-blkid-type */
	struct plugin_list if_module;     /* hostonly-if-module */
	/* build time */
	struct plugin_list programs, modules, firmware, files, optional_files, hooks;
	/* packed when the kernel has them; named here, a row's module is not
	 * required either (lvm's dm targets on a kernel without them) */
	struct plugin_list optional_modules;
	struct plugin_list optional_programs; /* packed when the host has them (a pin it may lack) */
	struct plugin_list if_feature;        /* packed only with this feature of uniramfs's (clevis) */
	/* boot time: packed as LAYOUT_PLUGIN_ROWS_FILE, run by the init */
	struct plugin_list layer_types, layer_program, layer_modules, layer_options;
	struct plugin_list layer_runs;          /* each one run's words after the program */
	struct plugin_list layer_switch;        /* KEY: KEY=0 on the command line turns the row off */
	struct plugin_list layer_retry_modules; /* loaded after a failed run, then the runs again */
	struct plugin_list layer_limit, root_limit; /* seconds, one value */
	struct plugin_list root_prefixes, root_program, root_modules;
	struct plugin_list claim_globs, claim_program, claim_modules, claim_options;
	size_t nitems;
	bool on; /* chosen for this image (plugins_select) */
};

struct plugins {
	struct plugin *v;
	size_t n;
};

/* plugin_read.c */
/* Parse one plugin's text (modified in place). name: its override key;
 * shown: the file in messages. -EINVAL + err_set "SHOWN:LINE: ..." on
 * an unknown key, a bad or too long value, a path that is not absolute
 * or has a "..", a boot-time row left half written. */
int plugin_parse(struct plugin *p, const char *name, const char *shown, char *data);
/* Every plugin for SYSROOT, sorted by name, plus the host files extra
 * (the config's `plugin` key); then plugins_check_conflicts. */
int plugins_read(struct plugins *ps, const char *sysroot, const struct strv *extra);
/* The same, with uniramfs's own plugins first (own: a host directory,
 * plugins_own_dir's; NULL: none), each replaced by a sysroot's plugin of
 * the same name. */
int plugins_read_all(struct plugins *ps, const char *own, const char *sysroot, const struct strv *extra);
/* Where uniramfs's own plugins are (the tree's plugins/, copied beside
 * uniramfs in a build tree; installed, UNIRAMFS_PLUGINDIR), or NULL. */
char *plugins_own_dir(void);
void plugins_free(struct plugins *ps);

/* plugin_check.c */
/* Two plugins claiming one blkid type or root= prefix (one a prefix of
 * the other), or a plugin claiming one of the init's own, is an error
 * naming both places. */
int plugins_check_conflicts(const struct plugins *ps);
/* Value checks shared with the parser: a path inside the sysroot
 * (absolute, no ".." component, printable, no blank). */
bool plugin_path_ok(const char *path);
/* A name: letters, digits and "._-+:=@", no blank, no slash. */
bool plugin_token_ok(const char *s);
/* A root= prefix: a name that may hold slashes. */
bool plugin_prefix_ok(const char *s);
/* A kernel device name pattern (claim-devices): letters, digits, "_-"
 * and the wildcards "*?", at most 32 characters. */
bool plugin_glob_ok(const char *s);
/* A layer-run: blank-separated words, each a name, a path or {NAME};
 * at most PLUGIN_MAX_WORDS. */
bool plugin_run_ok(const char *run);
/* The first {NAME} of run that is neither {device} nor in options, or
 * NULL (a static buffer). */
const char *plugin_run_unknown(const char *run, const struct strv *options);
/* A chosen plugin packs this program (a name, or a path whose last
 * part is it): the generator writes what that program needs beside it
 * (lvm's udev-less lvm.conf). */
bool plugins_pack_program(const struct plugins *ps, const char *name);

/* plugin_plan.c */
/* What a hostonly build knows of the root, as the conditions ask it. */
struct plugin_facts {
	bool hostonly;
	struct strv fstypes, blkid_types, modules;
	/* uniramfs's features in this image, as its C decided them
	 * (PLUGIN_FEATURES): what if-feature asks */
	struct strv features;
};
/* The features an if-feature may name. */
#define PLUGIN_FEATURES "clevis", "clevis-tpm2", "ssh-unlock", "overlay-tools", "live-https", "plymouth", "kdump"
/* The first program (programs, layer-, root-, claim-program) of a plugin
 * with if-feature = feature that the host lacks: 1 with *prog and *where
 * (its FILE:LINE) set, 0 when none is missing. */
int plugins_feature_missing(const struct plugins *ps, const char *sysroot, const char *feature,
			    const char **prog, const char **where);
void plugin_facts_hostonly(struct plugin_facts *f, const struct hostonly *h);
void plugin_facts_free(struct plugin_facts *f);
/* Mark the plugins this image takes (p->on), each said with -v. */
void plugins_select(struct plugins *ps, const char *sysroot, const struct plugin_facts *f);
/* fn for each module a chosen plugin needs (modules, optional-modules,
 * layer-modules, layer-retry-modules, root-modules); required false for
 * one optional-modules names: the kernel may lack it. A failure is
 * wrapped with the FILE:LINE that named it. */
typedef int (*plugin_module_fn)(void *ctx, const char *module, bool required);
int plugins_each_module(const struct plugins *ps, plugin_module_fn fn, void *ctx);
/* The chosen plugins' programs (with their libraries), firmware, files
 * and hooks, and LAYOUT_PLUGIN_ROWS_FILE for their boot-time rows. */
int plugins_add(const struct plugins *ps, struct image *img, const char *sysroot, const char *kver);
/* The chosen plugins' boot-time rows, as LAYOUT_PLUGIN_ROWS_FILE holds
 * them (docs/plugins.md), appended to out. */
void plugins_rows(const struct plugins *ps, const char *sysroot, struct buf *out);

/* plugin_need.c */
/* A hostonly root on a layer only a plugin opens (dm-multipath) with no
 * packed plugin for it, or without the tool that plugin packs:
 * -EINVAL, err_set naming what is missing. */
int plugins_check_needed(const struct plugins *ps, const char *sysroot, const struct plugin_facts *f);

/* plugin_cover.c */
/* A hostonly build's notice: the host's initramfs-tools hooks and
 * dracut modules that neither uniramfs nor a plugin's `replaces` covers,
 * of those in use (their tool there, their root filesystem f's).
 * *text gets the list (NULL: none), for tests. */
int plugins_uncovered(const struct plugins *ps, const char *sysroot, const struct plugin_facts *f, char **text);

#endif
