// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/net/dhcp_client.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

/* A small xorshift: the sequence only needs to differ between clients
 * that share a segment, and to replay in tests. */
static uint32_t next_rand(struct dhcp_client *c)
{
	uint32_t x = c->rng ? c->rng : 0x9e3779b9u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return c->rng = x;
}

void dhcp_client_init(struct dhcp_client *c, const struct dhcp_config *cfg, uint64_t now_ms)
{
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	if (!c->cfg.vendor_class)
		c->cfg.vendor_class = "uniramfs";
	if (!c->cfg.first_timeout_ms)
		c->cfg.first_timeout_ms = 4000;
	if (!c->cfg.max_timeout_ms)
		c->cfg.max_timeout_ms = 64000;
	if (!c->cfg.max_discovers)
		c->cfg.max_discovers = 6;
	if (!c->cfg.max_requests)
		c->cfg.max_requests = 4;
	if (!c->cfg.max_naks)
		c->cfg.max_naks = 3;
	if (!c->cfg.jitter_ms)
		c->cfg.jitter_ms = 1000;
	c->rng = cfg->seed ^ (uint32_t)(cfg->mac[2] << 24 | cfg->mac[3] << 16 | cfg->mac[4] << 8 | cfg->mac[5]);
	c->state = DHCP_INIT;
	c->start_ms = now_ms;
	c->deadline_ms = now_ms;
}

/* The wait after the tries-th transmission: first << tries, capped,
 * plus or minus the jitter, never below a tenth of a second. */
static uint64_t backoff(struct dhcp_client *c)
{
	uint64_t t = c->cfg.first_timeout_ms;

	for (unsigned i = 1; i < c->tries && t < c->cfg.max_timeout_ms; i++)
		t *= 2;
	if (t > c->cfg.max_timeout_ms)
		t = c->cfg.max_timeout_ms;
	if (c->cfg.jitter_ms != UINT32_MAX) {
		int64_t j = (int64_t)(next_rand(c) % (2 * (uint64_t)c->cfg.jitter_ms + 1)) - c->cfg.jitter_ms;
		t = (int64_t)t + j < 100 ? 100 : (uint64_t)((int64_t)t + j);
	}
	return t;
}

static size_t build(struct dhcp_client *c, uint64_t now_ms, int type, uint8_t *tx, size_t txcap)
{
	uint64_t secs = (now_ms - c->start_ms) / 1000;
	struct dhcp_build b = {
		.type = type,
		.xid = c->xid,
		.secs = secs > 0xffff ? 0xffff : (uint16_t)secs,
		.hostname = c->cfg.hostname,
		.vendor_class = c->cfg.vendor_class,
	};
	memcpy(b.mac, c->cfg.mac, 6);
	if (type == DHCP_REQUEST) {
		b.requested = c->offered;
		b.server_id = c->offer_server;
	}
	return dhcp_msg_build(tx, txcap, &b);
}

static enum dhcp_action transmit(struct dhcp_client *c, uint64_t now_ms, int type, uint8_t *tx, size_t txcap,
			     size_t *txlen, uint64_t *deadline)
{
	c->tries++;
	if (type == DHCP_DISCOVER)
		c->discovers++;
	*txlen = build(c, now_ms, type, tx, txcap);
	if (!*txlen) {
		c->state = DHCP_FAILED;
		return DHCP_ACT_FAIL;
	}
	c->deadline_ms = now_ms + backoff(c);
	*deadline = c->deadline_ms;
	return DHCP_ACT_SEND;
}

static void start_discover(struct dhcp_client *c)
{
	c->state = DHCP_SELECTING;
	c->xid = next_rand(c);
	c->tries = 0;
}

static void take_lease(struct dhcp_client *c, const struct dhcp_msg *m, uint64_t now_ms)
{
	struct dhcp_lease *l = &c->lease;

	memset(l, 0, sizeof(*l));
	l->addr = m->yiaddr;
	l->server_id = m->has_server_id ? m->server_id : c->offer_server;
	l->router = m->router;
	l->broadcast = m->broadcast;
	l->siaddr = m->siaddr;
	l->prefix = m->prefix;
	memcpy(l->dns, m->dns, sizeof(l->dns));
	l->n_dns = m->n_dns;
	l->lease_time = m->lease_time;
	l->t1 = m->t1;
	l->t2 = m->t2;
	l->mtu = m->mtu;
	memcpy(l->hostname, m->hostname, sizeof(l->hostname));
	memcpy(l->domain, m->domain, sizeof(l->domain));
	memcpy(l->root_path, m->root_path, sizeof(l->root_path));
	memcpy(l->file, m->file, sizeof(l->file));
	memcpy(l->search, m->search, sizeof(l->search));
	l->bound_ms = now_ms;
}

