/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_IPCONF_H
#define UNIRAMFS_NET_IPCONF_H

#include <stdbool.h>
#include <stdint.h>

#include "cmdline.h"
#include "util.h"
#include "init/net/netaddr.h"

/* What the command line says about the network: every ip= (the
 * kernel's Documentation/admin-guide/nfs/nfsroot.rst syntax, also as
 * its old name nfsaddrs=, and dracut's additions), ifname=, BOOTIF=, rd.bootif=, rd.neednet,
 * nameserver=, rd.peerdns=, net.ifnames=, net.naming-scheme= and biosdevname=. Pure: a struct cmdline in, this out.
 * Wrong values never stop the parse: each one becomes a warning that
 * names the offending text, and the field stays unset. */

enum ip_autoconf {
	IP_AUTO_UNSET, /* no method given: the kernel's default, "any" */
	IP_AUTO_NONE,  /* off, none: static */
	IP_AUTO_ANY,   /* on, any */
	IP_AUTO_DHCP,
	IP_AUTO_BOOTP,
	IP_AUTO_RARP,
	IP_AUTO_BOTH, /* BOOTP and RARP */
	IP_AUTO_DHCP6,
	IP_AUTO_AUTO6,
	IP_AUTO_EITHER6,
	IP_AUTO_LINK6,
	IP_AUTO_IBFT,
	IP_AUTO_SINGLE_DHCP,
};

const char *ip_autoconf_name(enum ip_autoconf a);

struct ip_conf {
	char *text; /* the ip= value, for messages */
	struct net_addr client, server, gateway;
	int prefix; /* -1: unset (the kernel derives it from the class) */
	char *hostname;
	char *device; /* NULL: any interface */
	enum ip_autoconf autoconf;
	struct net_addr dns[2];
	struct net_addr ntp;
	unsigned mtu; /* 0: unset */
	bool has_mac;
	uint8_t mac[6];
	bool by_mac; /* names the interface with mac, not by a device (the iBFT's NIC) */
};

struct ifname_rule {
	char *name;
	uint8_t mac[6];
};

struct net_cmdline {
	struct ip_conf *ip;
	size_t n_ip, cap_ip;
	struct ifname_rule *ifname;
	size_t n_ifname, cap_ifname;
	bool has_bootif; /* BOOTIF= given and rd.bootif not 0 */
	uint8_t bootif[6];
	bool neednet; /* rd.neednet=1 */
	bool peerdns; /* default true; rd.peerdns=0 */
	bool ifnames; /* default true; net.ifnames=0 keeps the kernel's names (netname.h) */
	bool biosdevname; /* biosdevname=1: the root's biosdevname names the cards */
	char *naming_scheme; /* net.naming-scheme=, NULL: the root udev's default */
	struct net_addr *nameserver;
	size_t n_nameserver, cap_nameserver;
	struct strv warnings;
};

/* Parse one ip= value into *out (zeroed first). Returns 0, or -EINVAL when
 * nothing usable is left; each problem is pushed onto warnings. */
int ip_conf_parse(const char *val, struct ip_conf *out, struct strv *warnings);
void ip_conf_free(struct ip_conf *ip);

void net_cmdline_parse(struct net_cmdline *out, const struct cmdline *c);
void net_cmdline_free(struct net_cmdline *n);

/* Is this ip= a request to configure nothing? */
static inline bool ip_conf_is_off(const struct ip_conf *ip)
{
	return ip->autoconf == IP_AUTO_NONE && !ip->client.family;
}

#endif
