// SPDX-License-Identifier: GPL-2.0-or-later
/* bond=, vlan=, bridge= as dracut writes them: what each yields (the
 * kernel's IFLA_BOND_* attributes, the VLAN id from the name), and the
 * exact warning, naming the text, for each malformed one. */
#include <arpa/inet.h>
#include <linux/if_link.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "init/net/netvirt.h"

static struct netvirt v;
static char *why;

static int parse(const char *key, const char *val)
{
	netvirt_free(&v);
	free(why);
	why = NULL;
	return netvirt_parse(key, val, &v, &why);
}

/* The attribute of type t, or NULL. */
static const struct netvirt_attr *attr(uint16_t t)
{
	for (size_t i = 0; i < v.n_bond; i++)
		if (v.bond[i].type == t)
			return &v.bond[i];
	return NULL;
}

static void test_bond_forms(void)
{
	/* bare: bond0 over eth0,eth1, the kernel's balance-rr */
	CHECK(parse("bond", NULL) == 0);
	CHECK(v.kind == NETVIRT_BOND && !strcmp(v.name, "bond0") && v.n_slaves == 2);
	CHECK_STR(v.slaves[0], "eth0");
	CHECK_STR(v.slaves[1], "eth1");
	CHECK(v.n_bond == 0 && v.mtu == 0);
	CHECK_STR(v.text, "bond");
	CHECK(parse("bond", "bond1") == 0);
	CHECK_STR(v.name, "bond1");
	CHECK(v.n_slaves == 2);
	CHECK(parse("bond", "bond0:ens3,ens4,ens5") == 0);
	CHECK(v.n_slaves == 3);
	CHECK_STR(v.slaves[2], "ens5");
	CHECK(parse("bond", "bond0:eth0,eth1:mode=active-backup,miimon=100,primary=eth1:9000") == 0);
	CHECK(attr(IFLA_BOND_MODE) && attr(IFLA_BOND_MODE)->val == 1 && attr(IFLA_BOND_MODE)->size == 1);
	CHECK(attr(IFLA_BOND_MIIMON) && attr(IFLA_BOND_MIIMON)->val == 100 &&
	      attr(IFLA_BOND_MIIMON)->size == 4);
	CHECK_STR(v.primary, "eth1");
	CHECK(v.mtu == 9000);
	CHECK_STR(v.text, "bond=bond0:eth0,eth1:mode=active-backup,miimon=100,primary=eth1:9000");
	/* the man page's NAME:SLAVES::OPTIONS[:MTU] */
	CHECK(parse("bond", "bond0:eth0,eth1::mode=802.3ad,lacp_rate=fast,xmit_hash_policy=layer3+4") == 0);
	CHECK(attr(IFLA_BOND_MODE)->val == 4);
	CHECK(attr(IFLA_BOND_AD_LACP_RATE)->val == 1);
	CHECK(attr(IFLA_BOND_XMIT_HASH_POLICY)->val == 1);
	CHECK(v.mtu == 0);
	CHECK(parse("bond", "bond0:eth0,eth1::mode=4:1500") == 0);
	CHECK(attr(IFLA_BOND_MODE)->val == 4 && v.mtu == 1500);
	/* arp_ip_target's addresses split by ';' (parse-bond.sh) */
	CHECK(parse("bond", "bond0:eth0,eth1:mode=1,arp_interval=200,arp_ip_target=10.0.0.1;10.0.0.2") == 0);
	CHECK(v.n_arp == 2);
	CHECK(v.arp_targets[1].s_addr == inet_addr("10.0.0.2"));
	CHECK(attr(IFLA_BOND_ARP_INTERVAL)->val == 200);
	/* an empty options field */
	CHECK(parse("bond", "bond0:eth0,eth1::") == 0);
	CHECK(v.n_bond == 0 && v.mtu == 0);
}

