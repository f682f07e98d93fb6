// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/net/ndopt.h"

#include <errno.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>

#define ND_OPT_RDNSS 25
#define ND_OPT_DNSSL 31
#define ND_ROUTER_ADVERT_TYPE 134

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void rdnss(const uint8_t *d, size_t n, struct nd_dns *out)
{
	/* reserved 2, lifetime 4, then addresses */
	if (n < 6 || get32(d + 2) == 0)
		return;
	for (size_t i = 6; i + 16 <= n && out->n_dns < ND_MAX_DNS; i += 16)
		memcpy(&out->dns[out->n_dns++], d + i, 16);
}

static void dnssl(const uint8_t *d, size_t n, struct nd_dns *out)
{
	size_t used = strlen(out->search);
	char more[DNS_SEARCH_MAX];

	if (n < 6 || get32(d + 2) == 0)
		return;
	dns_names_decode(d + 6, n - 6, more, sizeof(more), &out->skipped);
	if (!more[0])
		return;
	if (used + (used ? 1 : 0) + strlen(more) + 1 > sizeof(out->search)) {
		out->skipped++;
		return;
	}
	if (used)
		out->search[used++] = ' ';
	memcpy(out->search + used, more, strlen(more) + 1);
}

int nd_useropt_parse(const void *body, size_t len, struct nd_dns *out, const char **why)
{
	struct nduseroptmsg h;
	const uint8_t *p = body;
	size_t off = 0, end;

	memset(out, 0, sizeof(*out));
	if (len < sizeof(h)) {
		*why = "shorter than its header";
		return -EINVAL;
	}
	memcpy(&h, body, sizeof(h));
	if (h.nduseropt_family != AF_INET6 || h.nduseropt_icmp_type != ND_ROUTER_ADVERT_TYPE) {
		*why = "not from an IPv6 router advertisement";
		return -EINVAL;
	}
	if (h.nduseropt_opts_len > len - sizeof(h)) {
		*why = "its options run past its end";
		return -EINVAL;
	}
	out->ifindex = h.nduseropt_ifindex;
	p += sizeof(h);
	end = h.nduseropt_opts_len;
	while (off < end) {
		size_t n;
		if (end - off < 2 || p[off + 1] == 0) {
			*why = "an option of length 0 or cut short";
			return -EINVAL;
		}
		n = (size_t)p[off + 1] * 8;
		if (n > end - off) {
			*why = "an option runs past the end";
			return -EINVAL;
		}
		if (p[off] == ND_OPT_RDNSS)
			rdnss(p + off + 2, n - 2, out);
		else if (p[off] == ND_OPT_DNSSL)
			dnssl(p + off + 2, n - 2, out);
		off += n;
	}
	return 0;
}
