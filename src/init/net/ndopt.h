/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_NDOPT_H
#define UNIRAMFS_NET_NDOPT_H

#include <netinet/in.h>
#include <stddef.h>

#include "init/net/dnsname.h"

/* DNS from a router advertisement. The kernel does SLAAC itself (the
 * prefix, the address, the default route); the options it does not use
 * it hands on whole over rtnetlink as RTM_NEWNDUSEROPT (group
 * RTNLGRP_ND_USEROPT): RDNSS (25) and DNSSL (31), RFC 8106. This reads
 * one such message's body (struct nduseroptmsg and the ND options
 * after it) — bytes a router on the wire chose. Pure, no I/O. */

#define ND_MAX_DNS 3

struct nd_dns {
	int ifindex;
	struct in6_addr dns[ND_MAX_DNS];
	unsigned n_dns;
	char search[DNS_SEARCH_MAX]; /* valid names only, space-separated */
	unsigned skipped;            /* names left out */
};

/* Parse the body of an RTM_NEWNDUSEROPT (after the nlmsghdr) into out
 * (zeroed first): the servers and names with a lifetime > 0. Returns 0,
 * or -EINVAL with *why (static text) for a message that is not an IPv6
 * router advertisement's or whose options run past its end. */
int nd_useropt_parse(const void *body, size_t len, struct nd_dns *out, const char **why);

#endif