static void test_bond_bad(void)
{
	CHECK(parse("bond", "bond0:eth0,eth1:mode=fastest") < 0);
	CHECK_STR(why, "mode=fastest: not a value bonding takes for mode");
	CHECK(parse("bond", "bond0:eth0,eth1:mode=7") < 0);
	CHECK_STR(why, "mode=7: not a value bonding takes for mode");
	CHECK(parse("bond", "bond0:eth0,eth1:speed=10") < 0);
	CHECK_STR(why, "speed: not a bonding option uniramfs knows");
	CHECK(parse("bond", "bond0:eth0,eth1:miimon") < 0);
	CHECK_STR(why, "\"miimon\" is not KEY=VALUE");
	CHECK(parse("bond", "bond0:eth0,eth1:miimon=-1") < 0);
	CHECK_STR(why, "miimon=-1: not a value bonding takes for miimon");
	CHECK(parse("bond", "bond0:eth0,eth1:miimon=99999999999") < 0);
	CHECK_STR(why, "miimon=99999999999: not a value bonding takes for miimon");
	CHECK(parse("bond", "bond0:eth0,eth1:mode=1:abc") < 0);
	CHECK_STR(why, "MTU \"abc\" is not a number from 68 to 65535");
	CHECK(parse("bond", "bond0:eth0,eth1:mode=1:67") < 0);
	CHECK_STR(why, "MTU \"67\" is not a number from 68 to 65535");
	CHECK(parse("bond", "bond0:eth0:mode=1:1500:x") < 0);
	CHECK_STR(why, "more than four fields");
	CHECK(parse("bond", "a:b:c:d:e:f:g:h") < 0);
	CHECK_STR(why, "more than four fields");
	CHECK(parse("bond", "bond0:eth0,eth0") < 0);
	CHECK_STR(why, "eth0 is named twice");
	CHECK(parse("bond", "bond0:bond0") < 0);
	CHECK_STR(why, "bond0 cannot be a port of itself");
	CHECK(parse("bond", "bond0:") < 0);
	CHECK_STR(why, "no ports");
	CHECK(parse("bond", "bond0:,") < 0);
	CHECK_STR(why, "no ports");
	CHECK(parse("bond", "bond0:eth0,../x") < 0);
	CHECK_STR(why, "\"../x\" is not an interface name (a port)");
	CHECK(parse("bond", "averyveryverylongname:eth0") < 0);
	CHECK_STR(why, "\"averyveryverylongname\" is not an interface name (the bond)");
	CHECK(parse("bond", ":eth0") < 0);
	CHECK_STR(why, "\"\" is not an interface name (the bond)");
	CHECK(parse("bond", "bond0:eth0,eth1:primary=eth2") < 0);
	CHECK_STR(why, "primary=eth2 is not one of its ports");
	CHECK(parse("bond", "bond0:eth0,eth1:arp_ip_target=10.0.0.1;nowhere") < 0);
	CHECK_STR(why, "arp_ip_target=10.0.0.1;nowhere: \"nowhere\" is not an IPv4 address");
	CHECK(parse("bond", "bond0:a,b,c,d,e,f,g,h,i") < 0);
	CHECK_STR(why, "more than 8 ports");
	CHECK(parse("bond", "bond0:eth0:mode=1,=3") < 0);
	CHECK_STR(why, "\"=3\" is not KEY=VALUE");
}

