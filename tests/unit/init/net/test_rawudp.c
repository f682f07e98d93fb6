// SPDX-License-Identifier: GPL-2.0-or-later
/* IPv4+UDP framing for DHCP on an AF_PACKET socket: what we build is
 * what a kernel would accept, and each kind of bad packet is refused
 * for its own reason. */
#include <arpa/inet.h>

#include "test.h"
#include "init/net/rawudp.h"

static struct in_addr A(const char *s)
{
	struct in_addr a;
	inet_pton(AF_INET, s, &a);
	return a;
}

static size_t frame(uint8_t *f, size_t cap)
{
	return rawudp_build(f, cap, A("10.0.2.2"), 67, A("255.255.255.255"), 68, "hello dhcp", 10);
}

static void test_build_known_checksums(void)
{
	uint8_t f[100];
	size_t len = rawudp_build(f, sizeof(f), A("0.0.0.0"), 68, A("255.255.255.255"), 67, "abc", 3);

	CHECK(len == 31);
	CHECK(f[0] == 0x45 && f[2] == 0 && f[3] == 31 && f[8] == 64 && f[9] == 17);
	/* Each header sums to all ones with its checksum in. */
	CHECK(inet_fold(inet_sum(f, 20, 0)) == 0xffff);
	CHECK(f[20] == 0 && f[21] == 68 && f[22] == 0 && f[23] == 67 && f[25] == 11);
	CHECK(f[26] || f[27]);
	CHECK(memcmp(f + 28, "abc", 3) == 0);
	/* RFC 1071's example: 0001 f203 f4f5 f6f7 sums to ddf2. */
	static const uint8_t ex[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	CHECK(inet_fold(inet_sum(ex, sizeof(ex), 0)) == 0xddf2);
	CHECK(rawudp_build(f, 30, A("0.0.0.0"), 68, A("255.255.255.255"), 67, "abc", 3) == 0);
}

static void test_parse_round_trip(void)
{
	uint8_t f[100];
	size_t len = frame(f, sizeof(f)), plen;
	const uint8_t *p;
	const char *why = NULL;

	CHECK(rawudp_parse(f, len, 68, &p, &plen, &why) == 0);
	CHECK(plen == 10 && memcmp(p, "hello dhcp", 10) == 0);
	/* Trailing link-layer padding past the IP total length is ignored. */
	memset(f + len, 0xee, 10);
	CHECK(rawudp_parse(f, len + 10, 68, &p, &plen, &why) == 0 && plen == 10);
	/* No UDP checksum is allowed in IPv4. */
	f[26] = f[27] = 0;
	CHECK(rawudp_parse(f, len, 68, &p, &plen, &why) == 0);
}

static void expect(const uint8_t *f, size_t len, const char *reason)
{
	const uint8_t *p;
	size_t plen;
	const char *why = NULL;
	CHECK(rawudp_parse(f, len, 68, &p, &plen, &why) < 0);
	CHECK_STR(why, reason);
}

static void test_parse_hostile(void)
{
	uint8_t f[100], g[100];
	size_t len = frame(f, sizeof(f));

	expect(f, 19, "shorter than an IPv4 header");
	memcpy(g, f, len);
	g[0] = 0x65;
	expect(g, len, "not IPv4");
	memcpy(g, f, len);
	g[0] = 0x44; /* IHL 16 bytes */
	expect(g, len, "IPv4 lengths do not fit the packet");
	memcpy(g, f, len);
	g[3] = (uint8_t)(len + 1);
	expect(g, len, "IPv4 lengths do not fit the packet");
	memcpy(g, f, len);
	g[8] = 1; /* TTL changed, checksum not */
	expect(g, len, "bad IPv4 header checksum");
	memcpy(g, f, len);
	g[31] ^= 1; /* payload */
	expect(g, len, "bad UDP checksum");
	memcpy(g, f, len);
	g[25] = 200;
	expect(g, len, "UDP length does not fit the packet");
	memcpy(g, f, len);
	g[25] = 7;
	expect(g, len, "UDP length does not fit the packet");
	/* Fragments and other protocols, with valid header checksums. */
	struct in_addr s = A("10.0.2.2"), d = A("10.0.2.15");
	len = rawudp_build(g, sizeof(g), s, 67, d, 68, "x", 1);
	g[6] = 0x20; /* more fragments */
	g[10] = g[11] = 0;
	uint16_t c = (uint16_t)~inet_fold(inet_sum(g, 20, 0));
	g[10] = (uint8_t)(c >> 8);
	g[11] = (uint8_t)c;
	expect(g, len, "a fragment");
	len = rawudp_build(g, sizeof(g), s, 67, d, 68, "x", 1);
	g[9] = 6;
	g[10] = g[11] = 0;
	c = (uint16_t)~inet_fold(inet_sum(g, 20, 0));
	g[10] = (uint8_t)(c >> 8);
	g[11] = (uint8_t)c;
	expect(g, len, "not UDP");
	len = rawudp_build(g, sizeof(g), s, 67, d, 69, "x", 1);
	expect(g, len, "not to our port");
}

int main(void)
{
	RUN(test_build_known_checksums);
	RUN(test_parse_round_trip);
	RUN(test_parse_hostile);
	return test_done();
}
