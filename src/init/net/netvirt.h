/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_NETVIRT_H
#define UNIRAMFS_NET_NETVIRT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "cmdline.h"
#include "util.h"

/* dracut's bond=, vlan= and bridge= (modules.d/35network-legacy's
 * parse-bond.sh, parse-vlan.sh, parse-bridge.sh read the same way):
 *
 *   bond=NAME[:SLAVES[:OPTIONS[:MTU]]]  SLAVES a,b; OPTIONS k=v,k=v with
 *                                       arp_ip_target's addresses split
 *                                       by ';'; bare "bond" is
 *                                       bond0 over eth0,eth1 (balance-rr)
 *   vlan=NAME:PHYS                      the VLAN id from NAME: vlan0005,
 *                                       vlan5, eth0.0005, eth0.5
 *   bridge=NAME:SLAVES                  bare "bridge" is br0 over eth0
 *
 * The man page writes bond=NAME:SLAVES::OPTIONS (an empty field before
 * the options); that spelling is read as the man page means it.
 * Pure: the kernel's link attributes come out, ready for rtnetlink. */

enum netvirt_kind { NETVIRT_BOND, NETVIRT_VLAN, NETVIRT_BRIDGE };

#define NETVIRT_SLAVES 8
#define NETVIRT_BOND_ATTRS 24
#define NETVIRT_ARP_TARGETS 16 /* the kernel's BOND_MAX_ARP_TARGETS */

/* One IFLA_BOND_* attribute and its value, of size 1, 2 or 4 bytes. */
struct netvirt_attr {
	uint16_t type;
	uint8_t size;
	uint32_t val;
};

struct netvirt {
	enum netvirt_kind kind;
	char name[16];
	/* bond and bridge: the ports; vlan: slaves[0] is the link it tags */
	char slaves[NETVIRT_SLAVES][16];
	size_t n_slaves;
	unsigned mtu;     /* 0: the kernel's */
	unsigned vlan_id; /* vlan: 1..4094 */
	struct netvirt_attr bond[NETVIRT_BOND_ATTRS];
	size_t n_bond;
	char primary[16]; /* bond's primary=, an index only once it exists */
	struct in_addr arp_targets[NETVIRT_ARP_TARGETS];
	size_t n_arp;
	char *text; /* "bond=…" as given, for messages */
	bool made;  /* netboot's: created already (or tried and failed) */
};

struct netvirt_set {
	struct netvirt *v;
	size_t n, cap;
};

const char *netvirt_kind_name(enum netvirt_kind k);
/* key "bond", "vlan" or "bridge", val NULL for the bare word. 0, or
 * -EINVAL with *why (malloc'd) naming the offending text. */
int netvirt_parse(const char *key, const char *val, struct netvirt *out, char **why);
/* Every bond=, vlan=, bridge= of the command line, in order; each bad
 * one is a warning ("ignoring bond=…: …") and left out, and so is one
 * whose name or a port of which another already took. */
void netvirt_cmdline(struct netvirt_set *s, const struct cmdline *c, struct strv *warnings);
/* The interface ifname is a port (or a VLAN's link) of: NULL, none. */
const struct netvirt *netvirt_master_of(const struct netvirt_set *s, const char *ifname);
/* The VLAN id a name carries (vlan0005, vlan5, eth0.5), or -EINVAL. */
int netvirt_vlan_id(const char *name);
void netvirt_free(struct netvirt *v);
void netvirt_set_free(struct netvirt_set *s);

#endif
