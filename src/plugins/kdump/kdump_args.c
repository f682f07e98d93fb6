// SPDX-License-Identifier: GPL-2.0-or-later
/* The kdump program's input: the crash kernel's command line, which
 * whoever loaded it wrote (kdump-tools' KDUMP_CMDLINE_APPEND, an
 * administrator's kexec -p --append=). */
#include "kdump.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An absolute path of plain components: no "." or "..", no blank or
 * control character, no '\\' (the kernel's quoting is not ours). It
 * is resolved inside the root anyway; this keeps the messages and the
 * directory tree what the word says. */
static bool dir_ok(const char *d, size_t len)
{
	if (len == 0 || len >= KDUMP_DIR_MAX || d[0] != '/')
		return false;
	for (size_t i = 0; i < len;) {
		size_t j = i + 1, c;
		while (j < len && d[j] != '/')
			j++;
		c = j - i - 1;
		if ((c == 1 && d[i + 1] == '.') || (c == 2 && d[i + 1] == '.' && d[i + 2] == '.'))
			return false;
		if (c == 0 && j < len)
			return false; /* "//" */
		i = j;
	}
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)d[i] <= ' ' || d[i] == 0x7f || d[i] == '\\' || d[i] == '"')
			return false;
	return true;
}

static int bad(char *why, size_t n, const char *w, size_t len, const char *expect)
{
	snprintf(why, n, "ignoring %.*s: %s", (int)(len > 300 ? 300 : len), w, expect);
	return -EINVAL;
}

int kdump_parse(const char *cmdline, struct kdump_opts *o, char *why, size_t n)
{
	int r = 0;

	snprintf(o->dir, sizeof(o->dir), "%s", KDUMP_DEFAULT_DIR);
	o->level = KDUMP_DEFAULT_LEVEL;
	if (why && n)
		why[0] = '\0';
	for (const char *w = cmdline; w && *w;) {
		size_t len = strcspn(w, " \t\n");
		if (len > 13 && !strncmp(w, "rd.kdump.dir=", 13)) {
			const char *v = w + 13;
			size_t vl = len - 13;
			/* a trailing slash says the same directory */
			while (vl > 1 && v[vl - 1] == '/')
				vl--;
			if (dir_ok(v, vl))
				snprintf(o->dir, sizeof(o->dir), "%.*s", (int)vl, v);
			else
				r = bad(why, n, w, len, "not an absolute path of plain names");
		} else if (len > 15 && !strncmp(w, "rd.kdump.level=", 15)) {
			char num[4] = "";
			char *end;
			long l = -1;
			if (len - 15 < sizeof(num)) {
				memcpy(num, w + 15, len - 15);
				num[len - 15] = '\0';
				l = strtol(num, &end, 10);
				if (*end || end == num || num[0] == '-' || num[0] == '+')
					l = -1;
			}
			if (l >= 0 && l <= 31)
				o->level = (int)l;
			else
				r = bad(why, n, w, len, "expected a dump level 0-31 (makedumpfile -d)");
		} else if (!strncmp(w, "rd.kdump.dir=", 13) || !strncmp(w, "rd.kdump.level=", 15)) {
			r = bad(why, n, w, len, "empty value");
		}
		w += len;
		w += strspn(w, " \t\n");
	}
	return r;
}

void kdump_stamp(time_t t, char *out, size_t n)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(out, n, "%Y%m%d%H%M", &tm))
		snprintf(out, n, "%lld", (long long)t);
}
