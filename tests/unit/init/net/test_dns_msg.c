// SPDX-License-Identifier: GPL-2.0-or-later
/* DNS queries and answers: a query is what a server reads, an answer
 * counts only for our id and question, CNAME chains are followed and
 * bounded, and each kind of hostile packet (compression loops,
 * truncation, labels no name has) is refused for its own reason. */
#include <arpa/inet.h>
#include <errno.h>

#include "test.h"
#include "init/net/dns_msg.h"

struct pkt {
	uint8_t b[1024];
	size_t n;
};

static void add(struct pkt *p, const void *d, size_t n)
{
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

static void add16(struct pkt *p, unsigned v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };
	add(p, b, 2);
}

/* An answer to "name" type qtype with rcode, ancount answers to follow. */
static void answer_head(struct pkt *p, uint16_t id, const char *name, uint16_t qtype, unsigned rcode,
			unsigned ancount)
{
	p->n = dns_query_build(p->b, sizeof(p->b), id, name, qtype);
	p->b[2] |= 0x80;
	p->b[3] = (uint8_t)(0x80 | rcode);
	p->b[7] = (uint8_t)ancount;
}

/* A record: owner as a pointer to offset 12 (the question's name) when
 * owner is NULL, else the raw name bytes given. */
static void rr(struct pkt *p, const void *owner, size_t olen, uint16_t type, const void *rdata, size_t rdlen)
{
	if (owner)
		add(p, owner, olen);
	else
		add16(p, 0xc00c);
	add16(p, type);
	add16(p, DNS_CLASS_IN);
	add16(p, 0);
	add16(p, 60);
	add16(p, (unsigned)rdlen);
	add(p, rdata, rdlen);
}

static void test_query(void)
{
	uint8_t b[DNS_QUERY_MAX];
	static const uint8_t want[] = { 0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 9, 'n', 'f', 's',
					's', 'e', 'r', 'v', 'e', 'r', 4, 't', 'e', 's', 't', 0, 0, 1, 0, 1 };
	size_t n = dns_query_build(b, sizeof(b), 0x1234, "nfsserver.test", DNS_TYPE_A);
	char label64[80];

	CHECK(n == sizeof(want) && memcmp(b, want, n) == 0);
	/* a trailing dot is the same name */
	CHECK(dns_query_build(b, sizeof(b), 0x1234, "nfsserver.test.", DNS_TYPE_A) == n);
	CHECK(dns_query_build(b, sizeof(b), 1, "", DNS_TYPE_A) == 0);
	CHECK(dns_query_build(b, sizeof(b), 1, "a..b", DNS_TYPE_A) == 0);
	CHECK(dns_query_build(b, sizeof(b), 1, "a b", DNS_TYPE_A) == 0);
	CHECK(dns_query_build(b, sizeof(b), 1, "a/b", DNS_TYPE_A) == 0);
	memset(label64, 'a', 64);
	label64[64] = '\0';
	CHECK(dns_query_build(b, sizeof(b), 1, label64, DNS_TYPE_A) == 0);
	label64[63] = '\0';
	CHECK(dns_query_build(b, sizeof(b), 1, label64, DNS_TYPE_A) == 12 + 65 + 4);
	CHECK(dns_query_build(b, 20, 1, "nfsserver.test", DNS_TYPE_A) == 0);
}

static void test_long_name_refused(void)
{
	char name[300];
	uint8_t b[DNS_QUERY_MAX];
	size_t n = 0;

	/* 4 labels of 63: 256 bytes on the wire, one too many */
	for (int l = 0; l < 4; l++) {
		if (l)
			name[n++] = '.';
		memset(name + n, 'x', 63);
		n += 63;
	}
	name[n] = '\0';
	CHECK(dns_query_build(b, sizeof(b), 1, name, DNS_TYPE_A) == 0);
	name[n - 2] = '\0'; /* 254 */
	CHECK(dns_query_build(b, sizeof(b), 1, name, DNS_TYPE_A) > 0);
}

static void test_a_answer(void)
{
	struct pkt p;
	struct dns_answer a;
	const char *why = NULL;
	static const uint8_t ip1[] = { 10, 0, 2, 9 }, ip2[] = { 10, 0, 2, 10 };
	char t[NET_ADDR_TEXT];

	answer_head(&p, 7, "nfsserver.test", DNS_TYPE_A, 0, 2);
	rr(&p, NULL, 0, DNS_TYPE_A, ip1, 4);
	rr(&p, NULL, 0, DNS_TYPE_A, ip2, 4);
	CHECK(dns_answer_parse(p.b, p.n, 7, "NFSSERVER.test.", DNS_TYPE_A, &a, &why) == 0);
	CHECK(a.rcode == 0 && a.n_addr == 2 && !a.cname[0] && !a.truncated);
	CHECK_STR(net_addr_str(&a.addr[0], t), "10.0.2.9");
	CHECK_STR(net_addr_str(&a.addr[1], t), "10.0.2.10");
}

