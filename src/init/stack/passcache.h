/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_PASSCACHE_H
#define UNIRAMFS_INIT_STACK_PASSCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "init/core/ops.h"

/* Passphrases typed in this boot, kept where systemd-cryptsetup keeps
 * them: the "user" key "cryptsetup" in root's user keyring, each
 * passphrase NUL-terminated, expiring 150 s after the last was added
 * (systemd's KEYRING_TIMEOUT_USEC). The init tries them on every other
 * volume before asking, and after switch_root the root's
 * systemd-cryptsetup@.service (KeyringMode=shared) finds them, so a
 * second crypttab volume with the same passphrase opens without a
 * prompt, as under a systemd initrd. */
#define PASSCACHE_KEY "cryptsetup"
#define PASSCACHE_TIMEOUT_S 150
/* A user key's payload is at most 32767 bytes; this many passphrases
 * of cryptsetup's longest typed size is plenty. */
#define PASSCACHE_MAX 4096

/* Add one that opened a volume (if not there already). 0, or a negative
 * code (err set) when the keyring refused: the boot goes on without. */
int passcache_add(const struct initops *x, const char *pass, size_t len);
/* Call fn on each kept passphrase until it returns true; true then. */
bool passcache_each(const struct initops *x, bool (*fn)(void *ctx, const char *pass, size_t len),
		    void *ctx);

#endif
