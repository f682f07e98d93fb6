/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_NETCONF_H
#define UNIRAMFS_NET_NETCONF_H

#include <netinet/in.h>

#include "util.h"
#include "init/net/dhcp_client.h"
#include "init/net/ipconf.h"

/* What the init leaves behind about each interface it configured:
 * /run/uniramfs/net/IFACE.conf in the shell key='value' form of
 * initramfs-tools' /run/net-IFACE.conf (the same keys, so scripts that
 * source one can source the other), and a resolv.conf. The values come
 * from DHCP servers and are hostile: every value is single-quoted, and
 * one with a control byte (a newline would end the line for readers
 * that grep) is left out with a warning rather than written. */

struct net_conf {
	const char *device;
	const char *proto; /* "dhcp", "none" */
	struct in_addr addr, gateway, broadcast;
	int prefix; /* -1: unknown */
	struct in_addr dns[DHCP_MAX_DNS];
	unsigned n_dns;
	const char *hostname, *domain; /* NULL or "": none */
	const char *search; /* DHCP's option 119: valid domain names, space-separated */
	struct in_addr root_server;
	const char *root_path, *filename;
	uint32_t lease_time;
	unsigned mtu;
	long uptime; /* seconds since boot when configured (klibc's UPTIME) */
	/* IPv6, when the interface was configured so (netup6.h): proto6
	 * "dhcp6", "auto6" (SLAAC), "link6" or "none" (static); NULL: no
	 * IPv6. Written with initramfs-tools' IPV6* keys. */
	const char *proto6;
	struct in6_addr addr6, gateway6;
	int prefix6;
	struct in6_addr dns6[DHCP_MAX_DNS];
	unsigned n_dns6;
	const char *search6; /* valid domain names, space-separated */
};

/* Does s hold a control byte (C0 or DEL)? Such a value is never written:
 * a newline would start a line of the reader's choosing. */
bool net_has_control(const char *s);

/* Fill from a lease or from a static ip=; the strings stay borrowed. */
void net_conf_from_lease(struct net_conf *nc, const char *device, const struct dhcp_lease *l);
void net_conf_from_ip(struct net_conf *nc, const char *device, const struct ip_conf *ip);

/* Render into out (appended). Warnings name what was left out. */
void net_conf_render(const struct net_conf *nc, struct buf *out, struct strv *warnings);
/* /run/net-IFACE.conf exactly as klibc's ipconfig writes it for
 * initramfs-tools (open-iscsi's interface handler, cloud-init and
 * ifupdown hooks source it): every key, in its order, an absent address
 * as 0.0.0.0, an absent string as '' (a value with a control byte too,
 * with a warning), ' and ! escaped as ipconfig does. In
 * netconf_klibc.c. */
void net_conf_render_klibc(const struct net_conf *nc, struct buf *out, struct strv *warnings);
/* nameserver lines (extra first: nameserver= from the command line,
 * then the lease's or ip='s, IPv4 then IPv6, unless peerdns is false)
 * and a search line for a valid domain and the IPv6 search list. */
void net_resolv_render(const struct net_conf *nc, const struct net_addr *extra, size_t n_extra, bool peerdns,
		       struct buf *out, struct strv *warnings);

/* Write data as dirfd/name, atomically (a temporary then rename), never
 * through a link. name must be a plain file name. 0 or -errno. */
int net_write_file_at(int dirfd, const char *name, const void *data, size_t len);

#endif
