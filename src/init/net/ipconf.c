// SPDX-License-Identifier: GPL-2.0-or-later
/* ip= and its companions. The kernel reads ip= in net/ipv4/ipconfig.c
 * (ten ':'-separated fields, or a method alone); dracut extends it
 * (IFACE:METHOD, bracketed IPv6, MTU and MAC after the method). Both
 * readings are taken from the same split, told apart by what the
 * fields hold. */
#include "init/net/ipconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static const struct {
	const char *name;
	enum ip_autoconf v;
} autoconf_names[] = {
	{ "off", IP_AUTO_NONE },	{ "none", IP_AUTO_NONE },	  { "static", IP_AUTO_NONE },
	{ "on", IP_AUTO_ANY },		{ "any", IP_AUTO_ANY },		  { "dhcp", IP_AUTO_DHCP },
	{ "bootp", IP_AUTO_BOOTP },	{ "rarp", IP_AUTO_RARP },	  { "both", IP_AUTO_BOTH },
	{ "dhcp6", IP_AUTO_DHCP6 },	{ "auto6", IP_AUTO_AUTO6 },	  { "either6", IP_AUTO_EITHER6 },
	{ "link6", IP_AUTO_LINK6 },	{ "ibft", IP_AUTO_IBFT },	  { "single-dhcp", IP_AUTO_SINGLE_DHCP },
};

const char *ip_autoconf_name(enum ip_autoconf a)
{
	if (a == IP_AUTO_UNSET)
		return "any";
	for (size_t i = 0; i < ARRAY_SIZE(autoconf_names); i++)
		if (autoconf_names[i].v == a)
			return autoconf_names[i].name;
	return "?";
}

static int autoconf_lookup(const char *s, enum ip_autoconf *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(autoconf_names); i++)
		if (strcmp(s, autoconf_names[i].name) == 0) {
			*out = autoconf_names[i].v;
			return 0;
		}
	return -EINVAL;
}

#define IP_MAX_FIELDS 16

/* Split on ':' outside brackets. Returns the field count, or -EINVAL when
 * there are more than max or a bracket is left open. */
static int split_fields(char *s, char **f, int max)
{
	int n = 0, depth = 0;

	f[n++] = s;
	for (; *s; s++) {
		if (*s == '[')
			depth++;
		else if (*s == ']' && depth)
			depth--;
		else if (*s == ':' && !depth) {
			if (n == max)
				return -EINVAL;
			*s = '\0';
			f[n++] = s + 1;
		}
	}
	return depth ? -EINVAL : n;
}

static void warn(struct strv *w, const char *val, const char *what, const char *text)
{
	strv_push_owned(w, xasprintf("ip=%s: \"%s\" %s", val, text, what));
}

static void parse_addr_field(const char *val, const char *text, struct net_addr *out, struct strv *w)
{
	if (!*text)
		return;
	if (net_parse_addr(text, out) < 0)
		warn(w, val, strchr(text, ':') || text[0] == '[' ? "is not an IP address" : "is not an IPv4 address",
		     text);
}

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

static void parse_mtu(const char *val, const char *text, struct ip_conf *ip, struct strv *w)
{
	long n = 0;

	if (!*text)
		return;
	if (!all_digits(text) || strlen(text) > 5 || (n = strtol(text, NULL, 10)) < 68 || n > 65535) {
		warn(w, val, "is not an MTU (68 to 65535)", text);
		return;
	}
	ip->mtu = (unsigned)n;
}

/* Fields after the method: the kernel's DNS0:DNS1:NTP0, or dracut's
 * [MTU][:MAC] where the MAC's own colons made six more fields. */
static void parse_tail(const char *val, char **f, int n, struct ip_conf *ip, bool kernel_form, struct strv *w)
{
	char mac[18];

	if (n == 0)
		return;
	struct net_addr probe;
	uint8_t mac_probe[6];
	bool dns_form = net_parse_addr(f[0], &probe) == 0;
	/* An empty first field: dracut's empty MTU before a MAC, or the
	 * kernel's empty DNS0 before DNS1. */
	if (!*f[0])
		dns_form = !(n == 7 || (n == 2 && net_parse_mac(f[1], mac_probe) == 0));
	if (dns_form) {
		int max = kernel_form ? 3 : 2;
		parse_addr_field(val, f[0], &ip->dns[0], w);
		if (n > 1)
			parse_addr_field(val, f[1], &ip->dns[1], w);
		if (n > 2 && kernel_form)
			parse_addr_field(val, f[2], &ip->ntp, w);
		if (n > max)
			warn(w, val, "is past the last field", f[max]);
		return;
	}
	parse_mtu(val, f[0], ip, w);
	f++;
	n--;
	if (n == 0)
		return;
	if (n == 1 && strlen(f[0]) < sizeof(mac)) {
		strcpy(mac, f[0]);
	} else if (n == 6 && strlen(f[0]) + strlen(f[1]) + strlen(f[2]) + strlen(f[3]) + strlen(f[4]) + strlen(f[5]) ==
					12) {
		snprintf(mac, sizeof(mac), "%s:%s:%s:%s:%s:%s", f[0], f[1], f[2], f[3], f[4], f[5]);
	} else {
		warn(w, val, "is not a MAC address", f[0]);
		return;
	}
	if (net_parse_mac(mac, ip->mac) < 0)
		warn(w, val, "is not a MAC address", mac);
	else
		ip->has_mac = true;
}

