// SPDX-License-Identifier: GPL-2.0-or-later
/* The DHCPv4 codec and client state machine: what goes out, what a
 * hostile server's answer can and cannot do, and the retransmit
 * schedule as a function of the clock the caller gives. */
#include <errno.h>
#include <arpa/inet.h>
#include <stdlib.h>

#include "test.h"
#include "util.h"
#include "init/net/dhcp_client.h"

static const uint8_t MAC[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

/* A server's reply, built by hand: fixed part, cookie, then options. */
struct reply {
	uint8_t p[2048];
	size_t len;
};

static void reply_start(struct reply *r, uint32_t xid, int type, const char *yiaddr)
{
	memset(r, 0, sizeof(*r));
	r->p[0] = 2;
	r->p[1] = 1;
	r->p[2] = 6;
	uint32_t x = htonl(xid);
	memcpy(r->p + 4, &x, 4);
	inet_pton(AF_INET, yiaddr, r->p + 16);
	inet_pton(AF_INET, "10.0.2.2", r->p + 20); /* siaddr */
	memcpy(r->p + 28, MAC, 6);
	r->p[236] = 99;
	r->p[237] = 130;
	r->p[238] = 83;
	r->p[239] = 99;
	r->len = 240;
	r->p[r->len++] = 53;
	r->p[r->len++] = 1;
	r->p[r->len++] = (uint8_t)type;
}

static void opt(struct reply *r, uint8_t code, const void *data, size_t len)
{
	r->p[r->len++] = code;
	r->p[r->len++] = (uint8_t)len;
	memcpy(r->p + r->len, data, len);
	r->len += len;
}

static void opt_addr(struct reply *r, uint8_t code, const char *a)
{
	uint8_t b[4];
	inet_pton(AF_INET, a, b);
	opt(r, code, b, 4);
}

static void end(struct reply *r)
{
	r->p[r->len++] = 255;
}

/* The option code's value in a message we built, or NULL. */
static const uint8_t *find_opt(const uint8_t *p, size_t len, uint8_t code, size_t *olen)
{
	for (size_t i = 240; i + 1 < len && p[i] != 255;) {
		if (p[i] == 0) {
			i++;
			continue;
		}
		if (p[i] == code) {
			*olen = p[i + 1];
			return p + i + 2;
		}
		i += 2 + p[i + 1];
	}
	return NULL;
}

static void test_build_discover(void)
{
	uint8_t buf[900];
	struct dhcp_build b = { .type = DHCP_DISCOVER, .xid = 0x11223344, .hostname = "client", .vendor_class = "uniramfs" };
	size_t len, olen;
	const uint8_t *o;

	memcpy(b.mac, MAC, 6);
	CHECK(dhcp_msg_build(buf, 899, &b) == 0);
	len = dhcp_msg_build(buf, sizeof(buf), &b);
	CHECK(len == 300);
	CHECK(buf[0] == 1 && buf[1] == 1 && buf[2] == 6 && buf[10] == 0x80);
	CHECK(buf[4] == 0x11 && buf[7] == 0x44);
	CHECK(memcmp(buf + 28, MAC, 6) == 0);
	CHECK((o = find_opt(buf, len, 53, &olen)) && olen == 1 && o[0] == DHCP_DISCOVER);
	CHECK((o = find_opt(buf, len, 61, &olen)) && olen == 7 && o[0] == 1 && memcmp(o + 1, MAC, 6) == 0);
	CHECK((o = find_opt(buf, len, 55, &olen)) && olen == 12);
	/* subnet, router, DNS, hostname, domain, MTU, lease, root path, search */
	static const uint8_t want[] = { 1, 3, 6, 12, 15, 26, 51, 17, 119 };
	for (size_t i = 0; o && i < sizeof(want); i++)
		CHECK(memchr(o, want[i], olen) != NULL);
	CHECK((o = find_opt(buf, len, 60, &olen)) && olen == 8 && memcmp(o, "uniramfs", 8) == 0);
	CHECK((o = find_opt(buf, len, 12, &olen)) && olen == 6);
	CHECK(!find_opt(buf, len, 50, &olen) && !find_opt(buf, len, 54, &olen));
}

static void test_parse_ack(void)
{
	struct reply r;
	struct dhcp_msg m;
	const char *why = NULL;
	uint8_t dns[12], mtu[2] = { 0x05, 0xdc }, lease[4] = { 0, 0, 0x0e, 0x10 };

	reply_start(&r, 7, DHCP_ACK, "10.0.2.15");
	opt_addr(&r, 54, "10.0.2.2");
	opt_addr(&r, 1, "255.255.255.0");
	opt_addr(&r, 3, "10.0.2.2");
	inet_pton(AF_INET, "10.0.2.3", dns);
	inet_pton(AF_INET, "10.0.2.4", dns + 4);
	inet_pton(AF_INET, "10.0.2.5", dns + 8);
	opt(&r, 6, dns, 12);
	opt(&r, 26, mtu, 2);
	opt(&r, 51, lease, 4);
	opt(&r, 12, "client", 6);
	opt(&r, 15, "example.org", 11);
	opt(&r, 17, "10.0.2.2:/srv/root", 18);
	end(&r);
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) == 0);
	CHECK(m.type == DHCP_ACK && m.xid == 7);
	CHECK(m.prefix == 24 && m.has_router && m.has_server_id);
	CHECK(m.n_dns == 3);
	CHECK(m.mtu == 1500 && m.lease_time == 3600);
	CHECK_STR(m.hostname, "client");
	CHECK_STR(m.domain, "example.org");
	CHECK_STR(m.root_path, "10.0.2.2:/srv/root");
	CHECK_STR(m.search, "");
}

