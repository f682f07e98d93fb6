// SPDX-License-Identifier: GPL-2.0-or-later
#include "log_capture.h"

#include <string.h>

#include "log.h"

struct buf msgs;
static int keep_level;

static void sink(int level, const char *msg, void *userdata)
{
	(void)userdata;
	if (level <= keep_level)
		buf_printf(&msgs, "<%d>%s\n", level, msg);
}

void msgs_clear(void)
{
	buf_free(&msgs);
	buf_printf(&msgs, "%s", "");
}

void msgs_capture(int max_level)
{
	msgs_clear();
	keep_level = max_level;
	log_set_sink(sink, NULL);
	log_set_level(max_level);
}

bool said(const char *line)
{
	return msgs.p && strstr(msgs.p, line);
}

int count_said(const char *line)
{
	int n = 0;
	for (const char *p = msgs.p; p && (p = strstr(p, line)); p += strlen(line))
		n++;
	return n;
}
