/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_VERITY_H
#define UNIRAMFS_INIT_STACK_VERITY_H

#include <stdbool.h>

#include "util.h"

/* The name systemd-veritysetup-generator gives the root's mapping:
 * /dev/mapper/root, the root when roothash= is given without root=. */
#define VERITY_ROOT_NAME "root"
#define VERITY_ROOT_DEV "/dev/mapper/" VERITY_ROOT_NAME

/* A dm-verity root as systemd's command line describes it (roothash=,
 * systemd.verity_root_data=, _hash=, _options=, systemd.verity=), and
 * what the boot saw of it. */
struct verity {
	char *roothash;              /* lowercase hex; NULL: no verity root */
	char *data, *hash;           /* device specs: as given, or from roothash (verity_setup) */
	bool data_given, hash_given; /* written on the command line, not derived */
	char *options;               /* systemd.verity_root_options= as given */
	bool off;                    /* systemd.verity=0 */
	char *data_node, *hash_node; /* the devices that matched, once seen */
};

/* verity_opts.c: the pure parts, each value checked (hostile text). */
/* A root hash as the command line writes it: hex digits, an even count
 * from 2 to 128 (SHA-512's 64 bytes). 0, or -EINVAL. */
int verity_hash_check(const char *hex);
/* systemd's default devices: /dev/disk/by-partuuid/UUID of the root
 * hash's first 128 bits (the data) or its last 128 bits (the hashes),
 * as systemd-repart names a DPS image's partitions. NULL for a hash
 * shorter than 128 bits. */
char *verity_partuuid_path(const char *roothash, bool last);
/* systemd.verity_root_options=OPTS as veritysetup's arguments, appended
 * to out ("--ignore-corruption", "--hash=sha512", "--no-superblock").
 * An option that is unknown, not supported here or has a bad value is
 * warned about by name and left out. */
void verity_options_argv(const char *opts, struct strv *out);
void verity_free(struct verity *v);

#endif
