/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_STAGES_SQUASHLAZY_H
#define UNIRAMFS_INIT_STAGES_SQUASHLAZY_H

#include <stdbool.h>

#include "init/core/ops.h"

struct modload;

/* The image's squashfs segment (LAYOUT_SQUASH_FILE), mounted on
 * LAYOUT_SQUASH_DIR only when something of it is first wanted: a file
 * linked into it opened, or any program run. When the image has one,
 * *ops (and *xops, if not NULL) are replaced by tables that do so, and
 * true is returned; the process keeps one such state. */
bool squash_lazy_start(const struct sysops **ops, const struct initops **xops);
/* The loader its modules (loop, squashfs) load through; NULL: none. */
void squash_lazy_set_modload(struct modload *ml);
/* Wait at most ms for another process's mount (0, the default: as long
 * as it takes): for the kernel's modprobe, which the init may be waiting
 * for while it holds the lock. */
void squash_lazy_lock_limit(long ms);
/* fn(ctx, "loop0") once it is mounted, by this process or found
 * mounted by another. */
void squash_lazy_on_mount(void (*fn)(void *ctx, const char *loop), void *ctx);
/* Mount it now if it is not: 0, or a negative code, said once. */
int squash_lazy_mount(void);
/* Its loop device's name if it is mounted (by this process or another
 * of the boot's), else NULL. */
const char *squash_lazy_mounted(void);
/* It was unmounted: nothing is mounted for from now on. */
void squash_lazy_forget(void);

#endif
