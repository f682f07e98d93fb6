// SPDX-License-Identifier: GPL-2.0-or-later
/* /sys/firmware/ibft from fixture trees (tests/unit/fixtures/ibft/):
 * the target the firmware booted from, its NIC, CHAP, and what a broken
 * table yields. */
#include <sys/socket.h>

#include "test.h"
#include "init/net/ibft.h"

static char *fixture(const char *name)
{
	const char *src = getenv("UNIRAMFS_SRCDIR");
	return xasprintf("%s/tests/unit/fixtures/ibft/%s", src ? src : ".", name);
}

static const char *addr(const struct net_addr *a)
{
	static char buf[4][NET_ADDR_TEXT];
	static int i;
	return net_addr_str(a, buf[i++ % 4]);
}

static void test_boot_target(void)
{
	struct iscsi_root r;
	struct ip_conf nic;
	struct strv w = { 0 };
	char *dir = fixture("boot");

	CHECK(ibft_read(dir, &r, &nic, &w) == 0);
	CHECK(w.n == 0);
	CHECK_STR(r.initiator, "iqn.2026-12.test.uniramfs:client");
	CHECK(r.firmware);
	CHECK_STR(r.target.name, "iqn.2026-12.test.uniramfs:root"); /* boot-selected beats first */
	/* the first valid one is another login */
	CHECK(r.nmore == 1);
	CHECK(r.nmore == 1 && !strcmp(r.more[0].name, "iqn.2026-12.test.uniramfs:other"));
	CHECK(r.nmore == 1 && !strcmp(r.more[0].server, "10.0.2.50"));
	CHECK_STR(r.target.server, "10.0.2.100");
	CHECK(r.target.port == 3261 && r.target.lun == 1);
	CHECK_STR(r.target.user, "user");
	CHECK_STR(r.target.password, "it's a secret");
	CHECK_STR(r.target.in_user, "ruser");
	CHECK_STR(r.target.in_password, "rsecret");
	CHECK(nic.has_mac && nic.mac[0] == 0x52 && nic.mac[5] == 0x56);
	CHECK_STR(addr(&nic.client), "10.0.2.15");
	CHECK(nic.prefix == 24);
	CHECK_STR(addr(&nic.gateway), "10.0.2.2");
	CHECK_STR(addr(&nic.dns[0]), "10.0.2.3");
	CHECK(!nic.dns[1].family);
	CHECK_STR(nic.hostname, "client");
	CHECK(nic.autoconf == IP_AUTO_NONE);
	iscsi_root_free(&r);
	ip_conf_free(&nic);
	free(dir);
}

static void test_dhcp_nic_ipv6_target(void)
{
	struct iscsi_root r;
	struct ip_conf nic;
	struct strv w = { 0 };
	char *dir = fixture("dhcp6");

	CHECK(ibft_read(dir, &r, &nic, &w) == 0);
	CHECK(w.n == 0);
	CHECK_STR(r.target.server, "2001:db8::100");
	CHECK(nic.autoconf == IP_AUTO_DHCP && !nic.client.family);
	iscsi_root_free(&r);
	ip_conf_free(&nic);
	free(dir);
}

/* An IPv6 NIC: its prefix from prefix-len, never from subnet-mask
 * (the kernel shows all ones there past 32); a DHCP origin with an
 * IPv6 address asks DHCPv6; a prefix past 128 is named. */
static void test_ipv6_nic(void)
{
	struct iscsi_root r;
	struct ip_conf nic;
	struct strv w = { 0 };
	char *dir = fixture("static6");

	CHECK(ibft_read(dir, &r, &nic, &w) == 0);
	CHECK(w.n == 0);
	CHECK_STR(addr(&nic.client), "fd00::15");
	CHECK(nic.prefix == 64);
	CHECK_STR(addr(&nic.gateway), "fd00::1");
	CHECK(nic.autoconf == IP_AUTO_NONE);
	CHECK_STR(r.target.server, "fd00::100");
	iscsi_root_free(&r);
	ip_conf_free(&nic);
	free(dir);

	dir = fixture("dhcp6addr");
	CHECK(ibft_read(dir, &r, &nic, &w) == 0);
	CHECK(nic.autoconf == IP_AUTO_DHCP6 && nic.prefix == -1);
	CHECK(w.n == 1);
	CHECK(w.n == 1 && !strcmp(w.v[0], "ibft: ethernet0/prefix-len: \"129\" is not a prefix length"));
	iscsi_root_free(&r);
	ip_conf_free(&nic);
	strv_free(&w);
	free(dir);
}

static void test_hostile(void)
{
	struct iscsi_root r;
	struct ip_conf nic;
	struct strv w = { 0 };
	char *dir = fixture("hostile");

	CHECK(ibft_read(dir, &r, &nic, &w) == 0);
	CHECK_STR(r.target.name, "iqn.x:t");
	CHECK(r.target.port == 3260 && r.target.lun == 0);
	CHECK(nic.autoconf == IP_AUTO_DHCP && !nic.has_mac);
	CHECK(w.n == 5);
	if (w.n == 5) {
		CHECK_STR(w.v[0], "ibft: target0/port: \"99999\" is not a port");
		CHECK_STR(w.v[1], "ibft: target0/lun: \"ffff\" is not eight hex digits: LUN 0");
		CHECK_STR(w.v[2], "ibft: target2/ip-addr: \"garbage\" is not an IP address");
		CHECK_STR(w.v[3], "ibft: target2: no target address");
		CHECK_STR(w.v[4], "ibft: ethernet0/mac: \"zz:54:00:00:00:06\" is not a MAC address");
	}
	iscsi_root_free(&r);
	ip_conf_free(&nic);
	strv_free(&w);
	free(dir);

	dir = fixture("empty");
	CHECK(ibft_read(dir, &r, &nic, &w) < 0);
	CHECK(w.n == 1);
	CHECK(w.n && str_has_suffix(w.v[0], "/ibft/empty: no valid target"));
	strv_free(&w);
	free(dir);
	dir = fixture("absent");
	CHECK(ibft_read(dir, &r, &nic, &w) < 0);
	strv_free(&w);
	free(dir);
}

int main(void)
{
	RUN(test_boot_target);
	RUN(test_dhcp_nic_ipv6_target);
	RUN(test_ipv6_nic);
	RUN(test_hostile);
	return test_done();
}
