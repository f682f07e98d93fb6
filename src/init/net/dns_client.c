// SPDX-License-Identifier: GPL-2.0-or-later
/* The init's stub resolver for one name: which name to ask for next,
 * of whom, and when to give up. */
#include "init/net/dns_client.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

static uint32_t next_rand(struct dns_client *c)
{
	/* xorshift32: ids need only differ, not be secret (the question
	 * and the server's address are checked too) */
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 17;
	c->rng ^= c->rng << 5;
	return c->rng;
}

static const char *family_str(uint16_t qtype)
{
	return qtype == DNS_TYPE_AAAA ? "IPv6" : "IPv4";
}

/* Add "what" to what server i said, once. */
static void say(struct dns_client *c, size_t i, const char *what)
{
	char *s = c->said[i];
	size_t n = strlen(s);

	if (strstr(s, what))
		return;
	if (n + strlen(what) + 3 >= DNS_SAID_MAX)
		return; /* enough said */
	snprintf(s + n, DNS_SAID_MAX - n, "%s%s", n ? ", " : "", what);
}

static void say_about(struct dns_client *c, size_t i, const char *what, const char *name)
{
	char t[400];

	snprintf(t, sizeof(t), "%.120s for %.253s", what, name);
	say(c, i, t);
}

int dns_client_init(struct dns_client *c, const struct dns_config *cfg)
{
	size_t n = strlen(cfg->name);
	bool dotted = strchr(cfg->name, '.') != NULL;
	uint8_t probe[DNS_QUERY_MAX];

	memset(c, 0, sizeof(*c));
	c->qtype = cfg->qtype ? cfg->qtype : DNS_TYPE_A;
	c->rng = cfg->seed ? cfg->seed : 0x9e3779b9u;
	c->first_timeout = cfg->first_timeout_ms ? cfg->first_timeout_ms : 1000;
	if (n >= sizeof(c->name) || !dns_query_build(probe, sizeof(probe), 0, cfg->name, c->qtype)) {
		snprintf(c->error, sizeof(c->error), "\"%.256s\" is not a host name", cfg->name);
		return -EINVAL;
	}
	memcpy(c->name, cfg->name, n + 1);
	for (size_t i = 0; i < cfg->n_servers && c->n_servers < DNS_MAX_SERVERS; i++)
		c->server[c->n_servers++] = cfg->servers[i];
	/* a name ending in a dot is absolute: no search */
	if (dotted || c->name[n - 1] == '.')
		memcpy(c->cand[c->n_cand++], c->name, n + 1);
	for (size_t i = 0; c->name[n - 1] != '.' && i < cfg->n_search && i < DNS_MAX_SEARCH; i++) {
		char *d = c->cand[c->n_cand];
		int k = snprintf(d, DNS_NAME_TEXT, "%s.%s", c->name, cfg->search[i]);
		/* a domain too long or not a name is not tried */
		if (k < DNS_NAME_TEXT && dns_query_build(probe, sizeof(probe), 0, d, c->qtype))
			c->n_cand++;
	}
	if (!dotted)
		memcpy(c->cand[c->n_cand++], c->name, n + 1);
	memcpy(c->asked, c->cand[0], sizeof(c->asked));
	c->id = (uint16_t)next_rand(c);
	c->pending = true;
	return 0;
}

static void fail(struct dns_client *c)
{
	int o;

	c->finished = true;
	o = snprintf(c->error, sizeof(c->error), "cannot resolve %s (%s): ", c->name, family_str(c->qtype));
	if (!c->n_servers) {
		snprintf(c->error + o, sizeof(c->error) - (size_t)o,
			 "no DNS server to ask (none from nameserver= or DHCP)");
		return;
	}
	for (size_t i = 0; i < c->n_servers && (size_t)o < sizeof(c->error); i++) {
		char t[NET_ADDR_TEXT];
		o += snprintf(c->error + o, sizeof(c->error) - (size_t)o, "%s%s: %s", i ? "; " : "",
			      net_addr_str(&c->server[i], t), c->said[i][0] ? c->said[i] : "not asked");
	}
}

/* Ask for name afresh: the first server, the first round. */
static void ask(struct dns_client *c, const char *name)
{
	if (name != c->asked)
		snprintf(c->asked, sizeof(c->asked), "%s", name);
	c->id = (uint16_t)next_rand(c);
	c->srv = 0;
	c->round = 0;
	c->pending = true;
}

