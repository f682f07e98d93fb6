// SPDX-License-Identifier: GPL-2.0-or-later
#include "err.h"
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static char msg[2048];
static int code = -EINVAL;

static void vset(const char *fmt, va_list ap)
{
	char raw[sizeof(msg)];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	/* The message reaches a terminal: the generator prints it as its
	 * error, the init logs it. It quotes names from images and the
	 * network, so it is escaped as log messages are (log.h). */
	log_escape(msg, sizeof(msg), raw);
}

int err_set(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(fmt, ap);
	va_end(ap);
	code = -EINVAL;
	return code;
}

int err_set_code(int c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(fmt, ap);
	va_end(ap);
	code = c < 0 ? c : -EINVAL;
	return code;
}

int err_errno(int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t n;
	va_start(ap, fmt);
	vset(fmt, ap);
	va_end(ap);
	n = strlen(msg);
	if (errnum < 0)
		errnum = -errnum;
	snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(errnum));
	/* a call that failed without saying why still fails */
	code = errnum ? -errnum : -EIO;
	return code;
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
	return code;
}

const char *err_msg(void)
{
	return msg[0] ? msg : "unknown error";
}

int err_code(void)
{
	return code;
}

void err_clear(void)
{
	msg[0] = '\0';
	code = -EINVAL;
}
