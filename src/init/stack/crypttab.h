/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_CRYPTTAB_H
#define UNIRAMFS_INIT_STACK_CRYPTTAB_H

#include <stddef.h>

#include "init/core/ops.h"

struct crypttab_entry {
	char *name, *device, *keyfile, *options; /* keyfile NULL: ask */
	char *keyfield; /* the third field as written ("none" when there is none): a keyscript's argument */
};

struct crypttab {
	struct crypttab_entry *v;
	size_t n, cap;
};

/* Append each "NAME DEVICE [KEYFILE [OPTIONS]]" line of data (changed
 * in place) to t; comments and lines of one word are skipped. */
void crypttab_parse(char *data, struct crypttab *t);
/* The same from a file (through ops->path): 0, -ENOENT when there is
 * none (nothing said), another negative code (err set). */
int crypttab_read(const struct sysops *ops, const char *path, struct crypttab *t);
void crypttab_free(struct crypttab *t);

#endif
