// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/net/netaddr.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

int net_parse_ipv4(const char *s, struct in_addr *out)
{
	uint32_t v = 0;

	for (int part = 0; part < 4; part++) {
		unsigned n = 0;
		int digits = 0;

		if (part && *s++ != '.')
			return -EINVAL;
		while (isdigit((unsigned char)*s)) {
			if (digits && n == 0) /* "01": octal to inet_aton */
				return -EINVAL;
			n = n * 10 + (unsigned)(*s++ - '0');
			if (++digits > 3 || n > 255)
				return -EINVAL;
		}
		if (!digits)
			return -EINVAL;
		v = v << 8 | n;
	}
	if (*s)
		return -EINVAL;
	out->s_addr = htonl(v);
	return 0;
}

int net_parse_addr(const char *s, struct net_addr *out)
{
	char buf[NET_ADDR_TEXT + 2];
	size_t len = strlen(s);

	memset(out, 0, sizeof(*out));
	if (net_parse_ipv4(s, &out->v4) == 0) {
		out->family = AF_INET;
		return 0;
	}
	if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
		s++;
		len -= 2;
	}
	if (len == 0 || len >= sizeof(buf) || !memchr(s, ':', len))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET6, buf, &out->v6) != 1)
		return -EINVAL;
	out->family = AF_INET6;
	return 0;
}

const char *net_addr_str(const struct net_addr *a, char *buf)
{
	if (!a->family || !inet_ntop(a->family, a->family == AF_INET ? (const void *)&a->v4 : (const void *)&a->v6,
				     buf, NET_ADDR_TEXT))
		strcpy(buf, "");
	return buf;
}

int net_parse_prefix(const char *s, int family)
{
	int max = family == AF_INET6 ? 128 : 32;
	struct in_addr m;

	if (*s && strspn(s, "0123456789") == strlen(s)) {
		int n = 0;
		if (strlen(s) > 3 || (s[0] == '0' && s[1]))
			return -EINVAL;
		for (; *s; s++)
			n = n * 10 + (*s - '0');
		return n <= max ? n : -EINVAL;
	}
	if (family == AF_INET6 || net_parse_ipv4(s, &m) < 0)
		return -EINVAL;
	uint32_t v = ntohl(m.s_addr);
	int prefix = 0;
	while (prefix < 32 && (v & (0x80000000u >> prefix)))
		prefix++;
	/* Ones then only zeros: 255.0.255.0 is no netmask. */
	if (prefix < 32 && (v << prefix) != 0)
		return -EINVAL;
	return prefix;
}

struct in_addr net_prefix_to_mask(int prefix)
{
	struct in_addr m;
	m.s_addr = htonl(prefix <= 0 ? 0 : prefix >= 32 ? 0xffffffffu : ~(0xffffffffu >> prefix));
	return m;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int net_parse_mac(const char *s, uint8_t mac[6])
{
	char sep = 0;

	for (int i = 0; i < 6; i++) {
		int hi, lo;
		if (i) {
			if (!sep && (*s == ':' || *s == '-'))
				sep = *s;
			/* sep is still 0 at the end of the text: do not step past it. */
			if (!sep || *s++ != sep)
				return -EINVAL;
		}
		if ((hi = hexval((unsigned char)s[0])) < 0 || (lo = hexval((unsigned char)s[1])) < 0)
			return -EINVAL;
		mac[i] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
	return *s ? -EINVAL : 0;
}

void net_mac_str(const uint8_t mac[6], char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
}

bool net_ifname_valid(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len >= 16 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || (unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

bool net_hostname_valid(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len > 253 || s[0] == '-' || s[0] == '.')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '.' && *s != '_')
			return false;
	return true;
}
