// SPDX-License-Identifier: GPL-2.0-or-later
/* Booting from the firmware's iSCSI Boot Firmware Table: root=ibft,
 * rd.iscsi.firmware, rd.iscsi.ibft, ip=ibft. Before the network comes
 * up, the table (iscsi_ibft's /sys/firmware/ibft, net/ibft.c checks
 * every field) gives the NIC to configure, by its MAC, and the target
 * to log in to; from then on the boot is an iSCSI boot like any other
 * (netup.c, netblock.c), so every login, handover file and message is
 * the command line's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init/init.h"
#include "init/net/ibft.h"
#include "init/stages/stages.h"
#include "log.h"

#define IBFT_DIR "/sys/firmware/ibft"

static bool ip_ibft(const struct net_cmdline *cmd)
{
	for (size_t i = 0; i < cmd->n_ip; i++)
		if (cmd->ip[i].autoconf == IP_AUTO_IBFT)
			return true;
	return false;
}

/* The table's NIC as an ip= of its own, found by MAC (a table without
 * one: DHCP on any interface): each ip=ibft becomes it, or it is the
 * only ip= (none was given). */
static void take_nic(struct net_cmdline *cmd, const struct ip_conf *nic)
{
	struct ip_conf one = *nic;
	bool put = false;

	one.text = NULL;
	one.hostname = NULL;
	one.device = NULL;
	one.by_mac = nic->has_mac;
	for (size_t i = 0; i < cmd->n_ip; i++) {
		struct ip_conf *ip = &cmd->ip[i];
		if (ip->autoconf != IP_AUTO_IBFT)
			continue;
		ip_conf_free(ip);
		*ip = one;
		ip->text = xstrdup("ibft");
		ip->hostname = nic->hostname ? xstrdup(nic->hostname) : NULL;
		put = true;
	}
	if (put)
		return;
	ARRAY_GROW(cmd->ip, cmd->cap_ip, cmd->n_ip + 1);
	cmd->ip[cmd->n_ip] = one;
	cmd->ip[cmd->n_ip].text = xstrdup("ibft");
	cmd->ip[cmd->n_ip].hostname = nic->hostname ? xstrdup(nic->hostname) : NULL;
	cmd->n_ip++;
}

/* The table's boot target: the root's, or one more to log in to after
 * the command line's own (rd.iscsi.firmware beside netroot=iscsi:); its
 * other targets after it. */
static void take_target(struct iscsi_root *r, struct iscsi_root *fw)
{
	if (!r->initiator) { /* rd.iscsi.initiator= wins, as in dracut */
		r->initiator = fw->initiator;
		fw->initiator = NULL;
	}
	if (!r->target.name) {
		iscsi_target_free(&r->target);
		r->target = fw->target;
	} else {
		r->more = xrealloc(r->more, (r->nmore + 1) * sizeof(*r->more));
		r->more[r->nmore++] = fw->target;
	}
	memset(&fw->target, 0, sizeof(fw->target));
	/* the table's other targets: more logins, as iscsistart -b makes */
	for (size_t i = 0; i < fw->nmore; i++) {
		r->more = xrealloc(r->more, (r->nmore + 1) * sizeof(*r->more));
		r->more[r->nmore++] = fw->more[i];
		memset(&fw->more[i], 0, sizeof(fw->more[i]));
	}
}

void ibft_boot(struct init *in)
{
	struct netup *nu = &in->net;
	struct iscsi_root *r = &nu->root.iscsi;
	bool login = nu->root.kind == NETROOT_ISCSI && r->firmware;
	/* the table's NIC when asked, or for a firmware login that no ip= configures */
	bool net = ip_ibft(&nu->cmd) || (login && (r->ibft_net || !nu->cmd.n_ip));
	struct iscsi_root fw;
	struct ip_conf nic;
	struct strv w = { 0 };
	char *dir, mac[18];
	int e;

	if (!login && !net)
		return;
	/* built in on some kernels: then there is no module to load */
	if (in->ml && modload_name(in->ml, "iscsi_ibft") < 0)
		log_debug("iscsi_ibft: %s", err_msg());
	if (in->ops->access(IBFT_DIR, F_OK) < 0) {
		log_warn("iBFT: no %s: the firmware left no iSCSI boot table (or the image has no "
			"iscsi_ibft)", IBFT_DIR);
		return;
	}
	dir = in->ops->path(IBFT_DIR);
	e = ibft_read(dir, &fw, &nic, &w);
	free(dir);
	for (size_t i = 0; i < w.n; i++)
		log_warn("%s", w.v[i]);
	strv_free(&w);
	if (e < 0) {
		log_warn("iBFT: %s holds no target uniramfs can log in to", IBFT_DIR);
		return;
	}
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", nic.mac[0], nic.mac[1], nic.mac[2],
		 nic.mac[3], nic.mac[4], nic.mac[5]);
	log_info("iBFT: target %s at %s:%u LUN %u, %s%s", fw.target.name, fw.target.server, fw.target.port,
		 fw.target.lun, nic.has_mac ? "through the NIC " : "no NIC given", nic.has_mac ? mac : "");
	if (net) {
		char a[NET_ADDR_TEXT];
		if (!nic.has_mac)
			log_warn("iBFT: the table names no NIC: DHCP on any interface instead");
		else if (nic.autoconf == IP_AUTO_DHCP)
			log_info("iBFT: NIC %s: DHCP, as the table says", mac);
		else
			log_info("iBFT: NIC %s: %s/%d", mac, net_addr_str(&nic.client, a), nic.prefix);
		take_nic(&nu->cmd, &nic);
	}
	if (login)
		take_target(r, &fw);
	iscsi_root_free(&fw);
	ip_conf_free(&nic);
}
