/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_LUKS_CLEVIS_H
#define UNIRAMFS_INIT_STACK_LUKS_CLEVIS_H

#include <stdbool.h>
#include <stddef.h>

#include "init/stack/luks_opts.h"
#include "init/stack/stack_env.h"

/* Where the network is for a clevis unlock. */
enum clevis_net {
	CLEVIS_NET_UP,       /* configured: ask Tang */
	CLEVIS_NET_WAIT,     /* coming: the unlock waits for it */
	CLEVIS_NET_UNWANTED, /* no ip= or rd.neednet=1: it will not come */
	CLEVIS_NET_DOWN,     /* it failed, or the wait's bound passed */
};
/* net: the boot's answer (stack_env's net); waited: the unlock waited
 * already, or the bound (half the root timeout) has passed. */
enum clevis_net luks_clevis_net(enum stack_net net, bool waited);

/* clevis luks unlock -d DEV -n NAME into argv (room for LUKS_CLEVIS_ARGV):
 * its count. */
#define LUKS_CLEVIS_ARGV 8
size_t luks_clevis_argv(const char **argv, const char *dev, const char *name);

enum luks_clevis {
	LUKS_CLEVIS_NO,     /* not tried or failed (said why): the passphrase */
	LUKS_CLEVIS_OPENED, /* unlocked as name */
	LUKS_CLEVIS_WAIT,   /* the network is coming: try again once it is there */
};
/* After the tokens, before the prompt: when dev's LUKS2 header has a
 * clevis token and the image has clevis. waited: as luks_clevis_net's. */
enum luks_clevis luks_clevis_try(struct stack_env *env, const char *dev, const char *name,
				 const struct luks_opts *o, bool waited);

#endif
