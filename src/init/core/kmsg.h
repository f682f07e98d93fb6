/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_KMSG_H
#define UNIRAMFS_INIT_KMSG_H

#include <stdbool.h>

#include "util.h"

/* The init's log sink: "<level>uniramfs: msg" lines to /dev/kmsg once it
 * is open (to stderr before that, or if it cannot be), each filtered by
 * the log level; every message, whatever its level, is also kept for
 * /run/uniramfs/log. */
void kmsg_setup(void);
/* Lines logged so far go to fd, and everything after. fd < 0: stay on
 * stderr. */
void kmsg_attach(int fd);
/* rd.debug: prefix each line with the time since the init started. */
void kmsg_set_timestamps(unsigned long long start_monotonic_us);
const struct buf *kmsg_kept(void);
void kmsg_free(void);

#endif
