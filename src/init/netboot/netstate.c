// SPDX-License-Identifier: GPL-2.0-or-later
/* What the init leaves about each interface it configured, for the
 * scripts and managers of the real system: our /run/uniramfs/net/IFACE.conf
 * and resolv.conf, initramfs-tools' /run/net-IFACE.conf, and for a root
 * reached through the link, the files that keep NetworkManager and
 * systemd-networkd off it (net/nethandover.h). None of it is needed by
 * the boot: a file that cannot be written is a warning. */
#include "init/netboot/netstate.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "init/net/netconf.h"
#include "init/net/nethandover.h"
#include "log.h"

#define NET_RUN_DIR "/run/uniramfs/net"
#define RESOLV_CONF "/run/uniramfs/resolv.conf"

/* Write data as DIR/name (parent made first when given); warns on
 * failure: the boot does not depend on these files. */
static void write_run_file(struct netup *nu, const char *parent, const char *dir, const char *name,
			   const struct buf *data)
{
	const char *dirs[] = { parent ? parent : dir, parent ? dir : NULL, NULL };
	int e = net_run_file_write(nu->ops, dirs, name, data->p ? data->p : "", data->len);

	if (e < 0)
		log_warn("cannot write %s/%s: %s", dir, name, strerror(-e));
}

/* A root on the network (or the disk under it) is reached through ni:
 * the root's NetworkManager and systemd-networkd must leave its address
 * alone (nethandover.h). */
/* The ports under ni (bond=, bridge=, vlan=): theirs too. */
static void write_ports(struct netup *nu, const struct netif *ni)
{
	for (size_t i = 0; i < nu->n; i++) {
		const struct netvirt *m = netvirt_master_of(&nu->virt, nu->v[i].name);
		struct buf b = { 0 };
		char *name;
		if (!nu->v[i].slave || !m || strcmp(m->name, ni->name))
			continue;
		if (net_nm_unmanaged_render(nu->v[i].name, &b) == 0) {
			name = net_nm_conf_name(nu->v[i].name);
			write_run_file(nu, "/run/NetworkManager", "/run/NetworkManager/conf.d", name, &b);
			free(name);
		}
		buf_free(&b);
		if (net_networkd_port_render(nu->v[i].name, ni->name, &b) == 0) {
			name = net_networkd_name(nu->v[i].name);
			write_run_file(nu, "/run/systemd", "/run/systemd/network", name, &b);
			free(name);
		}
		buf_free(&b);
	}
}

static void write_handover(struct netup *nu, const struct netif *ni, const struct net_conf *nc)
{
	struct buf b = { 0 };
	char *name;

	if (nu->root.kind == NETROOT_NONE && !nu->root.iscsi.firmware)
		return;
	write_ports(nu, ni);
	if (net_nm_unmanaged_render(ni->name, &b) < 0) {
		log_warn("%s: the name cannot be written into NetworkManager's and networkd's files: "
			 "they may reconfigure the root's link", ni->name);
		return;
	}
	name = net_nm_conf_name(ni->name);
	write_run_file(nu, "/run/NetworkManager", "/run/NetworkManager/conf.d", name, &b);
	free(name);
	buf_free(&b);
	if (net_networkd_render(nc, &b) == 0) {
		name = net_networkd_name(ni->name);
		write_run_file(nu, "/run/systemd", "/run/systemd/network", name, &b);
		free(name);
	}
	buf_free(&b);
}

/* An IPv6 result: its method, address, and DNS from DHCPv6, from the
 * router advertisement (SLAAC) or from ip=. */
