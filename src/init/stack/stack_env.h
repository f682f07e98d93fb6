/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_STACK_ENV_H
#define UNIRAMFS_INIT_STACK_STACK_ENV_H

#include <stdbool.h>

#include "init/core/ops.h"

struct askpass;
struct driverq;
struct jobq;
struct loop;
struct modload;
struct registry;
struct stack;

/* The network, as far as the stack cares: clevis reaches its Tang
 * server over it. */
enum stack_net {
	STACK_NET_UNWANTED, /* the command line asks for none: it will not come */
	STACK_NET_COMING,   /* asked for, no interface configured yet */
	STACK_NET_UP,       /* an interface is configured */
	STACK_NET_FAILED,   /* every candidate gave up */
};

/* Everything the storage stack (LUKS, LVM, md) uses of the boot, and no
 * more: the init fills it (sequence.c, the composition root) and hands
 * the layers this instead of itself, so the stack does not know the
 * init, the stages or the network, and a test drives it with only what
 * it reads. */
struct stack_env {
	const struct sysops *ops;
	const struct initops *xops;
	struct stack *stack;       /* the layers' options (stack_parse) and what was done */
	struct loop *loop;         /* the TPM wait and the prompt pump it */
	struct modload *ml;        /* the image's modules; NULL: none could be read */
	struct driverq *drivers;   /* loaded at once before a prompt or a TPM wait */
	struct jobq *jobs;         /* where the layers queue what blocks */
	struct registry *devs;     /* the block devices seen */
	struct askpass *remote;    /* SSH logins answer the prompt here too; NULL: none */
	char *const *tool_envp;    /* PATH, HOME, TERM for cryptsetup, lvm, mdadm */
	const char *keymap;        /* the console's, the prompt names it; NULL: the kernel's */
	long long *stall_ms;       /* time a person spent at a prompt is added here */
	/* What only the boot knows, asked each time (ctx is theirs):
	 * whether the root device is there (an unlock without a name in
	 * the command line or crypttab is only for a root still to come),
	 * and where the network is (clevis). */
	bool (*root_found)(void *ctx);
	enum stack_net (*net)(void *ctx);
	void *ctx;
};

#endif
