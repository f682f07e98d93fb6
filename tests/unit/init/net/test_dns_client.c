// SPDX-License-Identifier: GPL-2.0-or-later
/* The stub resolver's state machine on a fake clock: which name it asks
 * for, of whom, when it moves on, and the exact error when nothing
 * comes of it. */
#include <arpa/inet.h>
#include <errno.h>

#include "test.h"
#include "init/net/dns_client.h"

static struct net_addr A4(const char *s)
{
	struct net_addr a = { .family = AF_INET };
	inet_pton(AF_INET, s, &a.v4);
	return a;
}

struct run {
	struct dns_client c;
	uint8_t tx[DNS_QUERY_MAX];
	size_t txlen;
	struct net_addr to;
	uint64_t dl;
	char asked[DNS_NAME_TEXT]; /* the name of the last query sent */
};

static enum dns_action step(struct run *r, uint64_t now, const uint8_t *rx, size_t n, const struct net_addr *from)
{
	uint8_t tx[DNS_QUERY_MAX];
	size_t txlen;
	enum dns_action a = dns_client_step(&r->c, now, rx, n, from, tx, sizeof(tx), &txlen, &r->to, &r->dl);

	if (a == DNS_ACT_SEND) {
		memcpy(r->tx, tx, txlen);
		r->txlen = txlen;
		size_t off = 12;
		const char *why;
		CHECK(dns_name_read(r->tx, r->txlen, &off, r->asked, &why) == 0);
	}
	return a;
}

/* The answer to the query last sent: rcode, and an A record (ip) or a
 * CNAME (alias) for the question's name, or nothing. */
static size_t reply(const struct run *r, uint8_t *b, unsigned rcode, const char *ip, const char *alias)
{
	size_t n = r->txlen;

	memcpy(b, r->tx, n);
	b[2] |= 0x80;
	b[3] = (uint8_t)(0x80 | rcode);
	if (!ip && !alias)
		return n;
	b[7] = 1;
	b[n++] = 0xc0;
	b[n++] = 12;
	b[n++] = 0;
	b[n++] = ip ? DNS_TYPE_A : DNS_TYPE_CNAME;
	memcpy(b + n, "\0\1\0\0\0\x3c", 6);
	n += 6;
	if (ip) {
		struct in_addr a;
		inet_pton(AF_INET, ip, &a);
		b[n++] = 0;
		b[n++] = 4;
		memcpy(b + n, &a, 4);
		return n + 4;
	}
	{
		size_t q = dns_query_build(b + n + 2, 400, 0, alias, 1) - 12 - 4;
		memmove(b + n + 2, b + n + 2 + 12, q);
		b[n++] = 0;
		b[n++] = (uint8_t)q;
		return n + q;
	}
}

static void start(struct run *r, const char *name, const struct net_addr *srv, size_t n, const char *const *search,
		  size_t ns)
{
	struct dns_config cfg = { .name = name, .servers = srv, .n_servers = n, .search = search, .n_search = ns,
				  .seed = 42 };

	memset(r, 0, sizeof(*r));
	CHECK(dns_client_init(&r->c, &cfg) == 0);
}

static void test_dotted_name_first(void)
{
	struct net_addr s[] = { A4("10.0.2.3") };
	const char *search[] = { "lan" };
	struct run r;
	uint8_t b[600];
	char t[NET_ADDR_TEXT];

	start(&r, "nfsserver.test", s, 1, search, 1);
	CHECK(step(&r, 0, NULL, 0, NULL) == DNS_ACT_SEND);
	CHECK_STR(r.asked, "nfsserver.test");
	CHECK(r.to.family == AF_INET && r.to.v4.s_addr == s[0].v4.s_addr && r.dl == 1000);
	/* before the deadline, nothing */
	CHECK(step(&r, 999, NULL, 0, NULL) == DNS_ACT_WAIT);
	CHECK(step(&r, 10, b, reply(&r, b, 0, "10.0.2.9", NULL), &s[0]) == DNS_ACT_DONE);
	CHECK_STR(net_addr_str(&r.c.result, t), "10.0.2.9");
}

static void test_search_then_bare(void)
{
	struct net_addr s[] = { A4("10.0.2.3") };
	const char *search[] = { "example", "test" };
	struct run r;
	uint8_t b[600];
	char t[NET_ADDR_TEXT];

	start(&r, "nfsserver", s, 1, search, 2);
	CHECK(step(&r, 0, NULL, 0, NULL) == DNS_ACT_SEND);
	CHECK_STR(r.asked, "nfsserver.example");
	CHECK(step(&r, 5, b, reply(&r, b, 3, NULL, NULL), &s[0]) == DNS_ACT_SEND);
	CHECK_STR(r.asked, "nfsserver.test");
	CHECK(step(&r, 6, b, reply(&r, b, 0, "192.168.50.1", NULL), &s[0]) == DNS_ACT_DONE);
	CHECK_STR(net_addr_str(&r.c.result, t), "192.168.50.1");
}

