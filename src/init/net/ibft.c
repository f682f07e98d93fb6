// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/net/ibft.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define IBFT_MAX 4 /* the table has room for two of each; be generous */

enum {
	IBFT_FLAG_VALID = 1,
	IBFT_FLAG_BOOT = 2,
	IBFT_ORIGIN_DHCP = 3,
};

/* Where the attributes come from: sysfs, or a test's table. */
struct ibft_src {
	ibft_attr_fn get;
	void *userdata;
};

static char *attr(const struct ibft_src *src, const char *sub, const char *name)
{
	return src->get(src->userdata, sub, name);
}

static long number(const char *s, long max)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	v = strtol(s, &end, 10);
	return *end || v < 0 || v > max ? -1 : v;
}

/* An address field; "0.0.0.0" and "::" mean the firmware left it empty. */
static void addr_attr(const struct ibft_src *src, const char *sub, const char *name, struct net_addr *out, struct strv *w)
{
	char *v = attr(src, sub, name);

	memset(out, 0, sizeof(*out));
	if (v && *v && strcmp(v, "0.0.0.0") != 0 && strcmp(v, "::") != 0 && net_parse_addr(v, out) < 0)
		strv_push_owned(w, xasprintf("ibft: %s/%s: \"%s\" is not an IP address", sub, name, v));
	free(v);
}

/* The kernel prints the eight LUN bytes each with %x, unpadded; with
 * every byte below 16 (the only unambiguous case) that is 8 digits. A
 * single-level LUN (SAM-2 peripheral addressing) is bytes 0 and 1. */
static int parse_lun(const char *s, unsigned *lun)
{
	uint8_t b[8];

	if (!s || strlen(s) != 8 || strspn(s, "0123456789abcdefABCDEF") != 8)
		return -EINVAL;
	for (int i = 0; i < 8; i++) {
		char c[2] = { s[i], 0 };
		b[i] = (uint8_t)strtoul(c, NULL, 16);
	}
	*lun = (unsigned)((b[0] & 0x3f) << 8 | b[1]);
	return 0;
}

static char *text_attr(const struct ibft_src *src, const char *sub, const char *name)
{
	char *v = attr(src, sub, name);
	if (v && !*v) {
		free(v);
		return NULL;
	}
	return v;
}

static int read_nic(const struct ibft_src *src, long index, struct ip_conf *nic, struct strv *w)
{
	char sub[32], *v;
	struct net_addr mask;
	long origin, plen;

	snprintf(sub, sizeof(sub), "ethernet%ld", index);
	memset(nic, 0, sizeof(*nic));
	nic->prefix = -1;
	nic->autoconf = IP_AUTO_NONE;
	if (!(v = attr(src, sub, "mac"))) {
		strv_push_owned(w, xasprintf("ibft: %s: missing", sub));
		return -EINVAL;
	}
	if (net_parse_mac(v, nic->mac) < 0) {
		strv_push_owned(w, xasprintf("ibft: %s/mac: \"%s\" is not a MAC address", sub, v));
		free(v);
		return -EINVAL;
	}
	free(v);
	nic->has_mac = true;
	addr_attr(src, sub, "ip-addr", &nic->client, w);
	addr_attr(src, sub, "gateway", &nic->gateway, w);
	addr_attr(src, sub, "primary-dns", &nic->dns[0], w);
	addr_attr(src, sub, "secondary-dns", &nic->dns[1], w);
	/* The kernel shows the prefix both ways; subnet-mask is an IPv4
	 * mask even for an IPv6 NIC (all ones past 32), so IPv6 takes
	 * prefix-len alone. */
	v = attr(src, sub, "prefix-len");
	plen = number(v, nic->client.family == AF_INET6 ? 128 : 32);
	if (v && plen < 0)
		strv_push_owned(w, xasprintf("ibft: %s/prefix-len: \"%s\" is not a prefix length", sub, v));
	free(v);
	if (nic->client.family == AF_INET6) {
		nic->prefix = (int)plen;
	} else {
		addr_attr(src, sub, "subnet-mask", &mask, w);
		if (mask.family == AF_INET) {
			char t[NET_ADDR_TEXT];
			int prefix = net_parse_prefix(net_addr_str(&mask, t), AF_INET);
			if (prefix < 0)
				strv_push_owned(w, xasprintf("ibft: %s/subnet-mask: \"%s\" is not a netmask", sub, t));
			else
				nic->prefix = prefix;
		} else if (plen >= 0) {
			nic->prefix = (int)plen;
		}
	}
	if ((v = text_attr(src, sub, "hostname"))) {
		if (net_hostname_valid(v))
			nic->hostname = v;
		else {
			strv_push_owned(w, xasprintf("ibft: %s/hostname: \"%s\" is not a host name", sub, v));
			free(v);
		}
	}
	v = attr(src, sub, "origin");
	origin = number(v, 255);
	free(v);
	/* the firmware's address came from DHCP: ask again, in its family */
	if (origin == IBFT_ORIGIN_DHCP && nic->client.family == AF_INET6)
		nic->autoconf = IP_AUTO_DHCP6;
	else if (origin == IBFT_ORIGIN_DHCP || !nic->client.family)
		nic->autoconf = IP_AUTO_DHCP;
	nic->text = xasprintf("ibft %s", sub);
	return 0;
}