static void test_vlan(void)
{
	static const struct {
		const char *val;
		const char *name, *phys;
		unsigned id;
	} ok[] = {
		{ "vlan0005:eth0", "vlan0005", "eth0", 5 },
		{ "vlan5:eth0", "vlan5", "eth0", 5 },
		{ "eth0.0005:eth0", "eth0.0005", "eth0", 5 },
		{ "eth0.5:eth0", "eth0.5", "eth0", 5 },
		{ "vlan4094:bond0", "vlan4094", "bond0", 4094 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		CHECK(parse("vlan", ok[i].val) == 0);
		CHECK(v.kind == NETVIRT_VLAN && v.vlan_id == ok[i].id && v.n_slaves == 1);
		CHECK_STR(v.name, ok[i].name);
		CHECK_STR(v.slaves[0], ok[i].phys);
	}
	CHECK(parse("vlan", NULL) < 0);
	CHECK_STR(why, "expected vlan=NAME:DEVICE");
	CHECK(parse("vlan", "vlan5") < 0);
	CHECK_STR(why, "expected vlan=NAME:DEVICE");
	CHECK(parse("vlan", "vlan5:eth0:x") < 0);
	CHECK_STR(why, "expected vlan=NAME:DEVICE");
	CHECK(parse("vlan", "storage:eth0") < 0);
	CHECK_STR(why, "no VLAN id 1-4094 in the name storage (vlan0005, vlan5, eth0.5)");
	CHECK(parse("vlan", "vlan4095:eth0") < 0);
	CHECK_STR(why, "no VLAN id 1-4094 in the name vlan4095 (vlan0005, vlan5, eth0.5)");
	CHECK(parse("vlan", "vlan0:eth0") < 0);
	CHECK_STR(why, "no VLAN id 1-4094 in the name vlan0 (vlan0005, vlan5, eth0.5)");
	CHECK(parse("vlan", "eth0.:eth0") < 0);
	CHECK_STR(why, "no VLAN id 1-4094 in the name eth0. (vlan0005, vlan5, eth0.5)");
	CHECK(parse("vlan", "vlan5:vlan5") < 0);
	CHECK_STR(why, "vlan5 cannot tag itself");
	CHECK(parse("vlan", "vlan5:a/b") < 0);
	CHECK_STR(why, "\"a/b\" is not an interface name (its device)");
	CHECK(netvirt_vlan_id("eth0.100") == 100);
	CHECK(netvirt_vlan_id(".5") < 0);
}

static void test_bridge(void)
{
	CHECK(parse("bridge", NULL) == 0);
	CHECK(v.kind == NETVIRT_BRIDGE && v.n_slaves == 1);
	CHECK_STR(v.name, "br0");
	CHECK_STR(v.slaves[0], "eth0");
	CHECK(parse("bridge", "foobr0:enp0s1,enp0s2") == 0);
	CHECK_STR(v.name, "foobr0");
	CHECK(v.n_slaves == 2);
	CHECK(parse("bridge", "br0") < 0);
	CHECK_STR(why, "expected bridge=NAME:PORT[,PORT…]");
	CHECK(parse("bridge", "br0:eth0:eth1") < 0);
	CHECK_STR(why, "expected bridge=NAME:PORT[,PORT…]");
	CHECK(parse("team", "team0:eth0") < 0);
	CHECK_STR(why, "team= is not bond=, vlan= or bridge=");
}

static void test_cmdline(void)
{
	struct cmdline c = { 0 };
	struct netvirt_set s = { 0 };
	struct strv w = { 0 };

	cmdline_parse(&c, "root=nfs:1.2.3.4:/r bond=bond0:eth0,eth1:mode=active-backup vlan=vlan5:bond0 "
			  "vlan=vlan6:bond0 bridge=br0:eth1 bond=bond0:eth2,eth3 bridge=br1:eth2 "
			  "vlan=vlan7 bond=bond1:eth4:mode=x");
	netvirt_cmdline(&s, &c, &w);
	CHECK(s.n == 4);
	CHECK_STR(s.v[0].name, "bond0");
	CHECK_STR(s.v[1].name, "vlan5");
	CHECK_STR(s.v[2].name, "vlan6");
	CHECK_STR(s.v[3].name, "br1");
	CHECK(w.n == 4);
	CHECK_STR(w.v[0], "ignoring bridge=br0:eth1: eth1 is a port of bond0 already "
			  "(bond=bond0:eth0,eth1:mode=active-backup)");
	CHECK_STR(w.v[1], "ignoring bond=bond0:eth2,eth3: bond0 is set up already by "
			  "bond=bond0:eth0,eth1:mode=active-backup");
	CHECK_STR(w.v[2], "ignoring vlan=vlan7: expected vlan=NAME:DEVICE");
	CHECK_STR(w.v[3], "ignoring bond=bond1:eth4:mode=x: mode=x: not a value bonding takes for mode");
	CHECK(netvirt_master_of(&s, "eth1") == &s.v[0]);
	CHECK(netvirt_master_of(&s, "bond0") == &s.v[1]);
	CHECK(netvirt_master_of(&s, "eth2") == &s.v[3]);
	CHECK(netvirt_master_of(&s, "eth9") == NULL);
	netvirt_set_free(&s);
	strv_free(&w);
	cmdline_free(&c);
}

int main(void)
{
	RUN(test_bond_forms);
	RUN(test_bond_bad);
	RUN(test_vlan);
	RUN(test_bridge);
	RUN(test_cmdline);
	netvirt_free(&v);
	free(why);
	return test_done();
}