static int set_device(const char *val, const char *text, struct ip_conf *ip, struct strv *w)
{
	if (!*text)
		return 0;
	if (!net_ifname_valid(text)) {
		warn(w, val, "is not an interface name", text);
		return -EINVAL;
	}
	ip->device = xstrdup(text);
	return 0;
}

static void set_autoconf(const char *val, const char *text, struct ip_conf *ip, struct strv *w)
{
	if (*text && autoconf_lookup(text, &ip->autoconf) < 0)
		warn(w, val, "is not an autoconfiguration method", text);
}

/* dracut's IPv6 form brackets every address: a server or gateway of
 * the other family than the client's cannot be reached through it. */
static void mixed_families(const char *val, char **f, int n, struct ip_conf *ip, struct strv *w)
{
	struct net_addr *other[] = { &ip->server, &ip->gateway };

	if (!ip->client.family)
		return;
	for (int i = 0; i < 2 && i + 1 < n; i++) {
		if (!other[i]->family || other[i]->family == ip->client.family)
			continue;
		warn(w, val, ip->client.family == AF_INET6 ? "is not an IPv6 address, as the client's is"
							     : "is not an IPv4 address, as the client's is",
		     f[i + 1]);
		memset(other[i], 0, sizeof(*other[i]));
	}
}

int ip_conf_parse(const char *val, struct ip_conf *ip, struct strv *w)
{
	char *copy, *f[IP_MAX_FIELDS];
	int n, ret = 0;

	memset(ip, 0, sizeof(*ip));
	ip->prefix = -1;
	if (!val) {
		strv_push(w, "ip needs a value");
		return -EINVAL;
	}
	ip->text = xstrdup(val);
	copy = xstrdup(val);
	n = split_fields(copy, f, IP_MAX_FIELDS);
	if (n < 0) {
		warn(w, val, "has too many fields or an open bracket", val);
		ret = -EINVAL;
		goto out;
	}

	if (n == 1) {
		/* "dhcp,client-id-type,client-id-value" in the kernel. */
		char *comma = strchr(f[0], ',');
		if (comma) {
			*comma = '\0';
			if (strcmp(f[0], "dhcp") == 0) {
				ip->autoconf = IP_AUTO_DHCP;
				warn(w, val, "client id is not supported: ignored", comma + 1);
				goto out;
			}
			*comma = ',';
		}
		if (!*f[0] || autoconf_lookup(f[0], &ip->autoconf) == 0)
			goto out;
		if (net_parse_addr(f[0], &ip->client) < 0) {
			warn(w, val, "is neither an autoconfiguration method nor an IP address", f[0]);
			ret = -EINVAL;
		}
		goto out;
	}

	enum ip_autoconf probe;
	struct net_addr a;
	if (*f[0] && net_parse_addr(f[0], &a) < 0 && autoconf_lookup(f[1], &probe) == 0) {
		/* dracut: IFACE:METHOD[:MTU[:MAC]] */
		if (set_device(val, f[0], ip, w) < 0) {
			ret = -EINVAL;
			goto out;
		}
		ip->autoconf = probe;
		parse_tail(val, f + 2, n - 2, ip, false, w);
		goto out;
	}

	parse_addr_field(val, f[0], &ip->client, w);
	if (n > 1)
		parse_addr_field(val, f[1], &ip->server, w);
	if (n > 2)
		parse_addr_field(val, f[2], &ip->gateway, w);
	if (n > 3 && *f[3]) {
		int family = ip->client.family ? ip->client.family : AF_INET;
		int prefix = net_parse_prefix(f[3], family);
		if (prefix < 0)
			warn(w, val, "is not a netmask", f[3]);
		else
			ip->prefix = prefix;
	}
	if (n > 4 && *f[4]) {
		if (net_hostname_valid(f[4]) && strlen(f[4]) <= 64)
			ip->hostname = xstrdup(f[4]);
		else
			warn(w, val, "is not a host name", f[4]);
	}
	if (n > 5 && set_device(val, f[5], ip, w) < 0) {
		ret = -EINVAL;
		goto out;
	}
	if (n > 6)
		set_autoconf(val, f[6], ip, w);
	if (n > 7)
		parse_tail(val, f + 7, n - 7, ip, true, w);
	mixed_families(val, f, n, ip, w);
out:
	free(copy);
	return ret;
}