/* AAAA: IPv6 addresses of the name; A records (and AAAA for another
 * question) beside them are not taken. */
static void test_aaaa_answer(void)
{
	struct pkt p;
	struct dns_answer a;
	const char *why = NULL;
	struct in6_addr v6;
	static const uint8_t ip4[] = { 10, 0, 2, 9 };
	char t[NET_ADDR_TEXT];

	inet_pton(AF_INET6, "fd00::64", &v6);
	answer_head(&p, 9, "nfsserver.test", DNS_TYPE_AAAA, 0, 2);
	rr(&p, NULL, 0, DNS_TYPE_A, ip4, 4);
	rr(&p, NULL, 0, DNS_TYPE_AAAA, &v6, 16);
	CHECK(dns_answer_parse(p.b, p.n, 9, "nfsserver.test", DNS_TYPE_AAAA, &a, &why) == 0);
	CHECK(a.n_addr == 1 && a.addr[0].family == AF_INET6);
	CHECK_STR(net_addr_str(&a.addr[0], t), "fd00::64");
	/* the same answer is not one to an A question */
	CHECK(dns_answer_parse(p.b, p.n, 9, "nfsserver.test", DNS_TYPE_A, &a, &why) == -EINVAL);
	CHECK_STR(why, "the answer to another question");
	/* an A-sized AAAA, and an AAAA-sized A */
	answer_head(&p, 9, "nfsserver.test", DNS_TYPE_AAAA, 0, 1);
	rr(&p, NULL, 0, DNS_TYPE_AAAA, ip4, 4);
	CHECK(dns_answer_parse(p.b, p.n, 9, "nfsserver.test", DNS_TYPE_AAAA, &a, &why) == -EINVAL);
	CHECK_STR(why, "an address record of the wrong length");
	answer_head(&p, 9, "nfsserver.test", DNS_TYPE_A, 0, 1);
	rr(&p, NULL, 0, DNS_TYPE_A, &v6, 16);
	CHECK(dns_answer_parse(p.b, p.n, 9, "nfsserver.test", DNS_TYPE_A, &a, &why) == -EINVAL);
	CHECK_STR(why, "an address record of the wrong length");
}

/* Addresses no server has: each refused for the same reason. */
static void test_no_server_address(void)
{
	static const char *const bad6[] = { "::", "ff02::1", "::ffff:10.0.2.9" };
	static const uint8_t bad4[][4] = { { 0, 0, 0, 0 }, { 255, 255, 255, 255 }, { 224, 0, 0, 1 } };
	const char *msg = "an address no server has (unspecified, broadcast, multicast or IPv4-mapped)";
	struct pkt p;
	struct dns_answer a;
	const char *why = NULL;

	for (size_t i = 0; i < sizeof(bad6) / sizeof(bad6[0]); i++) {
		struct in6_addr v6;
		inet_pton(AF_INET6, bad6[i], &v6);
		answer_head(&p, 3, "x.test", DNS_TYPE_AAAA, 0, 1);
		rr(&p, NULL, 0, DNS_TYPE_AAAA, &v6, 16);
		CHECK(dns_answer_parse(p.b, p.n, 3, "x.test", DNS_TYPE_AAAA, &a, &why) == -EINVAL);
		CHECK_STR(why, msg);
	}
	for (size_t i = 0; i < sizeof(bad4) / sizeof(bad4[0]); i++) {
		answer_head(&p, 3, "x.test", DNS_TYPE_A, 0, 1);
		rr(&p, NULL, 0, DNS_TYPE_A, bad4[i], 4);
		CHECK(dns_answer_parse(p.b, p.n, 3, "x.test", DNS_TYPE_A, &a, &why) == -EINVAL);
		CHECK_STR(why, msg);
	}
}

