// SPDX-License-Identifier: GPL-2.0-or-later
/* Bonds, VLANs and bridges made from their ports as those appear. */
#include "init/netboot/netvirt_up.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "init/dev/modload.h"
#include "init/netboot/netlink_link.h"
#include "log.h"

static const char *const drivers[] = { [NETVIRT_BOND] = "bonding", [NETVIRT_VLAN] = "8021q",
				       [NETVIRT_BRIDGE] = "bridge" };

void netvirt_modules(const struct netup *nu, struct modload *ml)
{
	bool done[3] = { false };

	for (size_t i = 0; ml && i < nu->virt.n; i++) {
		enum netvirt_kind k = nu->virt.v[i].kind;
		if (done[k])
			continue;
		done[k] = true;
		if (modload_name(ml, drivers[k]) < 0)
			log_warn("%s: %s", drivers[k], err_msg());
	}
}

static struct netif *by_name(struct netup *nu, const char *name)
{
	for (size_t i = 0; i < nu->n; i++)
		if (!strcmp(nu->v[i].name, name))
			return &nu->v[i];
	return NULL;
}

/* The spec's name for ni: its name now, the kernel's, or one udev
 * would give it (an installed system's bond=bond0:enp1s0,enp2s0). */
static const char *port_name(const struct netup *nu, const struct netif *ni)
{
	for (size_t i = 0; i < nu->virt.n; i++)
		for (size_t j = 0; j < nu->virt.v[i].n_slaves; j++) {
			const char *s = nu->virt.v[i].slaves[j];
			if (!strcmp(s, ni->name) || (!ni->renamed && !strcmp(s, ni->kname)) ||
			    (!ni->renamed && net_names_has(&ni->names, s)))
				return s;
		}
	return NULL;
}

bool netvirt_claim(struct netup *nu, struct netif *ni)
{
	const char *name = port_name(nu, ni);
	int e;

	if (!name)
		return false;
	ni->slave = true;
	if (strcmp(name, ni->name)) {
		if ((e = nl_link_set(&nu->nl, ni->ifindex, false, 0, name)) < 0) {
			log_warn("%s: cannot rename it %s, the name %s gives: %s", ni->name, name,
				 netvirt_master_of(&nu->virt, name)->text, strerror(-e));
			return true;
		}
		log_info("%s is now %s (%s)", ni->name, name, netvirt_master_of(&nu->virt, name)->text);
		snprintf(ni->name, sizeof(ni->name), "%s", name);
		ni->renamed = true;
	}
	return true;
}

static int sys_ifindex(const struct netup *nu, const char *name)
{
	char *rel = xasprintf("/sys/class/net/%s/ifindex", name);
	char *p = nu->ops->path(rel), *line = NULL;
	int idx = -1;

	free(rel);
	if (read_line(p, &line) == 0)
		idx = atoi(line);
	free(p);
	free(line);
	return idx > 0 ? idx : -1;
}

static bool ports_there(struct netup *nu, const struct netvirt *v)
{
	for (size_t i = 0; i < v->n_slaves; i++)
		if (!by_name(nu, v->slaves[i]))
			return false;
	return true;
}

static void make(struct netup *nu, struct netvirt *v)
{
	struct netif *first = by_name(nu, v->slaves[0]);
	struct netif *prim = v->primary[0] ? by_name(nu, v->primary) : NULL;
	int idx, e;

	v->made = true;
	if ((e = nl_link_create(&nu->nl, v, first->ifindex, prim ? prim->ifindex : 0)) < 0) {
		log_warn("%s: cannot create it (%s): %s", v->name, v->text, strerror(-e));
		return;
	}
	if ((idx = sys_ifindex(nu, v->name)) < 0) {
		log_warn("%s: created, but not in /sys/class/net", v->name);
		return;
	}
	for (size_t i = 0; i < v->n_slaves; i++) {
		struct netif *p = by_name(nu, v->slaves[i]);
		if (v->kind != NETVIRT_VLAN && (e = nl_link_master(&nu->nl, p->ifindex, idx)) < 0) {
			log_warn("%s: cannot add %s to it: %s", v->name, p->name, strerror(-e));
			continue;
		}
		/* not ni->up: a port is not one of netup's candidates,
		 * which configure() takes down once another wins */
		if ((e = nl_link_set(&nu->nl, p->ifindex, true, 0, NULL)) < 0)
			log_warn("%s: cannot bring the link up: %s", p->name, strerror(-e));
	}
	if (v->kind == NETVIRT_VLAN) {
		log_info("%s: VLAN %u on %s (%s)", v->name, v->vlan_id, v->slaves[0], v->text);
	} else {
		struct buf ports = { 0 };
		for (size_t i = 0; i < v->n_slaves; i++)
			buf_printf(&ports, "%s%s", i ? "," : "", v->slaves[i]);
		log_info("%s: %s over %s (%s)", v->name, netvirt_kind_name(v->kind), ports.p, v->text);
		buf_free(&ports);
	}
}

bool netvirt_create_ready(struct netup *nu)
{
	bool made = false;

	for (size_t i = 0; i < nu->virt.n; i++) {
		struct netvirt *v = &nu->virt.v[i];
		if (v->made || !ports_there(nu, v))
			continue;
		make(nu, v);
		made = true;
	}
	return made;
}

void netvirt_teardown(struct netup *nu)
{
	struct netif *ni;
	int e;

	for (size_t i = nu->virt.n; i-- > 0;) {
		const struct netvirt *v = &nu->virt.v[i];
		if (!v->made || !(ni = by_name(nu, v->name)))
			continue;
		if ((e = nl_link_delete(&nu->nl, ni->ifindex)) < 0)
			log_warn("%s: cannot delete it: %s", v->name, strerror(-e));
		ni->up = false;
	}
	for (size_t i = 0; i < nu->n; i++)
		if (nu->v[i].slave)
			nl_link_set(&nu->nl, nu->v[i].ifindex, false, 0, NULL);
}