/* Option 119 (RFC 3397): compressed names, split over two instances
 * (RFC 3396 joins them, and a pointer may cross the seam); a loop or a
 * name with a byte no host name has ends the list. */
static void test_parse_search(void)
{
	/* RFC 3397's example: eng.apple.com, marketing.apple.com */
	static const uint8_t a[] = { 3, 'e', 'n', 'g', 5, 'a', 'p', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0 };
	static const uint8_t b[] = { 9, 'm', 'a', 'r', 'k', 'e', 't', 'i', 'n', 'g', 0xc0, 4 };
	static const uint8_t loop[] = { 3, 'l', 'a', 'n', 0, 2, 'x', 'y', 0xc0, 5 };
	static const uint8_t bad[] = { 2, 'a', '/', 0, 3, 'l', 'a', 'n', 0 };
	struct reply r;
	struct dhcp_msg m;
	const char *why = NULL;

	reply_start(&r, 7, DHCP_ACK, "10.0.2.15");
	opt(&r, 119, a, sizeof(a));
	opt(&r, 119, b, sizeof(b));
	end(&r);
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) == 0);
	CHECK_STR(m.search, "eng.apple.com marketing.apple.com");
	reply_start(&r, 7, DHCP_ACK, "10.0.2.15");
	opt(&r, 119, loop, sizeof(loop));
	end(&r);
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) == 0);
	CHECK_STR(m.search, "lan");
	/* a byte no host name has: where the next name starts is not known */
	reply_start(&r, 7, DHCP_ACK, "10.0.2.15");
	opt(&r, 119, bad, sizeof(bad));
	end(&r);
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) == 0);
	CHECK_STR(m.search, "");
}

