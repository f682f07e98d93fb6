// SPDX-License-Identifier: GPL-2.0-or-later
#include "init/net/netconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void net_conf_from_lease(struct net_conf *nc, const char *device, const struct dhcp_lease *l)
{
	memset(nc, 0, sizeof(*nc));
	nc->device = device;
	nc->proto = "dhcp";
	nc->addr = l->addr;
	nc->gateway = l->router;
	nc->broadcast = l->broadcast;
	nc->prefix = l->prefix;
	memcpy(nc->dns, l->dns, sizeof(nc->dns));
	nc->n_dns = l->n_dns;
	nc->hostname = l->hostname;
	nc->domain = l->domain;
	nc->search = l->search;
	nc->root_server = l->siaddr.s_addr ? l->siaddr : l->server_id;
	nc->root_path = l->root_path;
	nc->filename = l->file;
	nc->lease_time = l->lease_time;
	nc->mtu = l->mtu;
	nc->uptime = (long)(l->bound_ms / 1000);
}

void net_conf_from_ip(struct net_conf *nc, const char *device, const struct ip_conf *ip)
{
	memset(nc, 0, sizeof(*nc));
	nc->device = device;
	nc->proto = "none";
	nc->prefix = ip->prefix;
	if (ip->client.family == AF_INET)
		nc->addr = ip->client.v4;
	if (ip->gateway.family == AF_INET)
		nc->gateway = ip->gateway.v4;
	if (ip->server.family == AF_INET)
		nc->root_server = ip->server.v4;
	for (int i = 0; i < 2; i++)
		if (ip->dns[i].family == AF_INET)
			nc->dns[nc->n_dns++] = ip->dns[i].v4;
	nc->hostname = ip->hostname;
	nc->mtu = ip->mtu;
}

bool net_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* KEY='value', a ' inside written as '\''. */
static void put_str(struct buf *b, const char *key, const char *val, struct strv *w)
{
	if (!val || !*val)
		return;
	if (net_has_control(val)) {
		strv_push_owned(w, xasprintf("%s: left out, its value has a control character", key));
		return;
	}
	buf_printf(b, "%s='", key);
	for (const char *p = val; *p; p++) {
		if (*p == '\'')
			buf_append(b, "'\\''", 4);
		else
			buf_append(b, p, 1);
	}
	buf_append(b, "'\n", 2);
}

static void put_addr(struct buf *b, const char *key, struct in_addr a)
{
	char t[INET_ADDRSTRLEN];
	if (a.s_addr && inet_ntop(AF_INET, &a, t, sizeof(t)))
		buf_printf(b, "%s='%s'\n", key, t);
}

static void put_addr6(struct buf *b, const char *key, const struct in6_addr *a)
{
	char t[INET6_ADDRSTRLEN];
	if (!IN6_IS_ADDR_UNSPECIFIED(a) && inet_ntop(AF_INET6, a, t, sizeof(t)))
		buf_printf(b, "%s='%s'\n", key, t);
}

static void render6(const struct net_conf *nc, struct buf *b, struct strv *w)
{
	if (!nc->proto6)
		return;
	put_str(b, "IPV6PROTO", nc->proto6, w);
	put_addr6(b, "IPV6ADDR", &nc->addr6);
	if (nc->prefix6 >= 0)
		buf_printf(b, "IPV6NETMASK='%d'\n", nc->prefix6);
	put_addr6(b, "IPV6GATEWAY", &nc->gateway6);
	for (unsigned i = 0; i < nc->n_dns6 && i < 2; i++)
		put_addr6(b, i ? "IPV6DNS1" : "IPV6DNS0", &nc->dns6[i]);
	put_str(b, "IPV6DOMAINSEARCH", nc->search6, w);
}