/* A packet: is it an answer to us, and does it move us on? */
static enum dhcp_action receive(struct dhcp_client *c, uint64_t now_ms, const uint8_t *rx, size_t rxlen,
				uint8_t *tx, size_t txcap, size_t *txlen, uint64_t *deadline)
{
	struct dhcp_msg m;
	const char *why;

	*deadline = c->deadline_ms;
	if (dhcp_msg_parse(rx, rxlen, &m, &why) < 0)
		return c->ignored = why, DHCP_ACT_WAIT;
	if (m.op != 2)
		return c->ignored = "not a reply", DHCP_ACT_WAIT;
	if (m.xid != c->xid || memcmp(m.chaddr, c->cfg.mac, 6) != 0)
		return c->ignored = "for another client", DHCP_ACT_WAIT;
	if (c->state == DHCP_SELECTING && m.type == DHCP_OFFER) {
		if (!m.yiaddr.s_addr || !m.has_server_id)
			return c->ignored = "an OFFER without an address or server id", DHCP_ACT_WAIT;
		c->offered = m.yiaddr;
		c->offer_server = m.server_id;
		c->state = DHCP_REQUESTING;
		c->tries = 0;
		return transmit(c, now_ms, DHCP_REQUEST, tx, txcap, txlen, deadline);
	}
	if (c->state == DHCP_REQUESTING && (m.type == DHCP_ACK || m.type == DHCP_NAK)) {
		if (m.has_server_id && m.server_id.s_addr != c->offer_server.s_addr)
			return c->ignored = "from a server we did not choose", DHCP_ACT_WAIT;
		if (m.type == DHCP_NAK) {
			c->refused = true;
			memcpy(c->nak_msg, m.message, sizeof(c->nak_msg));
			if (++c->naks >= c->cfg.max_naks) {
				c->state = DHCP_FAILED;
				return DHCP_ACT_FAIL;
			}
			start_discover(c);
			return transmit(c, now_ms, DHCP_DISCOVER, tx, txcap, txlen, deadline);
		}
		if (m.yiaddr.s_addr != c->offered.s_addr)
			return c->ignored = "an ACK for another address", DHCP_ACT_WAIT;
		take_lease(c, &m, now_ms);
		c->state = DHCP_BOUND;
		return DHCP_ACT_DONE;
	}
	return c->ignored = "not what this state waits for", DHCP_ACT_WAIT;
}

enum dhcp_action dhcp_client_step(struct dhcp_client *c, uint64_t now_ms, const uint8_t *rx, size_t rxlen,
				  uint8_t *tx, size_t txcap, size_t *txlen, uint64_t *deadline)
{
	*txlen = 0;
	*deadline = c->deadline_ms;
	if (c->state == DHCP_BOUND)
		return DHCP_ACT_DONE;
	if (c->state == DHCP_FAILED)
		return DHCP_ACT_FAIL;
	c->ignored = NULL;
	if (rx)
		return receive(c, now_ms, rx, rxlen, tx, txcap, txlen, deadline);
	if (c->state == DHCP_INIT) {
		start_discover(c);
		return transmit(c, now_ms, DHCP_DISCOVER, tx, txcap, txlen, deadline);
	}
	if (now_ms < c->deadline_ms)
		return DHCP_ACT_WAIT;
	if (c->state == DHCP_REQUESTING) {
		if (c->tries < c->cfg.max_requests)
			return transmit(c, now_ms, DHCP_REQUEST, tx, txcap, txlen, deadline);
		/* The server went quiet: start over, as after a NAK. */
		c->refused = false;
		if (++c->naks >= c->cfg.max_naks) {
			c->state = DHCP_FAILED;
			return DHCP_ACT_FAIL;
		}
		start_discover(c);
		return transmit(c, now_ms, DHCP_DISCOVER, tx, txcap, txlen, deadline);
	}
	if (c->tries < c->cfg.max_discovers)
		return transmit(c, now_ms, DHCP_DISCOVER, tx, txcap, txlen, deadline);
	c->state = DHCP_FAILED;
	return DHCP_ACT_FAIL;
}

void dhcp_client_why(const struct dhcp_client *c, uint64_t now_ms, char *buf, size_t n)
{
	char s[INET_ADDRSTRLEN], a[INET_ADDRSTRLEN];

	if (!c->offer_server.s_addr) {
		snprintf(buf, n, "no server answered %u DISCOVER%s in %llu s", c->discovers, c->discovers == 1 ? "" : "s",
			 (unsigned long long)((now_ms - c->start_ms) / 1000));
		return;
	}
	inet_ntop(AF_INET, &c->offer_server, s, sizeof(s));
	inet_ntop(AF_INET, &c->offered, a, sizeof(a));
	if (c->refused)
		snprintf(buf, n, "%s refused %s (DHCPNAK%s%.200s)", s, a, c->nak_msg[0] ? ": " : "", c->nak_msg);
	else
		snprintf(buf, n, "%s offered %s, then did not answer the REQUEST", s, a);
}