static void conf6(struct netup *nu, const struct netif *ni, struct net_conf *nc)
{
	static const char *const proto[] = { [IP_AUTO_NONE] = "none", [IP_AUTO_DHCP6] = "dhcp6",
					     [IP_AUTO_AUTO6] = "auto6", [IP_AUTO_LINK6] = "link6" };

	memset(nc, 0, sizeof(*nc));
	nc->device = ni->name;
	nc->prefix = -1;
	nc->proto6 = nu->how6 >= 0 && (size_t)nu->how6 < ARRAY_SIZE(proto) && proto[nu->how6] ? proto[nu->how6]
												: "none";
	nc->addr6 = nu->addr6;
	nc->prefix6 = nu->prefix6;
	nc->uptime = (long)(nu->ops->now_ms() / 1000);
	if (nu->how6 == IP_AUTO_DHCP6) {
		for (unsigned i = 0; i < nu->lease6.n_dns && i < DHCP_MAX_DNS; i++)
			nc->dns6[nc->n_dns6++] = nu->lease6.dns[i];
		nc->search6 = nu->lease6.domains;
	} else if (nu->how6 == IP_AUTO_AUTO6 && nu->v6.ra.ifindex == ni->ifindex) {
		for (unsigned i = 0; i < nu->v6.ra.n_dns && i < DHCP_MAX_DNS; i++)
			nc->dns6[nc->n_dns6++] = nu->v6.ra.dns[i];
		nc->search6 = nu->v6.ra.search;
	} else if (nu->how6 == IP_AUTO_NONE && nu->ip) {
		if (nu->ip->gateway.family == AF_INET6)
			nc->gateway6 = nu->ip->gateway.v6;
		for (int i = 0; i < 2; i++)
			if (nu->ip->dns[i].family == AF_INET6)
				nc->dns6[nc->n_dns6++] = nu->ip->dns[i].v6;
		nc->hostname = nu->ip->hostname;
		nc->mtu = nu->ip->mtu;
	}
}

void netstate_write(struct netup *nu, const struct netif *ni)
{
	struct net_conf nc;
	struct buf b = { 0 }, r = { 0 };
	struct strv w = { 0 };
	int dfd, e;

	if (nu->family == AF_INET6) {
		conf6(nu, ni, &nc);
	} else if (nu->from_dhcp) {
		net_conf_from_lease(&nc, ni->name, &nu->lease);
	} else {
		net_conf_from_ip(&nc, ni->name, nu->ip);
		nc.prefix = nu->prefix;
		nc.uptime = (long)(nu->ops->now_ms() / 1000);
	}
	net_conf_render(&nc, &b, &w);
	net_resolv_render(&nc, nu->cmd.nameserver, nu->cmd.n_nameserver, nu->cmd.peerdns, &r, &w);
	nu->ops->mkdir("/run/uniramfs", 0755);
	nu->ops->mkdir(NET_RUN_DIR, 0755);
	dfd = nu->ops->open(NET_RUN_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (dfd < 0) {
		log_warn("cannot open " NET_RUN_DIR ": %s", strerror(-dfd));
	} else {
		char *name = xasprintf("%s.conf", ni->name);
		if ((e = net_write_file_at(dfd, name, b.p, b.len)) < 0)
			log_warn("cannot write " NET_RUN_DIR "/%s: %s", name, strerror(-e));
		free(name);
		close(dfd);
	}
	dfd = nu->ops->open("/run/uniramfs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (dfd >= 0) {
		if ((e = net_write_file_at(dfd, "resolv.conf", r.p ? r.p : "", r.len)) < 0)
			log_warn("cannot write " RESOLV_CONF ": %s", strerror(-e));
		close(dfd);
	}
	if (nu->family == AF_INET) {
		/* initramfs-tools' name and layout, beside ours (klibc's
		 * ipconfig knows IPv4 only); its warnings are the same
		 * fields', already in w */
		struct strv kw = { 0 };
		char *name = xasprintf("net-%s.conf", ni->name);
		buf_free(&b);
		nc.prefix = nu->prefix; /* ipconfig writes the netmask it derived */
		net_conf_render_klibc(&nc, &b, &kw);
		write_run_file(nu, NULL, "/run", name, &b);
		strv_free(&kw);
		free(name);
	}
	write_handover(nu, ni, &nc);
	for (size_t i = 0; i < w.n; i++)
		log_warn("%s: %s", ni->name, w.v[i]);
	strv_free(&w);
	buf_free(&b);
	buf_free(&r);
}
