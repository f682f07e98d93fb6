// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/net/dhcp6_client.h"

#include <string.h>

static uint32_t next_rand(struct dhcp6_client *c)
{
	/* xorshift32: enough for xids and jitter, replayable from the seed */
	uint32_t x = c->rng ? c->rng : 0x6d2b79f5u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return c->rng = x;
}

void dhcp6_client_init(struct dhcp6_client *c, const struct dhcp6_config *cfg, uint64_t now_ms)
{
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	if (!c->cfg.first_timeout_ms)
		c->cfg.first_timeout_ms = 1000;
	if (!c->cfg.max_timeout_ms)
		c->cfg.max_timeout_ms = 16000;
	if (!c->cfg.max_solicits)
		c->cfg.max_solicits = 7;
	if (!c->cfg.max_requests)
		c->cfg.max_requests = 10;
	c->rng = cfg->seed;
	dhcp6_duid_ll(cfg->mac, c->duid);
	c->iaid = (uint32_t)cfg->mac[2] << 24 | (uint32_t)cfg->mac[3] << 16 | (uint32_t)cfg->mac[4] << 8 |
		  cfg->mac[5];
	c->start_ms = now_ms;
	c->state = DHCP6_S_INIT;
}

/* RT for the next try: doubled, capped, ±10 % (RFC 8415 15). */
static void backoff(struct dhcp6_client *c, uint64_t now)
{
	uint32_t rt = c->tries == 0 ? c->cfg.first_timeout_ms : c->rt * 2;
	uint32_t span;

	if (rt > c->cfg.max_timeout_ms)
		rt = c->cfg.max_timeout_ms;
	c->rt = rt;
	span = rt / 5;
	c->deadline_ms = now + rt - rt / 10 + (span ? next_rand(c) % span : 0);
}

static enum dhcp6_action send_msg(struct dhcp6_client *c, uint64_t now, int type, uint8_t *tx, size_t cap,
				  size_t *txlen, uint64_t *deadline)
{
	uint64_t cs = (now - c->start_ms) / 10;
	struct dhcp6_build b = { .type = type, .xid = c->xid, .duid = c->duid, .duid_len = sizeof(c->duid),
				 .iaid = c->iaid, .elapsed_cs = cs > 0xffff ? 0xffff : (uint16_t)cs };

	if (type == DHCP6_REQUEST) {
		b.server_id = c->offer.server_id;
		b.server_id_len = c->offer.server_id_len;
		b.addr = &c->offer.addr;
	}
	*txlen = dhcp6_msg_build(tx, cap, &b);
	backoff(c, now);
	c->tries++;
	*deadline = c->deadline_ms;
	return *txlen ? DHCP6_ACT_SEND : DHCP6_ACT_WAIT;
}

static enum dhcp6_action solicit(struct dhcp6_client *c, uint64_t now, uint8_t *tx, size_t cap, size_t *txlen,
				 uint64_t *deadline)
{
	c->state = DHCP6_S_SOLICITING;
	c->xid = next_rand(c) & 0xffffff;
	c->tries = 0;
	return send_msg(c, now, DHCP6_SOLICIT, tx, cap, txlen, deadline);
}

static enum dhcp6_action on_timer(struct dhcp6_client *c, uint64_t now, uint8_t *tx, size_t cap, size_t *txlen,
				  uint64_t *deadline)
{
	switch (c->state) {
	case DHCP6_S_INIT:
		return solicit(c, now, tx, cap, txlen, deadline);
	case DHCP6_S_SOLICITING:
		if (c->tries >= c->cfg.max_solicits) {
			c->state = DHCP6_S_FAILED;
			return DHCP6_ACT_FAIL;
		}
		return send_msg(c, now, DHCP6_SOLICIT, tx, cap, txlen, deadline);
	case DHCP6_S_REQUESTING:
		if (c->tries >= c->cfg.max_requests) {
			/* the server went quiet after its ADVERTISE: start over,
			 * but not for ever */
			if (++c->rounds >= 3) {
				c->state = DHCP6_S_FAILED;
				return DHCP6_ACT_FAIL;
			}
			return solicit(c, now, tx, cap, txlen, deadline);
		}
		return send_msg(c, now, DHCP6_REQUEST, tx, cap, txlen, deadline);
	case DHCP6_S_BOUND:
		return DHCP6_ACT_DONE;
	case DHCP6_S_FAILED:
		break;
	}
	return DHCP6_ACT_FAIL;
}

