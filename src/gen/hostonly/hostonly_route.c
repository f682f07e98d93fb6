// SPDX-License-Identifier: GPL-2.0-or-later
/* Hostonly for a network root: the route to the server (/proc/net/route,
 * /proc/net/ipv6_route), the interface it leaves by, that NIC's drivers,
 * and the ip=/ifname= the init needs to bring it up. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "gen/hostonly/hostonly_net_priv.h"
#include "gen/hostonly/hostonly_priv.h"
#include "log.h"

static bool ifname_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 15 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '/' || *p == ':' || *p == '"')
			return false;
	return true;
}

static int prefix_bits(uint32_t mask_be)
{
	uint32_t m = ntohl(mask_be);
	int n = 0;

	while (m & 0x80000000u) {
		n++;
		m <<= 1;
	}
	return n;
}

/* /proc/net/route: "Iface Destination Gateway Flags RefCnt Use Metric
 * Mask ...", addresses as the kernel's %08X of the __be32 in memory. */
static char *route4(const struct ctx *c, const char *addr)
{
	char *path = at_root(c, "/proc/net/route"), *data, *line, *next, *best = NULL;
	struct in_addr a;
	int best_bits = -1;
	unsigned long best_metric = 0;

	inet_pton(AF_INET, addr, &a);
	if (read_file(path, &data, NULL) < 0) {
		free(path);
		return NULL;
	}
	free(path);
	line = strchr(data, '\n');
	for (line = line ? line + 1 : NULL; line && *line; line = next) {
		char ifc[32];
		unsigned dest, gw, flags, refcnt, use, mask;
		unsigned long metric;
		int bits;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%31s %x %x %x %u %u %lu %x", ifc, &dest, &gw, &flags, &refcnt, &use, &metric,
			   &mask) != 8 || !(flags & 1) || !ifname_ok(ifc))
			continue;
		if ((a.s_addr & mask) != dest)
			continue;
		bits = prefix_bits(mask);
		if (bits > best_bits || (bits == best_bits && metric < best_metric)) {
			free(best);
			best = xstrdup(ifc);
			best_bits = bits;
			best_metric = metric;
		}
	}
	free(data);
	return best;
}

static bool hex16(const char *s, unsigned char out[16])
{
	for (int i = 0; i < 16; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return false;
		out[i] = (unsigned char)v;
	}
	return strlen(s) == 32;
}

static bool prefix_match(const unsigned char *a, const unsigned char *net, int bits)
{
	for (int i = 0; i < bits; i++)
		if (((a[i / 8] ^ net[i / 8]) >> (7 - i % 8)) & 1)
			return false;
	return true;
}

/* /proc/net/ipv6_route: "DEST DLEN SRC SLEN NEXTHOP METRIC REF USE FLAGS IFACE". */
static char *route6(const struct ctx *c, const char *addr)
{
	char *path = at_root(c, "/proc/net/ipv6_route"), *data, *line, *next, *best = NULL;
	unsigned char a[16];
	int best_bits = -1;
	unsigned long best_metric = 0;

	inet_pton(AF_INET6, addr, a);
	if (read_file(path, &data, NULL) < 0) {
		free(path);
		return NULL;
	}
	free(path);
	for (line = data; line && *line; line = next) {
		char dest[33], src[33], nh[33], ifc[32];
		unsigned dlen, slen, flags;
		unsigned long metric, ref, use;
		unsigned char net[16];

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%32s %x %32s %x %32s %lx %lx %lx %x %31s", dest, &dlen, src, &slen, nh, &metric, &ref,
			   &use, &flags, ifc) != 10 || !(flags & 1) || dlen > 128 || !hex16(dest, net) ||
		    !ifname_ok(ifc) || !strcmp(ifc, "lo"))
			continue;
		if (!prefix_match(a, net, (int)dlen))
			continue;
		if ((int)dlen > best_bits || ((int)dlen == best_bits && metric < best_metric)) {
			free(best);
			best = xstrdup(ifc);
			best_bits = (int)dlen;
			best_metric = metric;
		}
	}
	free(data);
	return best;
}

