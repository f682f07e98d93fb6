/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_SHELL_ASSIGN_H
#define UNIRAMFS_SHELL_ASSIGN_H

#include <stdbool.h>

#include "util.h"

/* One statement of a shell-syntax config file (initramfs.conf,
 * dracut.conf, mkinitcpio.conf) as a config reader sees it: NAME=VALUE,
 * NAME+=VALUE or NAME=(WORD...). Nothing is executed or expanded. */
struct shell_assign {
	const char *name;   /* NULL: a statement that is no assignment */
	bool append;        /* += */
	bool array;         /* NAME=( ... ) */
	bool expands;       /* holds an unquoted or "quoted" $ or ` */
	struct strv words;  /* array: its words; else one word, the value */
	const char *text;   /* the statement as written, for messages */
	unsigned line;
};

typedef int (*shell_assign_fn)(void *userdata, const struct shell_assign *a);

/* Call fn for each statement of data in order. -errno + err_* naming
 * name:line for an unterminated quote or array, or when fn fails. */
int shell_assignments(const char *name, const char *data, shell_assign_fn fn, void *userdata);

#endif
