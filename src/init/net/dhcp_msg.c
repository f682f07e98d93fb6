// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/net/dhcp_msg.h"
#include "init/net/dns_msg.h"

#include <errno.h>
#include <arpa/inet.h>
#include <string.h>

static const uint8_t cookie[4] = { 99, 130, 83, 99 };

enum {
	OPT_PAD = 0,
	OPT_SUBNET = 1,
	OPT_ROUTER = 3,
	OPT_DNS = 6,
	OPT_HOSTNAME = 12,
	OPT_DOMAIN = 15,
	OPT_ROOT_PATH = 17,
	OPT_MTU = 26,
	OPT_BROADCAST = 28,
	OPT_REQUESTED = 50,
	OPT_LEASE = 51,
	OPT_OVERLOAD = 52,
	OPT_TYPE = 53,
	OPT_SERVER_ID = 54,
	OPT_PRL = 55,
	OPT_MESSAGE = 56,
	OPT_MAX_SIZE = 57,
	OPT_T1 = 58,
	OPT_T2 = 59,
	OPT_VENDOR_CLASS = 60,
	OPT_CLIENT_ID = 61,
	OPT_SEARCH = 119, /* RFC 3397: DNS wire names, compressed */
	OPT_END = 255,
};

/* The options we read, each joined over all its instances. */
static const uint8_t wanted[] = { OPT_SUBNET, OPT_ROUTER,   OPT_DNS,	   OPT_HOSTNAME, OPT_DOMAIN,
				  OPT_ROOT_PATH, OPT_MTU,   OPT_BROADCAST, OPT_LEASE,	 OPT_OVERLOAD,
				  OPT_TYPE,	 OPT_SERVER_ID, OPT_MESSAGE, OPT_T1,	 OPT_T2, OPT_SEARCH };
#define JOIN_MAX 1024

struct joined {
	size_t len[sizeof(wanted)];
	bool seen[sizeof(wanted)];
	uint8_t data[sizeof(wanted)][JOIN_MAX];
};

static int slot(uint8_t code)
{
	for (size_t i = 0; i < sizeof(wanted); i++)
		if (wanted[i] == code)
			return (int)i;
	return -1;
}

/* One option area. An area ends at END or at its last byte; an option
 * whose length runs past the area is an error, not a truncation. */
static int walk(const uint8_t *p, size_t len, struct joined *j, const char **why)
{
	size_t i = 0;

	while (i < len) {
		uint8_t code = p[i], olen;
		int s;

		if (code == OPT_PAD) {
			i++;
			continue;
		}
		if (code == OPT_END)
			return 0;
		if (i + 1 >= len)
			return *why = "an option's length is past the end", -EINVAL;
		olen = p[i + 1];
		if (i + 2 + olen > len)
			return *why = "an option runs past the end", -EINVAL;
		if ((s = slot(code)) >= 0) {
			if (j->len[s] + olen > JOIN_MAX)
				return *why = "an option repeated past 1024 bytes", -EINVAL;
			memcpy(j->data[s] + j->len[s], p + i + 2, olen);
			j->len[s] += olen;
			j->seen[s] = true;
		}
		i += 2 + (size_t)olen;
	}
	return 0;
}

static const uint8_t *get(const struct joined *j, uint8_t code, size_t *len)
{
	int s = slot(code);
	*len = j->len[s];
	return j->seen[s] ? j->data[s] : NULL;
}

/* Option 119's names (compression pointers within the option, RFC
 * 3397) as a search line: valid host names only, a space between; one
 * that no longer fits is left out; a malformed name (a loop, a byte no
 * host name has) ends the list, since where the next begins is unknown. */
static void get_search(const struct joined *j, char *out, size_t cap)
{
	size_t len, off = 0, o = 0;
	const uint8_t *p = get(j, OPT_SEARCH, &len);
	char name[DNS_NAME_TEXT];
	const char *why;

	out[0] = '\0';
	while (p && off < len && dns_name_read(p, len, &off, name, &why) == 0) {
		size_t n = strlen(name);
		if (!n || !net_hostname_valid(name) || o + n + 2 > cap)
			continue;
		if (o)
			out[o++] = ' ';
		memcpy(out + o, name, n + 1);
		o += n;
	}
}