static void test_parse_hostile(void)
{
	struct reply r;
	struct dhcp_msg m;
	const char *why = NULL;

	reply_start(&r, 1, DHCP_OFFER, "10.0.2.15");
	CHECK(dhcp_msg_parse(r.p, 239, &m, &why) < 0);
	CHECK_STR(why, "shorter than a DHCP message");
	r.p[236] = 0;
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) < 0);
	CHECK_STR(why, "no DHCP magic cookie");
	/* An option whose length runs past the packet. */
	reply_start(&r, 1, DHCP_OFFER, "10.0.2.15");
	r.p[r.len++] = 12;
	r.p[r.len++] = 200;
	memcpy(r.p + r.len, "abc", 3);
	r.len += 3;
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) < 0);
	CHECK_STR(why, "an option runs past the end");
	/* A code with no length byte. */
	reply_start(&r, 1, DHCP_OFFER, "10.0.2.15");
	r.p[r.len++] = 12;
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) < 0);
	CHECK_STR(why, "an option's length is past the end");
	/* No type. */
	reply_start(&r, 1, DHCP_OFFER, "10.0.2.15");
	r.len -= 3;
	end(&r);
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) < 0);
	CHECK_STR(why, "no message type (option 53)");
	/* Type with a wrong length, bad overload, wrong sized fields ignored. */
	reply_start(&r, 1, DHCP_OFFER, "10.0.2.15");
	opt(&r, 52, "\x07", 1);
	end(&r);
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) < 0);
	CHECK_STR(why, "option 52 (overload) is not 1, 2 or 3");
	reply_start(&r, 1, DHCP_OFFER, "10.0.2.15");
	opt(&r, 1, "\xff\x00\xff\x00", 4); /* no netmask */
	opt(&r, 54, "\x0a\x00", 2);	    /* short server id */
	opt(&r, 26, "\x00\x10", 2);	    /* MTU 16 */
	opt(&r, 6, "\x01\x02\x03\x04\x05", 5);
	opt(&r, 3, "\x01\x02", 2);
	opt(&r, 12, "a\0b", 3);
	end(&r);
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) == 0);
	CHECK(m.prefix == -1 && !m.has_server_id && m.mtu == 0 && m.n_dns == 0 && !m.has_router);
	CHECK_STR(m.hostname, "a");
	/* Pad everywhere and no END: fine. */
	reply_start(&r, 1, DHCP_OFFER, "10.0.2.15");
	memset(r.p + r.len, 0, 50);
	r.len += 50;
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) == 0);
	/* Not Ethernet. */
	r.p[2] = 16;
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) < 0);
	CHECK_STR(why, "not Ethernet hardware addresses");
}

/* Every prefix of a full ACK, and every single-byte corruption of its
 * option lengths: never a crash or a read past the end (ASan build),
 * and a cut inside an option is always refused. */
static void test_parse_every_cut(void)
{
	struct reply r;
	struct dhcp_msg m;
	const char *why;
	uint8_t *copy;

	reply_start(&r, 9, DHCP_ACK, "10.0.2.15");
	opt_addr(&r, 54, "10.0.2.2");
	opt_addr(&r, 1, "255.255.255.0");
	opt(&r, 12, "client", 6);
	opt(&r, 17, "10.0.2.2:/srv/root", 18);
	opt(&r, 52, "\x01", 1);
	end(&r);
	size_t last_opt_end = r.len - 1; /* options end at 243, 249, 255, 263, 283, 286 */
	CHECK(last_opt_end == 286);
	for (size_t len = 0; len <= r.len; len++) {
		copy = malloc(len ? len : 1); /* exact size: ASan sees any overread */
		memcpy(copy, r.p, len);
		int ret = dhcp_msg_parse(copy, len, &m, &why);
		bool boundary = len == 243 || len == 249 || len == 255 || len == 263 || len == 283;
		if (len < 243)
			CHECK(ret == -EINVAL); /* no type before then */
		else if (len >= last_opt_end || boundary)
			CHECK(ret == 0);
		else
			CHECK(ret == -EINVAL);
		free(copy);
	}
	for (size_t i = 240; i < r.len; i++) {
		uint8_t saved = r.p[i];
		for (int v = 0; v < 256; v += 51) {
			r.p[i] = (uint8_t)v;
			copy = malloc(r.len);
			memcpy(copy, r.p, r.len);
			dhcp_msg_parse(copy, r.len, &m, &why);
			free(copy);
		}
		r.p[i] = saved;
	}
}

