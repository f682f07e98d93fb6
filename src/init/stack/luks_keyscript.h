/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_LUKS_KEYSCRIPT_H
#define UNIRAMFS_INIT_STACK_LUKS_KEYSCRIPT_H

#include <stddef.h>

#include "init/stack/stack_env.h"

/* Where Debian's cryptsetup finds a keyscript= given by name. */
#define LUKS_KEYSCRIPT_DIR "/lib/cryptsetup/scripts"
/* The most a keyscript may print: more is no key but a mistake. */
#define LUKS_KEYSCRIPT_MAX 8192

/* One crypttab line's keyscript, with what Debian tells it. */
struct luks_keyscript {
	const char *script;  /* keyscript=: absolute, or a name in LUKS_KEYSCRIPT_DIR */
	const char *name;    /* CRYPTTAB_NAME: the dm name */
	const char *source;  /* CRYPTTAB_SOURCE: the device node */
	const char *key;     /* CRYPTTAB_KEY and argv[1]: the third field */
	const char *options; /* CRYPTTAB_OPTIONS: the fourth field */
	long tries;          /* runs before giving up; 0: until one opens it */
};

/* The script's path in the image (yours to free). */
char *luks_keyscript_path(const char *script);
/* Run the script (the stack's tool runner) and hand its stdout to
 * open (cryptsetup with it as a key file: its exit status, 2 for a key
 * that opens no slot) until one opens the device or the tries are
 * spent. 1: opened; 0: every try failed (said, with the count); a
 * negative code: cannot go on (said). */
int luks_keyscript_unlock(struct stack_env *env, const struct luks_keyscript *ks,
			  int (*open)(void *ctx, const void *key, size_t len), void *ctx);

#endif
