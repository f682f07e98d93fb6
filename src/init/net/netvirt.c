// SPDX-License-Identifier: GPL-2.0-or-later
/* bond=, vlan=, bridge=: dracut's syntax into rtnetlink's attributes. */
#include "init/net/netvirt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "init/net/netaddr.h"

const char *netvirt_kind_name(enum netvirt_kind k)
{
	switch (k) {
	case NETVIRT_BOND:
		return "bond";
	case NETVIRT_VLAN:
		return "vlan";
	case NETVIRT_BRIDGE:
		return "bridge";
	}
	return "?";
}

/* The bonding driver's option words (Documentation/networking/
 * bonding.rst), as sysfs takes them: a name or its number. */
static const char *const modes[] = { "balance-rr", "active-backup", "balance-xor", "broadcast",
				     "802.3ad", "balance-tlb", "balance-alb", NULL };
static const char *const hashes[] = { "layer2", "layer3+4", "layer2+3", "encap2+3", "encap3+4",
				      "vlan+srcmac", NULL };
static const char *const validates[] = { "none", "active", "backup", "all", "filter", "filter_active",
					 "filter_backup", NULL };
static const char *const all_targets[] = { "any", "all", NULL };
static const char *const reselects[] = { "always", "better", "failure", NULL };
static const char *const fomacs[] = { "none", "active", "follow", NULL };
static const char *const rates[] = { "slow", "fast", NULL };
static const char *const selects[] = { "stable", "bandwidth", "count", NULL };

static const struct bond_opt {
	const char *key;
	uint16_t type;
	uint8_t size;
	const char *const *names; /* NULL: a number up to max */
	uint32_t max;
} bond_opts[] = {
	{ "mode", IFLA_BOND_MODE, 1, modes, 0 },
	{ "miimon", IFLA_BOND_MIIMON, 4, NULL, 0x7fffffff },
	{ "updelay", IFLA_BOND_UPDELAY, 4, NULL, 0x7fffffff },
	{ "downdelay", IFLA_BOND_DOWNDELAY, 4, NULL, 0x7fffffff },
	{ "use_carrier", IFLA_BOND_USE_CARRIER, 1, NULL, 1 },
	{ "arp_interval", IFLA_BOND_ARP_INTERVAL, 4, NULL, 0x7fffffff },
	{ "arp_validate", IFLA_BOND_ARP_VALIDATE, 4, validates, 0 },
	{ "arp_all_targets", IFLA_BOND_ARP_ALL_TARGETS, 4, all_targets, 0 },
	{ "primary_reselect", IFLA_BOND_PRIMARY_RESELECT, 1, reselects, 0 },
	{ "fail_over_mac", IFLA_BOND_FAIL_OVER_MAC, 1, fomacs, 0 },
	{ "xmit_hash_policy", IFLA_BOND_XMIT_HASH_POLICY, 1, hashes, 0 },
	{ "resend_igmp", IFLA_BOND_RESEND_IGMP, 4, NULL, 255 },
	{ "num_grat_arp", IFLA_BOND_NUM_PEER_NOTIF, 1, NULL, 255 },
	{ "num_unsol_na", IFLA_BOND_NUM_PEER_NOTIF, 1, NULL, 255 },
	{ "all_slaves_active", IFLA_BOND_ALL_SLAVES_ACTIVE, 1, NULL, 1 },
	{ "min_links", IFLA_BOND_MIN_LINKS, 4, NULL, 0x7fffffff },
	{ "lp_interval", IFLA_BOND_LP_INTERVAL, 4, NULL, 0x7fffffff },
	{ "packets_per_slave", IFLA_BOND_PACKETS_PER_SLAVE, 4, NULL, 65535 },
	{ "lacp_rate", IFLA_BOND_AD_LACP_RATE, 1, rates, 0 },
	{ "ad_select", IFLA_BOND_AD_SELECT, 1, selects, 0 },
	{ "ad_actor_sys_prio", IFLA_BOND_AD_ACTOR_SYS_PRIO, 2, NULL, 65535 },
	{ "ad_user_port_key", IFLA_BOND_AD_USER_PORT_KEY, 2, NULL, 1023 },
	{ "tlb_dynamic_lb", IFLA_BOND_TLB_DYNAMIC_LB, 1, NULL, 1 },
};

static bool number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 10)
		return false;
	*out = strtoul(s, &end, 10);
	return *out <= max;
}

