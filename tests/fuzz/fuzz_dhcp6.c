// SPDX-License-Identifier: GPL-2.0-or-later
/* A DHCPv6 server's answer off the wire: the message parser, and the
 * client state machine fed the same options behind a header and a
 * CLIENTID that are its own, in SOLICITING and (after a made-up
 * ADVERTISE) in REQUESTING. Rules: nothing crashes, leaks or reads out
 * of bounds, and every search name kept is a valid host name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "init/net/dhcp6_client.h"
#include "init/net/netaddr.h"

static void check_search(const char *s)
{
	char copy[DNS_SEARCH_MAX], *save = NULL;

	memcpy(copy, s, strlen(s) + 1);
	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (!net_hostname_valid(t))
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dhcp6_config cfg = { .mac = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 }, .seed = 1 };
	struct dhcp6_client c;
	struct dhcp6_msg m;
	const char *why;
	uint8_t tx[DHCP6_BUILD_MAX], *msg;
	size_t txlen, n;
	uint64_t dl;

	dhcp6_client_init(&c, &cfg, 0);
	if (dhcp6_msg_parse(data, size, c.duid, sizeof(c.duid), c.iaid, &m, &why) == 0)
		check_search(m.domains);

	/* header (type from the first byte) + our CLIENTID + the rest */
	n = 4 + 4 + sizeof(c.duid) + (size ? size - 1 : 0);
	msg = malloc(n);
	for (int round = 0; round < 2; round++) {
		enum dhcp6_action a;
		if (round == 0)
			a = dhcp6_client_step(&c, 0, NULL, 0, tx, sizeof(tx), &txlen, &dl);
		msg[0] = size ? (data[0] & 1 ? DHCP6_REPLY : DHCP6_ADVERTISE) : DHCP6_ADVERTISE;
		msg[1] = (uint8_t)(c.xid >> 16), msg[2] = (uint8_t)(c.xid >> 8), msg[3] = (uint8_t)c.xid;
		msg[4] = 0, msg[5] = 1, msg[6] = 0, msg[7] = (uint8_t)sizeof(c.duid);
		memcpy(msg + 8, c.duid, sizeof(c.duid));
		if (size > 1)
			memcpy(msg + 8 + sizeof(c.duid), data + 1, size - 1);
		a = dhcp6_client_step(&c, 1 + (uint64_t)round, msg, n, tx, sizeof(tx), &txlen, &dl);
		if (a == DHCP6_ACT_DONE)
			check_search(c.lease.domains);
		if (c.state != DHCP6_S_REQUESTING)
			break;
	}
	dhcp6_client_step(&c, dl, NULL, 0, tx, sizeof(tx), &txlen, &dl);
	free(msg);
	return 0;
}
