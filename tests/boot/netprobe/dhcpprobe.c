// SPDX-License-Identifier: GPL-2.0-or-later
/* dhcpprobe IFACE: take a DHCP lease on IFACE with src/init/net's client
 * (state machine, codec, IPv4/UDP framing) over an AF_PACKET socket, and
 * print it as IFACE.conf would hold it. A probe for
 * tests/boot/netprobe.py against QEMU's own DHCP server, not the init's
 * client: it configures nothing. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/if_ether.h>
#include <linux/if_packet.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "init/net/dhcp_client.h"
#include "init/net/netconf.h"
#include "init/net/rawudp.h"

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP) };
	struct dhcp_config cfg = { .first_timeout_ms = 1000, .max_discovers = 5 };
	struct dhcp_client c;
	struct ifreq ifr;
	uint8_t tx[900], frame[1600], rx[1600];
	size_t txlen;
	uint64_t deadline;
	int fd, sends = 0;

	if (argc != 2 || strlen(argv[1]) >= IFNAMSIZ) {
		fprintf(stderr, "usage: dhcpprobe IFACE\n");
		return 2;
	}
	fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_IP));
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, argv[1]);
	if (fd < 0 || ioctl(fd, SIOCGIFINDEX, &ifr) < 0) {
		perror("dhcpprobe: socket");
		return 1;
	}
	ll.sll_ifindex = ifr.ifr_ifindex;
	if (bind(fd, (struct sockaddr *)&ll, sizeof(ll)) < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		perror("dhcpprobe: bind");
		return 1;
	}
	memcpy(cfg.mac, ifr.ifr_hwaddr.sa_data, 6);
	cfg.seed = (uint32_t)now_ms();
	dhcp_client_init(&c, &cfg, now_ms());

	const uint8_t *in = NULL;
	size_t inlen = 0;
	for (;;) {
		enum dhcp_action a = dhcp_client_step(&c, now_ms(), in, inlen, tx, sizeof(tx), &txlen, &deadline);
		in = NULL;
		if (c.ignored)
			printf("dhcpprobe: ignored a packet: %s\n", c.ignored);
		if (a == DHCP_ACT_FAIL) {
			printf("DHCPPROBE fail: gave up after %d sends\n", sends);
			return 1;
		}
		if (a == DHCP_ACT_DONE)
			break;
		if (a == DHCP_ACT_SEND) {
			struct in_addr any = { 0 }, bcast = { INADDR_BROADCAST };
			struct sockaddr_ll to = ll;
			size_t flen = rawudp_build(frame, sizeof(frame), any, DHCP_CLIENT_PORT, bcast, DHCP_SERVER_PORT,
						   tx, txlen);
			to.sll_halen = 6;
			memset(to.sll_addr, 0xff, 6);
			if (sendto(fd, frame, flen, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
				perror("dhcpprobe: sendto");
			sends++;
		}
		uint64_t t = now_ms();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, deadline > t ? (int)(deadline - t) : 0) == 1) {
			ssize_t n = recv(fd, rx, sizeof(rx), 0);
			const char *why;
			if (n > 0 && rawudp_parse(rx, (size_t)n, DHCP_CLIENT_PORT, &in, &inlen, &why) < 0)
				in = NULL; /* other traffic on the wire */
		}
	}

	struct net_conf nc;
	struct buf b = { 0 };
	struct strv w = { 0 };
	char a[INET_ADDRSTRLEN];
	net_conf_from_lease(&nc, argv[1], &c.lease);
	net_conf_render(&nc, &b, &w);
	printf("DHCPPROBE ok: %s/%d after %d sends\n", inet_ntop(AF_INET, &c.lease.addr, a, sizeof(a)), c.lease.prefix,
	       sends);
	fwrite(b.p, 1, b.len, stdout);
	for (size_t i = 0; i < w.n; i++)
		printf("dhcpprobe: %s\n", w.v[i]);
	return 0;
}
