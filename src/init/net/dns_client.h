/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_DNS_CLIENT_H
#define UNIRAMFS_NET_DNS_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "init/net/dns_msg.h"

/* A stub resolver for one name, as a state machine with no clock and
 * no sockets of its own (as dhcp_client.h): the caller says the time,
 * hands in what arrived and from whom, and sends what it is told to.
 * The name is tried as resolv.conf's ndots:1 would (as given first when
 * it has a dot, else after the search domains), each try going to
 * every server in turn, three rounds (1 s, 2 s, 4 s); an alias is
 * followed at most DNS_MAX_CNAMES times. When nothing comes of it, the
 * error says which servers were asked and what each answered. */

#define DNS_MAX_SERVERS 6
#define DNS_MAX_SEARCH 6
#define DNS_ROUNDS 3
#define DNS_SAID_MAX 320

struct dns_config {
	const char *name;
	uint16_t qtype; /* DNS_TYPE_A or DNS_TYPE_AAAA */
	const struct net_addr *servers; /* more than DNS_MAX_SERVERS: the rest unasked */
	size_t n_servers;
	const char *const *search; /* domains; more than DNS_MAX_SEARCH: the rest unused */
	size_t n_search;
	uint32_t seed; /* query ids */
	uint32_t first_timeout_ms; /* 0: 1000 */
};

enum dns_action {
	DNS_ACT_WAIT, /* call again by *deadline or when a packet comes */
	DNS_ACT_SEND, /* send tx[0..*txlen) to *to, port 53, then wait */
	DNS_ACT_DONE, /* c->result holds the address */
	DNS_ACT_FAIL, /* c->error says why */
};

struct dns_client {
	uint16_t qtype, id;
	uint32_t rng, first_timeout;
	char name[DNS_NAME_TEXT];
	struct net_addr server[DNS_MAX_SERVERS];
	size_t n_servers;
	char cand[DNS_MAX_SEARCH + 1][DNS_NAME_TEXT];
	size_t n_cand, cand_i;
	char asked[DNS_NAME_TEXT]; /* in flight: a candidate, or the alias it led to */
	unsigned aliases;
	size_t srv;
	unsigned round;
	uint64_t deadline;
	bool pending; /* a query is to be sent */
	bool finished;
	char said[DNS_MAX_SERVERS][DNS_SAID_MAX]; /* what each server answered, for the error */
	struct net_addr result;
	const char *ignored; /* why the last packet was ignored, for debug logs */
	char error[1024];
};

/* 0, or -EINVAL (c->error set) when the name cannot be asked for. */
int dns_client_init(struct dns_client *c, const struct dns_config *cfg);
/* rx from from (any address: checked here), or NULL: the time. tx must
 * hold DNS_QUERY_MAX bytes. */
enum dns_action dns_client_step(struct dns_client *c, uint64_t now_ms, const uint8_t *rx, size_t rxlen,
				const struct net_addr *from, uint8_t *tx, size_t txcap, size_t *txlen,
				struct net_addr *to, uint64_t *deadline_ms);

#endif
