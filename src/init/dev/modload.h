/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_MODLOAD_H
#define UNIRAMFS_INIT_MODLOAD_H

#include <stdbool.h>

#include "init/core/ops.h"

/* Module loading from the image's /lib/modules/KVER text indexes
 * (modules.alias, modules.dep, modules.softdep) and /etc/modprobe.d,
 * without libkmod: the init is static and small. */
struct modload;

/* moddir: "/lib/modules/KVER" as the init sees it (read via ops->path). */
struct modload *modload_new(const struct sysops *ops, const char *moddir);
void modload_free(struct modload *m);
/* From modprobe.blacklist=, rd.driver.blacklist=, blacklist=. A
 * blacklisted module is never loaded by alias; by explicit name only
 * when force is set. */
void modload_blacklist(struct modload *m, const char *name);
/* From "module.param=value" on the command line; appended after the
 * image's modprobe.d options for that module. */
void modload_add_param(struct modload *m, const char *module, const char *param);
/* Say each module this loader inserts from now on at info level, as
 * "WHY: loaded NAME" (the kernel's requests, whose loads nobody else
 * would see). why must outlive m's use. */
void modload_announce(struct modload *m, const char *why);
/* Resolve a modalias (glob match against modules.alias, as modprobe
 * does) and load every match with its softdeps and dependencies first.
 * Returns the number of modules the alias matched (0: no module in the
 * image for it; the caller remembers that for the failure report), or
 * a negative code on a hard error. A module that fails to load is logged and
 * skipped. Already-loaded modules are not loaded twice. */
int modload_alias(struct modload *m, const char *modalias);
/* Load by module name (rd.driver.pre=, filesystems). 0 ok (or already
 * loaded: finit_module's -EEXIST), or a negative code (err set; -ENOENT:
 * no such module in the image). */
int modload_name(struct modload *m, const char *name);
/* A filesystem's module by name or its fs- alias (ext3 and ext2 are
 * ext4's); quiet when there is none (built in). m may be NULL. */
void modload_fs(struct modload *m, const char *type);

#endif
