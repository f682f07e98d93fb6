/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The init's log messages kept for a test to check: one "<LEVEL>TEXT\n"
 * line each, in order, in msgs. */
#ifndef UNIRAMFS_TEST_LOG_CAPTURE_H
#define UNIRAMFS_TEST_LOG_CAPTURE_H

#include <stdbool.h>

#include "util.h"

extern struct buf msgs;

/* Empty msgs (msgs.p is "" after, never NULL). */
void msgs_clear(void);
/* Empty msgs and keep from now on every message up to max_level. */
void msgs_capture(int max_level);
/* Whether line stands anywhere in msgs, and how many times. */
bool said(const char *line);
int count_said(const char *line);

#endif
