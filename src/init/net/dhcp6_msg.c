// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/net/dhcp6_msg.h"

#include <errno.h>
#include <string.h>

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Walk the options in p[0..len): each (code, data, length) to fn.
 * Returns 0, or -EINVAL when an option runs past the end. */
typedef void (*opt_fn)(void *ctx, unsigned code, const uint8_t *d, size_t n);

static int walk(const uint8_t *p, size_t len, opt_fn fn, void *ctx)
{
	size_t off = 0;

	while (off < len) {
		unsigned code, n;
		if (len - off < 4)
			return -EINVAL;
		code = get16(p + off);
		n = get16(p + off + 2);
		off += 4;
		if (n > len - off)
			return -EINVAL;
		fn(ctx, code, p + off, n);
		off += n;
	}
	return 0;
}

struct ctx {
	struct dhcp6_msg *m;
	const uint8_t *duid;
	size_t duid_len;
	uint32_t iaid;
	bool bad;
	/* inside one IA_NA */
	int *status;
};

static int status_of(const uint8_t *d, size_t n)
{
	return n >= 2 ? get16(d) : -1;
}

static void iaaddr_opt(void *arg, unsigned code, const uint8_t *d, size_t n)
{
	int *status = arg;

	if (code == DHCP6_OPT_STATUS)
		*status = status_of(d, n);
}

static void ia_opt(void *arg, unsigned code, const uint8_t *d, size_t n)
{
	struct ctx *c = arg;
	struct dhcp6_msg *m = c->m;
	int st = 0;

	if (code == DHCP6_OPT_STATUS) {
		m->ia_status = status_of(d, n);
		return;
	}
	if (code != DHCP6_OPT_IAADDR || n < 24 || m->has_addr)
		return;
	if (walk(d + 24, n - 24, iaaddr_opt, &st) < 0) {
		c->bad = true;
		return;
	}
	if (st != 0)
		return; /* this address is refused */
	if (get32(d + 20) == 0 || get32(d + 16) > get32(d + 20))
		return; /* withdrawn, or preferred past valid: RFC 8415 21.6 */
	memcpy(&m->addr, d, 16);
	m->preferred = get32(d + 16);
	m->valid = get32(d + 20);
	m->has_addr = true;
}

static void top_opt(void *arg, unsigned code, const uint8_t *d, size_t n)
{
	struct ctx *c = arg;
	struct dhcp6_msg *m = c->m;

	switch (code) {
	case DHCP6_OPT_CLIENTID:
		m->client_id_ok = n == c->duid_len && memcmp(d, c->duid, n) == 0;
		break;
	case DHCP6_OPT_SERVERID:
		if (n >= 2 && n <= DHCP6_DUID_MAX && !m->server_id_len) {
			memcpy(m->server_id, d, n);
			m->server_id_len = n;
		}
		break;
	case DHCP6_OPT_IA_NA:
		if (n < 12 || get32(d) != c->iaid)
			break;
		m->t1 = get32(d + 4);
		m->t2 = get32(d + 8);
		if (walk(d + 12, n - 12, ia_opt, c) < 0)
			c->bad = true;
		break;
	case DHCP6_OPT_STATUS:
		m->status = status_of(d, n);
		break;
	case DHCP6_OPT_PREFERENCE:
		if (n == 1)
			m->preference = d[0];
		break;
	case DHCP6_OPT_DNS:
		for (size_t i = 0; i + 16 <= n && m->n_dns < DHCP6_MAX_DNS; i += 16)
			memcpy(&m->dns[m->n_dns++], d + i, 16);
		break;
	case DHCP6_OPT_DOMAINS:
		if (!m->domains[0])
			dns_names_decode(d, n, m->domains, sizeof(m->domains), &m->domains_skipped);
		break;
	case DHCP6_OPT_BOOTFILE_URL: {
		size_t k = n < DHCP6_STR_MAX - 1 ? n : DHCP6_STR_MAX - 1;
		const uint8_t *nul = memchr(d, 0, k);
		if (nul)
			k = (size_t)(nul - d);
		memcpy(m->bootfile_url, d, k);
		m->bootfile_url[k] = '\0';
		break;
	}
	}
}

