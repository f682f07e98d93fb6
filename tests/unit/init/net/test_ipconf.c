// SPDX-License-Identifier: GPL-2.0-or-later
/* ip= (kernel and dracut forms), ifname=, BOOTIF=, rd.bootif,
 * rd.neednet, nameserver=, rd.peerdns: what each yields, and the exact
 * warning for each wrong value. */
#include <arpa/inet.h>
#include <sys/socket.h>

#include "test.h"
#include "init/net/ipconf.h"

static const char *addr(const struct net_addr *a)
{
	static char buf[4][NET_ADDR_TEXT];
	static int i;
	return net_addr_str(a, buf[i++ % 4]);
}

static struct ip_conf ip;
static struct strv w;

static int parse(const char *val)
{
	ip_conf_free(&ip);
	strv_free(&w);
	return ip_conf_parse(val, &ip, &w);
}

static void test_kernel_full(void)
{
	CHECK(parse("10.0.0.5:10.0.0.1:10.0.0.254:255.255.255.0:client.example:eth0:off:10.0.0.2:10.0.0.3:10.0.0.4") == 0);
	CHECK(w.n == 0);
	CHECK_STR(addr(&ip.client), "10.0.0.5");
	CHECK_STR(addr(&ip.server), "10.0.0.1");
	CHECK_STR(addr(&ip.gateway), "10.0.0.254");
	CHECK(ip.prefix == 24);
	CHECK_STR(ip.hostname, "client.example");
	CHECK_STR(ip.device, "eth0");
	CHECK(ip.autoconf == IP_AUTO_NONE);
	CHECK_STR(addr(&ip.dns[0]), "10.0.0.2");
	CHECK_STR(addr(&ip.dns[1]), "10.0.0.3");
	CHECK_STR(addr(&ip.ntp), "10.0.0.4");
	CHECK(ip.mtu == 0 && !ip.has_mac);
}

static void test_kernel_sparse(void)
{
	CHECK(parse("::::::dhcp") == 0);
	CHECK(w.n == 0);
	CHECK(ip.autoconf == IP_AUTO_DHCP && !ip.client.family && !ip.device && ip.prefix == -1);
	CHECK(parse("10.1.2.3") == 0);
	CHECK_STR(addr(&ip.client), "10.1.2.3");
	CHECK(ip.autoconf == IP_AUTO_UNSET);
	/* Empty DNS0, then DNS1: the kernel's reading of an empty field 8. */
	CHECK(parse("10.0.0.5::10.0.0.1:24::eth1:none::10.0.0.9") == 0);
	CHECK(w.n == 0);
	CHECK(!ip.dns[0].family);
	CHECK_STR(addr(&ip.dns[1]), "10.0.0.9");
	CHECK(ip.prefix == 24);
}

static void test_methods_alone(void)
{
	static const struct {
		const char *v;
		enum ip_autoconf a;
	} t[] = { { "dhcp", IP_AUTO_DHCP },   { "on", IP_AUTO_ANY },	    { "any", IP_AUTO_ANY },
		  { "off", IP_AUTO_NONE },    { "none", IP_AUTO_NONE },	    { "dhcp6", IP_AUTO_DHCP6 },
		  { "auto6", IP_AUTO_AUTO6 }, { "either6", IP_AUTO_EITHER6 }, { "ibft", IP_AUTO_IBFT } };
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		CHECK(parse(t[i].v) == 0);
		CHECK(ip.autoconf == t[i].a);
		CHECK(w.n == 0);
	}
	CHECK(parse("") == 0);
	CHECK(ip.autoconf == IP_AUTO_UNSET);
	CHECK(parse("dhcp,01,aabbcc") == 0);
	CHECK(ip.autoconf == IP_AUTO_DHCP);
	CHECK(w.n == 1);
	CHECK_STR(w.v[0], "ip=dhcp,01,aabbcc: \"01,aabbcc\" client id is not supported: ignored");
	CHECK(ip_conf_is_off(&(struct ip_conf){ .autoconf = IP_AUTO_NONE }));
}