/* ethN is the kernel's own name space: dracut refuses ifname=ethN, as
 * the kernel may give that name to another card first. */
static bool kernel_style_name(const char *iface)
{
	return str_has_prefix(iface, "eth") && iface[3] && strspn(iface + 3, "0123456789") == strlen(iface + 3);
}

/* The interface that reaches the server, its NIC's drivers, and ip=. */
int hostonly_net_reach_server(const struct ctx *c)
{
	struct hostonly_net *n = &c->h->net;
	char *iface, *link, *dev = NULL, *dir, *mac;
	int family = 0, r;

	hostonly_net_is_addr(n->server, &family);
	iface = family == AF_INET ? route4(c, n->server) : route6(c, n->server);
	if (!iface) {
		log_warn("hostonly: no route to the %s server %s in %s/proc/net: no NIC driver chosen "
			 "(add it with --add-modules) and no ip= baked in",
			 n->kind, n->server, c->root);
		return 0;
	}
	n->iface = iface;
	dir = xasprintf("%s/sys/class/net/%s", c->root, iface);
	link = xasprintf("%s/device", dir);
	r = hostonly_resolve_link(c, link, &dev);
	free(link);
	if (r > 0) {
		free(dir);
		r = hostonly_net_virtual(c, iface, 0);
		if (r < 0)
			return r;
		if (r == 0) { /* a bond, bridge or VLAN: it is the interface */
			char *spec = xasprintf("%s:dhcp", iface);
			r = hostonly_net_push_word(c, "ip", spec, "the interface");
			free(spec);
			return r;
		}
		log_warn("hostonly: %s, the way to %s, has no device and is no bond, bridge or VLAN: add "
			 "its NIC's driver with --add-modules, and ip= with --cmdline",
			 iface, n->server);
		return 0;
	}
	if (r == 0)
		r = hostonly_walk_up(c, dev);
	free(dev);
	mac = r == 0 ? read_attr(dir, "address") : NULL;
	free(dir);
	if (r < 0)
		return r;
	if (mac && !kernel_style_name(iface)) {
		char *spec = xasprintf("%s:%s", iface, mac);
		r = hostonly_net_push_word(c, "ifname", spec, "the interface's name and MAC");
		free(spec);
	}
	free(mac);
	if (r == 0) {
		/* an IPv6 server: dracut's either6 (SLAAC, else DHCPv6), which
		 * is how a host whose address is not static got its own */
		char *spec = xasprintf("%s:%s", iface, family == AF_INET6 ? "either6" : "dhcp");
		r = hostonly_net_push_word(c, "ip", spec, "the interface");
		free(spec);
	}
	return r;
}

int hostonly_walk_nics(const struct ctx *c, const char *why)
{
	struct dirent **names = NULL;
	char *dir;
	int n, r = 0;

	dir = at_root(c, "/sys/class/net");
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		log_info("%s: no network interfaces in %s: add the NIC's driver with --add-modules",
			 why, dir);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char *link, *dev = NULL;
		if (r == 0 && ifname_ok(name)) {
			link = xasprintf("%s/%s/device", dir, name);
			r = hostonly_resolve_link(c, link, &dev);
			free(link);
			if (r == 0) {
				log_info("%s: the drivers of %s", why, name);
				r = hostonly_walk_up(c, dev);
			} else if (r > 0) {
				r = 0; /* lo, a bridge: no driver of its own */
			}
			free(dev);
		}
		free(names[i]);
	}
	free(names);
	free(dir);
	return r;
}

int hostonly_nics(const char *sysroot, struct hostonly *h)
{
	struct ctx c = { .h = h };
	int r;

	c.root = realpath(sysroot, NULL);
	if (!c.root)
		return err_errno(errno, "sysroot %s", sysroot);
	if (!strcmp(c.root, "/"))
		c.root[0] = '\0';
	r = hostonly_walk_nics(&c, "SSH");
	free(c.root);
	strv_sort_uniq(&h->modules);
	strv_sort_uniq(&h->modaliases);
	return r;
}
