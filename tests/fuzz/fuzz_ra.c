// SPDX-License-Identifier: GPL-2.0-or-later
/* A router advertisement's options as the kernel hands them on
 * (RTM_NEWNDUSEROPT's body): raw, and behind a header that is right, so
 * the options themselves are reached. Rules: nothing crashes or reads
 * out of bounds, at most ND_MAX_DNS servers, every search name kept is a
 * valid host name. */
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "init/net/ndopt.h"
#include "init/net/netaddr.h"

static void check(const struct nd_dns *d)
{
	char copy[DNS_SEARCH_MAX], *save = NULL;

	if (d->n_dns > ND_MAX_DNS)
		__builtin_trap();
	memcpy(copy, d->search, strlen(d->search) + 1);
	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (!net_hostname_valid(t))
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nduseroptmsg h = { .nduseropt_family = AF_INET6, .nduseropt_icmp_type = 134 };
	struct nd_dns d;
	const char *why;
	uint8_t *m;

	if (nd_useropt_parse(data, size, &d, &why) == 0)
		check(&d);
	if (size > 65535)
		return 0;
	m = malloc(sizeof(h) + size);
	h.nduseropt_opts_len = (unsigned short)size;
	memcpy(m, &h, sizeof(h));
	if (size)
		memcpy(m + sizeof(h), data, size);
	if (nd_useropt_parse(m, sizeof(h) + size, &d, &why) == 0)
		check(&d);
	free(m);
	return 0;
}
