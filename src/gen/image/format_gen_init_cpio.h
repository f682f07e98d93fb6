/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_FORMAT_GEN_INIT_CPIO_H
#define UNIRAMFS_FORMAT_GEN_INIT_CPIO_H

#include "util.h"

/* `uniramfs build --format gen_init_cpio -o LIST`: the image as the list
 * the kernel's usr/gen_init_cpio reads (CONFIG_INITRAMFS_SOURCE), one
 * dir/file/nod/slink/pipe/sock line per entry, in the image's order.
 * The files a list names must outlive the build, so they are written,
 * as `uniramfs extract` writes them, into LIST.d next to the list (made
 * new by each build; the previous one is replaced only once the new one
 * is complete), and named there by absolute path. Modes, owners and
 * device nodes are in the list, not in LIST.d. */

/* The format config key: the image, or this list. */
enum output_format { FORMAT_CPIO, FORMAT_GEN_INIT_CPIO };

/* One entry as a list line appended to out; contents: LIST.d's absolute
 * path. -errno + err_* for a name gen_init_cpio cannot read (white space,
 * control characters, "${" which it expands). */
struct cpio_entry;
int gen_init_cpio_line(struct buf *out, const struct cpio_entry *e, const void *data,
		       const char *contents);
/* Turn the plain cpio at cpio_path (one archive, as build writes it)
 * into list and list.d. */
int gen_init_cpio_write(const char *cpio_path, const char *list);

#endif
