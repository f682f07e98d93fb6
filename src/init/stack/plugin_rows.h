/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STACK_PLUGIN_ROWS_H
#define UNIRAMFS_INIT_STACK_PLUGIN_ROWS_H

#include <stdbool.h>
#include <stddef.h>

#include "init/core/ops.h"
#include "util.h"

/* One boot-time row of a package's plugin (docs/plugins.md), as the
 * generator wrote it to LAYOUT_PLUGIN_ROWS_FILE and this init checked it. */
struct plugin_row {
	bool root;            /* a root handler */
	bool claim;           /* a claim row; neither: a layer */
	char *plugin;         /* the plugin's name, for messages */
	char *key;            /* the blkid type (layer), the root= prefix (root), the
			       * kernel name pattern (claim: sd*) */
	char *program;        /* an absolute path to an executable of the image */
	struct strv modules;  /* loaded before the program first runs */
	struct strv options;  /* command-line keys handed to the program (layer, claim) */
	/* A layer's fields past the six (docs/plugins.md): */
	struct strv runs;     /* each run's words after the program; none: "{device}" and the options */
	char *switch_opt;     /* KEY=0 on the command line turns the row off; NULL: none */
	struct strv retry_modules; /* loaded after a failed run, then the runs once more */
	long limit_ms;        /* the program's time limit (limit=SECONDS; else PLUGIN_LIMIT_MS) */
	bool off;             /* its switch said 0 (plugin_layer.c) */
	unsigned line;        /* in the file, for messages */
};

/* A plugin program that says no limit of its own is killed after this. */
#define PLUGIN_LIMIT_MS (120 * 1000L)
#define PLUGIN_LIMIT_MAX_S 3600

struct plugin_rows {
	struct plugin_row *v;
	size_t n, cap;
};

/* Check text (len bytes, the file's whole content) row by row: a bad
 * row is reported with its line and skipped. is_builtin names the
 * blkid types the init's own layers open (a plugin may not take one);
 * ops finds the programs in the image. Returns the rows kept. */
size_t plugin_rows_parse(const char *text, size_t len, const struct sysops *ops,
			 bool (*is_builtin)(const char *type), struct plugin_rows *out);
/* Read LAYOUT_PLUGIN_ROWS_FILE (none: no rows, no message). */
void plugin_rows_read(const struct sysops *ops, bool (*is_builtin)(const char *type),
		      struct plugin_rows *out);
/* The layer row for a blkid type, or NULL. */
const struct plugin_row *plugin_rows_layer(const struct plugin_rows *rows, const char *type);
/* The root row whose prefix begins root (a root= value), or NULL. */
const struct plugin_row *plugin_rows_root(const struct plugin_rows *rows, const char *root);
/* "KEY=VALUE" or "KEY" of the command line is one the row reads: its
 * key is one of the row's options, or below one ("rd.foo" takes
 * "rd.foo.bar" too, as the built-in layers' options do). */
bool plugin_row_reads(const struct plugin_row *r, const char *kv);
void plugin_rows_free(struct plugin_rows *rows);

#endif
