// SPDX-License-Identifier: GPL-2.0-or-later
/* The network for the boot: interfaces, link up, ip= or DHCP. */
#include "init/netboot/netup.h"
#include "init/netboot/netkeep.h"
#include "init/netboot/netpick.h"
#include "init/netboot/netstate.h"
#include "init/netboot/netup6.h"
#include "init/netboot/netvirt_up.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/net/netconf.h"
#include "init/net/nethandover.h"
#include "init/net/rawudp.h"
#include "log.h"


void netup_parse(struct netup *nu, const struct sysops *ops, const struct cmdline *c)
{
	struct strv w = { 0 };

	memset(nu, 0, sizeof(*nu));
	nu->ops = ops;
	nu->pfd = -1;
	nu->nl.fd = -1;
	nu->chosen = -1;
	netup6_init(nu, netup_chose, netup_failed);
	net_cmdline_parse(&nu->cmd, c);
	if (netroot_from_cmdline(c, &nu->root, &w) < 0)
		nu->root.kind = NETROOT_NONE;
	netvirt_cmdline(&nu->virt, c, &w);
	for (size_t i = 0; i < nu->cmd.warnings.n; i++)
		log_warn("%s", nu->cmd.warnings.v[i]);
	for (size_t i = 0; i < w.n; i++)
		log_warn("%s", w.v[i]);
	strv_free(&w);
	for (size_t i = c->n; i-- > 0;)
		if (!strcmp(c->p[i].key, "nfsroot") && c->p[i].val) {
			nu->nfsroot = xstrdup(c->p[i].val);
			break;
		}
	nu->wanted = nu->root.kind != NETROOT_NONE || nu->cmd.neednet;
	/* A name udev would not give stays: the root's udev keeps a name
	 * given before it, so a wrong one would outlive the boot. Only v252's
	 * rules are known here, and biosdevname names cards its own way. */
	if (nu->cmd.naming_scheme && strcmp(nu->cmd.naming_scheme, "v252") &&
	    strcmp(nu->cmd.naming_scheme, "latest")) {
		if (nu->wanted)
			log_info("net.naming-scheme=%s: only v252's names are known: "
				 "interfaces keep the kernel's names", nu->cmd.naming_scheme);
		nu->cmd.ifnames = false;
	}
	if (nu->cmd.biosdevname)
		nu->cmd.ifnames = false;
	for (size_t i = 0; i < nu->cmd.n_ip; i++)
		nu->wanted |= !ip_conf_is_off(&nu->cmd.ip[i]);
}

/* Has every interface that may carry the boot its address, or given
 * up? With several named ones, each named one. */
static bool all_settled(const struct netup *nu)
{
	size_t settled = 0;

	if (netpick_dhcp_all(nu)) {
		for (size_t i = 0; i < nu->n; i++)
			if (nu->v[i].up && !nu->v[i].configured && !nu->v[i].failed)
				return false;
		return true;
	}
	for (size_t i = 0; i < nu->n; i++)
		settled += (nu->v[i].configured || nu->v[i].failed) && netpick_candidate(nu, &nu->v[i]);
	return settled >= netpick_named_count(nu);
}

/* The network is up for the boot (on_up): at the first address, or
 * with several interfaces (named ones, or a bare ip=dhcp's leases for
 * several targets) once each target is on the subnet of one of them,
 * or each has its address or gave up, so that a login finds every
 * route; rd.iscsi.waitnet=1 waits for all of them in any case. */
static void maybe_up(struct netup *nu)
{
	if (nu->up_called || nu->chosen < 0)
		return;
	if (netpick_several(nu) && !all_settled(nu) &&
	    (nu->root.iscsi.waitnet || !netkeep_reaches_all(nu)))
		return;
	nu->up_called = true;
	netnames_start(nu); /* then on_up */
}

static bool is_static(const struct ip_conf *ip)
{
	return ip && ip->client.family == AF_INET &&
	       (ip->autoconf == IP_AUTO_NONE || ip->autoconf == IP_AUTO_UNSET);
}

/* The prefix of a classful network, as the kernel's ipconfig derives it. */
static int class_prefix(struct in_addr a)
{
	uint32_t h = ntohl(a.s_addr);

	if (h >> 31 == 0)
		return 8;
	if (h >> 30 == 2)
		return 16;
	return 24;
}