static void test_dracut_iface(void)
{
	CHECK(parse("enp1s0:dhcp") == 0);
	CHECK(w.n == 0);
	CHECK_STR(ip.device, "enp1s0");
	CHECK(ip.autoconf == IP_AUTO_DHCP && !ip.client.family);
	CHECK(parse("eth0:dhcp6:9000") == 0);
	CHECK(ip.autoconf == IP_AUTO_DHCP6 && ip.mtu == 9000);
	CHECK(parse("eth0:on:1500:52:54:00:12:34:56") == 0);
	CHECK(w.n == 0);
	CHECK(ip.mtu == 1500 && ip.has_mac);
	CHECK(ip.mac[0] == 0x52 && ip.mac[5] == 0x56);
}

static void test_dracut_static_mtu_mac(void)
{
	CHECK(parse("192.168.1.10::192.168.1.1:255.255.255.0:host:eth0:none:1400:AA:BB:CC:DD:EE:FF") == 0);
	CHECK(w.n == 0);
	CHECK(ip.mtu == 1400 && ip.has_mac && ip.mac[0] == 0xaa && ip.mac[5] == 0xff);
	CHECK(!ip.server.family);
	/* No MTU, a MAC. */
	CHECK(parse("192.168.1.10::192.168.1.1:24:host:eth0:none::52:54:00:00:00:01") == 0);
	CHECK(w.n == 0);
	CHECK(ip.mtu == 0 && ip.has_mac && ip.mac[5] == 1);
	CHECK(parse("192.168.1.10::192.168.1.1:24:host:eth0:none::52-54-00-00-00-02") == 0);
	CHECK(w.n == 0 && ip.has_mac && ip.mac[5] == 2);
}

static void test_ipv6_brackets(void)
{
	CHECK(parse("[2001:db8::2]::[2001:db8::1]:64:host6:eth0:none") == 0);
	CHECK(w.n == 0);
	CHECK(ip.client.family == AF_INET6);
	CHECK_STR(addr(&ip.client), "2001:db8::2");
	CHECK_STR(addr(&ip.gateway), "2001:db8::1");
	CHECK(ip.prefix == 64);
	CHECK(parse("[2001:db8::2]::[2001:db8::1]:129::eth0:none") == 0);
	CHECK(w.n == 1);
	CHECK_STR(w.v[0], "ip=[2001:db8::2]::[2001:db8::1]:129::eth0:none: \"129\" is not a netmask");
	CHECK(parse("[2001:db8::2::eth0:none") < 0);
	CHECK_STR(w.v[0], "ip=[2001:db8::2::eth0:none: \"[2001:db8::2::eth0:none\" has too many fields or an open bracket");
	CHECK(parse("[zz::1]:::::eth0:none") == 0);
	CHECK_STR(w.v[0], "ip=[zz::1]:::::eth0:none: \"[zz::1]\" is not an IP address");
}

/* dracut's IPv6 methods and forms, and addresses of the wrong family. */
static void test_ipv6_methods(void)
{
	CHECK(parse("[fd00::2]:[fd00::1]:[fd00::fe]:64:guest:ens3:none") == 0);
	CHECK(w.n == 0);
	CHECK_STR(addr(&ip.server), "fd00::1");
	CHECK_STR(ip.device, "ens3");
	CHECK(ip.autoconf == IP_AUTO_NONE);
	CHECK(parse("[fd00::2]::[fd00::1]:64::eth0:none:[fd00::53]") == 0);
	CHECK(w.n == 0);
	CHECK_STR(addr(&ip.dns[0]), "fd00::53");
	CHECK(parse("[fd00::2]:10.0.0.1:[fd00::1]:64::eth0:none") == 0);
	CHECK(w.n == 1);
	CHECK_STR(w.v[0], "ip=[fd00::2]:10.0.0.1:[fd00::1]:64::eth0:none: \"10.0.0.1\" is not an IPv6 address, as the client's is");
	CHECK(ip.server.family == 0 && ip.gateway.family == AF_INET6);
	CHECK(parse("10.0.0.2::[fd00::1]:24::eth0:none") == 0);
	CHECK(w.n == 1);
	CHECK_STR(w.v[0], "ip=10.0.0.2::[fd00::1]:24::eth0:none: \"[fd00::1]\" is not an IPv4 address, as the client's is");
	CHECK(parse("[fd00::2]::[fd00::1]:255.255.255.0::eth0:none") == 0);
	CHECK(w.n == 1);
	CHECK_STR(w.v[0], "ip=[fd00::2]::[fd00::1]:255.255.255.0::eth0:none: \"255.255.255.0\" is not a netmask");
	CHECK(parse("eth0:link6") == 0 && ip.autoconf == IP_AUTO_LINK6 && w.n == 0);
	CHECK(parse("either6") == 0 && ip.autoconf == IP_AUTO_EITHER6 && !ip.device);
	CHECK(parse("enp1s0:auto6") == 0 && ip.autoconf == IP_AUTO_AUTO6);
	CHECK_STR(ip.device, "enp1s0");
	CHECK(parse("eth0:dhcp7") == 0);
	CHECK_STR(w.v[0], "ip=eth0:dhcp7: \"eth0\" is not an IPv4 address");
}

