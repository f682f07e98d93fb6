/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_BKEYMAP_H
#define UNIRAMFS_BKEYMAP_H

#include <stddef.h>
#include <stdint.h>

/* The binary keymap kbd's `loadkeys -b` writes and busybox's loadkmap
 * reads: the magic, one flag byte for each of the kernel's 256 keymaps
 * (modifier combinations), then for each keymap flagged 128 keysyms
 * (native-endian u16, as KDSKBENT takes them). The generator makes it
 * with the host's loadkeys; the init loads it without a shell. */
#define BKEYMAP_MAGIC "bkeymap"
#define BKEYMAP_MAGIC_LEN 7
#define BKEYMAP_TABLES 256
#define BKEYMAP_KEYS 128
#define BKEYMAP_MAX_LEN (BKEYMAP_MAGIC_LEN + BKEYMAP_TABLES + BKEYMAP_TABLES * BKEYMAP_KEYS * 2)

/* Called for every key of every keymap present, in order. A negative
 * return stops the walk and is returned. */
typedef int (*bkeymap_fn)(void *arg, unsigned table, unsigned key, uint16_t value);

/* 0 when data is a well-formed binary keymap (the magic, flags 0 or 1,
 * exactly the length they call for), else -EINVAL. */
int bkeymap_check(const uint8_t *data, size_t len);
/* Check data, then call fn for each entry: 0, -EINVAL or fn's error. */
int bkeymap_walk(const uint8_t *data, size_t len, bkeymap_fn fn, void *arg);

#endif