static char *sys_read(const struct netup *nu, const char *name, const char *file)
{
	char *rel = xasprintf("/sys/class/net/%s/%s", name, file);
	char *p = nu->ops->path(rel), *line = NULL;

	free(rel);
	if (read_line(p, &line) < 0)
		line = NULL;
	free(p);
	if (line) {
		size_t n = strlen(line);
		while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
			line[--n] = '\0';
	}
	return line;
}

/* The DHCP socket (AF_PACKET: every IPv4 frame on every link, each one
 * checksummed by packet_ready) is open only while a DHCP client runs:
 * once DHCP has settled, a lease bound or given up, PID 1 would
 * otherwise go on reading a broadcast flood until switch_root, and the
 * child that frees the initramfs would hold it (issue 24). Opened again
 * when a later interface asks. 0 or a negative code (err set). */
static int dhcp_socket_open(struct netup *nu)
{
	int fd;

	if (nu->pfd >= 0)
		return 0;
	fd = nu->ops->socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, htons(ETH_P_IP));
	if (fd < 0)
		return err_errno(fd, "cannot open the DHCP socket (AF_PACKET)");
	nu->pfd = fd;
	if (nu->loop)
		loop_set_fd(nu->loop, nu, fd);
	return 0;
}

static void dhcp_socket_close(struct netup *nu)
{
	if (nu->pfd < 0)
		return;
	if (nu->loop)
		loop_set_fd(nu->loop, nu, -1);
	nu->ops->close(nu->pfd);
	nu->pfd = -1;
	log_debug("DHCP done: its socket closed");
}

/* No DHCP client runs any more: the socket goes. */
static void dhcp_maybe_close(struct netup *nu)
{
	for (size_t i = 0; i < nu->n; i++)
		if (nu->v[i].dhcp)
			return;
	dhcp_socket_close(nu);
}

/* Address, route, MTU on ni; the others down. */
static void configure(struct netup *nu, size_t idx)
{
	struct netif *ni = &nu->v[idx];
	char a[INET_ADDRSTRLEN], g[INET_ADDRSTRLEN];
	unsigned mtu = nu->from_dhcp ? nu->lease.mtu : nu->ip ? nu->ip->mtu : 0;
	int e;

	if ((e = nl_addr(&nu->nl, true, ni->ifindex, nu->addr, nu->prefix)) < 0)
		log_warn("%s: cannot add the address %s/%d: %s", ni->name,
			 inet_ntop(AF_INET, &nu->addr, a, sizeof(a)), nu->prefix, strerror(-e));
	if (mtu && (e = nl_link_set(&nu->nl, ni->ifindex, true, mtu, NULL)) < 0)
		log_warn("%s: cannot set the MTU to %u: %s", ni->name, mtu, strerror(-e));
	if (nu->gateway.s_addr && (e = nl_default_route(&nu->nl, ni->ifindex, nu->gateway)) < 0)
		log_warn("%s: cannot add the route through %s: %s", ni->name,
			 inet_ntop(AF_INET, &nu->gateway, g, sizeof(g)), strerror(-e));
	ni->configured = true;
	ni->addr = nu->addr;
	ni->prefix = nu->prefix;
	nu->family = AF_INET;
	inet_ntop(AF_INET, &nu->addr, a, sizeof(a));
	if (nu->from_dhcp)
		log_info("%s: %s/%d from DHCP server %s", ni->name, a, nu->prefix,
			 inet_ntop(AF_INET, &nu->lease.server_id, g, sizeof(g)));
	else
		log_info("%s: %s/%d as ip=%s says", ni->name, a, nu->prefix, nu->ip->text);
	netup_chose(nu, idx);
}

void netup_chose(struct netup *nu, size_t idx)
{
	struct netif *ni = &nu->v[idx];

	nu->chosen = (int)idx;
	for (size_t i = 0; i < nu->n; i++) {
		if (i == idx || !nu->v[i].up || (netpick_several(nu) && netpick_candidate(nu, &nu->v[i])))
			continue;
		nu->v[i].dhcp = false;
		nu->v[i].deadline = -1;
		nl_link_set(&nu->nl, nu->v[i].ifindex, false, 0, NULL);
		nu->v[i].up = false;
	}
	dhcp_maybe_close(nu);
	netup6_settle(nu);
	netstate_write(nu, ni);
	maybe_up(nu);
}

static void check_failed(struct netup *nu)
{
	if (nu->chosen >= 0) {
		maybe_up(nu); /* the last of several named interfaces gave up */
		return;
	}
	for (size_t i = 0; i < nu->n; i++)
		if (nu->v[i].up && !nu->v[i].failed)
			return;
	if (nu->n)
		nu->failed = true;
}

