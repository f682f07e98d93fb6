/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_PLUGINS_ASK_ASK_H
#define UNIRAMFS_PLUGINS_ASK_ASK_H

#include <stddef.h>
#include <sys/types.h>

/* A plugin program's end of the init's request channel (docs/plugins.md,
 * "Asking the init"): the init gives the program it runs a connected
 * socket as fd $UNIRAMFS_ASK_FD; a request is one line, the answer one
 * line. This file is what a package's C program may copy. */

/* Ask for a secret through the init's prompt (every console, and SSH
 * logins): its length, NUL-terminated in buf (a longer answer: -E2BIG);
 * -ENOTCONN when the init offers no channel, -EIO when it said no
 * (why, size n, says what it said). */
ssize_t ask_secret(const char *prompt, char *buf, size_t size, char *why, size_t n);
/* Tell the SSH logins waiting at the prompt how the last answer went
 * ("wrong passphrase", "unlocked"). 0 or -errno. */
int ask_tell(const char *msg);

#endif