static void test_bad_values(void)
{
	CHECK(parse("300.1.1.1::10.0.0.1:255.255.255.0::eth0:none") == 0);
	CHECK(w.n == 1);
	CHECK_STR(w.v[0], "ip=300.1.1.1::10.0.0.1:255.255.255.0::eth0:none: \"300.1.1.1\" is not an IPv4 address");
	CHECK(!ip.client.family);
	CHECK_STR(ip.device, "eth0"); /* the rest is kept */
	CHECK(parse("10.0.0.5::010.0.0.1:255.0.255.0:bad host:eth0:dhcpx") == 0);
	CHECK(w.n == 4);
	CHECK_STR(w.v[0], "ip=10.0.0.5::010.0.0.1:255.0.255.0:bad host:eth0:dhcpx: \"010.0.0.1\" is not an IPv4 address");
	CHECK_STR(w.v[1], "ip=10.0.0.5::010.0.0.1:255.0.255.0:bad host:eth0:dhcpx: \"255.0.255.0\" is not a netmask");
	CHECK_STR(w.v[2], "ip=10.0.0.5::010.0.0.1:255.0.255.0:bad host:eth0:dhcpx: \"bad host\" is not a host name");
	CHECK_STR(w.v[3], "ip=10.0.0.5::010.0.0.1:255.0.255.0:bad host:eth0:dhcpx: \"dhcpx\" is not an autoconfiguration method");
	CHECK(parse("eth0:dhcp:20") == 0);
	CHECK_STR(w.v[0], "ip=eth0:dhcp:20: \"20\" is not an MTU (68 to 65535)");
	CHECK(parse("eth0:dhcp:1500:52:54") == 0);
	CHECK_STR(w.v[0], "ip=eth0:dhcp:1500:52:54: \"52\" is not a MAC address");
	CHECK(parse("10.0.0.5::::::none:10.0.0.2:10.0.0.3:10.0.0.4:10.0.0.5") == 0);
	CHECK_STR(w.v[0], "ip=10.0.0.5::::::none:10.0.0.2:10.0.0.3:10.0.0.4:10.0.0.5: \"10.0.0.5\" is past the last field");
	CHECK(parse("dhcpp") < 0);
	CHECK_STR(w.v[0], "ip=dhcpp: \"dhcpp\" is neither an autoconfiguration method nor an IP address");
	CHECK(parse(NULL) < 0);
	CHECK_STR(w.v[0], "ip needs a value");
}

static void test_hostile_device(void)
{
	/* The device names a file under /run/uniramfs/net: no escapes. */
	CHECK(parse("10.0.0.5:::24::../../etc:none") < 0);
	CHECK_STR(w.v[0], "ip=10.0.0.5:::24::../../etc:none: \"../../etc\" is not an interface name");
	CHECK(parse("a/b:dhcp") < 0);
	CHECK_STR(w.v[0], "ip=a/b:dhcp: \"a/b\" is not an interface name");
	CHECK(parse("..:dhcp") < 0);
	CHECK(parse("0123456789abcdef:dhcp") < 0);
	CHECK(parse("::::::::::::::::::::::::::::") < 0);
	char big[5000];
	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK(parse(big) < 0);
	CHECK(w.n == 1);
}