void netup_failed(struct netup *nu, size_t idx)
{
	nu->v[idx].failed = true;
	check_failed(nu);
}

static void dhcp_send(struct netup *nu, struct netif *ni, const uint8_t *tx, size_t txlen)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP),
				  .sll_ifindex = ni->ifindex, .sll_halen = 6 };
	struct in_addr any = { 0 }, bcast = { INADDR_BROADCAST };
	uint8_t frame[1024];
	size_t flen = rawudp_build(frame, sizeof(frame), any, DHCP_CLIENT_PORT, bcast,
				   DHCP_SERVER_PORT, tx, txlen);
	ssize_t sent;

	memset(to.sll_addr, 0xff, 6);
	if (flen && (sent = nu->ops->sendto(nu->pfd, frame, flen, 0, &to, sizeof(to))) < 0)
		log_debug("%s: DHCP send: %s", ni->name, strerror((int)-sent));
}

/* One step of ni's DHCP client with rx (or NULL: its timer). */
static void dhcp_step(struct netup *nu, size_t idx, const uint8_t *rx, size_t rxlen)
{
	struct netif *ni = &nu->v[idx];
	uint8_t tx[900];
	size_t txlen = 0;
	uint64_t deadline = 0;
	enum dhcp_action a = dhcp_client_step(&ni->dc, (uint64_t)nu->ops->now_ms(), rx, rxlen, tx,
					      sizeof(tx), &txlen, &deadline);

	if (rx && ni->dc.ignored)
		log_debug("%s: DHCP: ignored a packet: %s", ni->name, ni->dc.ignored);
	ni->deadline = (long long)deadline;
	switch (a) {
	case DHCP_ACT_SEND:
		dhcp_send(nu, ni, tx, txlen);
		break;
	case DHCP_ACT_WAIT:
		break;
	case DHCP_ACT_DONE:
		ni->dhcp = false;
		ni->deadline = -1;
		nu->from_dhcp = true;
		nu->lease = ni->dc.lease;
		nu->addr = nu->lease.addr;
		nu->prefix = nu->lease.prefix >= 0 ? nu->lease.prefix : class_prefix(nu->addr);
		nu->gateway = nu->lease.router;
		nu->server = nu->lease.siaddr.s_addr ? nu->lease.siaddr : nu->lease.server_id;
		configure(nu, idx);
		break;
	case DHCP_ACT_FAIL:
		ni->dhcp = false;
		ni->failed = true;
		ni->deadline = -1;
		{
			char why[320];
			dhcp_client_why(&ni->dc, (uint64_t)nu->ops->now_ms(), why, sizeof(why));
			log_warn("%s: IPv4: no DHCP lease: %s", ni->name, why);
		}
		check_failed(nu);
		dhcp_maybe_close(nu);
		break;
	}
}

static void bring_up(struct netup *nu, size_t idx)
{
	struct netif *ni = &nu->v[idx];
	const struct ip_conf *ip = netpick_ip_for(nu, ni);
	int e;

	if ((e = nl_link_set(&nu->nl, ni->ifindex, true, 0, NULL)) < 0) {
		log_warn("%s: cannot bring the link up: %s", ni->name, strerror(-e));
		ni->failed = true;
		check_failed(nu);
		return;
	}
	ni->up = true;
	log_debug("%s: link up", ni->name);
	if (is_static(ip)) {
		nu->ip = ip;
		nu->from_dhcp = false;
		nu->addr = ip->client.v4;
		nu->prefix = ip->prefix >= 0 ? ip->prefix : class_prefix(nu->addr);
		nu->gateway = ip->gateway.family == AF_INET ? ip->gateway.v4 : (struct in_addr){ 0 };
		nu->server = ip->server.family == AF_INET ? ip->server.v4 : (struct in_addr){ 0 };
		configure(nu, idx);
		return;
	}
	if (ip && ip->autoconf == IP_AUTO_IBFT) { /* stages/ibftboot.c found no table */
		log_warn("%s: ip=%s: the firmware left no iBFT to take it from", ni->name, ip->text);
		ni->failed = true;
		check_failed(nu);
		return;
	}
	if (netup6_wanted(ip)) {
		netup6_bring_up(nu, idx, ip);
		return;
	}
	if ((e = dhcp_socket_open(nu)) < 0) {
		log_warn("%s: %s", ni->name, err_msg());
		ni->failed = true;
		check_failed(nu);
		return;
	}
	{
		struct dhcp_config cfg = { .hostname = ip ? ip->hostname : NULL };
		memcpy(cfg.mac, ni->mac, 6);
		cfg.seed = (uint32_t)nu->ops->now_ms() ^ ((uint32_t)ni->mac[5] << 8 | ni->mac[4]);
		nu->ip = ip;
		dhcp_client_init(&ni->dc, &cfg, (uint64_t)nu->ops->now_ms());
		ni->dhcp = true;
		log_info("%s: asking for an address by DHCP", ni->name);
		dhcp_step(nu, idx, NULL, 0);
	}
}

