/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_GEN_RESCUE_H
#define UNIRAMFS_GEN_RESCUE_H

#include "gen/image/image.h"

/* rescue_shell: auto, yes, no in that order (config.c's T_AUTO). */
enum rescue_shell { RESCUE_SHELL_AUTO, RESCUE_SHELL_YES, RESCUE_SHELL_NO };

/* The rescue keys of struct build_opts, all the rescue shell reads. */
struct rescue_opts {
	enum rescue_shell shell;
	char *password_hash;    /* a crypt(3) hash for the rescue shell */
	char *password_account; /* or this account's hash from SYSROOT/etc/shadow */
};

/* The rescue shell every image carries unless rescue_shell = no: the
 * host's busybox (Debian's busybox-static or busybox install the same
 * /bin/busybox), which the init's emergency shell and rd.break run as
 * "sh" and hook scripts find as /bin/sh. auto: packed when the host has
 * one, else a notice; yes: missing is an error; no: left out. An image
 * the user already gave busybox (--add-binaries) is left as it is.
 * With a shell, the password the init asks before it starts one
 * (LAYOUT_RESCUE_PASSWORD_FILE, 0600): rescue_password_hash, a crypt(3)
 * hash checked for crypt's alphabet, or rescue_password_account's hash
 * from SYSROOT/etc/shadow, read inside the sysroot; a locked or empty
 * one is an error, never a plain text. */
int rescue_plan_add(struct image *img, const char *sysroot, const struct rescue_opts *o);

#endif
