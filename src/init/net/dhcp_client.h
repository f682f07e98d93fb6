/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_DHCP_CLIENT_H
#define UNIRAMFS_NET_DHCP_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "init/net/dhcp_msg.h"

/* The DHCPv4 client as a state machine with no clock and no sockets of
 * its own: the caller says what time it is (milliseconds, monotonic)
 * and hands in what arrived; it answers with what to send and when to
 * call again. Retransmits back off exponentially (RFC 2131 4.1: 4 s,
 * 8 s, … up to 64 s, each ±1 s), the jitter drawn from a seed the
 * caller gives, so a test can replay any run exactly. */

enum dhcp_state {
	DHCP_INIT,
	DHCP_SELECTING,	 /* DISCOVER sent, waiting for an OFFER */
	DHCP_REQUESTING, /* REQUEST sent, waiting for the ACK */
	DHCP_BOUND,
	DHCP_FAILED,
};

struct dhcp_config {
	uint8_t mac[6];
	uint32_t seed;		  /* xids and jitter; 0 is fine */
	const char *hostname;	  /* NULL: none sent */
	const char *vendor_class; /* NULL: "uniramfs" */
	uint32_t first_timeout_ms; /* 0: 4000 */
	uint32_t max_timeout_ms;   /* 0: 64000 */
	unsigned max_discovers;	   /* 0: 6; then DHCP_FAILED */
	unsigned max_requests;	   /* 0: 4; then back to DISCOVER */
	unsigned max_naks;	   /* 0: 3 NAKs or silent servers after an OFFER; then DHCP_FAILED */
	uint32_t jitter_ms;	   /* 0: 1000; UINT32_MAX: none */
};

struct dhcp_lease {
	struct in_addr addr, server_id, router, broadcast, siaddr;
	int prefix; /* -1: the server gave no netmask */
	struct in_addr dns[DHCP_MAX_DNS];
	unsigned n_dns;
	uint32_t lease_time, t1, t2;
	uint16_t mtu;
	char hostname[DHCP_STR_MAX], domain[DHCP_STR_MAX], root_path[DHCP_STR_MAX];
	char file[129];
	char search[DNS_SEARCH_MAX]; /* option 119, valid names, space-separated */
	uint64_t bound_ms;
};

struct dhcp_client {
	struct dhcp_config cfg;
	enum dhcp_state state;
	uint32_t xid, rng;
	uint64_t start_ms, deadline_ms;
	unsigned tries, naks;
	struct in_addr offered, offer_server;
	struct dhcp_lease lease;
	const char *ignored; /* why the last packet was ignored, for debug logs */
	/* what the servers did, for dhcp_client_why */
	unsigned discovers;
	bool refused;		     /* the last REQUEST got a NAK (else no answer) */
	char nak_msg[DHCP_STR_MAX];  /* its option 56, hostile text */
};

enum dhcp_action {
	DHCP_ACT_WAIT, /* nothing to send: call again by *deadline or when a packet comes */
	DHCP_ACT_SEND, /* send tx[0..*txlen) as a broadcast, then wait */
	DHCP_ACT_DONE, /* bound: c->lease is filled */
	DHCP_ACT_FAIL, /* gave up */
};

void dhcp_client_init(struct dhcp_client *c, const struct dhcp_config *cfg, uint64_t now_ms);
/* rx: a DHCP payload (UDP already checked) or NULL. tx must hold 900
 * bytes. *deadline_ms: when to call again with no packet. */
enum dhcp_action dhcp_client_step(struct dhcp_client *c, uint64_t now_ms, const uint8_t *rx, size_t rxlen,
				  uint8_t *tx, size_t txcap, size_t *txlen, uint64_t *deadline_ms);

/* Once failed: why, naming what answered or that nothing did ("no
 * server answered 6 DISCOVERs in 63 s", "10.0.2.2 refused 10.0.2.15
 * (DHCPNAK: MESSAGE)", "10.0.2.2 offered 10.0.2.15, then did not answer
 * the REQUEST"). */
void dhcp_client_why(const struct dhcp_client *c, uint64_t now_ms, char *buf, size_t n);

#endif