static void test_cname_chain(void)
{
	struct pkt p;
	struct dns_answer a;
	const char *why = NULL;
	static const uint8_t ip[] = { 192, 168, 50, 1 };
	static const uint8_t srv[] = { 3, 's', 'r', 'v', 0xc0, 22 }; /* srv. + "test" of the question */
	char t[NET_ADDR_TEXT];
	size_t srv_at;

	/* nfs.test -> srv.test -> A */
	answer_head(&p, 9, "nfs.test", DNS_TYPE_A, 0, 2);
	CHECK(p.b[12 + 4] == 4); /* "test" is at 16 */
	srv_at = p.n + 12;
	{
		uint8_t target[] = { 3, 's', 'r', 'v', 0xc0, 16 };
		rr(&p, NULL, 0, DNS_TYPE_CNAME, target, sizeof(target));
	}
	{
		uint8_t owner[] = { 0xc0, (uint8_t)srv_at };
		rr(&p, owner, 2, DNS_TYPE_A, ip, 4);
	}
	CHECK(dns_answer_parse(p.b, p.n, 9, "nfs.test", DNS_TYPE_A, &a, &why) == 0);
	CHECK(a.n_addr == 1 && !strcmp(net_addr_str(&a.addr[0], t), "192.168.50.1"));
	(void)srv;

	/* the alias alone: its end is asked for next */
	answer_head(&p, 9, "nfs.test", DNS_TYPE_A, 0, 1);
	{
		uint8_t target[] = { 3, 's', 'r', 'v', 0xc0, 16 };
		rr(&p, NULL, 0, DNS_TYPE_CNAME, target, sizeof(target));
	}
	CHECK(dns_answer_parse(p.b, p.n, 9, "nfs.test", DNS_TYPE_A, &a, &why) == 0);
	CHECK(a.n_addr == 0);
	CHECK_STR(a.cname, "srv.test");
}

static void test_cname_loop_bounded(void)
{
	struct pkt p;
	struct dns_answer a;
	const char *why = NULL;
	size_t first;

	/* a.test CNAME b.test, b.test CNAME a.test */
	answer_head(&p, 3, "a.test", DNS_TYPE_A, 0, 2);
	first = p.n + 12; /* rdata of the first record */
	{
		uint8_t target[] = { 1, 'b', 0xc0, 14 };
		rr(&p, NULL, 0, DNS_TYPE_CNAME, target, sizeof(target));
	}
	{
		uint8_t owner[] = { 0xc0, (uint8_t)first };
		rr(&p, owner, 2, DNS_TYPE_CNAME, (uint8_t[]){ 0xc0, 12 }, 2);
	}
	CHECK(dns_answer_parse(p.b, p.n, 3, "a.test", DNS_TYPE_A, &a, &why) == -EINVAL);
	CHECK_STR(why, "a CNAME chain longer than 8 names");
}

static void expect(const struct pkt *p, const char *q, const char *reason)
{
	struct dns_answer a;
	const char *why = NULL;

	CHECK(dns_answer_parse(p->b, p->n, 5, q, DNS_TYPE_A, &a, &why) == -EINVAL);
	if (!why || strcmp(why, reason))
		printf("#   for %s: got '%s', expected '%s'\n", q, why ? why : "(null)", reason);
	CHECK(why && !strcmp(why, reason));
}

static void test_not_ours(void)
{
	struct pkt p;
	struct dns_answer a;
	const char *why;

	answer_head(&p, 5, "x.test", DNS_TYPE_A, 0, 0);
	expect(&p, "y.test", "the answer to another question");
	p.b[1] = 6;
	expect(&p, "x.test", "not the id of our query");
	answer_head(&p, 5, "x.test", DNS_TYPE_A, 0, 0);
	p.b[2] &= 0x7f;
	expect(&p, "x.test", "a query, not an answer");
	answer_head(&p, 5, "x.test", DNS_TYPE_A, 0, 0);
	p.b[2] |= 0x10; /* opcode 2 */
	expect(&p, "x.test", "not the answer to a standard query");
	answer_head(&p, 5, "x.test", DNS_TYPE_A, 0, 0);
	p.b[5] = 2;
	expect(&p, "x.test", "not one question");
	answer_head(&p, 5, "x.test", DNS_TYPE_AAAA, 0, 0);
	expect(&p, "x.test", "the answer to another question");
	p.n = 11;
	expect(&p, "x.test", "shorter than a DNS header");
	/* NXDOMAIN: an answer, no records read */
	answer_head(&p, 5, "x.test", DNS_TYPE_A, 3, 5);
	CHECK(dns_answer_parse(p.b, p.n, 5, "x.test", DNS_TYPE_A, &a, &why) == 0 && a.rcode == 3);
	CHECK_STR(dns_rcode_str(a.rcode), "no such name (NXDOMAIN)");
}

