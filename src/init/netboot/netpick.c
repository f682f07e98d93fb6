// SPDX-License-Identifier: GPL-2.0-or-later
/* Which interfaces carry the boot, and the names they take: ip= naming
 * an interface (by any of its names or, from the iBFT, by MAC), BOOTIF=,
 * several named ones configured together, ifname= and udev's names. */
#include "init/netboot/netpick.h"

#include <stdio.h>
#include <string.h>

#include "init/netboot/netlink.h"
#include "log.h"

static bool configures(const struct ip_conf *ip)
{
	return !ip_conf_is_off(ip);
}

/* Does DEVICE name ni? An installed system's ip= says enp1s0 where a
 * generic image sees eth0: its kernel name, its name now and the names
 * udev gives it all count. */
static bool names_iface(const struct netif *ni, const char *dev)
{
	return !strcmp(dev, ni->name) || !strcmp(dev, ni->kname) || net_names_has(&ni->names, dev);
}

/* The ip= for interface ni: one naming it, else one naming none. */
const struct ip_conf *netpick_ip_for(const struct netup *nu, const struct netif *ni)
{
	const struct ip_conf *any = NULL;

	for (size_t i = 0; i < nu->cmd.n_ip; i++) {
		const struct ip_conf *ip = &nu->cmd.ip[i];
		if ((ip->device && names_iface(ni, ip->device)) || (ip->by_mac && !memcmp(ip->mac, ni->mac, 6)))
			return ip;
		if (!ip->device && !ip->by_mac && !any)
			any = ip;
	}
	return any;
}

static bool names_devices(const struct netup *nu)
{
	for (size_t i = 0; i < nu->cmd.n_ip; i++)
		if (nu->cmd.ip[i].device || nu->cmd.ip[i].by_mac)
			return true;
	return false;
}

/* May this interface carry the boot? */
bool netpick_candidate(const struct netup *nu, const struct netif *ni)
{
	const struct ip_conf *ip;

	if (names_devices(nu)) {
		ip = netpick_ip_for(nu, ni);
		return ip && (ip->device || ip->by_mac) && configures(ip);
	}
	if (nu->cmd.has_bootif)
		return !memcmp(nu->cmd.bootif, ni->mac, 6);
	ip = netpick_ip_for(nu, ni);
	return !ip || configures(ip);
}

/* Several ip= that each name their interface (dracut's TEST-71: two
 * NICs, each with its own address): every one is configured. */
size_t netpick_named_count(const struct netup *nu)
{
	size_t n = 0;

	for (size_t i = 0; i < nu->cmd.n_ip; i++)
		n += (nu->cmd.ip[i].device || nu->cmd.ip[i].by_mac) && configures(&nu->cmd.ip[i]);
	return n;
}

/* dracut runs DHCP on every interface for an ip=dhcp that names none
 * and keeps each that got a lease; a root on one server needs only the
 * first (the others go down at once, as before). A root on several
 * servers (TEST-70: two iSCSI targets, each on its own wire) needs each
 * one's wire: every lease is kept, and netkeep.c later drops those that
 * reach no server. */
bool netpick_dhcp_all(const struct netup *nu)
{
	const struct ip_conf *bare = nu->cmd.n_ip ? &nu->cmd.ip[0] : NULL; /* names none: the first applies */

	if (!bare || names_devices(nu) || nu->cmd.has_bootif)
		return false;
	if (nu->root.kind != NETROOT_ISCSI || !nu->root.iscsi.nmore)
		return false;
	return bare->autoconf == IP_AUTO_DHCP || bare->autoconf == IP_AUTO_ANY;
}

bool netpick_several(const struct netup *nu)
{
	return netpick_named_count(nu) > 1 || netpick_dhcp_all(nu);
}

/* ifname= says this MAC is called NAME: rename it while it is down. */
void netpick_rename_ifname(struct netup *nu, struct netif *ni)
{
	for (size_t i = 0; i < nu->cmd.n_ifname; i++) {
		const struct ifname_rule *r = &nu->cmd.ifname[i];
		int e;
		if (memcmp(r->mac, ni->mac, 6))
			continue;
		ni->renamed = true; /* ifname= names it, not udev */
		if (!strcmp(r->name, ni->name))
			return;
		if ((e = nl_link_set(&nu->nl, ni->ifindex, false, 0, r->name)) < 0) {
			log_warn("ifname=%s: cannot rename %s: %s", r->name, ni->name, strerror(-e));
			return;
		}
		log_info("%s is now %s (ifname=)", ni->name, r->name);
		snprintf(ni->name, sizeof(ni->name), "%s", r->name);
		return;
	}
}

/* The name udev would give (99-default.link), taken while the link is
 * still down: an interface kept up for a network root cannot be renamed
 * by the root's udev later, and its configuration knows it only so.
 * net.ifnames=0 keeps the kernel's names, as udev does. */
void netpick_rename_as_udev(struct netup *nu, struct netif *ni)
{
	const char *name = net_names_policy(&ni->names);
	int e;

	if (!nu->cmd.ifnames || ni->renamed || !name || !strcmp(name, ni->name))
		return;
	if ((e = nl_link_set(&nu->nl, ni->ifindex, false, 0, name)) < 0) {
		log_warn("%s: cannot rename it %s as udev would: %s", ni->name, name, strerror(-e));
		return;
	}
	log_info("%s is now %s (as udev names it)", ni->name, name);
	snprintf(ni->name, sizeof(ni->name), "%s", name);
	ni->renamed = true;
}
