/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One LUKS unlock as its job carries it, shared by luks.c (which
 * devices, when) and luks_try.c (with which key). Not an API. */
#ifndef UNIRAMFS_INIT_STACK_LUKS_UNLOCK_H
#define UNIRAMFS_INIT_STACK_LUKS_UNLOCK_H

#include "init/stack/stack.h"

/* What an unlock job needs, its own copies: the registry's device may
 * change or go while it runs. */
struct unlock {
	char *devnode, *uuid, *name, *key; /* key NULL: ask */
	char *keydev;                      /* the device holding key; NULL: the image */
	char *keynode, *keytype;           /* keydev's node and filesystem, once seen */
	bool generic; /* no rd.luks.uuid/name, no crypttab entry: only while the root is to come */
	bool net_waited; /* parked for clevis's network once: key and tokens were tried */
	const struct crypttab_entry *ct; /* its crypttab line (the stack's, for the boot), or NULL */
	struct luks_opts opts;
	struct luks_hdr_src hdr; /* a detached header: where it is */
};

/* Every way to open u, in docs/unlock.md's order: key file, tokens,
 * clevis, keyscript, a passphrase typed earlier, the prompt. 1: unlocked;
 * 0: every try wrong; negative: not opened otherwise (said); 2: parked
 * for the network (clevis waits for it), u then empty. */
int luks_unlock_run(struct stack_env *env, struct unlock *u);

#endif
