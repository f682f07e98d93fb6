// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/core/timing.h"

#include <string.h>
#include <time.h>

#include "log.h"

unsigned long long timing_now_us(int clock)
{
	struct timespec ts;
	if (clock_gettime(clock, &ts) < 0)
		return 0;
	return (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000;
}

void timing_start(struct timing *t)
{
	memset(t, 0, sizeof(*t));
	t->start_realtime_us = timing_now_us(CLOCK_REALTIME);
	t->start_monotonic_us = timing_now_us(CLOCK_MONOTONIC);
	t->last_us = t->start_monotonic_us;
}

void timing_mark(struct timing *t, const char *stage)
{
	unsigned long long now = timing_now_us(CLOCK_MONOTONIC);
	unsigned long long ms = (now - t->last_us) / 1000;

	buf_printf(&t->lines, "%s %llu\n", stage, ms);
	log_debug("stage %s took %llu ms", stage, ms);
	t->last_us = now;
}

char *timing_text(const struct timing *t)
{
	unsigned long long now = timing_now_us(CLOCK_MONOTONIC);
	return xasprintf("%stotal %llu\n", t->lines.p ? t->lines.p : "",
			 (now - t->start_monotonic_us) / 1000);
}

void timing_free(struct timing *t)
{
	buf_free(&t->lines);
}