static bool get_addr(const struct joined *j, uint8_t code, struct in_addr *out)
{
	size_t len;
	const uint8_t *p = get(j, code, &len);
	if (!p || len != 4)
		return false;
	memcpy(&out->s_addr, p, 4);
	return true;
}

static uint32_t get_u32(const struct joined *j, uint8_t code)
{
	size_t len;
	const uint8_t *p = get(j, code, &len);
	if (!p || len != 4)
		return 0;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void get_str(const struct joined *j, uint8_t code, char *out, size_t cap)
{
	size_t len;
	const uint8_t *p = get(j, code, &len);

	out[0] = '\0';
	if (!p)
		return;
	if (len >= cap)
		len = cap - 1;
	memcpy(out, p, len);
	out[len] = '\0'; /* and any NUL inside ends it early */
}

static void fixed_str(const uint8_t *p, size_t n, char *out)
{
	memcpy(out, p, n);
	out[n] = '\0';
}

static int netmask_prefix(struct in_addr m)
{
	uint32_t v = ntohl(m.s_addr);
	int n = 0;
	while (n < 32 && (v & (0x80000000u >> n)))
		n++;
	return n < 32 && (v << n) ? -1 : n;
}

int dhcp_msg_parse(const uint8_t *pkt, size_t len, struct dhcp_msg *m, const char **why)
{
	struct joined j; /* 15 KiB */
	const uint8_t *p;
	size_t plen;
	uint8_t overload = 0;

	memset(m, 0, sizeof(*m));
	memset(&j, 0, sizeof(j));
	m->prefix = -1;
	if (len < DHCP_FIXED_LEN)
		return *why = "shorter than a DHCP message", -EINVAL;
	if (memcmp(pkt + 236, cookie, 4) != 0)
		return *why = "no DHCP magic cookie", -EINVAL;
	if (pkt[1] != 1 || pkt[2] != 6)
		return *why = "not Ethernet hardware addresses", -EINVAL;
	m->op = pkt[0];
	memcpy(&m->xid, pkt + 4, 4);
	m->xid = ntohl(m->xid);
	memcpy(&m->yiaddr.s_addr, pkt + 16, 4);
	memcpy(&m->siaddr.s_addr, pkt + 20, 4);
	memcpy(m->chaddr, pkt + 28, 6);

	if (walk(pkt + DHCP_FIXED_LEN, len - DHCP_FIXED_LEN, &j, why) < 0)
		return -EINVAL;
	if ((p = get(&j, OPT_OVERLOAD, &plen))) {
		if (plen != 1 || p[0] < 1 || p[0] > 3)
			return *why = "option 52 (overload) is not 1, 2 or 3", -EINVAL;
		overload = p[0];
	}
	/* RFC 2131 4.1: file first, then sname. */
	if ((overload & 1) && walk(pkt + 108, 128, &j, why) < 0)
		return -EINVAL;
	if ((overload & 2) && walk(pkt + 44, 64, &j, why) < 0)
		return -EINVAL;
	if (!(overload & 2))
		fixed_str(pkt + 44, 64, m->sname);
	if (!(overload & 1))
		fixed_str(pkt + 108, 128, m->file);

	if (!(p = get(&j, OPT_TYPE, &plen)) || plen != 1)
		return *why = "no message type (option 53)", -EINVAL;
	m->type = p[0];
	m->has_server_id = get_addr(&j, OPT_SERVER_ID, &m->server_id);
	struct in_addr mask;
	if ((m->has_subnet = get_addr(&j, OPT_SUBNET, &mask)))
		m->prefix = netmask_prefix(mask);
	if ((p = get(&j, OPT_ROUTER, &plen)) && plen >= 4 && plen % 4 == 0) {
		memcpy(&m->router.s_addr, p, 4);
		m->has_router = true;
	}
	if ((p = get(&j, OPT_DNS, &plen)) && plen % 4 == 0)
		for (size_t i = 0; i < plen / 4 && m->n_dns < DHCP_MAX_DNS; i++)
			memcpy(&m->dns[m->n_dns++].s_addr, p + 4 * i, 4);
	m->has_broadcast = get_addr(&j, OPT_BROADCAST, &m->broadcast);
	if ((p = get(&j, OPT_MTU, &plen)) && plen == 2) {
		uint16_t mtu = (uint16_t)(p[0] << 8 | p[1]);
		if (mtu >= 68)
			m->mtu = mtu;
	}
	m->lease_time = get_u32(&j, OPT_LEASE);
	m->t1 = get_u32(&j, OPT_T1);
	m->t2 = get_u32(&j, OPT_T2);
	get_str(&j, OPT_HOSTNAME, m->hostname, sizeof(m->hostname));
	get_str(&j, OPT_DOMAIN, m->domain, sizeof(m->domain));
	get_str(&j, OPT_ROOT_PATH, m->root_path, sizeof(m->root_path));
	get_str(&j, OPT_MESSAGE, m->message, sizeof(m->message));
	get_search(&j, m->search, sizeof(m->search));
	return 0;
}

static uint8_t *put_opt(uint8_t *p, uint8_t code, const void *data, size_t len)
{
	*p++ = code;
	*p++ = (uint8_t)len;
	memcpy(p, data, len);
	return p + len;
}

size_t dhcp_msg_build(uint8_t *buf, size_t cap, const struct dhcp_build *b)
{
	static const uint8_t prl[] = { OPT_SUBNET, OPT_ROUTER, OPT_DNS,	 OPT_HOSTNAME, OPT_DOMAIN, OPT_MTU,
				       OPT_BROADCAST, OPT_LEASE, OPT_T1, OPT_T2, OPT_ROOT_PATH, OPT_SEARCH };
	uint8_t type = (uint8_t)b->type, cid[7], maxsz[2] = { 1500 >> 8, 1500 & 0xff };
	size_t hlen = b->hostname ? strlen(b->hostname) : 0, vlen = b->vendor_class ? strlen(b->vendor_class) : 0;
	uint8_t *p = buf;
	uint32_t xid = htonl(b->xid);

	if (hlen > 255)
		hlen = 255;
	if (vlen > 255)
		vlen = 255;
	if (cap < 900)
		return 0;
	memset(buf, 0, 300);
	buf[0] = 1; /* BOOTREQUEST */
	buf[1] = 1; /* Ethernet */
	buf[2] = 6;
	memcpy(buf + 4, &xid, 4);
	buf[8] = (uint8_t)(b->secs >> 8);
	buf[9] = (uint8_t)b->secs;
	buf[10] = 0x80; /* broadcast: we cannot take unicast before we have the address */
	memcpy(buf + 28, b->mac, 6);
	memcpy(buf + 236, cookie, 4);
	p = buf + DHCP_FIXED_LEN;
	p = put_opt(p, OPT_TYPE, &type, 1);
	cid[0] = 1;
	memcpy(cid + 1, b->mac, 6);
	p = put_opt(p, OPT_CLIENT_ID, cid, sizeof(cid));
	if (b->requested.s_addr)
		p = put_opt(p, OPT_REQUESTED, &b->requested.s_addr, 4);
	if (b->server_id.s_addr)
		p = put_opt(p, OPT_SERVER_ID, &b->server_id.s_addr, 4);
	p = put_opt(p, OPT_MAX_SIZE, maxsz, 2);
	p = put_opt(p, OPT_PRL, prl, sizeof(prl));
	if (hlen)
		p = put_opt(p, OPT_HOSTNAME, b->hostname, hlen);
	if (vlen)
		p = put_opt(p, OPT_VENDOR_CLASS, b->vendor_class, vlen);
	*p++ = OPT_END;
	/* Some BOOTP relays drop anything shorter than 300 bytes. */
	return (size_t)(p - buf) < 300 ? 300 : (size_t)(p - buf);
}
