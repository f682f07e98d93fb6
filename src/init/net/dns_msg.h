/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_DNS_MSG_H
#define UNIRAMFS_NET_DNS_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "init/net/netaddr.h"

/* DNS messages (RFC 1035): the query a stub resolver sends and the
 * answer it reads. Every byte of an answer is hostile: names are read
 * with compression pointers that must point backwards (no loops), at
 * most 255 bytes and only host-name bytes in a label; every record is
 * bounds-checked; an answer counts only when its id and question are
 * ours. Pure, no I/O. */

#define DNS_PORT 53
#define DNS_TYPE_A 1
#define DNS_TYPE_CNAME 5
#define DNS_TYPE_AAAA 28
#define DNS_CLASS_IN 1
#define DNS_NAME_TEXT 256 /* a name as text, with its NUL */
#define DNS_MAX_ADDRS 8
#define DNS_MAX_CNAMES 8 /* a longer chain is a loop or an attack */
#define DNS_QUERY_MAX 274 /* header 12 + name 257 + type and class 4, rounded */

enum dns_rcode {
	DNS_NOERROR = 0,
	DNS_FORMERR = 1,
	DNS_SERVFAIL = 2,
	DNS_NXDOMAIN = 3,
	DNS_NOTIMP = 4,
	DNS_REFUSED = 5,
};

/* The query for name (a host name, no trailing dot needed) of type
 * qtype, recursion desired. Returns its length, or 0 when the name is
 * not one a query can carry or cap is too small. */
size_t dns_query_build(uint8_t *buf, size_t cap, uint16_t id, const char *name, uint16_t qtype);

struct dns_answer {
	int rcode;
	bool truncated; /* TC: the server cut it (only what came is used) */
	struct net_addr addr[DNS_MAX_ADDRS];
	size_t n_addr;
	/* No address, but the name is an alias: the end of its CNAME chain
	 * in this answer, to be asked for next. "" otherwise. */
	char cname[DNS_NAME_TEXT];
};

/* An answer to our query (id, qname, qtype). 0: it is one (rcode,
 * n_addr and cname say what it holds); -EINVAL with *why (static text):
 * not an answer to this query, or malformed. Addresses are those of
 * qname or of the end of its CNAME chain, of type qtype. */
int dns_answer_parse(const uint8_t *pkt, size_t len, uint16_t id, const char *qname, uint16_t qtype,
		     struct dns_answer *out, const char **why);

/* The name at *off in pkt, compression followed, as dotted text in out
 * (DNS_NAME_TEXT bytes, the root is ""); *off moves past it. 0 or
 * -EINVAL with *why. For DHCP's option 119 too (RFC 3397 packs its
 * search list the same way). */
int dns_name_read(const uint8_t *pkt, size_t len, size_t *off, char *out, const char **why);

/* What an rcode means, for messages: "no such name (NXDOMAIN)". */
const char *dns_rcode_str(int rcode);

/* The same name, ignoring case and a trailing dot. */
bool dns_name_eq(const char *a, const char *b);

#endif
