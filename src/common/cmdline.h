/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_CMDLINE_H
#define UNIRAMFS_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* The kernel command line split the way the kernel splits it
 * (lib/cmdline.c next_arg): words separated by white space, double
 * quotes around a value or a whole word, the first '=' separating key
 * and value. A bare "--" ends the kernel's parameters: every word after
 * it belongs to the real init. Pure functions, no I/O. */
struct cmdline_param {
	char *key;
	char *val; /* NULL: the word had no '=' */
};

struct cmdline {
	struct cmdline_param *p;
	size_t n, cap;
	struct strv init_args; /* words after "--" */
};

/* Append the parameters of text to c (call again to layer another
 * source: later words win for scalar keys). */
void cmdline_parse(struct cmdline *c, const char *text);
void cmdline_free(struct cmdline *c);

/* Layer: the baked defaults first, the real command line after, so the
 * real one wins for the same key. Either may be NULL. */
void cmdline_parse_layers(struct cmdline *c, const char *defaults, const char *real);

/* The last occurrence of key: its parameter, or NULL. */
const struct cmdline_param *cmdline_last(const struct cmdline *c, const char *key);
bool cmdline_has(const struct cmdline *c, const char *key);

/* Value parsers that warn nothing themselves: 0 on success, -EINVAL
 * when the text is not what was asked for (the caller names it). */
int cmdline_parse_bool(const char *val, bool *out); /* 1/0 yes/no on/off true/false */
int cmdline_parse_int(const char *val, long min, long max, long *out);

#endif
