/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_LUKS_MEASURE_H
#define UNIRAMFS_INIT_STACK_LUKS_MEASURE_H

#include <stddef.h>

#include "init/stack/luks_opts.h"

struct stack_env;

/* The measured string for the volume NAME of LUKS UUID, as
 * systemd-cryptsetup makes it: "cryptsetup:" NAME (its ':', '\\' and
 * control bytes as \xNN) ":" UUID. Yours to free. */
char *luks_measure_string(const char *name, const char *uuid);

/* The key of a dm-crypt table line ("CIPHER KEY IV_OFFSET DEV OFFSET
 * [OPTS]") into key (size bytes of room): its length, or -EINVAL (err
 * set) when it is no hex key (the kernel keyring's ":32:logon:…", "-"). */
int luks_table_key(const char *params, unsigned char *key, size_t size);

/* After /dev/mapper/name was opened with tpm2-measure-pcr= (o): the
 * volume key read back from dm's table, HMAC("cryptsetup:NAME:UUID")
 * keyed by it measured into the PCR, the key wiped. Never fails the
 * unlock: a warning says what was not measured. */
void luks_measure(struct stack_env *env, const struct luks_opts *o, const char *name,
		  const char *uuid);

#endif
