// SPDX-License-Identifier: GPL-2.0-or-later
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char msg[2048];

static int vset(const char *fmt, va_list ap)
{
	vsnprintf(msg, sizeof(msg), fmt, ap);
	return -1;
}

int err_set(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(fmt, ap);
	va_end(ap);
	return -1;
}

int err_errno(int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t n;
	va_start(ap, fmt);
	vset(fmt, ap);
	va_end(ap);
	n = strlen(msg);
	snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(errnum < 0 ? -errnum : errnum));
	return -1;
}

int err_wrap(const char *fmt, ...)
{
	char old[sizeof(msg)];
	va_list ap;
	size_t n;
	memcpy(old, msg, sizeof(msg));
	va_start(ap, fmt);
	vset(fmt, ap);
	va_end(ap);
	n = strlen(msg);
	snprintf(msg + n, sizeof(msg) - n, ": %s", old);
	return -1;
}

const char *err_msg(void)
{
	return msg[0] ? msg : "unknown error";
}

void err_clear(void)
{
	msg[0] = '\0';
}
