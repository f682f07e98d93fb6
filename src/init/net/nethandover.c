// SPDX-License-Identifier: GPL-2.0-or-later
/* The network managers' hand-over files for a root on the network: see
 * nethandover.h for what each manager reads and why. */
#include "init/net/nethandover.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "init/core/ops.h"

bool net_handover_ifname_ok(const char *s)
{
	if (!net_ifname_valid(s))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '-' || *s == '_' || *s == '.'))
			return false;
	return true;
}

char *net_nm_conf_name(const char *ifname)
{
	return xasprintf("90-uniramfs-%s.conf", ifname);
}

char *net_networkd_name(const char *ifname)
{
	return xasprintf("00-uniramfs-%s.network", ifname);
}

int net_nm_unmanaged_render(const char *ifname, struct buf *b)
{
	if (!net_handover_ifname_ok(ifname))
		return -EINVAL;
	buf_printf(b, "# uniramfs: the root is reached through %s; NetworkManager must not\n"
		      "# reconfigure it or take it down.\n"
		      "[device-uniramfs-%s]\n"
		      "match-device=interface-name:%s\n"
		      "managed=0\n"
		      "\n"
		      "[keyfile]\n"
		      "unmanaged-devices+=interface-name:%s\n",
		   ifname, ifname, ifname, ifname);
	return 0;
}

static const char *ntoa(struct in_addr a, char t[INET_ADDRSTRLEN])
{
	return inet_ntop(AF_INET, &a, t, INET_ADDRSTRLEN) ? t : "0.0.0.0";
}

/* The IPv6 interface as the init configured it: the same method, so a
 * restart of networkd asks for (or keeps) the same address. */
static void render6(const struct net_conf *nc, struct buf *b)
{
	char t[INET6_ADDRSTRLEN];

	if (!strcmp(nc->proto6, "dhcp6")) {
		buf_printf(b, "DHCP=ipv6\nIPv6AcceptRA=yes\n");
	} else if (!strcmp(nc->proto6, "auto6")) {
		buf_printf(b, "IPv6AcceptRA=yes\n");
	} else if (!strcmp(nc->proto6, "link6")) {
		buf_printf(b, "LinkLocalAddressing=ipv6\nIPv6AcceptRA=no\n");
	} else {
		buf_printf(b, "Address=%s/%d\n", inet_ntop(AF_INET6, &nc->addr6, t, sizeof(t)) ? t : "::",
			   nc->prefix6 >= 0 ? nc->prefix6 : 64);
		if (!IN6_IS_ADDR_UNSPECIFIED(&nc->gateway6))
			buf_printf(b, "Gateway=%s\n", inet_ntop(AF_INET6, &nc->gateway6, t, sizeof(t)) ? t : "::");
	}
	for (unsigned i = 0; i < nc->n_dns6; i++)
		if (inet_ntop(AF_INET6, &nc->dns6[i], t, sizeof(t)))
			buf_printf(b, "DNS=%s\n", t);
}

int net_networkd_render(const struct net_conf *nc, struct buf *b)
{
	char t[INET_ADDRSTRLEN];
	bool dhcp = nc->proto && !strcmp(nc->proto, "dhcp");

	if (!nc->device || !net_handover_ifname_ok(nc->device))
		return -EINVAL;
	buf_printf(b, "# uniramfs: the root is reached through %s; networkd keeps the address\n"
		      "# the initramfs gave it, through restarts and lease expiry.\n"
		      "[Match]\n"
		      "Name=%s\n"
		      "\n"
		      "[Network]\n",
		   nc->device, nc->device);
	if (nc->proto6) {
		render6(nc, b);
	} else if (dhcp) {
		buf_printf(b, "DHCP=ipv4\n");
	} else {
		buf_printf(b, "Address=%s/%d\n", ntoa(nc->addr, t), nc->prefix >= 0 ? nc->prefix : 32);
		if (nc->gateway.s_addr)
			buf_printf(b, "Gateway=%s\n", ntoa(nc->gateway, t));
		for (unsigned i = 0; i < nc->n_dns; i++)
			if (nc->dns[i].s_addr)
				buf_printf(b, "DNS=%s\n", ntoa(nc->dns[i], t));
	}
	buf_printf(b, "KeepConfiguration=yes\n");
	if (dhcp)
		buf_printf(b, "\n"
			      "[DHCPv4]\n"
			      "ClientIdentifier=mac\n"
			      "\n"
			      "# before systemd 243 (the section's old name); a later one\n"
			      "# notes that KeepConfiguration= wins\n"
			      "[DHCP]\n"
			      "CriticalConnection=yes\n");
	return 0;
}

int net_networkd_port_render(const char *port, const char *master, struct buf *b)
{
	if (!net_handover_ifname_ok(port) || !net_handover_ifname_ok(master))
		return -EINVAL;
	buf_printf(b, "# uniramfs: the root is reached through %s, over this port; networkd\n"
		      "# must leave it in %s as it is.\n"
		      "[Match]\n"
		      "Name=%s\n"
		      "\n"
		      "[Link]\n"
		      "Unmanaged=yes\n",
		   master, master, port);
	return 0;
}

int net_iscsi_initiator_render(const char *iqn, struct buf *b)
{
	size_t n = iqn ? strlen(iqn) : 0;

	if (n == 0 || n > 223)
		return -EINVAL;
	for (const char *p = iqn; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return -EINVAL;
	buf_printf(b, "## Written by uniramfs: the name it logged in to the root's target with.\n"
		      "InitiatorName=%s\n",
		   iqn);
	return 0;
}

void net_iscsid_dropin_render(struct buf *b)
{
	buf_printf(b, "# uniramfs logged in to the root's iSCSI target under the name in\n"
		      "# " NET_ISCSI_NAME_DIR "/" NET_ISCSI_NAME_FILE "; iscsid must use it too\n"
		      "# (its recovery of the root's session, new logins to a target whose\n"
		      "# ACL names it). Only iscsid sees it: /etc's file is left as it is.\n"
		      "[Service]\n"
		      "BindReadOnlyPaths=" NET_ISCSI_NAME_DIR "/" NET_ISCSI_NAME_FILE
		      ":/etc/iscsi/initiatorname.iscsi\n");
}

int net_run_file_write(const struct sysops *ops, const char *const dirs[], const char *name, const void *data,
		       size_t len)
{
	const char *dir = NULL;
	int dfd, e;

	for (size_t i = 0; dirs[i]; i++) {
		dir = dirs[i];
		if ((e = ops->mkdir(dir, 0755)) < 0 && e != -EEXIST)
			return e;
	}
	if (!dir)
		return -EINVAL;
	dfd = ops->open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
	if (dfd < 0)
		return dfd;
	e = net_write_file_at(dfd, name, data, len);
	close(dfd);
	return e;
}
