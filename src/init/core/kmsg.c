// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/core/kmsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "init/core/timing.h"
#include "log.h"

static int kmsg_fd = -1;
static bool attached;
static bool stamps;
static unsigned long long start_us;
static struct buf kept;    /* everything, for /run/uniramfs/log */
static struct buf pending; /* shown-level lines before kmsg was open */

static void emit(int level, const char *line)
{
	char out[1100];
	int n;

	if (kmsg_fd >= 0) {
		/* rd.debug asked to see these: at <7> the console's default
		 * level would hide them, so they go out as <6>. */
		if (level > LOG_INFO)
			level = LOG_INFO;
		n = snprintf(out, sizeof(out), "<%d>uniramfs: %s\n", level, line);
		if (n > 0 && write(kmsg_fd, out, (size_t)n < sizeof(out) ? (size_t)n : sizeof(out) - 1) >= 0)
			return;
	}
	n = snprintf(out, sizeof(out), "uniramfs: %s\n", line);
	if (n > 0)
		(void)!write(STDERR_FILENO, out, (size_t)n < sizeof(out) ? (size_t)n : sizeof(out) - 1);
}

static void sink(int level, const char *msg, void *userdata)
{
	char line[1024];
	(void)userdata;

	if (stamps) {
		unsigned long long us = timing_now_us(CLOCK_MONOTONIC) - start_us;
		snprintf(line, sizeof(line), "[%llu.%06llu] %s", us / 1000000, us % 1000000, msg);
	} else {
		snprintf(line, sizeof(line), "%s", msg);
	}
	buf_printf(&kept, "<%d>%s\n", level, line);
	if (level > log_get_level())
		return;
	if (!attached) {
		buf_printf(&pending, "%d %s\n", level, line);
		return;
	}
	emit(level, line);
}

void kmsg_setup(void)
{
	log_init("uniramfs", LOG_INFO);
	log_set_sink(sink, NULL);
}

void kmsg_attach(int fd)
{
	char *p, *nl;

	kmsg_fd = fd;
	attached = true;
	for (p = pending.p; p && *p; p = nl + 1) {
		int level = (int)strtol(p, &p, 10);
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		emit(level, p + 1);
	}
	buf_free(&pending);
	memset(&pending, 0, sizeof(pending));
}

void kmsg_set_timestamps(unsigned long long start_monotonic_us)
{
	stamps = true;
	start_us = start_monotonic_us;
}

const struct buf *kmsg_kept(void)
{
	return &kept;
}

void kmsg_free(void)
{
	buf_free(&kept);
	buf_free(&pending);
	memset(&kept, 0, sizeof(kept));
	memset(&pending, 0, sizeof(pending));
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	kmsg_fd = -1;
	attached = false;
	stamps = false;
}
