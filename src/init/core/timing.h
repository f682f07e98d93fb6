/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_TIMING_H
#define UNIRAMFS_INIT_TIMING_H

#include "util.h"

/* Per-stage durations for /run/uniramfs/timings, and the start of the
 * init in both clocks for RD_TIMESTAMP. */
struct timing {
	unsigned long long start_realtime_us, start_monotonic_us;
	unsigned long long last_us;
	struct buf lines; /* "stage ms\n" */
};

void timing_start(struct timing *t);
/* The stage that just ended: its duration since the previous mark. */
void timing_mark(struct timing *t, const char *stage);
/* lines plus "total MS\n". Caller frees. */
char *timing_text(const struct timing *t);
unsigned long long timing_now_us(int clock);
void timing_free(struct timing *t);

#endif