static void test_cmdline_all(void)
{
	struct cmdline c = { 0 };
	struct net_cmdline n;

	cmdline_parse(&c, "ip=eth0:dhcp nfsaddrs=10.0.0.5:::24::eth1:none ip=bogus ifname=lan0:52:54:00:aa:bb:cc "
			  "BOOTIF=01-52-54-00-aa-bb-cc rd.neednet nameserver=10.0.0.53 nameserver=[2001:db8::53] "
			  "nameserver=x rd.peerdns=0 ifname=bad");
	net_cmdline_parse(&n, &c);
	CHECK(n.n_ip == 2);
	CHECK_STR(n.ip[0].device, "eth0");
	CHECK_STR(n.ip[1].device, "eth1");
	CHECK(n.n_ifname == 1);
	CHECK_STR(n.ifname[0].name, "lan0");
	CHECK(n.ifname[0].mac[5] == 0xcc);
	CHECK(n.has_bootif && n.bootif[0] == 0x52 && n.bootif[5] == 0xcc);
	CHECK(n.neednet);
	CHECK(!n.peerdns);
	CHECK(n.n_nameserver == 2);
	CHECK(n.nameserver[1].family == AF_INET6);
	CHECK(n.warnings.n == 3);
	CHECK_STR(n.warnings.v[0], "ip=bogus: \"bogus\" is neither an autoconfiguration method nor an IP address");
	CHECK_STR(n.warnings.v[1], "nameserver=x: \"x\" is not an IP address");
	CHECK_STR(n.warnings.v[2], "ifname=bad: needs NAME:MAC");
	net_cmdline_free(&n);
	cmdline_free(&c);

	memset(&c, 0, sizeof(c));
	cmdline_parse(&c, "BOOTIF=01-52-54-00-aa-bb-cc rd.bootif=0 BOOTIF=zz ifname=eth0:zz rd.neednet=maybe");
	net_cmdline_parse(&n, &c);
	CHECK(!n.has_bootif);
	CHECK(n.peerdns);
	CHECK(n.warnings.n == 3);
	CHECK_STR(n.warnings.v[0], "BOOTIF=zz: \"zz\" is not 01-MAC");
	CHECK_STR(n.warnings.v[1], "ifname=eth0:zz: \"zz\" is not a MAC address");
	CHECK_STR(n.warnings.v[2], "rd.neednet=maybe: \"maybe\" is not 0 or 1");
	net_cmdline_free(&n);
	cmdline_free(&c);
}

static void test_addr_helpers(void)
{
	struct in_addr a;
	uint8_t mac[6];
	CHECK(net_parse_ipv4("0.0.0.0", &a) == 0);
	CHECK(net_parse_ipv4("255.255.255.255", &a) == 0);
	CHECK(net_parse_ipv4("1.2.3", &a) < 0);
	CHECK(net_parse_ipv4("1.2.3.4.", &a) < 0);
	CHECK(net_parse_ipv4("1.2.3.4 ", &a) < 0);
	CHECK(net_parse_ipv4("1..3.4", &a) < 0);
	CHECK(net_parse_ipv4("1.2.3.1000", &a) < 0);
	CHECK(net_parse_prefix("255.255.255.252", AF_INET) == 30);
	CHECK(net_parse_prefix("0.0.0.0", AF_INET) == 0);
	CHECK(net_parse_prefix("33", AF_INET) < 0);
	CHECK(net_parse_prefix("128", AF_INET6) == 128);
	CHECK(net_parse_mac("52:54:00:12:34:5", mac) < 0);
	CHECK(net_parse_mac("52:54-00:12:34:56", mac) < 0);
	CHECK(net_parse_mac("52:54:00:12:34:56:", mac) < 0);
	/* Found by fuzz_ipconf: read past the end after one byte. */
	CHECK(net_parse_mac("56", mac) < 0);
	CHECK(net_parse_mac("5654", mac) < 0);
}

int main(void)
{
	RUN(test_kernel_full);
	RUN(test_kernel_sparse);
	RUN(test_methods_alone);
	RUN(test_dracut_iface);
	RUN(test_dracut_static_mtu_mac);
	RUN(test_ipv6_brackets);
	RUN(test_ipv6_methods);
	RUN(test_bad_values);
	RUN(test_hostile_device);
	RUN(test_cmdline_all);
	RUN(test_addr_helpers);
	ip_conf_free(&ip);
	strv_free(&w);
	return test_done();
}
