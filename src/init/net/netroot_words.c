// SPDX-License-Identifier: GPL-2.0-or-later
/* The words every network root spec is made of (a server, a port, a
 * number), for netroot.c's dispatch, iSCSI and NBD and netroot_nfs.c's
 * NFS alike: below both, so neither calls the other back. */
#include "init/net/netroot_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void netroot_warn(struct strv *w, char *msg)
{
	strv_push_owned(w, msg);
}

/* Take "[v6]" or up to the first ':' off *s as the server. Returns the
 * server (owned), or NULL with *s unchanged when there is no ':'. */
char *netroot_take_server(const char **s, bool *bad_bracket)
{
	const char *p = *s, *end;
	char *server;

	*bad_bracket = false;
	if (*p == '[') {
		end = strchr(p, ']');
		if (!end || end[1] != ':') {
			*bad_bracket = true;
			return NULL;
		}
		server = xstrndup(p + 1, (size_t)(end - p - 1));
		*s = end + 2;
		return server;
	}
	end = strchr(p, ':');
	if (!end)
		return NULL;
	server = xstrndup(p, (size_t)(end - p));
	*s = end + 1;
	return server;
}

bool netroot_all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* A decimal number of at most 5 digits in [min, max], or -EINVAL. */
long netroot_small_number(const char *s, size_t n, long min, long max)
{
	long v = 0;

	if (!netroot_all_digits(s, n) || n > 5)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v >= min && v <= max ? v : -EINVAL;
}