static struct netif *find_index(struct netup *nu, int ifindex)
{
	for (size_t i = 0; i < nu->n; i++)
		if (nu->v[i].ifindex == ifindex)
			return &nu->v[i];
	return NULL;
}

void netup_scan(void *arg)
{
	struct netup *nu = arg;
	char *p = nu->ops->path("/sys/class/net");
	DIR *d = opendir(p);
	struct dirent *e;

	free(p);
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct netif ni = { .deadline = -1 };
		char *type, *idx, *addr;
		long n;

		if (e->d_name[0] == '.' || !net_ifname_valid(e->d_name))
			continue;
		type = sys_read(nu, e->d_name, "type");
		idx = sys_read(nu, e->d_name, "ifindex");
		addr = sys_read(nu, e->d_name, "address");
		n = idx ? strtol(idx, NULL, 10) : 0;
		/* Ethernet only (ARPHRD_ETHER): not lo, not tunnels */
		if (type && !strcmp(type, "1") && n > 0 && addr && !net_parse_mac(addr, ni.mac) &&
		    !find_index(nu, (int)n)) {
			memcpy(ni.name, e->d_name, strlen(e->d_name) + 1); /* valid: < 16 */
			memcpy(ni.kname, ni.name, sizeof(ni.kname));
			net_names_read(nu->ops->path, ni.name, &ni.names);
			ni.ifindex = (int)n;
			ARRAY_GROW(nu->v, nu->cap, nu->n + 1);
			nu->v[nu->n++] = ni;
			log_debug("interface %s (index %d, %s)", ni.name, ni.ifindex, addr);
			if (nu->chosen < 0 || netpick_several(nu)) {
				netpick_rename_ifname(nu, &nu->v[nu->n - 1]);
				if (!netvirt_claim(nu, &nu->v[nu->n - 1]) &&
				    netpick_candidate(nu, &nu->v[nu->n - 1])) {
					netpick_rename_as_udev(nu, &nu->v[nu->n - 1]);
					bring_up(nu, nu->n - 1);
				}
			}
		}
		free(type);
		free(idx);
		free(addr);
	}
	closedir(d);
	if ((nu->chosen < 0 || netpick_several(nu)) && netvirt_create_ready(nu))
		netup_scan(nu); /* the new link, itself an interface */
}

static void packet_ready(void *arg)
{
	struct netup *nu = arg;
	uint8_t buf[2048];

	for (;;) {
		struct sockaddr_ll from;
		unsigned alen = sizeof(from);
		const uint8_t *payload;
		size_t plen;
		const char *why;
		struct netif *ni;
		ssize_t n;

		if (nu->pfd < 0) /* DHCP settled on the last packet: closed */
			return;
		n = nu->ops->recvfrom(nu->pfd, buf, sizeof(buf), MSG_DONTWAIT, &from, &alen);
		if (n <= 0)
			return;
		ni = find_index(nu, from.sll_ifindex);
		if (!ni || !ni->dhcp)
			continue;
		if (rawudp_parse(buf, (size_t)n, DHCP_CLIENT_PORT, &payload, &plen, &why) < 0)
			continue; /* other traffic on the wire */
		dhcp_step(nu, (size_t)(ni - nu->v), payload, plen);
	}
}

static long long timer_deadline(void *arg)
{
	struct netup *nu = arg;
	long long best = -1;

	for (size_t i = 0; i < nu->n; i++)
		if (nu->v[i].dhcp && nu->v[i].deadline >= 0 &&
		    (best < 0 || nu->v[i].deadline < best))
			best = nu->v[i].deadline;
	return best;
}

static void timer_expired(void *arg)
{
	struct netup *nu = arg;
	long long now = nu->ops->now_ms();

	for (size_t i = 0; i < nu->n; i++)
		if (nu->v[i].dhcp && nu->v[i].deadline >= 0 && nu->v[i].deadline <= now)
			dhcp_step(nu, i, NULL, 0);
}

