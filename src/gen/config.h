/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_CONFIG_H
#define UNIRAMFS_CONFIG_H

#include <stdbool.h>

#include "gen/build/opts.h"

/* The config keys and flags that fill struct build_opts (build/opts.h). */

/* Set one key. where names the origin for messages ("FILE:LINE" or
 * "--flag"). A list key appends. -errno + err_* on an unknown key or a bad
 * value, naming where, the key and the text. */
int config_set(struct build_opts *o, const char *key, const char *value, const char *where);
/* Parse "key = value" lines from data (modified in place); name is
 * used in messages as NAME:LINE. */
int config_parse(struct build_opts *o, const char *name, char *data);
/* Parse one "key = value" file. A missing file is an error only when
 * must_exist. */
int config_load_file(struct build_opts *o, const char *path, bool must_exist);
/* The default files: SYSCONFDIR/uniramfs.conf, then
 * SYSCONFDIR/uniramfs.conf.d/\*.conf sorted by name. */
int config_load_defaults(struct build_opts *o, const char *sysconfdir);
/* Is key a known key (for flags)? Returns its canonical name or NULL. */
const char *config_key_name(const char *key);
/* Does the key take a value? (false for flags like --generic) */
bool config_key_is_bool(const char *key);
/* One line per key for --help. */
void config_print_keys(void);

#endif
