// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/net/dnsname.h"

#include <string.h>

#include "init/net/netaddr.h"

/* One name at p[*off..len) into name (254 bytes): 0, or -1 when it is
 * not a plain name (then *off is past it, or at len). */
static int one_name(const uint8_t *p, size_t len, size_t *off, char name[254])
{
	size_t n = 0, o = *off;
	int bad = 0;

	for (;;) {
		unsigned l;
		if (o >= len) {
			*off = len;
			return -1; /* ran off the end */
		}
		l = p[o++];
		if (l == 0)
			break;
		if (l > 63 || o + l > len) {
			/* a pointer (0xc0) or a label past the end: the rest is not
			 * to be trusted as names */
			*off = len;
			return -1;
		}
		if (n + l + 1 > 253)
			bad = 1;
		else {
			if (n)
				name[n++] = '.';
			memcpy(name + n, p + o, l);
			n += l;
		}
		o += l;
	}
	*off = o;
	name[n] = '\0';
	if (bad || n == 0 || memchr(name, '\0', n) || !net_hostname_valid(name))
		return -1;
	return 0;
}

unsigned dns_names_decode(const uint8_t *p, size_t len, char *out, size_t cap, unsigned *skipped)
{
	size_t off = 0, used = 0;
	unsigned kept = 0;
	char name[254];

	if (cap)
		out[0] = '\0';
	while (off < len) {
		if (p[off] == 0) {
			/* padding, or an empty name: nothing after it is a name */
			break;
		}
		if (one_name(p, len, &off, name) < 0) {
			(*skipped)++;
			continue;
		}
		size_t n = strlen(name);
		if (used + (used ? 1 : 0) + n + 1 > cap) {
			(*skipped)++;
			continue;
		}
		if (used)
			out[used++] = ' ';
		memcpy(out + used, name, n + 1);
		used += n;
		kept++;
	}
	return kept;
}
