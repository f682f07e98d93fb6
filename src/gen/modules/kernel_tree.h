/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_KERNEL_TREE_H
#define UNIRAMFS_KERNEL_TREE_H

#include <stdbool.h>

/* A kernel build directory used in place of an installed kernel: the
 * version from include/config/kernel.release, the modules straight from
 * the tree after `make modules` (no modules_install). libkmod needs a
 * module directory with depmod's indexes, so one is staged in a
 * temporary directory: kernel/PATH links to each built .ko named by
 * modules.order, the tree's modules.builtin(.modinfo), and depmod -b
 * run over it (with System.map, so unresolved symbols are reported). */
struct kernel_tree {
	char *dir;
	char *kver;
	bool modules;     /* CONFIG_MODULES: false means no module directory */
	char *stage;      /* the temporary base, removed by kernel_tree_close */
	char *kmoddir;    /* stage/lib/modules/KVER, or NULL without modules */
	char *builtin;    /* the tree's modules.builtin, or NULL */
};

/* kver: the version asked for (-k), or NULL; it must match the tree's. */
int kernel_tree_open(struct kernel_tree *kt, const char *dir, const char *kver);
void kernel_tree_close(struct kernel_tree *kt);

/* Checks a kernel.release text: one line, a usable directory name.
 * Returns the version (malloc'ed) or NULL + err_set naming the text. */
char *kernel_release_parse(const char *text, const char *where);
/* Turns one modules.order line into the path under the module directory
 * ("kernel/drivers/x.ko"): the tree lists "drivers/x.o" (6.2 on),
 * "drivers/x.ko" or "kernel/drivers/x.ko". NULL + err_set for a path that
 * is absolute, climbs with "..", or names no module. */
char *modules_order_path(const char *line, const char *where);

#endif
