/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_NETADDR_H
#define UNIRAMFS_NET_NETADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The small value types every network parser shares. Pure, no I/O. */

struct net_addr {
	int family; /* 0: unset, AF_INET, AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	};
};

#define NET_ADDR_TEXT 46 /* INET6_ADDRSTRLEN */

/* Strict dotted quad: four decimal parts 0..255, no leading zeros that
 * inet_aton would read as octal, nothing after. 0 or -EINVAL. */
int net_parse_ipv4(const char *s, struct in_addr *out);
/* An IPv4 or IPv6 literal; an IPv6 one may be in brackets. 0 or -EINVAL. */
int net_parse_addr(const char *s, struct net_addr *out);
/* "a.b.c.d" or "[v6]"-less "v6": into buf (NET_ADDR_TEXT bytes). */
const char *net_addr_str(const struct net_addr *a, char *buf);

/* A netmask as a dotted quad with contiguous ones, or a prefix length
 * (0..32 for IPv4, 0..128 for IPv6). Returns the prefix or -EINVAL. */
int net_parse_prefix(const char *s, int family);
struct in_addr net_prefix_to_mask(int prefix);

/* aa:bb:cc:dd:ee:ff or aa-bb-cc-dd-ee-ff, either case. 0 or -EINVAL. */
int net_parse_mac(const char *s, uint8_t mac[6]);
void net_mac_str(const uint8_t mac[6], char buf[18]);

/* A name the kernel would accept for an interface and that is safe as
 * a file name: 1..15 bytes, no '/', ':', white space or control bytes,
 * not "." or "..". */
bool net_ifname_valid(const char *s);
/* Host and domain names (RFC 1123 labels: letters, digits, '-', '.',
 * and '_' which real DHCP servers hand out), 1..253 bytes. */
bool net_hostname_valid(const char *s);

#endif
