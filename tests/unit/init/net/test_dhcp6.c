// SPDX-License-Identifier: GPL-2.0-or-later
/* DHCPv6: the messages the client builds, a whole SOLICIT, ADVERTISE,
 * REQUEST, REPLY exchange against a scripted server, the retransmission
 * schedule, and the exact reason each malformed answer is ignored. */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "test.h"
#include "init/net/dhcp6_client.h"

static const uint8_t MAC[6] = { 0x52, 0x54, 0x00, 0x64, 0x00, 0x0a };
static const uint8_t SRVID[] = { 0, 3, 0, 1, 0x52, 0x54, 0x00, 0x64, 0x00, 0x01 };

struct pkt {
	uint8_t b[512];
	size_t n;
};

static void p_put(struct pkt *p, const void *d, size_t n)
{
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

static void p_opt(struct pkt *p, unsigned code, const void *d, size_t n)
{
	uint8_t h[4] = { (uint8_t)(code >> 8), (uint8_t)code, (uint8_t)(n >> 8), (uint8_t)n };
	p_put(p, h, 4);
	p_put(p, d, n);
}

/* An answer from the server: type, xid, our client id, its id, an IA_NA
 * for iaid with addr (NULL: none), DNS and domain list. */
static void answer(struct pkt *p, int type, uint32_t xid, uint32_t iaid, const char *addr)
{
	uint8_t duid[10], ia[12 + 4 + 24] = { 0 };
	uint8_t dns[16];
	static const uint8_t dom[] = { 4, 't', 'e', 's', 't', 0, 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'o', 'r', 'g', 0 };
	static const char url[] = "nfs://[fd00::1]/srv/root";

	p->n = 0;
	uint8_t h[4] = { (uint8_t)type, (uint8_t)(xid >> 16), (uint8_t)(xid >> 8), (uint8_t)xid };
	p_put(p, h, 4);
	dhcp6_duid_ll(MAC, duid);
	p_opt(p, 1, duid, sizeof(duid));
	p_opt(p, 2, SRVID, sizeof(SRVID));
	ia[0] = (uint8_t)(iaid >> 24), ia[1] = (uint8_t)(iaid >> 16), ia[2] = (uint8_t)(iaid >> 8), ia[3] = (uint8_t)iaid;
	ia[7] = 100, ia[11] = 200;
	if (addr) {
		ia[12] = 0, ia[13] = 5, ia[14] = 0, ia[15] = 24;
		inet_pton(AF_INET6, addr, ia + 16);
		ia[34] = 0x10; /* preferred 4096 */
		ia[37] = 0x01; /* valid 65536 */
		p_opt(p, 3, ia, sizeof(ia));
	} else {
		p_opt(p, 3, ia, 12);
	}
	inet_pton(AF_INET6, "fd00::53", dns);
	p_opt(p, 23, dns, 16);
	p_opt(p, 24, dom, sizeof(dom));
	p_opt(p, 59, url, strlen(url));
}

static void test_build(void)
{
	uint8_t duid[10], buf[DHCP6_BUILD_MAX];
	struct in6_addr a;
	struct dhcp6_build b = { .type = DHCP6_SOLICIT, .xid = 0xabcdef, .duid = duid, .duid_len = 10,
				 .iaid = 0x0064000a, .elapsed_cs = 150 };
	static const uint8_t want[] = {
		1, 0xab, 0xcd, 0xef,
		0, 1, 0, 10, 0, 3, 0, 1, 0x52, 0x54, 0x00, 0x64, 0x00, 0x0a, /* CLIENTID DUID-LL */
		0, 8, 0, 2, 0, 150,                                           /* ELAPSED_TIME */
		0, 6, 0, 6, 0, 23, 0, 24, 0, 59,                              /* ORO */
		0, 3, 0, 12, 0, 0x64, 0, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0,        /* IA_NA */
	};
	size_t n;

	CHECK(dhcp6_duid_ll(MAC, duid) == 10);
	n = dhcp6_msg_build(buf, sizeof(buf), &b);
	CHECK(n == sizeof(want));
	CHECK(memcmp(buf, want, sizeof(want)) == 0);
	CHECK(dhcp6_msg_build(buf, sizeof(want) - 1, &b) == 0);
	inet_pton(AF_INET6, "fd00::10", &a);
	b.type = DHCP6_REQUEST;
	b.server_id = SRVID;
	b.server_id_len = sizeof(SRVID);
	b.addr = &a;
	n = dhcp6_msg_build(buf, sizeof(buf), &b);
	CHECK(n == sizeof(want) + 4 + sizeof(SRVID) + 28);
	CHECK(buf[0] == DHCP6_REQUEST);
}

static void test_exchange(void)
{
	struct dhcp6_config cfg = { .seed = 7 };
	struct dhcp6_client c;
	uint8_t tx[DHCP6_BUILD_MAX];
	size_t txlen;
	uint64_t dl;
	struct pkt p;
	char t[INET6_ADDRSTRLEN];

	memcpy(cfg.mac, MAC, 6);
	dhcp6_client_init(&c, &cfg, 1000);
	CHECK(dhcp6_client_step(&c, 1000, NULL, 0, tx, sizeof(tx), &txlen, &dl) == DHCP6_ACT_SEND);
	CHECK(tx[0] == DHCP6_SOLICIT && txlen > 0);
	CHECK(dl >= 1900 && dl <= 2100);
	/* an ADVERTISE for another transaction, then one with no address */
	answer(&p, DHCP6_ADVERTISE, c.xid ^ 1, c.iaid, "fd00::10");
	CHECK(dhcp6_client_step(&c, 1100, p.b, p.n, tx, sizeof(tx), &txlen, &dl) == DHCP6_ACT_WAIT);
	CHECK_STR(c.ignored, "another transaction");
	answer(&p, DHCP6_ADVERTISE, c.xid, c.iaid, NULL);
	CHECK(dhcp6_client_step(&c, 1100, p.b, p.n, tx, sizeof(tx), &txlen, &dl) == DHCP6_ACT_WAIT);
	CHECK_STR(c.ignored, "an ADVERTISE with no address for us");
	answer(&p, DHCP6_ADVERTISE, c.xid, c.iaid + 1, "fd00::10");
	CHECK(dhcp6_client_step(&c, 1100, p.b, p.n, tx, sizeof(tx), &txlen, &dl) == DHCP6_ACT_WAIT);
	CHECK_STR(c.ignored, "an ADVERTISE with no address for us");
	answer(&p, DHCP6_ADVERTISE, c.xid, c.iaid, "fd00::10");
	CHECK(dhcp6_client_step(&c, 1200, p.b, p.n, tx, sizeof(tx), &txlen, &dl) == DHCP6_ACT_SEND);
	CHECK(tx[0] == DHCP6_REQUEST);
	CHECK(c.state == DHCP6_S_REQUESTING);
	/* the REQUEST names the server and the address offered */
	CHECK(memmem(tx, txlen, SRVID, sizeof(SRVID)) != NULL);
	/* a late ADVERTISE is no REPLY */
	answer(&p, DHCP6_ADVERTISE, c.xid, c.iaid, "fd00::10");
	CHECK(dhcp6_client_step(&c, 1300, p.b, p.n, tx, sizeof(tx), &txlen, &dl) == DHCP6_ACT_WAIT);
	CHECK_STR(c.ignored, "not a REPLY");
	answer(&p, DHCP6_REPLY, c.xid, c.iaid, "fd00::10");
	CHECK(dhcp6_client_step(&c, 1400, p.b, p.n, tx, sizeof(tx), &txlen, &dl) == DHCP6_ACT_DONE);
	CHECK_STR(inet_ntop(AF_INET6, &c.lease.addr, t, sizeof(t)), "fd00::10");
	CHECK(c.lease.n_dns == 1);
	CHECK_STR(inet_ntop(AF_INET6, &c.lease.dns[0], t, sizeof(t)), "fd00::53");
	CHECK_STR(c.lease.domains, "test example.org");
	CHECK_STR(c.lease.bootfile_url, "nfs://[fd00::1]/srv/root");
	CHECK(c.lease.preferred == 4096 && c.lease.valid == 65536 && c.lease.t1 == 100 && c.lease.t2 == 200);
	CHECK(c.lease.bound_ms == 1400);
}

/* Nobody answers: SOLICIT at 1, 2, 4, 8, 16, 16, 16 s (±10 %), then it
 * gives up. */
static void test_silence(void)
{
	struct dhcp6_config cfg = { .seed = 3 };
	struct dhcp6_client c;
	uint8_t tx[DHCP6_BUILD_MAX];
	size_t txlen;
	uint64_t dl, now = 0, last = 0;
	unsigned sends = 0;
	enum dhcp6_action a;

	memcpy(cfg.mac, MAC, 6);
	dhcp6_client_init(&c, &cfg, 0);
	while ((a = dhcp6_client_step(&c, now, NULL, 0, tx, sizeof(tx), &txlen, &dl)) == DHCP6_ACT_SEND) {
		sends++;
		if (sends > 1)
			CHECK(c.rt == (sends <= 5 ? 1000u << (sends - 1) : 16000u));
		CHECK(dl - now >= c.rt - c.rt / 10 && dl - now <= c.rt + c.rt / 10);
		last = now;
		now = dl;
	}
	CHECK(a == DHCP6_ACT_FAIL);
	CHECK(sends == 7);
	CHECK(last > 40000 && now < 70000);
	CHECK(dhcp6_client_step(&c, now + 1, NULL, 0, tx, sizeof(tx), &txlen, &dl) == DHCP6_ACT_FAIL);
}

static void expect_bad(const uint8_t *b, size_t n, const char *why_want)
{
	uint8_t duid[10];
	struct dhcp6_msg m;
	const char *why = NULL;

	dhcp6_duid_ll(MAC, duid);
	CHECK(dhcp6_msg_parse(b, n, duid, 10, 0x0064000a, &m, &why) == -EINVAL);
	CHECK_STR(why, why_want);
}

static void test_malformed(void)
{
	struct pkt p;
	uint8_t duid[10];
	struct dhcp6_msg m;
	const char *why;

	expect_bad((const uint8_t *)"\2\0\0", 3, "shorter than a DHCPv6 header");
	answer(&p, DHCP6_REQUEST, 1, 0x0064000a, "fd00::10");
	expect_bad(p.b, p.n, "not an ADVERTISE or a REPLY");
	answer(&p, DHCP6_REPLY, 1, 0x0064000a, "fd00::10");
	expect_bad(p.b, p.n - 1, "an option runs past the end of its message");
	expect_bad(p.b, 6, "an option runs past the end of its message");
	/* the IAADDR claims more than its IA_NA holds */
	answer(&p, DHCP6_REPLY, 1, 0x0064000a, "fd00::10");
	p.b[4 + 14 + 14 + 4 + 12 + 3] = 60;
	expect_bad(p.b, p.n, "an option runs past the end of its message");
	/* another client's id */
	answer(&p, DHCP6_REPLY, 1, 0x0064000a, "fd00::10");
	p.b[4 + 4 + 9] ^= 1;
	expect_bad(p.b, p.n, "no CLIENTID, or not ours");
	/* no SERVERID: the option's code made unknown */
	answer(&p, DHCP6_REPLY, 1, 0x0064000a, "fd00::10");
	p.b[4 + 14 + 1] = 99;
	expect_bad(p.b, p.n, "no SERVERID");
	/* a domain list with a compression pointer and a name with a blank:
	 * both left out, counted */
	{
		static const uint8_t dom[] = { 3, 'a', ' ', 'b', 0, 2, 'o', 'k', 0, 0xc0, 0x0c };
		answer(&p, DHCP6_REPLY, 1, 0x0064000a, "fd00::10");
		p.n -= 4 + 19 + 4 + 24; /* drop the domain list and the URL */
		p_opt(&p, 24, dom, sizeof(dom));
		dhcp6_duid_ll(MAC, duid);
		CHECK(dhcp6_msg_parse(p.b, p.n, duid, 10, 0x0064000a, &m, &why) == 0);
		CHECK_STR(m.domains, "ok");
		CHECK(m.domains_skipped == 2);
		CHECK(m.has_addr);
	}
	/* preferred past valid: the address is not taken */
	answer(&p, DHCP6_REPLY, 1, 0x0064000a, "fd00::10");
	p.b[4 + 14 + 14 + 4 + 12 + 4 + 16] = 0x7f;
	dhcp6_duid_ll(MAC, duid);
	CHECK(dhcp6_msg_parse(p.b, p.n, duid, 10, 0x0064000a, &m, &why) == 0);
	CHECK(!m.has_addr);
}

/* A REPLY that refuses the address sends the client back to SOLICIT. */
static void test_refused(void)
{
	struct dhcp6_config cfg = { .seed = 9 };
	struct dhcp6_client c;
	uint8_t tx[DHCP6_BUILD_MAX];
	size_t txlen;
	uint64_t dl;
	struct pkt p;
	static const uint8_t noaddr[] = { 0, 2, 'n', 'o' };

	memcpy(cfg.mac, MAC, 6);
	dhcp6_client_init(&c, &cfg, 0);
	dhcp6_client_step(&c, 0, NULL, 0, tx, sizeof(tx), &txlen, &dl);
	answer(&p, DHCP6_ADVERTISE, c.xid, c.iaid, "fd00::10");
	CHECK(dhcp6_client_step(&c, 10, p.b, p.n, tx, sizeof(tx), &txlen, &dl) == DHCP6_ACT_SEND);
	answer(&p, DHCP6_REPLY, c.xid, c.iaid, "fd00::10");
	p_opt(&p, 13, noaddr, sizeof(noaddr));
	CHECK(dhcp6_client_step(&c, 20, p.b, p.n, tx, sizeof(tx), &txlen, &dl) == DHCP6_ACT_SEND);
	CHECK_STR(c.ignored, "a REPLY that gives no address");
	CHECK(tx[0] == DHCP6_SOLICIT && c.state == DHCP6_S_SOLICITING);
}

int main(void)
{
	RUN(test_build);
	RUN(test_exchange);
	RUN(test_silence);
	RUN(test_malformed);
	RUN(test_refused);
	return test_done();
}