static void test_parse_split_and_overload(void)
{
	struct reply r;
	struct dhcp_msg m;
	const char *why = NULL;
	char big[255];

	/* RFC 3396: two instances of option 17 are one value. */
	reply_start(&r, 1, DHCP_ACK, "10.0.2.15");
	opt(&r, 17, "10.0.2.2:", 9);
	opt(&r, 17, "/srv/root", 9);
	/* Overload 3: options continue in file, then sname. */
	opt(&r, 52, "\x03", 1);
	end(&r);
	uint8_t *file = r.p + 108, *sname = r.p + 44;
	file[0] = 15;
	file[1] = 7;
	memcpy(file + 2, "example", 7);
	file[9] = 255;
	sname[0] = 15;
	sname[1] = 4;
	memcpy(sname + 2, ".org", 4);
	sname[6] = 255;
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) == 0);
	CHECK_STR(m.root_path, "10.0.2.2:/srv/root");
	CHECK_STR(m.domain, "example.org");
	CHECK_STR(m.file, "");
	CHECK_STR(m.sname, "");
	/* An option in file that overruns the 128-byte field. */
	file[0] = 12;
	file[1] = 200;
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) < 0);
	CHECK_STR(why, "an option runs past the end");
	/* Without overload, file is the boot file name, cut at 128. */
	reply_start(&r, 1, DHCP_ACK, "10.0.2.15");
	end(&r);
	memset(r.p + 108, 'f', 128);
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) == 0);
	CHECK(strlen(m.file) == 128);
	/* Joined strings longer than DHCP_STR_MAX are cut, not overflowed. */
	reply_start(&r, 1, DHCP_ACK, "10.0.2.15");
	memset(big, 'x', sizeof(big));
	for (int i = 0; i < 4; i++)
		opt(&r, 12, big, sizeof(big));
	end(&r);
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) == 0);
	CHECK(strlen(m.hostname) == DHCP_STR_MAX - 1);
	/* Repeated past 1024 bytes: refused. */
	reply_start(&r, 1, DHCP_ACK, "10.0.2.15");
	for (int i = 0; i < 5; i++)
		opt(&r, 12, big, sizeof(big));
	end(&r);
	CHECK(dhcp_msg_parse(r.p, r.len, &m, &why) < 0);
	CHECK_STR(why, "an option repeated past 1024 bytes");
}

static struct dhcp_config cfg(void)
{
	struct dhcp_config c = { .seed = 42, .jitter_ms = UINT32_MAX };
	memcpy(c.mac, MAC, 6);
	return c;
}

static void offer_for(struct reply *r, uint32_t xid, int type, const char *server)
{
	reply_start(r, xid, type, "10.0.2.15");
	opt_addr(r, 54, server);
	opt_addr(r, 1, "255.255.255.0");
	opt_addr(r, 3, "10.0.2.2");
	opt(r, 17, "nfs:10.0.2.2:/srv", 17);
	end(r);
}

