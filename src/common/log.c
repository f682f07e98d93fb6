// SPDX-License-Identifier: GPL-2.0-or-later
#include "log.h"

#include <stdio.h>
#include <string.h>

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

/* The length of the well-formed UTF-8 sequence at s that is not a C0,
 * DEL or C1 control (RFC 3629's table), or 0. */
static size_t printable_utf8(const unsigned char *s)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (c >= 0x20 && c < 0x7f)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0; /* C0, DEL, a continuation byte, 0xc0/0xc1, 0xf5-0xff */
	if (c == 0xc2)
		lo = 0xa0; /* U+0080-U+009F are the C1 controls */
	else if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

size_t log_escape(char *dst, size_t size, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	size_t o = 0;

	while (*s) {
		size_t n = printable_utf8(s);
		if (n) {
			if (o + n >= size)
				break;
			memcpy(dst + o, s, n);
			o += n;
			s += n;
			continue;
		}
		if (o + 4 >= size)
			break;
		dst[o++] = '\\';
		dst[o++] = 'x';
		dst[o++] = hex[*s >> 4];
		dst[o++] = hex[*s & 15];
		s++;
	}
	dst[o] = '\0';
	return o;
}

void log_vmsg(int lvl, const char *fmt, va_list ap)
{
	char raw[4096], msg[4096];
	if (lvl > level && !sink)
		return;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	/* here, once, for every message of both programs: no caller has
	 * to know which of its words came from a stranger */
	log_escape(msg, sizeof(msg), raw);
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
