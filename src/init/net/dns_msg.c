// SPDX-License-Identifier: GPL-2.0-or-later
/* DNS queries and answers (RFC 1035 4.1), for the init's stub resolver. */
#include "init/net/dns_msg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#define DNS_HDR 12
#define DNS_MAX_RECORDS 64 /* read of an answer section; more are left */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A byte a host name may have: a name with any other (a dot inside a
 * label, a control byte, a slash) cannot be one we asked for, and its
 * text would not say what the wire said. */
static bool name_byte(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
	       c == '_';
}

size_t dns_query_build(uint8_t *buf, size_t cap, uint16_t id, const char *name, uint16_t qtype)
{
	size_t n = DNS_HDR, wire = 1;
	const char *p = name;

	if (cap < DNS_HDR + 1 + 4 || !*name)
		return 0;
	memset(buf, 0, DNS_HDR);
	put16(buf, id);
	buf[2] = 0x01; /* RD: the server recurses for us */
	put16(buf + 4, 1);
	while (*p) {
		size_t l = strcspn(p, ".");
		if (l == 0 || l > 63)
			return 0;
		wire += l + 1;
		if (wire > 255 || n + 1 + l + 1 + 4 > cap)
			return 0;
		buf[n++] = (uint8_t)l;
		for (size_t i = 0; i < l; i++) {
			if (!name_byte((uint8_t)p[i]))
				return 0;
			buf[n++] = (uint8_t)p[i];
		}
		p += l;
		if (*p == '.')
			p++; /* a trailing dot ends the name as well */
	}
	buf[n++] = 0;
	put16(buf + n, qtype);
	put16(buf + n + 2, DNS_CLASS_IN);
	return n + 4;
}

int dns_name_read(const uint8_t *pkt, size_t len, size_t *off, char *out, const char **why)
{
	size_t p = *off, run = *off, end = 0, wire = 1, o = 0;
	bool jumped = false;

	for (;;) {
		uint8_t l;
		if (p >= len)
			return *why = "a name runs past the end of the message", -EINVAL;
		l = pkt[p];
		if ((l & 0xc0) == 0xc0) {
			size_t t;
			if (p + 1 >= len)
				return *why = "a name runs past the end of the message", -EINVAL;
			t = (size_t)(l & 0x3f) << 8 | pkt[p + 1];
			/* each jump lands before the last one's start: the
			 * walk ends, whatever the pointers say */
			if (t >= run)
				return *why = "a compression pointer that does not point backwards (a loop)", -EINVAL;
			if (!jumped)
				end = p + 2;
			jumped = true;
			run = p = t;
			continue;
		}
		if (l & 0xc0)
			return *why = "a label of an unknown type", -EINVAL;
		if (l == 0) {
			if (!jumped)
				end = p + 1;
			break;
		}
		if (p + 1 + l > len)
			return *why = "a name runs past the end of the message", -EINVAL;
		wire += 1 + (size_t)l;
		if (wire > 255)
			return *why = "a name longer than 255 bytes", -EINVAL;
		if (o)
			out[o++] = '.';
		for (size_t i = 0; i < l; i++) {
			if (!name_byte(pkt[p + 1 + i]))
				return *why = "a name with a byte no host name has", -EINVAL;
			out[o++] = (char)pkt[p + 1 + i];
		}
		p += 1 + (size_t)l;
	}
	out[o] = '\0';
	*off = end;
	return 0;
}

bool dns_name_eq(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la && a[la - 1] == '.')
		la--;
	if (lb && b[lb - 1] == '.')
		lb--;
	return la == lb && strncasecmp(a, b, la) == 0;
}

const char *dns_rcode_str(int rcode)
{
	switch (rcode) {
	case DNS_NOERROR:
		return "no error (NOERROR)";
	case DNS_FORMERR:
		return "a format error (FORMERR)";
	case DNS_SERVFAIL:
		return "server failure (SERVFAIL)";
	case DNS_NXDOMAIN:
		return "no such name (NXDOMAIN)";
	case DNS_NOTIMP:
		return "not implemented (NOTIMP)";
	case DNS_REFUSED:
		return "refused (REFUSED)";
	}
	return "an unknown error code";
}

struct rec {
	size_t owner; /* offset of its name */
	uint16_t type, class;
	size_t rdata, rdlen;
};

/* The answer section's records, at most DNS_MAX_RECORDS. */
static int read_records(const uint8_t *pkt, size_t len, size_t *off, unsigned count, struct rec *r, size_t *n,
			const char **why)
{
	char name[DNS_NAME_TEXT];

	*n = 0;
	for (unsigned i = 0; i < count && *n < DNS_MAX_RECORDS; i++) {
		size_t o = *off;
		if (dns_name_read(pkt, len, off, name, why) < 0)
			return -EINVAL;
		if (*off + 10 > len)
			return *why = "a record runs past the end of the message", -EINVAL;
		r[*n] = (struct rec){ .owner = o, .type = get16(pkt + *off), .class = get16(pkt + *off + 2),
				      .rdata = *off + 10, .rdlen = get16(pkt + *off + 8) };
		if (r[*n].rdata + r[*n].rdlen > len)
			return *why = "a record's data runs past the end of the message", -EINVAL;
		*off = r[*n].rdata + r[*n].rdlen;
		(*n)++;
	}
	return 0;
}

