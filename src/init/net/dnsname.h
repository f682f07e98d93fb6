/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_DNSNAME_H
#define UNIRAMFS_NET_DNSNAME_H

#include <stddef.h>
#include <stdint.h>

/* Domain names in DNS wire form (RFC 1035 3.1: length-prefixed labels,
 * ended by a zero length), as DHCPv6's domain list (option 24, RFC 3646)
 * and a router advertisement's DNSSL (RFC 8106) carry them: never
 * compressed there. Pure, no I/O. */

#define DNS_SEARCH_MAX 256 /* the search line's room, resolv.conf's own limit */

/* Decode the names in p[0..len) into out (cap bytes) as a search line:
 * names separated by one space, each a valid host name
 * (net_hostname_valid). A name that is not (a byte outside letters,
 * digits, '-' and '_', a label running past the end, a compression
 * pointer) is left out and *skipped counts it; so is one that no longer
 * fits. Trailing zero bytes (DNSSL's padding) end the list. out is
 * always NUL-terminated (cap > 0). Returns the number of names kept. */
unsigned dns_names_decode(const uint8_t *p, size_t len, char *out, size_t cap, unsigned *skipped);

#endif
