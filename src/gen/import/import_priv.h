/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by import.c (reading, choosing, writing), import_map.c (what
 * each setting becomes) and import_conv.c (the conv_* base both stand
 * on). Not an API. */
#ifndef UNIRAMFS_IMPORT_PRIV_H
#define UNIRAMFS_IMPORT_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/host/shell_assign.h"
#include "util.h"

/* a config file bigger than this is not a config file */
#define IMPORT_MAX_FILE (1024 * 1024)

struct item {
	char *where;  /* FILE:LINE: TEXT */
	char *var;    /* the source setting, for NAME= replacing earlier NAME+= */
	char *key;    /* uniramfs key, or NULL: not carried over */
	char *value;
	char *note;
	bool same;    /* not carried over since uniramfs does this anyway */
	bool dropped;
	bool net_only; /* only when the configuration boots from the network (it_finish) */
};

struct conv {
	const char *sysroot;
	const char *file; /* inside the sysroot, for messages */
	struct strv files;
	struct item *items;
	size_t n, cap;
};

char *conv_show(const char *text);
/* One "#TEXT\n" line of the output, TEXT shown as conv_show shows it
 * (not shortened): every comment import-config writes goes through
 * here, since notes and file names quote what a config said. */
void conv_comment(struct buf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct item *conv_add(struct conv *c, const struct shell_assign *a, const char *key, const char *value, const char *note);
void conv_skip(struct conv *c, const struct shell_assign *a, const char *why);
void conv_same(struct conv *c, const struct shell_assign *a, const char *why);
void conv_replace_earlier(struct conv *c, const struct shell_assign *a);
void conv_words_of(const struct shell_assign *a, struct strv *w);
const char *conv_scalar(const struct shell_assign *a);
bool conv_has_ctl(const char *s);
void conv_add_list(struct conv *c, const struct shell_assign *a, const char *key, struct strv *w, const char *note);
void conv_add_words(struct conv *c, const struct shell_assign *a, const char *key, const char *note);
void conv_add_compress(struct conv *c, const struct shell_assign *a, const char *v);
void conv_add_mode(struct conv *c, const struct shell_assign *a, bool hostonly, const char *note);
int it_assign(void *u, const struct shell_assign *a);
void it_modules(struct conv *c, char *data);
/* After every initramfs-tools file: what counts only for a network boot. */
void it_finish(struct conv *c);
int dracut_assign(void *u, const struct shell_assign *a);
int mkinitcpio_assign(void *u, const struct shell_assign *a);

#endif