static void test_silent_server_then_next(void)
{
	struct net_addr s[] = { A4("10.0.2.3"), A4("10.0.2.4") };
	struct run r;
	uint8_t b[600];

	start(&r, "nfsserver.test", s, 2, NULL, 0);
	CHECK(step(&r, 0, NULL, 0, NULL) == DNS_ACT_SEND);
	CHECK(r.to.v4.s_addr == s[0].v4.s_addr);
	CHECK(step(&r, 1000, NULL, 0, NULL) == DNS_ACT_SEND);
	CHECK(r.to.v4.s_addr == s[1].v4.s_addr && r.dl == 2000);
	/* an answer from elsewhere, or for another id, is not taken */
	{
		struct net_addr other = A4("10.0.2.99");
		size_t n = reply(&r, b, 0, "6.6.6.6", NULL);
		CHECK(step(&r, 1500, b, n, &other) == DNS_ACT_WAIT);
		CHECK_STR(r.c.ignored, "not from a DNS server we asked");
		b[0] ^= 0xff;
		CHECK(step(&r, 1500, b, n, &s[1]) == DNS_ACT_WAIT);
		CHECK_STR(r.c.ignored, "not the id of our query");
	}
	/* the first server, late, still answers the same query */
	CHECK(step(&r, 1600, b, reply(&r, b, 0, "10.0.2.9", NULL), &s[0]) == DNS_ACT_DONE);
}

static void test_cname_asked_again(void)
{
	struct net_addr s[] = { A4("10.0.2.3") };
	struct run r;
	uint8_t b[600];

	start(&r, "nfs.test", s, 1, NULL, 0);
	step(&r, 0, NULL, 0, NULL);
	CHECK(step(&r, 1, b, reply(&r, b, 0, NULL, "srv.test"), &s[0]) == DNS_ACT_SEND);
	CHECK_STR(r.asked, "srv.test");
	CHECK(step(&r, 2, b, reply(&r, b, 0, "10.0.2.9", NULL), &s[0]) == DNS_ACT_DONE);
	/* an alias of an alias of ...: bounded */
	start(&r, "a.test", s, 1, NULL, 0);
	step(&r, 0, NULL, 0, NULL);
	for (int i = 0; i < DNS_MAX_CNAMES; i++)
		CHECK(step(&r, 1, b, reply(&r, b, 0, NULL, i % 2 ? "a.test" : "b.test"), &s[0]) == DNS_ACT_SEND);
	CHECK(step(&r, 1, b, reply(&r, b, 0, NULL, "b.test"), &s[0]) == DNS_ACT_FAIL);
	CHECK_STR(r.c.error, "cannot resolve a.test (IPv4): 10.0.2.3: a CNAME chain longer than 8 names for a.test");
}

static void test_errors_exact(void)
{
	struct net_addr s[] = { A4("10.0.2.3"), A4("10.0.2.4") };
	const char *search[] = { "lan" };
	struct run r;
	uint8_t b[600];
	uint64_t now = 0;

	/* the name's server says there is no such name, for each try */
	start(&r, "nfsserver", s, 2, search, 1);
	step(&r, 0, NULL, 0, NULL);
	CHECK(step(&r, 1, b, reply(&r, b, 3, NULL, NULL), &s[0]) == DNS_ACT_SEND);
	CHECK(step(&r, 2, b, reply(&r, b, 0, NULL, NULL), &s[0]) == DNS_ACT_FAIL);
	CHECK_STR(r.c.error, "cannot resolve nfsserver (IPv4): 10.0.2.3: no such name (NXDOMAIN) for "
			     "nfsserver.lan, no IPv4 address for nfsserver; 10.0.2.4: not asked");

	/* one fails, one is silent: three rounds each, then the end */
	start(&r, "nfsserver.test", s, 2, NULL, 0);
	CHECK(step(&r, 0, NULL, 0, NULL) == DNS_ACT_SEND);
	CHECK(step(&r, 1, b, reply(&r, b, 2, NULL, NULL), &s[0]) == DNS_ACT_SEND);
	CHECK(r.to.v4.s_addr == s[1].v4.s_addr);
	for (int i = 0; i < 4; i++) {
		now = r.dl;
		CHECK(step(&r, now, NULL, 0, NULL) == DNS_ACT_SEND);
	}
	CHECK(step(&r, r.dl, NULL, 0, NULL) == DNS_ACT_FAIL);
	CHECK_STR(r.c.error, "cannot resolve nfsserver.test (IPv4): 10.0.2.3: server failure (SERVFAIL) for "
			     "nfsserver.test, no answer; 10.0.2.4: no answer");

	/* nobody to ask */
	start(&r, "nfsserver.test", NULL, 0, NULL, 0);
	CHECK(step(&r, 0, NULL, 0, NULL) == DNS_ACT_FAIL);
	CHECK_STR(r.c.error, "cannot resolve nfsserver.test (IPv4): no DNS server to ask (none from nameserver= or DHCP)");

	/* a broken answer from the server is said */
	start(&r, "x.test", s, 1, NULL, 0);
	step(&r, 0, NULL, 0, NULL);
	{
		size_t n = reply(&r, b, 0, "1.2.3.4", NULL);
		b[n - 5] = 3; /* rdlength 3 */
		CHECK(step(&r, 1, b, n - 1, &s[0]) == DNS_ACT_WAIT);
	}
	CHECK(step(&r, 1000, NULL, 0, NULL) == DNS_ACT_SEND);
	CHECK(step(&r, 3000, NULL, 0, NULL) == DNS_ACT_SEND);
	CHECK(step(&r, 7000, NULL, 0, NULL) == DNS_ACT_FAIL);
	CHECK_STR(r.c.error, "cannot resolve x.test (IPv4): 10.0.2.3: a broken answer (an address record of the "
			     "wrong length) for x.test, no answer");
}

