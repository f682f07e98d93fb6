// SPDX-License-Identifier: GPL-2.0-or-later
/* A DHCP server's answer, raw off the wire: the IPv4/UDP framing, the
 * message parser, and the client state machine fed the same bytes in
 * each state. None of it may crash, leak or read out of bounds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "init/net/dhcp_client.h"
#include "init/net/rawudp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dhcp_msg m;
	struct dhcp_client c;
	struct dhcp_config cfg = { .mac = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 }, .seed = 1 };
	const uint8_t *payload;
	const char *why;
	size_t plen, txlen;
	uint64_t dl;
	uint8_t tx[900], *copy;

	if (rawudp_parse(data, size, DHCP_CLIENT_PORT, &payload, &plen, &why) == 0)
		dhcp_msg_parse(payload, plen, &m, &why);
	dhcp_msg_parse(data, size, &m, &why);

	/* The client: make the packet's xid and chaddr ours so it gets past
	 * the first check, in SELECTING and (after a made-up OFFER) in
	 * REQUESTING. */
	copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	dhcp_client_init(&c, &cfg, 0);
	dhcp_client_step(&c, 0, NULL, 0, tx, sizeof(tx), &txlen, &dl);
	if (size >= 34) {
		uint32_t x = __builtin_bswap32(c.xid);
		memcpy(copy + 4, &x, 4);
		memcpy(copy + 28, cfg.mac, 6);
	}
	if (dhcp_client_step(&c, 1, copy, size, tx, sizeof(tx), &txlen, &dl) == DHCP_ACT_SEND && size >= 34) {
		uint32_t x = __builtin_bswap32(c.xid);
		memcpy(copy + 4, &x, 4);
		dhcp_client_step(&c, 2, copy, size, tx, sizeof(tx), &txlen, &dl);
	}
	dhcp_client_step(&c, dl, NULL, 0, tx, sizeof(tx), &txlen, &dl);
	free(copy);
	return 0;
}