static void test_hostile(void)
{
	struct pkt p, base;
	static const uint8_t ip[] = { 1, 2, 3, 4 };

	answer_head(&base, 5, "x.test", DNS_TYPE_A, 0, 1);
	/* truncated anywhere: the question, a record header, its data */
	p = base;
	p.n -= 3;
	expect(&p, "x.test", "the question runs past the end of the message");
	p = base;
	p.n = 15;
	expect(&p, "x.test", "a name runs past the end of the message");
	p = base;
	rr(&p, NULL, 0, DNS_TYPE_A, ip, 4);
	p.n -= 1;
	expect(&p, "x.test", "a record's data runs past the end of the message");
	p.n -= 8;
	expect(&p, "x.test", "a record runs past the end of the message");
	p = base;
	add(&p, "\xc0", 1); /* a pointer cut in half */
	expect(&p, "x.test", "a name runs past the end of the message");
	/* a pointer to itself, and one forwards */
	p = base;
	add16(&p, 0xc000 | (unsigned)p.n);
	expect(&p, "x.test", "a compression pointer that does not point backwards (a loop)");
	p = base;
	add16(&p, 0xc000 | (unsigned)(p.n + 2));
	add(&p, "\0", 1);
	expect(&p, "x.test", "a compression pointer that does not point backwards (a loop)");
	/* a pointer back into a name that points forward again: 12 -> ... */
	p = base;
	p.b[12] = 0xc0;
	p.b[13] = 12;
	expect(&p, "x.test", "a compression pointer that does not point backwards (a loop)");
	/* 0x40 and 0x80 label types */
	p = base;
	p.b[12] = 0x41;
	expect(&p, "x.test", "a label of an unknown type");
	/* a dot inside a label */
	p = base;
	rr(&p, "\3a.b\0", 5, DNS_TYPE_A, ip, 4);
	expect(&p, "x.test", "a name with a byte no host name has");
	/* an address of the wrong size */
	p = base;
	rr(&p, NULL, 0, DNS_TYPE_A, ip, 3);
	expect(&p, "x.test", "an address record of the wrong length");
	/* a name of 256 bytes through pointers: 4 x 63 + the question's */
	{
		size_t start;
		p = base;
		start = p.n;
		for (int l = 0; l < 4; l++) {
			uint8_t lab[64];
			lab[0] = 63;
			memset(lab + 1, 'y', 63);
			add(&p, lab, 64);
		}
		add16(&p, 0xc00c);
		p.b[7] = 1;
		(void)start;
		add16(&p, 1);
		add16(&p, 1);
		add16(&p, 0);
		add16(&p, 0);
		add16(&p, 4);
		add(&p, ip, 4);
		expect(&p, "x.test", "a name longer than 255 bytes");
	}
	/* a CNAME whose name runs past its rdata */
	p = base;
	rr(&p, NULL, 0, DNS_TYPE_CNAME, "\1b\0", 3);
	p.b[p.n - 4] = 2; /* rdlen 2: the name ends past it */
	p.n--;
	add(&p, "\0", 1);
	expect(&p, "x.test", "a CNAME's name runs past its record");
}

static void test_name_read(void)
{
	/* RFC 3397's example: search list eng.apple.com, marketing.apple.com */
	static const uint8_t o119[] = { 3, 'e', 'n', 'g', 5, 'a', 'p', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0,
					9, 'm', 'a', 'r', 'k', 'e', 't', 'i', 'n', 'g', 0xc0, 4 };
	char out[DNS_NAME_TEXT];
	size_t off = 0;
	const char *why;

	CHECK(dns_name_read(o119, sizeof(o119), &off, out, &why) == 0 && off == 15);
	CHECK_STR(out, "eng.apple.com");
	CHECK(dns_name_read(o119, sizeof(o119), &off, out, &why) == 0 && off == sizeof(o119));
	CHECK_STR(out, "marketing.apple.com");
	CHECK(dns_name_eq("A.b.", "a.B") && !dns_name_eq("a.b", "a.bc"));
}

int main(void)
{
	RUN(test_query);
	RUN(test_long_name_refused);
	RUN(test_a_answer);
	RUN(test_aaaa_answer);
	RUN(test_no_server_address);
	RUN(test_cname_chain);
	RUN(test_cname_loop_bounded);
	RUN(test_not_ours);
	RUN(test_hostile);
	RUN(test_name_read);
	return test_done();
}
