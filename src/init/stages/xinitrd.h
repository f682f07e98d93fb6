/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The root's /etc/fstab, read as systemd's initrd reads it: checked and
 * bounded (it is the root's text, and the root may be anyone's disk). */
#ifndef UNIRAMFS_INIT_STAGES_XINITRD_H
#define UNIRAMFS_INIT_STAGES_XINITRD_H

#include <stdbool.h>
#include <stddef.h>

#include "init/stages/stages.h"
#include "util.h"

#define FSTAB_MAX_BYTES (256 * 1024) /* a long fstab is a few KiB */
#define FSTAB_MAX_LINE 4096
#define FSTAB_MAX_ENTRIES 256

struct fstab {
	struct fstab_entry *v;
	size_t n;
	struct strv warnings; /* one line per malformed line: FROM line N: "TEXT": why */
};

/* Every entry of fstab text (len bytes; a NUL in it is malformed), in
 * its order, from naming the file in messages. A malformed line is left
 * out with a warning naming it, as libmount's parser skips it. */
void fstab_parse(const char *text, size_t len, const char *from, struct fstab *out);
void fstab_free(struct fstab *t);
/* root's etc/fstab (root a path for in->ops, as "/sysroot") read whole,
 * a regular file of at most FSTAB_MAX_BYTES, its links followed inside
 * root only (systemd's fstab-generator reads a linked fstab too): 0, or
 * a negative code (-ENOENT: not there; -EFBIG; -EINVAL: not a regular
 * file; -ELOOP: a link loop). */
int fstab_read(const struct sysops *ops, const char *root, char **text, size_t *len);
/* word is one of the comma-separated options */
bool fstab_has_opt(const char *opts, const char *word);

/* xinitrd.c: after the root and its /usr, every entry of the root's
 * fstab with x-initrd.mount is mounted below /sysroot, parents first
 * (sequence.c's stage_xinitrd waits for each device as for the root's).
 * The entries, in mount order (none with rd.fstab=0 or no fstab; the
 * malformed lines said). */
void xinitrd_entries(struct init *in, struct fstab *t);
/* Its device is still to come, and to be waited for (not nofail). */
bool xinitrd_wait_for(const struct init *in, const struct fstab_entry *e);
/* Check and mount it (its mount point made). 0 (also a nofail entry
 * that failed, said), or a negative code, err set naming the line. */
int xinitrd_mount(struct init *in, const struct fstab_entry *e);

#endif