int dhcp6_msg_parse(const uint8_t *pkt, size_t len, const uint8_t *duid, size_t duid_len, uint32_t iaid,
		    struct dhcp6_msg *m, const char **why)
{
	struct ctx c = { .m = m, .duid = duid, .duid_len = duid_len, .iaid = iaid };

	memset(m, 0, sizeof(*m));
	if (len < 4) {
		*why = "shorter than a DHCPv6 header";
		return -EINVAL;
	}
	m->type = pkt[0];
	m->xid = (uint32_t)pkt[1] << 16 | (uint32_t)pkt[2] << 8 | pkt[3];
	if (m->type != DHCP6_ADVERTISE && m->type != DHCP6_REPLY) {
		*why = "not an ADVERTISE or a REPLY";
		return -EINVAL;
	}
	if (walk(pkt + 4, len - 4, top_opt, &c) < 0 || c.bad) {
		*why = "an option runs past the end of its message";
		return -EINVAL;
	}
	if (!m->client_id_ok) {
		*why = "no CLIENTID, or not ours";
		return -EINVAL;
	}
	if (!m->server_id_len) {
		*why = "no SERVERID";
		return -EINVAL;
	}
	return 0;
}

struct out {
	uint8_t *p;
	size_t len, cap;
	bool full;
};

static void put(struct out *o, const void *d, size_t n)
{
	if (o->full || n > o->cap - o->len) {
		o->full = true;
		return;
	}
	memcpy(o->p + o->len, d, n);
	o->len += n;
}

static void put16(struct out *o, unsigned v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };
	put(o, b, 2);
}

static void put32(struct out *o, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
	put(o, b, 4);
}

static void opt(struct out *o, unsigned code, const void *d, size_t n)
{
	put16(o, code);
	put16(o, (unsigned)n);
	put(o, d, n);
}

size_t dhcp6_msg_build(uint8_t *buf, size_t cap, const struct dhcp6_build *b)
{
	struct out o = { .p = buf, .cap = cap };
	uint8_t hdr[4] = { (uint8_t)b->type, (uint8_t)(b->xid >> 16), (uint8_t)(b->xid >> 8), (uint8_t)b->xid };
	static const uint8_t oro[] = { 0, DHCP6_OPT_DNS, 0, DHCP6_OPT_DOMAINS, 0, DHCP6_OPT_BOOTFILE_URL };

	if (b->duid_len > DHCP6_DUID_MAX || b->server_id_len > DHCP6_DUID_MAX)
		return 0;
	put(&o, hdr, 4);
	opt(&o, DHCP6_OPT_CLIENTID, b->duid, b->duid_len);
	if (b->type == DHCP6_REQUEST)
		opt(&o, DHCP6_OPT_SERVERID, b->server_id, b->server_id_len);
	put16(&o, DHCP6_OPT_ELAPSED);
	put16(&o, 2);
	put16(&o, b->elapsed_cs);
	opt(&o, DHCP6_OPT_ORO, oro, sizeof(oro));
	/* IA_NA: T1 and T2 0, the server's to choose; in a REQUEST the
	 * address the ADVERTISE offered, lifetimes 0 likewise. */
	put16(&o, DHCP6_OPT_IA_NA);
	put16(&o, b->addr ? 12 + 4 + 24 : 12);
	put32(&o, b->iaid);
	put32(&o, 0);
	put32(&o, 0);
	if (b->addr) {
		put16(&o, DHCP6_OPT_IAADDR);
		put16(&o, 24);
		put(&o, b->addr, 16);
		put32(&o, 0);
		put32(&o, 0);
	}
	return o.full ? 0 : o.len;
}

size_t dhcp6_duid_ll(const uint8_t mac[6], uint8_t duid[10])
{
	duid[0] = 0;
	duid[1] = 3; /* DUID-LL */
	duid[2] = 0;
	duid[3] = 1; /* Ethernet */
	memcpy(duid + 4, mac, 6);
	return 10;
}