static bool owned_by(const uint8_t *pkt, size_t len, const struct rec *r, const char *name)
{
	char own[DNS_NAME_TEXT];
	size_t o = r->owner;
	const char *why;

	return dns_name_read(pkt, len, &o, own, &why) == 0 && dns_name_eq(own, name);
}

/* Could a root's server have this address (4 or 16 bytes)? Not 0.0.0.0,
 * the broadcast address, a multicast group, ::, or an IPv4-mapped one
 * (the IPv4 socket would not reach it): an answer that says so is
 * broken or hostile, and the mount or login would go nowhere sane. */
static bool server_addr(const uint8_t *b, size_t n)
{
	static const uint8_t zero[16], mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (n == 4)
		return memcmp(b, zero, 4) && memcmp(b, "\xff\xff\xff\xff", 4) && (b[0] & 0xf0) != 0xe0;
	return memcmp(b, zero, 16) && b[0] != 0xff && memcmp(b, mapped, 12);
}

/* Addresses of type qtype for name into out. 0, or -EINVAL (why). */
static int take_addrs(const uint8_t *pkt, size_t len, const struct rec *r, size_t n, const char *name,
		      uint16_t qtype, struct dns_answer *out, const char **why)
{
	size_t want = qtype == DNS_TYPE_A ? 4 : 16;

	for (size_t i = 0; i < n; i++) {
		struct net_addr *a;
		if (r[i].type != qtype || r[i].class != DNS_CLASS_IN || !owned_by(pkt, len, &r[i], name))
			continue;
		if (r[i].rdlen != want)
			return *why = "an address record of the wrong length", -EINVAL;
		if (!server_addr(pkt + r[i].rdata, want))
			return *why = "an address no server has (unspecified, broadcast, multicast or IPv4-mapped)",
			       -EINVAL;
		if (out->n_addr == DNS_MAX_ADDRS)
			continue;
		a = &out->addr[out->n_addr++];
		a->family = qtype == DNS_TYPE_A ? AF_INET : AF_INET6;
		memcpy(qtype == DNS_TYPE_A ? (void *)&a->v4 : (void *)&a->v6, pkt + r[i].rdata, want);
	}
	return 0;
}

int dns_answer_parse(const uint8_t *pkt, size_t len, uint16_t id, const char *qname, uint16_t qtype,
		     struct dns_answer *out, const char **why)
{
	struct rec rec[DNS_MAX_RECORDS];
	char name[DNS_NAME_TEXT], cur[DNS_NAME_TEXT];
	size_t off = DNS_HDR, n;
	uint16_t flags;

	memset(out, 0, sizeof(*out));
	if (len < DNS_HDR)
		return *why = "shorter than a DNS header", -EINVAL;
	if (get16(pkt) != id)
		return *why = "not the id of our query", -EINVAL;
	flags = get16(pkt + 2);
	if (!(flags & 0x8000))
		return *why = "a query, not an answer", -EINVAL;
	if ((flags >> 11 & 0xf) != 0)
		return *why = "not the answer to a standard query", -EINVAL;
	if (get16(pkt + 4) != 1)
		return *why = "not one question", -EINVAL;
	if (dns_name_read(pkt, len, &off, name, why) < 0)
		return -EINVAL;
	if (off + 4 > len)
		return *why = "the question runs past the end of the message", -EINVAL;
	if (!dns_name_eq(name, qname) || get16(pkt + off) != qtype || get16(pkt + off + 2) != DNS_CLASS_IN)
		return *why = "the answer to another question", -EINVAL;
	off += 4;
	out->rcode = flags & 0xf;
	out->truncated = flags & 0x0200;
	if (out->rcode != DNS_NOERROR)
		return 0;
	if (read_records(pkt, len, &off, get16(pkt + 6), rec, &n, why) < 0)
		return -EINVAL;
	snprintf(cur, sizeof(cur), "%s", qname);
	for (unsigned hop = 0;; hop++) {
		bool alias = false;
		if (take_addrs(pkt, len, rec, n, cur, qtype, out, why) < 0)
			return -EINVAL;
		if (out->n_addr)
			return 0;
		for (size_t i = 0; i < n && !alias; i++) {
			size_t o = rec[i].rdata;
			if (rec[i].type != DNS_TYPE_CNAME || rec[i].class != DNS_CLASS_IN ||
			    !owned_by(pkt, len, &rec[i], cur))
				continue;
			if (dns_name_read(pkt, len, &o, name, why) < 0)
				return -EINVAL;
			if (o > rec[i].rdata + rec[i].rdlen)
				return *why = "a CNAME's name runs past its record", -EINVAL;
			alias = true;
		}
		if (!alias)
			break;
		if (hop == DNS_MAX_CNAMES)
			return *why = "a CNAME chain longer than 8 names", -EINVAL;
		memcpy(cur, name, sizeof(cur));
	}
	if (!dns_name_eq(cur, qname))
		memcpy(out->cname, cur, sizeof(out->cname));
	return 0;
}