static void take_lease(struct dhcp6_client *c, const struct dhcp6_msg *m, uint64_t now)
{
	struct dhcp6_lease *l = &c->lease;

	memset(l, 0, sizeof(*l));
	l->addr = m->addr;
	l->preferred = m->preferred;
	l->valid = m->valid;
	l->t1 = m->t1;
	l->t2 = m->t2;
	memcpy(l->server_id, m->server_id, m->server_id_len);
	l->server_id_len = m->server_id_len;
	memcpy(l->dns, m->dns, sizeof(l->dns));
	l->n_dns = m->n_dns;
	memcpy(l->domains, m->domains, sizeof(l->domains));
	memcpy(l->bootfile_url, m->bootfile_url, sizeof(l->bootfile_url));
	l->bound_ms = now;
}

static enum dhcp6_action step(struct dhcp6_client *c, uint64_t now, const uint8_t *rx, size_t rxlen, uint8_t *tx,
			      size_t cap, size_t *txlen, uint64_t *deadline)
{
	struct dhcp6_msg m;
	const char *why;

	*txlen = 0;
	*deadline = c->deadline_ms;
	c->ignored = NULL;
	if (c->state == DHCP6_S_FAILED)
		return DHCP6_ACT_FAIL;
	if (c->state == DHCP6_S_BOUND)
		return DHCP6_ACT_DONE;
	if (!rx)
		return now >= c->deadline_ms || c->state == DHCP6_S_INIT ? on_timer(c, now, tx, cap, txlen, deadline)
									 : DHCP6_ACT_WAIT;
	if (c->state == DHCP6_S_INIT) {
		c->ignored = "nothing asked yet";
		return DHCP6_ACT_WAIT;
	}
	if (dhcp6_msg_parse(rx, rxlen, c->duid, sizeof(c->duid), c->iaid, &m, &why) < 0) {
		c->ignored = why;
		return DHCP6_ACT_WAIT;
	}
	if (m.xid != c->xid) {
		c->ignored = "another transaction";
		return DHCP6_ACT_WAIT;
	}
	if (c->state == DHCP6_S_SOLICITING) {
		if (m.type != DHCP6_ADVERTISE) {
			c->ignored = "not an ADVERTISE";
			return DHCP6_ACT_WAIT;
		}
		if (m.status == DHCP6_STATUS_NOADDRS || !m.has_addr) {
			c->ignored = "an ADVERTISE with no address for us";
			return DHCP6_ACT_WAIT;
		}
		c->offer = m;
		c->state = DHCP6_S_REQUESTING;
		c->xid = next_rand(c) & 0xffffff;
		c->tries = 0;
		return send_msg(c, now, DHCP6_REQUEST, tx, cap, txlen, deadline);
	}
	/* REQUESTING */
	if (m.type != DHCP6_REPLY) {
		c->ignored = "not a REPLY";
		return DHCP6_ACT_WAIT;
	}
	if (m.status != 0 || m.ia_status != 0 || !m.has_addr) {
		/* refused (NoAddrsAvail, NotOnLink …): ask everyone again */
		c->ignored = "a REPLY that gives no address";
		if (++c->rounds >= 3) {
			c->state = DHCP6_S_FAILED;
			return DHCP6_ACT_FAIL;
		}
		return solicit(c, now, tx, cap, txlen, deadline);
	}
	take_lease(c, &m, now);
	c->state = DHCP6_S_BOUND;
	return DHCP6_ACT_DONE;
}

enum dhcp6_action dhcp6_client_step(struct dhcp6_client *c, uint64_t now, const uint8_t *rx, size_t rxlen,
				    uint8_t *tx, size_t cap, size_t *txlen, uint64_t *deadline)
{
	enum dhcp6_action a = step(c, now, rx, rxlen, tx, cap, txlen, deadline);

	if (c->ignored)
		c->last_ignored = c->ignored;
	return a;
}
