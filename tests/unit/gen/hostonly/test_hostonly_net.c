// SPDX-License-Identifier: GPL-2.0-or-later
/* What hostonly bakes for a network root is what the init reads: each
 * fixture's baked command line (nettools.c) goes through the init's own
 * parsers (src/init/net/netroot.c, ipconf.c) with no warning, and gives
 * back the server, path or target, and interface the host uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "err.h"
#include "gen/hostonly/hostonly.h"
#include "init/net/ipconf.h"
#include "init/net/netroot.h"
#include "init/net/netvirt.h"
#include "gen/features/nettools.h"
#include "run_helpers.h"
#include "test.h"
#include "util.h"

/* Both parsers' warnings as one string, so a CHECK_STR shows them. */
static const char *joined_warnings(const struct strv *a, const struct strv *b)
{
	static char out[2048];
	const struct strv *both[] = { a, b };

	out[0] = '\0';
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < both[k]->n; i++)
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", out[0] ? "; " : "",
				 both[k]->v[i]);
	return out;
}

struct parsed {
	struct cmdline c;
	struct netroot nr;
	struct net_cmdline net;
	struct strv warnings;
	int r;
};

static void parse_baked(const char *fix, struct parsed *p)
{
	char *root = hostonly_fixture(fix), *line = NULL;
	struct hostonly h;
	struct net_plan np = { 0 };

	memset(p, 0, sizeof(*p));
	p->r = -1;
	CHECK(hostonly_detect(root, &h) == 0);
	net_plan_hostonly(&np, &h);
	line = net_plan_cmdline(&np, NULL);
	cmdline_parse(&p->c, line);
	p->r = netroot_from_cmdline(&p->c, &p->nr, &p->warnings);
	net_cmdline_parse(&p->net, &p->c);
	CHECK_STR(joined_warnings(&p->warnings, &p->net.warnings), "");
	free(line);
	net_plan_free(&np);
	hostonly_free(&h);
	free(root);
}

static void parsed_free(struct parsed *p)
{
	cmdline_free(&p->c);
	netroot_free(&p->nr);
	net_cmdline_free(&p->net);
	strv_free(&p->warnings);
}

/* ip=IFACE:METHOD (dhcp; either6 for an IPv6 server) and, unless it is
 * a kernel name, ifname=IFACE:MAC. */
static void check_ip_as(const struct parsed *p, const char *iface, bool with_ifname, enum ip_autoconf how)
{
	CHECK(p->net.n_ip == 1);
	if (p->net.n_ip == 1) {
		CHECK_STR(p->net.ip[0].device, iface);
		CHECK(p->net.ip[0].autoconf == how);
	}
	CHECK(p->net.n_ifname == (with_ifname ? 1u : 0u));
	if (with_ifname && p->net.n_ifname == 1) {
		static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x02 };
		CHECK_STR(p->net.ifname[0].name, iface);
		CHECK(memcmp(p->net.ifname[0].mac, mac, 6) == 0);
	}
}

static void check_ip(const struct parsed *p, const char *iface, bool with_ifname)
{
	check_ip_as(p, iface, with_ifname, IP_AUTO_DHCP);
}

static void test_nfs4(void)
{
	struct parsed p;

	parse_baked("nfs4", &p);
	CHECK(p.r == 0 && p.nr.kind == NETROOT_NFS);
	CHECK_STR(p.nr.nfs.server, "192.168.1.10");
	CHECK_STR(p.nr.nfs.path, "/srv/roots/host1");
	CHECK(p.nr.nfs.vers == 4 && p.nr.nfs.minor == -1);
	check_ip(&p, "enp1s0", true);
	parsed_free(&p);
}

static void test_nfs4_ipv6_with_space(void)
{
	struct parsed p;

	parse_baked("nfs-v6-space", &p);
	CHECK(p.r == 0 && p.nr.kind == NETROOT_NFS);
	CHECK_STR(p.nr.nfs.server, "fd00::10");
	CHECK_STR(p.nr.nfs.path, "/srv/my root");
	check_ip_as(&p, "enp1s0", true, IP_AUTO_EITHER6);
	parsed_free(&p);
}

