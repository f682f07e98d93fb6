// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/net/rawudp.h"

#include <errno.h>
#include <arpa/inet.h>
#include <string.h>

uint32_t inet_sum(const void *data, size_t len, uint32_t sum)
{
	const uint8_t *p = data;

	for (; len > 1; len -= 2, p += 2)
		sum += (uint32_t)(p[0] << 8 | p[1]);
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

uint16_t inet_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The UDP checksum covers a pseudo header of addresses, protocol and
 * length; sum over it as 16-bit words in network order. */
static uint32_t pseudo_sum(const uint8_t *src, const uint8_t *dst, uint16_t udp_len)
{
	uint8_t ph[12];

	memcpy(ph, src, 4);
	memcpy(ph + 4, dst, 4);
	ph[8] = 0;
	ph[9] = IPPROTO_UDP;
	put16(ph + 10, udp_len);
	return inet_sum(ph, sizeof(ph), 0);
}

size_t rawudp_build(uint8_t *frame, size_t cap, struct in_addr src, uint16_t sport, struct in_addr dst,
		    uint16_t dport, const void *payload, size_t len)
{
	size_t total = RAWUDP_HEADERS + len;
	uint8_t *ip = frame, *udp = frame + 20;
	uint16_t sum;

	if (total > cap || total > 65535)
		return 0;
	memset(frame, 0, RAWUDP_HEADERS);
	ip[0] = 0x45; /* version 4, 5 words */
	ip[1] = 0x10; /* low delay, as DHCP clients do */
	put16(ip + 2, (uint16_t)total);
	ip[8] = 64; /* TTL */
	ip[9] = IPPROTO_UDP;
	memcpy(ip + 12, &src.s_addr, 4);
	memcpy(ip + 16, &dst.s_addr, 4);
	put16(ip + 10, (uint16_t)~inet_fold(inet_sum(ip, 20, 0)));

	put16(udp, sport);
	put16(udp + 2, dport);
	put16(udp + 4, (uint16_t)(8 + len));
	memcpy(udp + 8, payload, len);
	sum = (uint16_t)~inet_fold(inet_sum(udp, 8 + len, pseudo_sum(ip + 12, ip + 16, (uint16_t)(8 + len))));
	put16(udp + 6, sum ? sum : 0xffff); /* 0 means "no checksum" */
	return total;
}

int rawudp_parse(const uint8_t *frame, size_t len, uint16_t dport, const uint8_t **payload, size_t *plen,
		 const char **why)
{
	size_t ihl, total, ulen;
	const uint8_t *udp;

	if (len < 20)
		return *why = "shorter than an IPv4 header", -EINVAL;
	if (frame[0] >> 4 != 4)
		return *why = "not IPv4", -EINVAL;
	ihl = (size_t)(frame[0] & 0xf) * 4;
	total = get16(frame + 2);
	if (ihl < 20 || total < ihl || total > len)
		return *why = "IPv4 lengths do not fit the packet", -EINVAL;
	if (inet_fold(inet_sum(frame, ihl, 0)) != 0xffff)
		return *why = "bad IPv4 header checksum", -EINVAL;
	if (get16(frame + 6) & 0x3fff) /* more fragments, or an offset */
		return *why = "a fragment", -EINVAL;
	if (frame[9] != IPPROTO_UDP)
		return *why = "not UDP", -EINVAL;
	if (total - ihl < 8)
		return *why = "shorter than a UDP header", -EINVAL;
	udp = frame + ihl;
	ulen = get16(udp + 4);
	if (ulen < 8 || ulen > total - ihl)
		return *why = "UDP length does not fit the packet", -EINVAL;
	if (get16(udp + 2) != dport)
		return *why = "not to our port", -EINVAL;
	if (get16(udp + 6) != 0 &&
	    inet_fold(inet_sum(udp, ulen, pseudo_sum(frame + 12, frame + 16, (uint16_t)ulen))) != 0xffff)
		return *why = "bad UDP checksum", -EINVAL;
	*payload = udp + 8;
	*plen = ulen - 8;
	return 0;
}