static void test_client_happy(void)
{
	struct dhcp_client c;
	struct dhcp_config cf = cfg();
	uint8_t tx[900];
	size_t txlen, olen;
	uint64_t dl;
	struct reply r;
	const uint8_t *o;

	dhcp_client_init(&c, &cf, 1000);
	CHECK(dhcp_client_step(&c, 1000, NULL, 0, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_SEND);
	CHECK(c.state == DHCP_SELECTING && dl == 5000 && txlen >= 300);
	CHECK((o = find_opt(tx, txlen, 53, &olen)) && o[0] == DHCP_DISCOVER);
	/* Nothing yet, and early: wait for the same deadline. */
	CHECK(dhcp_client_step(&c, 2000, NULL, 0, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_WAIT);
	CHECK(dl == 5000 && txlen == 0);
	/* A stranger's offer is ignored. */
	offer_for(&r, c.xid + 1, DHCP_OFFER, "10.0.2.2");
	CHECK(dhcp_client_step(&c, 2100, r.p, r.len, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_WAIT);
	CHECK_STR(c.ignored, "for another client");
	offer_for(&r, c.xid, DHCP_OFFER, "10.0.2.2");
	CHECK(dhcp_client_step(&c, 2200, r.p, r.len, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_SEND);
	CHECK(c.state == DHCP_REQUESTING && dl == 6200);
	CHECK((o = find_opt(tx, txlen, 53, &olen)) && o[0] == DHCP_REQUEST);
	CHECK((o = find_opt(tx, txlen, 50, &olen)) && olen == 4 && o[0] == 10 && o[3] == 15);
	CHECK((o = find_opt(tx, txlen, 54, &olen)) && olen == 4 && o[3] == 2);
	CHECK(tx[8] == 0 && tx[9] == 1); /* secs since start */
	/* An ACK from another server, then ours. */
	offer_for(&r, c.xid, DHCP_ACK, "10.0.2.3");
	CHECK(dhcp_client_step(&c, 2300, r.p, r.len, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_WAIT);
	CHECK_STR(c.ignored, "from a server we did not choose");
	offer_for(&r, c.xid, DHCP_ACK, "10.0.2.2");
	CHECK(dhcp_client_step(&c, 2400, r.p, r.len, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_DONE);
	CHECK(c.state == DHCP_BOUND);
	CHECK(c.lease.addr.s_addr == htonl(0x0a00020f) && c.lease.prefix == 24);
	CHECK_STR(c.lease.root_path, "nfs:10.0.2.2:/srv");
	CHECK(c.lease.bound_ms == 2400);
	CHECK(dhcp_client_step(&c, 9999, NULL, 0, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_DONE);
}

static void test_client_backoff_and_give_up(void)
{
	struct dhcp_client c;
	struct dhcp_config cf = cfg();
	uint8_t tx[900];
	size_t txlen;
	uint64_t dl, now = 0;
	static const uint64_t want[] = { 4000, 8000, 16000, 32000, 64000, 64000 };

	cf.max_discovers = 6;
	dhcp_client_init(&c, &cf, now);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		CHECK(dhcp_client_step(&c, now, NULL, 0, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_SEND);
		CHECK(dl - now == want[i]);
		now = dl;
	}
	CHECK(dhcp_client_step(&c, now, NULL, 0, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_FAIL);
	CHECK(c.state == DHCP_FAILED);
	{
		char why[320];
		dhcp_client_why(&c, now, why, sizeof(why));
		CHECK_STR(why, "no server answered 6 DISCOVERs in 188 s");
	}

	/* With jitter: each wait within ±1 s of the schedule, and the same
	 * seed replays the same waits. */
	uint64_t first[4];
	for (int run = 0; run < 2; run++) {
		cf = cfg();
		cf.jitter_ms = 0; /* the default, 1000 */
		dhcp_client_init(&c, &cf, 0);
		now = 0;
		for (int i = 0; i < 4; i++) {
			CHECK(dhcp_client_step(&c, now, NULL, 0, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_SEND);
			CHECK(dl - now >= want[i] - 1000 && dl - now <= want[i] + 1000);
			if (run == 0)
				first[i] = dl;
			else
				CHECK(first[i] == dl);
			now = dl;
		}
	}
}

static void test_client_nak_and_silence(void)
{
	struct dhcp_client c;
	struct dhcp_config cf = cfg();
	uint8_t tx[900];
	size_t txlen, olen;
	uint64_t dl;
	struct reply r;
	uint32_t xid;

	cf.max_naks = 2;
	cf.max_requests = 2;
	dhcp_client_init(&c, &cf, 0);
	dhcp_client_step(&c, 0, NULL, 0, tx, sizeof(tx), &txlen, &dl);
	offer_for(&r, c.xid, DHCP_OFFER, "10.0.2.2");
	CHECK(dhcp_client_step(&c, 10, r.p, r.len, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_SEND);
	xid = c.xid;
	offer_for(&r, c.xid, DHCP_NAK, "10.0.2.2");
	CHECK(dhcp_client_step(&c, 20, r.p, r.len, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_SEND);
	CHECK(c.state == DHCP_SELECTING && c.xid != xid);
	CHECK(find_opt(tx, txlen, 53, &olen)[0] == DHCP_DISCOVER);
	/* An OFFER, then a server that never answers the REQUEST. */
	offer_for(&r, c.xid, DHCP_OFFER, "10.0.2.2");
	CHECK(dhcp_client_step(&c, 30, r.p, r.len, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_SEND);
	CHECK(dhcp_client_step(&c, dl, NULL, 0, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_SEND);
	CHECK(find_opt(tx, txlen, 53, &olen)[0] == DHCP_REQUEST);
	/* Two requests unanswered, and one NAK before: that is max_naks. */
	CHECK(dhcp_client_step(&c, dl, NULL, 0, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_FAIL);
	{
		char why[320];
		dhcp_client_why(&c, dl, why, sizeof(why));
		CHECK_STR(why, "10.0.2.2 offered 10.0.2.15, then did not answer the REQUEST");
		/* a NAK last: what the server said comes with it */
		dhcp_client_init(&c, &cf, 0);
		dhcp_client_step(&c, 0, NULL, 0, tx, sizeof(tx), &txlen, &dl);
		for (int i = 0; i < 2; i++) {
			offer_for(&r, c.xid, DHCP_OFFER, "10.0.2.2");
			dhcp_client_step(&c, 10, r.p, r.len, tx, sizeof(tx), &txlen, &dl);
			reply_start(&r, c.xid, DHCP_NAK, "0.0.0.0");
			opt_addr(&r, 54, "10.0.2.2");
			opt(&r, 56, "wrong subnet", 12);
			end(&r);
			CHECK(dhcp_client_step(&c, 20, r.p, r.len, tx, sizeof(tx), &txlen, &dl) ==
			      (i ? DHCP_ACT_FAIL : DHCP_ACT_SEND));
		}
		dhcp_client_why(&c, 20, why, sizeof(why));
		CHECK_STR(why, "10.0.2.2 refused 10.0.2.15 (DHCPNAK: wrong subnet)");
	}
	/* A garbage packet is ignored, not fatal. */
	dhcp_client_init(&c, &cf, 0);
	dhcp_client_step(&c, 0, NULL, 0, tx, sizeof(tx), &txlen, &dl);
	CHECK(dhcp_client_step(&c, 1, (const uint8_t *)"junk", 4, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_WAIT);
	CHECK_STR(c.ignored, "shorter than a DHCP message");
	offer_for(&r, c.xid, DHCP_OFFER, "10.0.2.2");
	r.p[0] = 1;
	CHECK(dhcp_client_step(&c, 2, r.p, r.len, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_WAIT);
	CHECK_STR(c.ignored, "not a reply");
	offer_for(&r, c.xid, DHCP_ACK, "10.0.2.2");
	CHECK(dhcp_client_step(&c, 3, r.p, r.len, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_WAIT);
	CHECK_STR(c.ignored, "not what this state waits for");
	reply_start(&r, c.xid, DHCP_OFFER, "0.0.0.0");
	end(&r);
	CHECK(dhcp_client_step(&c, 4, r.p, r.len, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_WAIT);
	CHECK_STR(c.ignored, "an OFFER without an address or server id");
}

int main(void)
{
	RUN(test_build_discover);
	RUN(test_parse_ack);
	RUN(test_parse_search);
	RUN(test_parse_hostile);
	RUN(test_parse_every_cut);
	RUN(test_parse_split_and_overload);
	RUN(test_client_happy);
	RUN(test_client_backoff_and_give_up);
	RUN(test_client_nak_and_silence);
	return test_done();
}