static void test_iscsi(void)
{
	struct parsed p;

	parse_baked("iscsi", &p);
	CHECK(p.r == 0 && p.nr.kind == NETROOT_ISCSI);
	CHECK_STR(p.nr.iscsi.target.server, "10.0.2.2");
	CHECK(p.nr.iscsi.target.port == 3261 && p.nr.iscsi.target.lun == 1);
	CHECK_STR(p.nr.iscsi.target.name, "iqn.2003-01.org.example:storage.root");
	CHECK_STR(p.nr.iscsi.initiator, "iqn.1993-08.org.debian:01:a1b2c3d4e5f6");
	check_ip(&p, "eth0", false);
	parsed_free(&p);
}

static void test_nbd(void)
{
	struct parsed p;

	parse_baked("nbd", &p);
	CHECK(p.r == 0 && p.nr.kind == NETROOT_NBD);
	CHECK_STR(p.nr.nbd.server, "192.168.1.10");
	CHECK(p.nr.nbd.port == 10809);
	CHECK_STR(p.nr.nbd.export, "rootfs");
	CHECK_STR(p.nr.nbd.fstype, "ext4");
	check_ip(&p, "enp1s0", true);
	parsed_free(&p);
}

static void test_nvmf(void)
{
	struct parsed p;

	parse_baked("nvmf-tcp", &p);
	CHECK(p.r == 0 && p.nr.kind == NETROOT_NVMF && p.nr.nvmf.n == 1);
	if (p.nr.nvmf.n == 1) {
		CHECK_STR(p.nr.nvmf.t[0].traddr, "192.168.1.10");
		CHECK(p.nr.nvmf.t[0].port == 4421);
		CHECK_STR(p.nr.nvmf.t[0].nqn, "nqn.2026-12.org.example:storage.root");
	}
	CHECK_STR(p.nr.nvmf.hostnqn, "nqn.2014-08.org.nvmexpress:uuid:5f0c1a4e-1b2d-4c3e-9f10-0000000000f1");
	CHECK_STR(p.nr.nvmf.hostid, "5f0c1a4e-1b2d-4c3e-9f10-0000000000f1");
	check_ip(&p, "enp1s0", true);
	parsed_free(&p);
	/* the boot test nvmf-hostonly's guest: the port is 4420, eth0 a kernel name */
	parse_baked("nvmf-guest", &p);
	CHECK(p.r == 0 && p.nr.kind == NETROOT_NVMF && p.nr.nvmf.n == 1);
	if (p.nr.nvmf.n == 1)
		CHECK(p.nr.nvmf.t[0].port == 4420);
	check_ip(&p, "eth0", false);
	parsed_free(&p);
}

/* A root reached through a bond: the bonding driver and both ports'
 * NIC drivers packed, and the bond= word the init makes bond0 from. */
static void test_bond(void)
{
	char *root = hostonly_fixture("nfs-bond"), *line;
	struct hostonly h;
	struct net_plan np = { 0 };
	struct cmdline c = { 0 };
	struct netvirt_set vs = { 0 };
	struct strv w = { 0 };
	struct parsed p;

	CHECK(hostonly_detect(root, &h) == 0);
	CHECK(strv_contains(&h.modules, "bonding"));
	CHECK(strv_contains(&h.modules, "e1000"));
	CHECK(strv_contains(&h.modules, "virtio_net"));
	net_plan_hostonly(&np, &h);
	line = net_plan_cmdline(&np, NULL);
	cmdline_parse(&c, line);
	netvirt_cmdline(&vs, &c, &w);
	CHECK(w.n == 0);
	CHECK(vs.n == 1);
	if (vs.n == 1) {
		CHECK_STR(vs.v[0].text, "bond=bond0:enp0s3,enp1s0:mode=active-backup,miimon=100");
		CHECK(vs.v[0].n_slaves == 2);
	}
	netvirt_set_free(&vs);
	strv_free(&w);
	cmdline_free(&c);
	free(line);
	net_plan_free(&np);
	hostonly_free(&h);
	free(root);
	parse_baked("nfs-bond", &p);
	CHECK(p.r == 0 && p.nr.kind == NETROOT_NFS);
	CHECK_STR(p.nr.nfs.server, "192.168.1.10");
	check_ip(&p, "bond0", false);
	parsed_free(&p);
}

int main(void)
{
	RUN(test_bond);
	RUN(test_nfs4);
	RUN(test_nfs4_ipv6_with_space);
	RUN(test_iscsi);
	RUN(test_nbd);
	RUN(test_nvmf);
	return test_done();
}