int netup_start(struct netup *nu, struct loop *l)
{
	struct loop_source src = { .ready = packet_ready, .deadline = timer_deadline,
				   .expired = timer_expired, .arg = nu };
	int e;

	if ((e = nl_open(&nu->nl, nu->ops)) < 0)
		return err_errno(e, "cannot open rtnetlink");
	/* opened here, so that a boot that cannot have it fails at once */
	if ((e = dhcp_socket_open(nu)) < 0)
		return e;
	src.fd = nu->pfd;
	if ((e = loop_add(l, &src)) < 0)
		return e;
	nu->loop = l;
	nu->started = true;
	/* lo up, as any system has it: tools talk to themselves over it
	 * (iscsistart's login fails without) */
	{
		char *idx = sys_read(nu, "lo", "ifindex");
		long n = idx ? strtol(idx, NULL, 10) : 0;
		if (n > 0 && (e = nl_link_set(&nu->nl, (int)n, true, 0, NULL)) < 0)
			log_warn("lo: cannot bring the link up: %s", strerror(-e));
		free(idx);
	}
	netup_scan(nu);
	return 0;
}

void netup_stop(struct netup *nu, bool keep)
{
	if (!nu->started)
		return;
	if (keep)
		netkeep_prune(nu);
	if (!keep) {
		netvirt_teardown(nu);
		for (size_t i = 0; i < nu->n; i++) {
			if (!nu->v[i].up)
				continue;
			if (nu->v[i].configured)
				nl_addr(&nu->nl, false, nu->v[i].ifindex, nu->v[i].addr, nu->v[i].prefix);
			nl_link_set(&nu->nl, nu->v[i].ifindex, false, 0, NULL);
			nu->v[i].up = false;
		}
		if (nu->chosen >= 0)
			log_info("%s: down: the root is not on the network", nu->v[nu->chosen].name);
	}
	for (size_t i = 0; i < nu->n; i++) {
		nu->v[i].dhcp = false;
		nu->v[i].deadline = -1;
	}
	dhcp_socket_close(nu);
	netup6_close(nu);
	nl_close(&nu->nl);
}

void netup_report(const struct netup *nu)
{
	if (!nu->n)
		log_err("no network interface appeared (is its driver in the image?)");
	for (size_t i = 0; i < nu->n; i++) {
		const struct netif *ni = &nu->v[i];
		char a[INET6_ADDRSTRLEN];
		if ((int)i == nu->chosen && nu->family == AF_INET6)
			log_err("  %s: %s/%d (IPv6)", ni->name, inet_ntop(AF_INET6, &nu->addr6, a, sizeof(a)),
				nu->prefix6);
		else if ((int)i == nu->chosen)
			log_err("  %s: %s/%d%s", ni->name, inet_ntop(AF_INET, &nu->addr, a, sizeof(a)),
				nu->prefix, nu->from_dhcp ? " from DHCP" : "");
		else if (ni->configured)
			log_err("  %s: %s/%d", ni->name, inet_ntop(AF_INET, &ni->addr, a, sizeof(a)), ni->prefix);
		else if (ni->failed && ni->v6)
			log_err("  %s: no IPv6 address (ip=%s)", ni->name, ip_autoconf_name(ni->v6));
		else if (ni->slave)
			log_err("  %s: a port of %s", ni->name, netvirt_master_of(&nu->virt, ni->name) ?
				netvirt_master_of(&nu->virt, ni->name)->name : "?");
		else if (ni->failed)
			log_err("  %s: no address: DHCP got no answer", ni->name);
		else if (ni->up)
			log_err("  %s: no address yet", ni->name);
		else
			log_err("  %s: not used", ni->name);
	}
}

void netup_free(struct netup *nu)
{
	if (!nu->ops)
		return; /* never parsed: nothing opened */
	nl_close(&nu->nl);
	netup6_close(nu);
	if (nu->pfd >= 0)
		nu->ops->close(nu->pfd);
	netnames_free(nu);
	net_cmdline_free(&nu->cmd);
	netroot_free(&nu->root);
	netvirt_set_free(&nu->virt);
	free(nu->nfsroot);
	free(nu->v);
	memset(nu, 0, sizeof(*nu));
	nu->pfd = -1;
	nu->nl.fd = -1;
	netup6_init(nu, netup_chose, netup_failed);
}
