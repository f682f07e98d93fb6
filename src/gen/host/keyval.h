/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_KEYVAL_H
#define UNIRAMFS_KEYVAL_H

#include <stddef.h>

/* The "key = value" syntax of uniramfs.conf, shared by the config files
 * (config.c) and the plugins (plugins/): blank lines and lines starting
 * with # skipped, a # after a blank ends the value, one pair of matching
 * quotes stripped, keys of [A-Za-z0-9_-]. */

/* Called for each pair; where is "NAME:LINE". Return <0 (with err_set)
 * to stop: keyval_parse returns it. */
typedef int (*keyval_fn)(void *ctx, const char *key, const char *value, const char *where);

/* Parse data (modified in place), NUL-terminated. max_line: a line
 * longer than this many bytes is an error naming it (0: no limit). */
int keyval_parse(char *data, const char *name, size_t max_line, keyval_fn fn, void *ctx);

/* Check that len bytes of data hold no NUL: what follows one would be
 * lost to the parser. -EINVAL + err_set naming NAME:LINE. */
int keyval_check_text(const char *data, size_t len, const char *name);

#endif
