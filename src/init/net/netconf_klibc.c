// SPDX-License-Identifier: GPL-2.0-or-later
/* initramfs-tools' /run/net-IFACE.conf, byte for byte the layout of
 * klibc's ipconfig (its dump_device_config): readers such as open-iscsi's
 * net-interface-handler and cloud-init's klibc parser expect every key
 * present and compare addresses with "0.0.0.0", so nothing is left out
 * here, unlike in our own IFACE.conf. */
#include <arpa/inet.h>
#include <stdio.h>

#include "init/net/netconf.h"

/* KEY='value' with ' and ! closed out of the quotes as ipconfig does
 * ('\!' keeps an interactive bash from expanding history); a value with
 * a control byte is written empty, since a newline would start a line
 * of the reader's choosing. */
static void put_str(struct buf *b, const char *key, const char *val, struct strv *w)
{
	if (!val)
		val = "";
	if (net_has_control(val)) {
		strv_push_owned(w, xasprintf("%s: left out, its value has a control character", key));
		val = "";
	}
	buf_printf(b, "%s='", key);
	for (const char *p = val; *p; p++) {
		if (*p == '\'' || *p == '!')
			buf_printf(b, "'\\%c'", *p);
		else
			buf_append(b, p, 1);
	}
	buf_append(b, "'\n", 2);
}

static void put_addr(struct buf *b, const char *key, struct in_addr a)
{
	char t[INET_ADDRSTRLEN] = "0.0.0.0";

	inet_ntop(AF_INET, &a, t, sizeof(t));
	buf_printf(b, "%s='%s'\n", key, t);
}

void net_conf_render_klibc(const struct net_conf *nc, struct buf *b, struct strv *w)
{
	struct in_addr mask = { 0 }, bcast = nc->broadcast, none = { 0 };
	char n[24];

	if (nc->prefix >= 0)
		mask = net_prefix_to_mask(nc->prefix);
	/* ipconfig derives the broadcast address when the server gave none */
	if (!bcast.s_addr && nc->addr.s_addr && mask.s_addr)
		bcast.s_addr = (nc->addr.s_addr & mask.s_addr) | ~mask.s_addr;
	put_str(b, "DEVICE", nc->device, w);
	put_str(b, "PROTO", nc->proto, w);
	put_addr(b, "IPV4ADDR", nc->addr);
	put_addr(b, "IPV4BROADCAST", bcast);
	put_addr(b, "IPV4NETMASK", mask);
	put_addr(b, "IPV4GATEWAY", nc->gateway);
	put_addr(b, "IPV4DNS0", nc->n_dns > 0 ? nc->dns[0] : none);
	put_addr(b, "IPV4DNS1", nc->n_dns > 1 ? nc->dns[1] : none);
	put_str(b, "HOSTNAME", nc->hostname, w);
	put_str(b, "DNSDOMAIN", nc->domain, w);
	put_str(b, "NISDOMAIN", "", w); /* not asked for */
	put_addr(b, "ROOTSERVER", nc->root_server);
	put_str(b, "ROOTPATH", nc->root_path, w);
	put_str(b, "filename", nc->filename, w);
	snprintf(n, sizeof(n), "%ld", nc->uptime);
	put_str(b, "UPTIME", n, w);
	snprintf(n, sizeof(n), "%u", (unsigned)nc->lease_time);
	put_str(b, "DHCPLEASETIME", n, w);
	put_str(b, "DOMAINSEARCH", nc->search ? nc->search : "", w); /* option 119 */
}
