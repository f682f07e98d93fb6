// SPDX-License-Identifier: GPL-2.0-or-later
/* DHCP and DNS servers on fake_net's wire (fake_dns.h). */
#include "fake_dns.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "init/net/dns_msg.h"
#include "init/net/rawudp.h"

const char *fake_dns_root_path;

/* DHCP: 10.0.2.15/24 from 10.0.2.2, DNS 10.0.2.3, domain "test". */
static void dhcp_server(struct fake_ops *f, int ifindex, const void *frame, size_t len)
{
	const uint8_t *rq;
	size_t rlen, n = 240;
	const char *why;
	uint8_t m[400] = { 0 }, out[600];
	struct in_addr yi, srv, dns, bcast = { INADDR_BROADCAST };
	int type = 0;

	(void)ifindex;
	if (rawudp_parse(frame, len, 67, &rq, &rlen, &why) < 0 || rlen < 244)
		return;
	for (size_t i = 240; i + 2 < rlen && rq[i] != 255; i += 2 + rq[i + 1])
		if (rq[i] == 53)
			type = rq[i + 2];
	inet_pton(AF_INET, "10.0.2.15", &yi);
	inet_pton(AF_INET, "10.0.2.2", &srv);
	inet_pton(AF_INET, "10.0.2.3", &dns);
	m[0] = 2, m[1] = 1, m[2] = 6;
	memcpy(m + 4, rq + 4, 4);
	memcpy(m + 16, &yi, 4);
	memcpy(m + 28, rq + 28, 6);
	memcpy(m + 236, "\x63\x82\x53\x63", 4);
	m[n++] = 53, m[n++] = 1, m[n++] = type == 1 ? 2 : 5;
	m[n++] = 54, m[n++] = 4, memcpy(m + n, &srv, 4), n += 4;
	m[n++] = 1, m[n++] = 4, memcpy(m + n, "\xff\xff\xff\x00", 4), n += 4;
	m[n++] = 51, m[n++] = 4, memcpy(m + n, "\x00\x00\x0e\x10", 4), n += 4;
	m[n++] = 6, m[n++] = 4, memcpy(m + n, &dns, 4), n += 4;
	m[n++] = 15, m[n++] = 4, memcpy(m + n, "test", 4), n += 4;
	if (fake_dns_root_path && strlen(fake_dns_root_path) < 100) {
		m[n++] = 17, m[n++] = (uint8_t)strlen(fake_dns_root_path);
		memcpy(m + n, fake_dns_root_path, strlen(fake_dns_root_path));
		n += strlen(fake_dns_root_path);
	}
	m[n++] = 255;
	fake_packet(f, out, rawudp_build(out, sizeof(out), srv, 67, bcast, 68, m, n));
}

/* The DNS server at 10.0.2.3 knows nfsserver.test and iscsi.test; any
 * other server is silent. */
static void dns_server(struct fake_ops *f, const struct sockaddr_in *to, const void *buf, size_t len)
{
	uint8_t a[600];
	char name[DNS_NAME_TEXT];
	size_t off = 12;
	const char *why, *ip = NULL;
	struct in_addr known;

	inet_pton(AF_INET, "10.0.2.3", &known);
	if (to->sin_addr.s_addr != known.s_addr || ntohs(to->sin_port) != 53 || len > 300 ||
	    dns_name_read(buf, len, &off, name, &why) < 0)
		return;
	if (!strcmp(name, "nfsserver.test"))
		ip = "10.0.2.100";
	else if (!strcmp(name, "iscsi.test"))
		ip = "10.0.2.50";
	memcpy(a, buf, len);
	a[2] |= 0x80;
	a[3] = ip ? 0x80 : 0x83;
	if (ip) {
		struct in_addr v;
		inet_pton(AF_INET, ip, &v);
		a[7] = 1;
		memcpy(a + len, "\xc0\x0c\0\1\0\1\0\0\0\x3c\0\4", 12);
		memcpy(a + len + 12, &v, 4);
		len += 16;
	}
	fake_udp(f, "10.0.2.3", 53, a, len);
}

struct fake_ops *fake_dns_setup(const char *cmdline, unsigned nics)
{
	struct fake_ops *f = fake_net_setup(cmdline, nics);

	fake_net_module(f, "kernel/fs/nfs/nfs.ko", NULL);
	f->on_packet = dhcp_server;
	f->pkt_ifindex = 2;
	f->on_udp = dns_server;
	return f;
}
