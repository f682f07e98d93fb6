/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_NETBOOT_NETUP_H
#define UNIRAMFS_INIT_NETBOOT_NETUP_H

#include <stdbool.h>
#include <stdint.h>

#include "cmdline.h"
#include "init/core/loop.h"
#include "init/core/ops.h"
#include "init/net/dhcp6_client.h"
#include "init/net/dhcp_client.h"
#include "init/net/ipconf.h"
#include "init/net/ndopt.h"
#include "init/net/netname.h"
#include "init/net/netroot.h"
#include "init/net/netvirt.h"
#include "init/netboot/netlink.h"
#include "init/netboot/netnames.h"

/* Bringing the network up for the boot, only when it is asked for (a
 * network root, rd.neednet=1, an ip= that configures something):
 * interfaces as the kernel announces them, renamed by ifname=, chosen
 * by ip=…:DEVICE (the kernel's name or one udev would give) or BOOTIF=,
 * renamed as udev would name them (netname.h), brought up, and configured statically or
 * by DHCP (one AF_PACKET socket for every interface, a loop source with
 * a timer). The first interface that gets an address wins; the others
 * go down again. Several ip= that each name an interface configure each
 * one (dracut's TEST-71), as a bare ip=dhcp does every lease for an
 * iSCSI root on several targets (TEST-70, netpick_dhcp_all); on_up then
 * waits until each target is on a configured interface's subnet or
 * every one of them has its address or gave up. */
struct netif {
	char name[16];
	char kname[16];          /* the kernel's name, which ip= may use too */
	struct net_names names;  /* udev's for it, read before any rename */
	bool renamed;            /* by ifname=: udev's names no longer apply */
	int ifindex;
	uint8_t mac[6];
	bool up, failed, dhcp;
	bool configured;      /* has addr/prefix */
	struct in_addr addr;
	int prefix;
	bool slave;              /* a port of a bond=, bridge=, vlan= link */
	struct dhcp_client dc;
	long long deadline; /* the DHCP client's, -1: none */
	/* IPv6 (netup6.h): the ip= method it waits on, 0 for none */
	int v6;
	bool dhcp6;          /* its DHCPv6 client runs */
	bool ll6;            /* its link-local address is past DAD */
	struct dhcp6_client dc6;
	long long deadline6; /* the DHCPv6 client's or SLAAC's wait, -1: none */
};

/* The IPv6 side's sockets (netup6.c): a DHCPv6 one and an rtnetlink
 * listener for addresses and router advertisements' DNS. */
struct netup6 {
	struct netup *nu;
	/* netup.c's netup_chose and netup_failed, called back (netup.c
	 * calls into netup6.c, not the other way) */
	void (*chose)(struct netup *nu, size_t idx);
	void (*failed)(struct netup *nu, size_t idx);
	int fd, mon; /* -1: not open */
	bool sources; /* added to the loop */
	struct nd_dns ra; /* the last router advertisement's DNS */
};

struct netup {
	const struct sysops *ops;
	struct net_cmdline cmd;
	struct netroot root;
	struct netvirt_set virt; /* bond=, vlan=, bridge= (netvirt_up.h) */
	char *nfsroot;   /* nfsroot= as given, for the kernel form over root-path */
	bool wanted;     /* the boot needs the network */
	bool started;
	struct nl nl;
	int pfd;         /* the DHCP socket while a DHCP client runs, -1 */
	struct loop *loop; /* whose source polls pfd */
	struct netif *v;
	size_t n, cap;
	/* The result: which interface, how it was configured. With several
	 * ip= each naming its interface, each is configured, and this is
	 * the last one. */
	int chosen;      /* index into v, -1 until one is configured */
	bool up_called;  /* on_up ran */
	bool failed;     /* every candidate gave up: nothing will come */
	bool from_dhcp;
	struct dhcp_lease lease; /* from_dhcp */
	struct in_addr addr, gateway, server;
	int prefix;
	const struct ip_conf *ip; /* the ip= that applies, NULL: dhcp by default */
	/* An IPv6 result (netup6.h): family AF_INET6, and addr6/prefix6
	 * from ip=, DHCPv6 (lease6) or the kernel's SLAAC. */
	int family;
	struct in6_addr addr6;
	int prefix6;
	int how6; /* the ip= method that gave it */
	struct dhcp6_lease lease6;
	struct netup6 v6;
	struct netnames *names; /* the root's server names (netnames.h) */
	char *names_error;	/* why one could not be resolved, NULL: none */
	/* Called once an interface is configured and the root's server
	 * names are resolved (from inside the loop: queue work, do not
	 * block). */
	void (*on_up)(void *arg);
	void *up_arg;
};

/* From the command line: is the network wanted, and for what. Warns
 * about every bad value (the boot goes on). */
void netup_parse(struct netup *nu, const struct sysops *ops, const struct cmdline *c);
/* Sockets, the loop source, the interfaces there already. 0 or a
 * negative code (err set). */
int netup_start(struct netup *nu, struct loop *l);
/* /sys/class/net again (an interface came or was renamed). */
void netup_scan(void *nu);
/* Configured (each of several interfaces that maybe_up waits for) and
 * the root's server names resolved (or not), or nothing more will come
 * of it. */
static inline bool netup_settled(const struct netup *nu)
{
	return (nu->chosen >= 0 && nu->up_called && !netnames_busy(nu)) || nu->failed;
}
/* Before switch_root: a root on the network keeps its interface;
 * otherwise the address goes and the links go down. Sockets closed
 * (the DHCP one already is, once DHCP settled). */
void netup_stop(struct netup *nu, bool keep);
/* ni (nu->v[idx]) is configured: it carries the boot, the others go
 * down, the files for the real system are written, on_up is called. */
void netup_chose(struct netup *nu, size_t idx);
/* ni gave up: the boot fails once every candidate has. */
void netup_failed(struct netup *nu, size_t idx);
/* The failure report's lines: each interface, what it got. */
void netup_report(const struct netup *nu);
void netup_free(struct netup *nu);

#endif