/* IPv6: AAAA asked of an IPv6 server; its answer from another address
 * is not taken; an A record is not an IPv6 address, the error says IPv6. */
static void test_aaaa(void)
{
	struct net_addr srv = { .family = AF_INET6 }, other = { .family = AF_INET6 };
	struct dns_config cfg = { .name = "nfsserver.test", .qtype = DNS_TYPE_AAAA, .servers = &srv, .n_servers = 1,
				  .seed = 5 };
	struct run r;
	uint8_t b[600];
	size_t n;
	char t[NET_ADDR_TEXT];

	inet_pton(AF_INET6, "fd00::3", &srv.v6);
	inet_pton(AF_INET6, "fd00::4", &other.v6);
	memset(&r, 0, sizeof(r));
	CHECK(dns_client_init(&r.c, &cfg) == 0);
	CHECK(step(&r, 0, NULL, 0, NULL) == DNS_ACT_SEND);
	CHECK(r.to.family == AF_INET6 && !memcmp(&r.to.v6, &srv.v6, 16));
	CHECK(r.tx[r.txlen - 3] == DNS_TYPE_AAAA);
	/* the right answer from a server not asked, then from ours */
	memcpy(b, r.tx, r.txlen);
	n = r.txlen;
	b[2] |= 0x80;
	b[3] = 0x80;
	b[7] = 1;
	memcpy(b + n, "\xc0\x0c\0\x1c\0\1\0\0\0\x3c\0\x10", 12);
	inet_pton(AF_INET6, "fd00::64", b + n + 12);
	n += 28;
	CHECK(step(&r, 2, b, n, &other) == DNS_ACT_WAIT);
	CHECK_STR(r.c.ignored, "not from a DNS server we asked");
	CHECK(step(&r, 3, b, n, &srv) == DNS_ACT_DONE);
	CHECK_STR(net_addr_str(&r.c.result, t), "fd00::64");
	/* an A record beside our AAAA question is no IPv6 address: the
	 * error names the family */
	memset(&r, 0, sizeof(r));
	CHECK(dns_client_init(&r.c, &cfg) == 0);
	step(&r, 0, NULL, 0, NULL);
	n = reply(&r, b, 0, "10.0.2.9", NULL);
	CHECK(step(&r, 1, b, n, &srv) == DNS_ACT_FAIL);
	CHECK_STR(r.c.error, "cannot resolve nfsserver.test (IPv6): fd00::3: no IPv6 address for nfsserver.test");
}

static void test_bad_names(void)
{
	struct dns_client c;
	struct dns_config cfg = { .name = "bad name" };
	const char *search[] = { "ok", "not ok", "fine" };

	CHECK(dns_client_init(&c, &cfg) == -EINVAL);
	CHECK_STR(c.error, "\"bad name\" is not a host name");
	cfg.name = "";
	CHECK(dns_client_init(&c, &cfg) == -EINVAL);
	/* a search domain that is not a name is not tried */
	cfg.name = "srv";
	cfg.search = search;
	cfg.n_search = 3;
	CHECK(dns_client_init(&c, &cfg) == 0);
	CHECK(c.n_cand == 3 && !strcmp(c.cand[0], "srv.ok") && !strcmp(c.cand[1], "srv.fine") &&
	      !strcmp(c.cand[2], "srv"));
	/* absolute: no search */
	cfg.name = "srv.";
	CHECK(dns_client_init(&c, &cfg) == 0 && c.n_cand == 1);
}

int main(void)
{
	RUN(test_dotted_name_first);
	RUN(test_search_then_bare);
	RUN(test_silent_server_then_next);
	RUN(test_cname_asked_again);
	RUN(test_errors_exact);
	RUN(test_bad_names);
	RUN(test_aaaa);
	return test_done();
}