/* 0 when targetN is valid, filling t; its flags and NIC in *flags, *nic. */
static int read_target(const struct ibft_src *src, int index, struct iscsi_target *t, long *flags, long *nic, struct strv *w)
{
	char sub[32], *v;
	struct net_addr a;
	long port;

	snprintf(sub, sizeof(sub), "target%d", index);
	memset(t, 0, sizeof(*t));
	v = attr(src, sub, "flags");
	*flags = number(v, 255);
	free(v);
	if (*flags < 0 || !(*flags & IBFT_FLAG_VALID))
		return -EINVAL;
	v = attr(src, sub, "nic-assoc");
	*nic = number(v, IBFT_MAX - 1);
	free(v);
	addr_attr(src, sub, "ip-addr", &a, w);
	if (!a.family) {
		strv_push_owned(w, xasprintf("ibft: %s: no target address", sub));
		return -EINVAL;
	}
	char text[NET_ADDR_TEXT];
	t->server = xstrdup(net_addr_str(&a, text));
	v = attr(src, sub, "port");
	port = number(v, 65535);
	t->port = port > 0 ? (unsigned)port : 3260;
	if (v && port <= 0)
		strv_push_owned(w, xasprintf("ibft: %s/port: \"%s\" is not a port", sub, v));
	free(v);
	v = attr(src, sub, "lun");
	if (v && parse_lun(v, &t->lun) < 0)
		strv_push_owned(w, xasprintf("ibft: %s/lun: \"%s\" is not eight hex digits: LUN 0", sub, v));
	free(v);
	t->name = text_attr(src, sub, "target-name");
	t->user = text_attr(src, sub, "chap-name");
	t->password = text_attr(src, sub, "chap-secret");
	t->in_user = text_attr(src, sub, "rev-chap-name");
	t->in_password = text_attr(src, sub, "rev-chap-name-secret");
	if (!t->name) {
		strv_push_owned(w, xasprintf("ibft: %s: no target-name", sub));
		return -EINVAL;
	}
	return 0;
}

static void more_push(struct iscsi_root *root, struct iscsi_target *t)
{
	root->more = xrealloc(root->more, (root->nmore + 1) * sizeof(*root->more));
	root->more[root->nmore++] = *t;
	memset(t, 0, sizeof(*t));
}

int ibft_parse(ibft_attr_fn get, void *userdata, const char *where, struct iscsi_root *root, struct ip_conf *nic,
	       struct strv *w)
{
	const struct ibft_src from = { get, userdata }, *src = &from;
	struct iscsi_target best = { 0 }, t;
	long best_flags = -1, best_nic = 0, flags, nic_index;

	memset(root, 0, sizeof(*root));
	memset(nic, 0, sizeof(*nic));
	for (int i = 0; i < IBFT_MAX; i++) {
		if (read_target(src, i, &t, &flags, &nic_index, w) < 0) {
			iscsi_target_free(&t);
			continue;
		}
		/* The one the firmware booted from beats the first valid one;
		 * the others are more logins (iscsistart -b logs in to each). */
		if (best_flags < 0 || ((flags & IBFT_FLAG_BOOT) && !(best_flags & IBFT_FLAG_BOOT))) {
			if (best_flags >= 0)
				more_push(root, &best);
			best = t;
			best_flags = flags;
			best_nic = nic_index < 0 ? 0 : nic_index;
		} else {
			more_push(root, &t);
		}
	}
	if (best_flags < 0) {
		strv_push_owned(w, xasprintf("ibft: %s: no valid target", where));
		return -ENOENT;
	}
	root->target = best;
	root->firmware = true;
	root->initiator = text_attr(src, "initiator", "initiator-name");
	if (read_nic(src, best_nic, nic, w) < 0) {
		ip_conf_free(nic);
		nic->prefix = -1;
		nic->autoconf = IP_AUTO_DHCP; /* no NIC to go by: ask the network */
	}
	return 0;
}

/* sysfs: DIR/SUB/NAME, one line */
static char *sysfs_attr(void *userdata, const char *sub, const char *name)
{
	char *path = path_join(userdata, sub), *v = read_attr(path, name);
	free(path);
	return v;
}

int ibft_read(const char *dir, struct iscsi_root *root, struct ip_conf *nic, struct strv *w)
{
	return ibft_parse(sysfs_attr, (void *)dir, dir, root, nic, w);
}