void net_conf_render(const struct net_conf *nc, struct buf *b, struct strv *w)
{
	put_str(b, "DEVICE", nc->device, w);
	put_str(b, "PROTO", nc->proto, w);
	put_addr(b, "IPV4ADDR", nc->addr);
	put_addr(b, "IPV4BROADCAST", nc->broadcast);
	if (nc->prefix >= 0)
		put_addr(b, "IPV4NETMASK", net_prefix_to_mask(nc->prefix));
	put_addr(b, "IPV4GATEWAY", nc->gateway);
	for (unsigned i = 0; i < nc->n_dns && i < 2; i++)
		put_addr(b, i ? "IPV4DNS1" : "IPV4DNS0", nc->dns[i]);
	put_str(b, "HOSTNAME", nc->hostname, w);
	put_str(b, "DNSDOMAIN", nc->domain, w);
	put_addr(b, "ROOTSERVER", nc->root_server);
	put_str(b, "ROOTPATH", nc->root_path, w);
	put_str(b, "filename", nc->filename, w);
	if (nc->lease_time)
		buf_printf(b, "DHCPLEASETIME='%u'\n", (unsigned)nc->lease_time);
	if (nc->mtu)
		buf_printf(b, "MTU='%u'\n", nc->mtu);
	render6(nc, b, w);
}

/* The space-separated words of list into s, each once. */
static void add_words(struct strv *s, const char *list)
{
	struct strv w = { 0 };

	strv_split(&w, list, " ");
	for (size_t i = 0; i < w.n; i++)
		if (*w.v[i] && !strv_contains(s, w.v[i]))
			strv_push(s, w.v[i]);
	strv_free(&w);
}

void net_resolv_render(const struct net_conf *nc, const struct net_addr *extra, size_t n_extra, bool peerdns,
		       struct buf *b, struct strv *w)
{
	char t[NET_ADDR_TEXT];

	for (size_t i = 0; i < n_extra; i++)
		buf_printf(b, "nameserver %s\n", net_addr_str(&extra[i], t));
	if (!peerdns)
		return;
	for (unsigned i = 0; i < nc->n_dns; i++)
		if (nc->dns[i].s_addr && inet_ntop(AF_INET, &nc->dns[i], t, sizeof(t)))
			buf_printf(b, "nameserver %s\n", t);
	for (unsigned i = 0; i < nc->n_dns6; i++)
		if (!IN6_IS_ADDR_UNSPECIFIED(&nc->dns6[i]) && inet_ntop(AF_INET6, &nc->dns6[i], t, sizeof(t)))
			buf_printf(b, "nameserver %s\n", t);
	/* one search line (a second would replace the first): the IPv6
	 * list, DHCP's option 119, its domain, each name once; the lists
	 * were checked name by name where they were read (dnsname.h,
	 * dhcp_msg.c) */
	{
		struct strv s = { 0 };
		if (nc->search6 && !net_has_control(nc->search6))
			add_words(&s, nc->search6);
		if (nc->search && !net_has_control(nc->search))
			add_words(&s, nc->search);
		if (nc->domain && *nc->domain) {
			/* resolv.conf has no quoting: only a real domain name goes in. */
			if (net_hostname_valid(nc->domain))
				add_words(&s, nc->domain);
			else
				strv_push(w, "resolv.conf: the DHCP domain is not a domain name: left out");
		}
		if (s.n) {
			buf_printf(b, "search");
			for (size_t i = 0; i < s.n; i++)
				buf_printf(b, " %s", s.v[i]);
			buf_printf(b, "\n");
		}
		strv_free(&s);
	}
}

int net_write_file_at(int dirfd, const char *name, const void *data, size_t len)
{
	char tmp[64];
	int fd, ret;

	if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strlen(name) > 40)
		return -EINVAL;
	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	/* A stale temporary from an earlier try, or a link someone put there. */
	if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)
		return -errno;
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, data, len);
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		ret = -errno;
	if (ret < 0)
		unlinkat(dirfd, tmp, 0);
	return ret;
}
