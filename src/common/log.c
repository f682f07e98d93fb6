// SPDX-License-Identifier: GPL-2.0-or-later
#include "log.h"

#include <stdio.h>

static const char *prog = "uniramfs";
static int level = LOG_NOTICE;
static log_sink_fn sink;
static void *sink_data;

void log_init(const char *name, int max_level)
{
	prog = name;
	level = max_level;
}

void log_set_level(int max_level)
{
	level = max_level;
}

int log_get_level(void)
{
	return level;
}

void log_set_sink(log_sink_fn fn, void *userdata)
{
	sink = fn;
	sink_data = userdata;
}

void log_vmsg(int lvl, const char *fmt, va_list ap)
{
	char msg[4096];
	if (lvl > level && !sink)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (sink) {
		sink(lvl, msg, sink_data);
		return;
	}
	fprintf(stderr, "%s: %s%s\n", prog,
		lvl <= LOG_ERR ? "error: " : lvl == LOG_WARNING ? "warning: " : "", msg);
}

void log_msg(int lvl, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_vmsg(lvl, fmt, ap);
	va_end(ap);
}