/* The next of the search list's names, or the end. */
static void next_candidate(struct dns_client *c)
{
	c->aliases = 0;
	if (++c->cand_i >= c->n_cand) {
		fail(c);
		return;
	}
	ask(c, c->cand[c->cand_i]);
}

/* The server asked got nowhere: the next one, or the next round. */
static void next_server(struct dns_client *c)
{
	if (++c->srv < c->n_servers) {
		c->pending = true;
		return;
	}
	c->srv = 0;
	if (++c->round < DNS_ROUNDS) {
		c->pending = true;
		return;
	}
	/* nobody answered at all: another name will fare no better */
	fail(c);
}

static int server_index(const struct dns_client *c, const struct net_addr *from)
{
	for (size_t i = 0; from && i < c->n_servers; i++) {
		const struct net_addr *s = &c->server[i];
		if (s->family != from->family)
			continue;
		if (s->family == AF_INET ? s->v4.s_addr == from->v4.s_addr
					 : !memcmp(&s->v6, &from->v6, sizeof(s->v6)))
			return (int)i;
	}
	return -1;
}

static void answer(struct dns_client *c, const uint8_t *rx, size_t rxlen, const struct net_addr *from)
{
	struct dns_answer a;
	const char *why;
	int i = server_index(c, from);

	if (i < 0) {
		c->ignored = "not from a DNS server we asked";
		return;
	}
	if (dns_answer_parse(rx, rxlen, c->id, c->asked, c->qtype, &a, &why) < 0) {
		/* the id and question are checked first: past them, the
		 * server's own answer is broken */
		if (strcmp(why, "not the id of our query") && strcmp(why, "the answer to another question") &&
		    strcmp(why, "a query, not an answer") && strcmp(why, "not one question") &&
		    strcmp(why, "shorter than a DNS header")) {
			char t[160];
			snprintf(t, sizeof(t), "a broken answer (%.100s)", why);
			say_about(c, (size_t)i, t, c->asked);
		}
		c->ignored = why;
		return;
	}
	if (a.rcode == DNS_NOERROR && a.n_addr) {
		c->result = a.addr[0];
		c->finished = true;
		return;
	}
	if (a.rcode == DNS_NOERROR && a.cname[0]) {
		if (++c->aliases > DNS_MAX_CNAMES) {
			say_about(c, (size_t)i, "a CNAME chain longer than 8 names", c->cand[c->cand_i]);
			next_candidate(c);
			return;
		}
		ask(c, a.cname);
		return;
	}
	if (a.rcode == DNS_NOERROR && a.truncated) {
		say_about(c, (size_t)i, "a truncated answer", c->asked);
		c->srv = (size_t)i;
		next_server(c);
		return;
	}
	if (a.rcode == DNS_NOERROR || a.rcode == DNS_NXDOMAIN) {
		/* the name's own server says so: asking others changes nothing */
		say_about(c, (size_t)i, a.rcode == DNS_NXDOMAIN ? dns_rcode_str(a.rcode)
							 : c->qtype == DNS_TYPE_A ? "no IPv4 address"
										  : "no IPv6 address",
			  c->asked);
		next_candidate(c);
		return;
	}
	say_about(c, (size_t)i, dns_rcode_str(a.rcode), c->asked);
	c->srv = (size_t)i;
	next_server(c);
}

enum dns_action dns_client_step(struct dns_client *c, uint64_t now_ms, const uint8_t *rx, size_t rxlen,
				const struct net_addr *from, uint8_t *tx, size_t txcap, size_t *txlen,
				struct net_addr *to, uint64_t *deadline_ms)
{
	*txlen = 0;
	c->ignored = NULL;
	if (!c->finished && !c->n_servers)
		fail(c);
	if (c->finished)
		return c->result.family ? DNS_ACT_DONE : DNS_ACT_FAIL;
	if (rx) {
		answer(c, rx, rxlen, from);
	} else if (!c->pending && now_ms >= c->deadline) {
		say(c, c->srv, "no answer");
		next_server(c);
	}
	if (c->finished)
		return c->result.family ? DNS_ACT_DONE : DNS_ACT_FAIL;
	if (c->pending) {
		*txlen = dns_query_build(tx, txcap, c->id, c->asked, c->qtype);
		*to = c->server[c->srv];
		c->deadline = now_ms + ((uint64_t)c->first_timeout << c->round);
		c->pending = false;
		*deadline_ms = c->deadline;
		return *txlen ? DNS_ACT_SEND : DNS_ACT_WAIT;
	}
	*deadline_ms = c->deadline;
	return DNS_ACT_WAIT;
}