/* "mode=active-backup", "miimon=100", "arp_ip_target=a;b", "primary=eth1" */
static int bond_option(struct netvirt *v, const char *opt, char **why)
{
	const char *eq = strchr(opt, '=');
	size_t klen = eq ? (size_t)(eq - opt) : 0;
	const char *val = eq ? eq + 1 : NULL;
	unsigned long n;

	if (!eq || !klen || !*val) {
		*why = xasprintf("\"%s\" is not KEY=VALUE", opt);
		return -EINVAL;
	}
	if (klen == 7 && !strncmp(opt, "primary", 7)) {
		if (!net_ifname_valid(val)) {
			*why = xasprintf("primary=%s: not an interface name", val);
			return -EINVAL;
		}
		snprintf(v->primary, sizeof(v->primary), "%s", val);
		return 0;
	}
	if (klen == 13 && !strncmp(opt, "arp_ip_target", 13)) {
		char *list = xstrdup(val), *save = NULL;
		int r = 0;
		for (char *a = strtok_r(list, ";", &save); a; a = strtok_r(NULL, ";", &save)) {
			struct in_addr ia;
			if (inet_pton(AF_INET, a, &ia) != 1) {
				*why = xasprintf("arp_ip_target=%s: \"%s\" is not an IPv4 address", val, a);
				r = -EINVAL;
				break;
			}
			if (v->n_arp == NETVIRT_ARP_TARGETS) {
				*why = xasprintf("arp_ip_target=%s: more than %d addresses", val,
						 NETVIRT_ARP_TARGETS);
				r = -EINVAL;
				break;
			}
			v->arp_targets[v->n_arp++] = ia;
		}
		free(list);
		return r;
	}
	for (size_t i = 0; i < ARRAY_SIZE(bond_opts); i++) {
		const struct bond_opt *o = &bond_opts[i];
		bool ok = false;
		if (strlen(o->key) != klen || strncmp(o->key, opt, klen))
			continue;
		if (o->names) {
			size_t count = 0;
			while (o->names[count])
				count++;
			for (size_t j = 0; j < count && !ok; j++)
				if (!strcmp(val, o->names[j])) {
					n = j;
					ok = true;
				}
			if (!ok)
				ok = number(val, count - 1, &n);
		} else {
			ok = number(val, o->max, &n);
		}
		if (!ok) {
			*why = xasprintf("%s: not a value bonding takes for %s", opt, o->key);
			return -EINVAL;
		}
		if (v->n_bond == NETVIRT_BOND_ATTRS) {
			*why = xasprintf("%s: too many options", opt);
			return -EINVAL;
		}
		v->bond[v->n_bond++] = (struct netvirt_attr){ o->type, o->size, (uint32_t)n };
		return 0;
	}
	*why = xasprintf("%.*s: not a bonding option uniramfs knows", (int)klen, opt);
	return -EINVAL;
}

static int set_name(char dst[16], const char *name, const char *what, char **why)
{
	if (!net_ifname_valid(name)) {
		*why = xasprintf("\"%s\" is not an interface name (%s)", name, what);
		return -EINVAL;
	}
	snprintf(dst, 16, "%s", name);
	return 0;
}

static int set_slaves(struct netvirt *v, const char *list, char **why)
{
	char *copy = xstrdup(list), *save = NULL;
	int r = 0;

	for (char *s = strtok_r(copy, ",", &save); s && !r; s = strtok_r(NULL, ",", &save)) {
		if (v->n_slaves == NETVIRT_SLAVES) {
			*why = xasprintf("more than %d ports", NETVIRT_SLAVES);
			r = -EINVAL;
			break;
		}
		for (size_t i = 0; i < v->n_slaves && !r; i++)
			if (!strcmp(v->slaves[i], s)) {
				*why = xasprintf("%s is named twice", s);
				r = -EINVAL;
			}
		if (!r && !strcmp(s, v->name)) {
			*why = xasprintf("%s cannot be a port of itself", s);
			r = -EINVAL;
		}
		if (!r)
			r = set_name(v->slaves[v->n_slaves++], s, "a port", why);
	}
	free(copy);
	if (!r && !v->n_slaves) {
		*why = xstrdup("no ports");
		r = -EINVAL;
	}
	return r;
}

int netvirt_vlan_id(const char *name)
{
	const char *id = NULL, *dot = strrchr(name, '.');
	unsigned long n;

	if (!strncmp(name, "vlan", 4))
		id = name + 4;
	else if (dot && dot != name)
		id = dot + 1;
	if (!id || !number(id, 4094, &n) || n == 0)
		return -EINVAL;
	return (int)n;
}

/* val split on ':' as parse-*.sh splits it (an empty field counts). */
static size_t fields(char *val, char *f[], size_t max)
{
	size_t n = 0;
	char *p = val, *c;

	for (;;) {
		if (n == max)
			return max + 1;
		f[n++] = p;
		if (!(c = strchr(p, ':')))
			return n;
		*c = '\0';
		p = c + 1;
	}
}