void ip_conf_free(struct ip_conf *ip)
{
	free(ip->text);
	free(ip->hostname);
	free(ip->device);
	memset(ip, 0, sizeof(*ip));
}

static void parse_ifname(struct net_cmdline *n, const char *val)
{
	const char *colon = val ? strchr(val, ':') : NULL;
	struct ifname_rule r;

	if (!colon) {
		strv_push_owned(&n->warnings, xasprintf("ifname=%s: needs NAME:MAC", val ? val : ""));
		return;
	}
	r.name = xstrndup(val, (size_t)(colon - val));
	if (!net_ifname_valid(r.name)) {
		strv_push_owned(&n->warnings, xasprintf("ifname=%s: \"%s\" is not an interface name", val, r.name));
		free(r.name);
		return;
	}
	if (net_parse_mac(colon + 1, r.mac) < 0) {
		strv_push_owned(&n->warnings, xasprintf("ifname=%s: \"%s\" is not a MAC address", val, colon + 1));
		free(r.name);
		return;
	}
	ARRAY_GROW(n->ifname, n->cap_ifname, n->n_ifname + 1);
	n->ifname[n->n_ifname++] = r;
}

/* BOOTIF=01-aa-bb-cc-dd-ee-ff from PXELINUX: the ARP hardware type
 * (1, Ethernet) then the MAC of the card that booted. */
static void parse_bootif(struct net_cmdline *n, const char *val)
{
	const char *mac = val;

	if (val && strlen(val) == 20 && strncmp(val, "01-", 3) == 0)
		mac = val + 3;
	if (!val || net_parse_mac(mac, n->bootif) < 0) {
		strv_push_owned(&n->warnings, xasprintf("BOOTIF=%s: \"%s\" is not 01-MAC", val ? val : "",
							val ? val : ""));
		return;
	}
	n->has_bootif = true;
}

static void parse_bool(struct net_cmdline *n, const char *key, const char *val, bool *out)
{
	if (!val) {
		*out = true;
		return;
	}
	if (cmdline_parse_bool(val, out) < 0)
		strv_push_owned(&n->warnings, xasprintf("%s=%s: \"%s\" is not 0 or 1", key, val, val));
}

void net_cmdline_parse(struct net_cmdline *n, const struct cmdline *c)
{
	bool use_bootif = true;

	memset(n, 0, sizeof(*n));
	n->peerdns = true;
	n->ifnames = true;
	for (size_t i = 0; i < c->n; i++) {
		const char *key = c->p[i].key, *val = c->p[i].val;

		/* nfsaddrs= is the kernel's old name for ip=. */
		if (strcmp(key, "ip") == 0 || strcmp(key, "nfsaddrs") == 0) {
			struct ip_conf ip;
			if (ip_conf_parse(val, &ip, &n->warnings) < 0) {
				ip_conf_free(&ip);
				continue;
			}
			ARRAY_GROW(n->ip, n->cap_ip, n->n_ip + 1);
			n->ip[n->n_ip++] = ip;
		} else if (strcmp(key, "ifname") == 0) {
			parse_ifname(n, val);
		} else if (strcmp(key, "BOOTIF") == 0) {
			parse_bootif(n, val);
		} else if (strcmp(key, "rd.bootif") == 0) {
			parse_bool(n, key, val, &use_bootif);
		} else if (strcmp(key, "rd.neednet") == 0) {
			parse_bool(n, key, val, &n->neednet);
		} else if (strcmp(key, "rd.peerdns") == 0) {
			parse_bool(n, key, val, &n->peerdns);
		} else if (strcmp(key, "net.ifnames") == 0) {
			parse_bool(n, key, val, &n->ifnames);
		} else if (strcmp(key, "biosdevname") == 0) {
			parse_bool(n, key, val, &n->biosdevname);
		} else if (strcmp(key, "net.naming-scheme") == 0 && val) {
			free(n->naming_scheme);
			n->naming_scheme = xstrdup(val);
		} else if (strcmp(key, "nameserver") == 0) {
			struct net_addr a;
			if (!val || net_parse_addr(val, &a) < 0) {
				strv_push_owned(&n->warnings, xasprintf("nameserver=%s: \"%s\" is not an IP address",
									val ? val : "", val ? val : ""));
				continue;
			}
			ARRAY_GROW(n->nameserver, n->cap_nameserver, n->n_nameserver + 1);
			n->nameserver[n->n_nameserver++] = a;
		}
	}
	if (!use_bootif)
		n->has_bootif = false;
}

void net_cmdline_free(struct net_cmdline *n)
{
	for (size_t i = 0; i < n->n_ip; i++)
		ip_conf_free(&n->ip[i]);
	free(n->ip);
	for (size_t i = 0; i < n->n_ifname; i++)
		free(n->ifname[i].name);
	free(n->ifname);
	free(n->nameserver);
	free(n->naming_scheme);
	strv_free(&n->warnings);
	memset(n, 0, sizeof(*n));
}
