/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_DHCP6_CLIENT_H
#define UNIRAMFS_NET_DHCP6_CLIENT_H

#include <stdint.h>

#include "init/net/dhcp6_msg.h"

/* The DHCPv6 client (RFC 8415 18.2.1, 18.2.2) as a state machine with no
 * clock and no sockets, as the DHCPv4 one (dhcp_client.h): SOLICIT until
 * an ADVERTISE offers an address, REQUEST it until a REPLY confirms it.
 * The first ADVERTISE that offers an address is taken (a boot has no
 * reason to wait a second for a better one). Retransmits double from
 * 1 s (SOL_TIMEOUT, REQ_TIMEOUT) up to a cap, each ±10 %, from a seed
 * the caller gives. */

enum dhcp6_state {
	DHCP6_S_INIT,
	DHCP6_S_SOLICITING,
	DHCP6_S_REQUESTING,
	DHCP6_S_BOUND,
	DHCP6_S_FAILED,
};

struct dhcp6_config {
	uint8_t mac[6];      /* the DUID-LL and the IAID come from it */
	uint32_t seed;
	uint32_t first_timeout_ms; /* 0: 1000 */
	uint32_t max_timeout_ms;   /* 0: 16000 */
	unsigned max_solicits;     /* 0: 7 (about a minute); then DHCP6_S_FAILED */
	unsigned max_requests;     /* 0: 10 (REQ_MAX_RC); then SOLICIT again */
};

struct dhcp6_lease {
	struct in6_addr addr;
	uint32_t preferred, valid, t1, t2;
	uint8_t server_id[DHCP6_DUID_MAX];
	size_t server_id_len;
	struct in6_addr dns[DHCP6_MAX_DNS];
	unsigned n_dns;
	char domains[DNS_SEARCH_MAX];
	char bootfile_url[DHCP6_STR_MAX];
	uint64_t bound_ms;
};

struct dhcp6_client {
	struct dhcp6_config cfg;
	enum dhcp6_state state;
	uint8_t duid[10];
	uint32_t iaid, xid, rng;
	uint64_t start_ms, deadline_ms;
	uint32_t rt; /* the current retransmission timeout */
	unsigned tries, rounds;
	struct dhcp6_msg offer; /* the ADVERTISE taken */
	struct dhcp6_lease lease;
	const char *ignored; /* why the last message was ignored */
	const char *last_ignored; /* the same, kept: for the failure's message */
};

enum dhcp6_action {
	DHCP6_ACT_WAIT,
	DHCP6_ACT_SEND, /* send tx[0..*txlen) to ff02::1:2 port 547 */
	DHCP6_ACT_DONE, /* c->lease is filled */
	DHCP6_ACT_FAIL,
};

void dhcp6_client_init(struct dhcp6_client *c, const struct dhcp6_config *cfg, uint64_t now_ms);
/* rx: a UDP payload from port 547, or NULL. tx must hold
 * DHCP6_BUILD_MAX bytes. *deadline_ms: when to call again. */
enum dhcp6_action dhcp6_client_step(struct dhcp6_client *c, uint64_t now_ms, const uint8_t *rx, size_t rxlen,
				    uint8_t *tx, size_t txcap, size_t *txlen, uint64_t *deadline_ms);

#endif