static int parse_bond(struct netvirt *v, char *f[], size_t n, char **why)
{
	char *opts = NULL;
	int r;

	/* the man page's NAME:SLAVES::OPTIONS[:MTU] */
	if (n >= 4 && !*f[2] && strchr(f[3], '=')) {
		opts = f[3];
		if (n == 6) {
			*why = xstrdup("more than four fields");
			return -EINVAL;
		}
		f[3] = n == 5 ? f[4] : NULL;
		n--;
	} else if (n >= 3) {
		opts = f[2];
	}
	if (n > 4) {
		*why = xstrdup("more than four fields");
		return -EINVAL;
	}
	if ((r = set_name(v->name, f[0], "the bond", why)) < 0)
		return r;
	if ((r = set_slaves(v, n >= 2 ? f[1] : "eth0,eth1", why)) < 0)
		return r;
	if (opts && *opts) {
		char *save = NULL;
		for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
			if ((r = bond_option(v, o, why)) < 0)
				return r;
	}
	if (n == 4 && f[3] && *f[3]) {
		unsigned long mtu;
		if (!number(f[3], 65535, &mtu) || mtu < 68) {
			*why = xasprintf("MTU \"%s\" is not a number from 68 to 65535", f[3]);
			return -EINVAL;
		}
		v->mtu = (unsigned)mtu;
	}
	if (v->primary[0]) {
		bool port = false;
		for (size_t i = 0; i < v->n_slaves; i++)
			port |= !strcmp(v->slaves[i], v->primary);
		if (!port) {
			*why = xasprintf("primary=%s is not one of its ports", v->primary);
			return -EINVAL;
		}
	}
	return 0;
}

int netvirt_parse(const char *key, const char *val, struct netvirt *v, char **why)
{
	char *copy = xstrdup(val ? val : ""), *f[7];
	size_t n = val ? fields(copy, f, 6) : 0;
	int r = -EINVAL;

	memset(v, 0, sizeof(*v));
	*why = NULL;
	if (!strcmp(key, "bond")) {
		v->kind = NETVIRT_BOND;
		if (!val) {
			f[0] = (char *)"bond0";
			n = 1;
		}
		r = n > 6 ? (*why = xstrdup("more than four fields"), -EINVAL) : parse_bond(v, f, n, why);
	} else if (!strcmp(key, "bridge")) {
		v->kind = NETVIRT_BRIDGE;
		if (!val) {
			snprintf(v->name, sizeof(v->name), "br0");
			r = set_slaves(v, "eth0", why);
		} else if (n != 2) {
			*why = xstrdup("expected bridge=NAME:PORT[,PORT…]");
		} else if ((r = set_name(v->name, f[0], "the bridge", why)) == 0) {
			r = set_slaves(v, f[1], why);
		}
	} else if (!strcmp(key, "vlan")) {
		int id;
		v->kind = NETVIRT_VLAN;
		if (n != 2) {
			*why = xstrdup("expected vlan=NAME:DEVICE");
		} else if ((r = set_name(v->name, f[0], "the VLAN", why)) == 0 &&
			   (r = set_name(v->slaves[0], f[1], "its device", why)) == 0) {
			v->n_slaves = 1;
			if ((id = netvirt_vlan_id(v->name)) < 0) {
				*why = xasprintf("no VLAN id 1-4094 in the name %s (vlan0005, vlan5, %s.5)",
						 v->name, v->slaves[0]);
				r = -EINVAL;
			} else if (!strcmp(v->name, v->slaves[0])) {
				*why = xasprintf("%s cannot tag itself", v->name);
				r = -EINVAL;
			} else {
				v->vlan_id = (unsigned)id;
			}
		}
	} else {
		*why = xasprintf("%s= is not bond=, vlan= or bridge=", key);
	}
	free(copy);
	if (r < 0)
		return -EINVAL;
	v->text = val ? xasprintf("%s=%s", key, val) : xstrdup(key);
	return 0;
}

static const struct netvirt *named(const struct netvirt_set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

const struct netvirt *netvirt_master_of(const struct netvirt_set *s, const char *ifname)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->v[i].n_slaves; j++)
			if (!strcmp(s->v[i].slaves[j], ifname))
				return &s->v[i];
	return NULL;
}

/* A name already taken, or a port already another's (a VLAN's link
 * may carry several VLANs). */
static char *clash(const struct netvirt_set *s, const struct netvirt *v)
{
	const struct netvirt *o;

	if ((o = named(s, v->name)))
		return xasprintf("%s is set up already by %s", v->name, o->text);
	for (size_t i = 0; i < v->n_slaves; i++) {
		o = netvirt_master_of(s, v->slaves[i]);
		if (o && !(o->kind == NETVIRT_VLAN && v->kind == NETVIRT_VLAN))
			return xasprintf("%s is a port of %s already (%s)", v->slaves[i], o->name, o->text);
	}
	return NULL;
}

void netvirt_cmdline(struct netvirt_set *s, const struct cmdline *c, struct strv *warnings)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct cmdline_param *p = &c->p[i];
		struct netvirt v;
		char *why = NULL;

		if (strcmp(p->key, "bond") && strcmp(p->key, "vlan") && strcmp(p->key, "bridge"))
			continue;
		if (netvirt_parse(p->key, p->val, &v, &why) == 0 && !(why = clash(s, &v))) {
			ARRAY_GROW(s->v, s->cap, s->n + 1);
			s->v[s->n++] = v;
			continue;
		}
		strv_push_owned(warnings, xasprintf("ignoring %s%s%s: %s", p->key, p->val ? "=" : "",
						    p->val ? p->val : "", why));
		free(why);
		netvirt_free(&v);
	}
}

void netvirt_free(struct netvirt *v)
{
	free(v->text);
	v->text = NULL;
}

void netvirt_set_free(struct netvirt_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		netvirt_free(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
