// SPDX-License-Identifier: GPL-2.0-or-later
/* The network with several interfaces each named by its own ip=
 * (netup.c), against fake_ops: each configured and kept, and the
 * network's on_up (an iSCSI login) only once all have their addresses. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_net.h"
#include "init/init.h"
#include "init/net/rawudp.h"
#include "test.h"


/* fake_net's machine with two NICs: eth0 (index 2, MAC
 * 52:54:00:12:34:56) and eth1 (index 3, MAC ...:57). */
static struct fake_ops *setup(const char *cmdline)
{
	return fake_net_setup(cmdline, 2);
}

/* dracut's TEST-71: two NICs each with its own ip=, a target behind
 * each: both configured, neither taken down, and the logins only once
 * both have their addresses (each target's route is there). */
static void test_two_named(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = setup("root=UUID=" UUID " rd.timeout=5 rd.shell=0 "
		  "ip=192.168.50.101:::255.255.255.0::eth0:off ip=192.168.51.101::192.168.51.1:255.255.255.0::eth1:off "
		  "netroot=iscsi:192.168.51.1::::iqn.t:target1 netroot=iscsi:192.168.50.1::::iqn.t:target2 "
		  "rd.iscsi.initiator=iqn.t:me rd.iscsi.waitnet=0 rd.iscsi.testroute=0");
	CHECK(fake_net_run(f, &in) == 0);
	int login = fake_log_find_prefix(f, "run /usr/sbin/iscsistart", 0);
	/* the interfaces in the order sysfs lists them, both before any login */
	CHECK(login > fake_log_find(f, "netlink addr add 2 192.168.50.101/24"));
	CHECK(login > fake_log_find(f, "netlink addr add 3 192.168.51.101/24"));
	CHECK(login > fake_log_find(f, "netlink route 3 via 192.168.51.1"));
	CHECK(fake_log_find(f, "netlink addr add 2 192.168.50.101/24") >= 0);
	const char *order[] = {
		"run /usr/sbin/iscsistart -i iqn.t:me -t iqn.t:target2 -g 1 -a 192.168.50.1 -p 3260",
		"run /usr/sbin/iscsistart -i iqn.t:me -t iqn.t:target1 -g 1 -a 192.168.51.1 -p 3260",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "netlink link 2 down") == 0);
	CHECK(fake_log_count(f, "netlink link 3 down") == 0);
	CHECK(fake_boot_logged("<6>eth0: 192.168.50.101/24 as ip=192.168.50.101:::255.255.255.0::eth0:off says\n"));
	CHECK(fake_boot_logged("<6>eth1: 192.168.51.101/24 as ip=192.168.51.101::192.168.51.1:255.255.255.0::eth1:off "
			       "says\n"));
	init_free(&in);
	fake_ops_free(f);
}

/* A DHCP server on each wire, as QEMU's user networks of TEST-70:
 * eth0 (index 2) gets 192.168.50.15/24 from .2, eth1 (index 3)
 * 192.168.51.15/24; answer_on: the indexes that answer (a bit each). */
static unsigned answer_on;

static void two_dhcp(struct fake_ops *f, int ifindex, const void *frame, size_t len)
{
	const uint8_t *rq;
	size_t rlen, n = 240;
	const char *why;
	uint8_t m[400] = { 0 }, out[600];
	struct in_addr yi, srv, bcast = { INADDR_BROADCAST };
	const char *net = ifindex == 2 ? "192.168.50" : "192.168.51";
	char a[32];
	int type = 0;

	if (!(answer_on & (1u << ifindex)) || rawudp_parse(frame, len, 67, &rq, &rlen, &why) < 0 || rlen < 244)
		return;
	for (size_t i = 240; i + 2 < rlen && rq[i] != 255; i += 2 + rq[i + 1])
		if (rq[i] == 53)
			type = rq[i + 2];
	snprintf(a, sizeof(a), "%s.15", net);
	inet_pton(AF_INET, a, &yi);
	snprintf(a, sizeof(a), "%s.2", net);
	inet_pton(AF_INET, a, &srv);
	m[0] = 2, m[1] = 1, m[2] = 6;
	memcpy(m + 4, rq + 4, 4);
	memcpy(m + 16, &yi, 4);
	memcpy(m + 28, rq + 28, 6);
	memcpy(m + 236, "\x63\x82\x53\x63", 4);
	m[n++] = 53, m[n++] = 1, m[n++] = type == 1 ? 2 : 5;
	m[n++] = 54, m[n++] = 4, memcpy(m + n, &srv, 4), n += 4;
	m[n++] = 1, m[n++] = 4, memcpy(m + n, "\xff\xff\xff\x00", 4), n += 4;
	m[n++] = 3, m[n++] = 4, memcpy(m + n, &srv, 4), n += 4;
	m[n++] = 51, m[n++] = 4, memcpy(m + n, "\x00\x00\x0e\x10", 4), n += 4;
	m[n++] = 255;
	fake_packet_on(f, ifindex, out, rawudp_build(out, sizeof(out), srv, 67, bcast, 68, m, n));
}

#define TWO_TARGETS "netroot=iscsi:192.168.51.1::::iqn.t:target1 netroot=iscsi:192.168.50.1::::iqn.t:target2 " \
		    "rd.iscsi.initiator=iqn.t:me "

static struct fake_ops *setup_two_dhcp(const char *cmdline, unsigned on)
{
	struct fake_ops *f = setup(cmdline);

	f->on_packet = two_dhcp;
	answer_on = on;
	return f;
}

/* dracut's TEST-70 "netroot=iscsi target1 target2": a bare ip=dhcp,
 * a target on each wire: both leases kept, both logins after both. */
static void test_dhcp_two_targets(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = setup_two_dhcp("root=UUID=" UUID " rd.timeout=5 rd.shell=0 ip=dhcp " TWO_TARGETS, 1u << 2 | 1u << 3);
	CHECK(fake_net_run(f, &in) == 0);
	int login = fake_log_find_prefix(f, "run /usr/sbin/iscsistart", 0);
	CHECK(login > fake_log_find(f, "netlink addr add 2 192.168.50.15/24"));
	CHECK(login > fake_log_find(f, "netlink addr add 3 192.168.51.15/24"));
	CHECK(fake_log_find(f, "netlink addr add 2 192.168.50.15/24") >= 0);
	CHECK(fake_log_find_prefix(f, "run /usr/sbin/iscsistart -i iqn.t:me -t iqn.t:target1 ", 0) > 0);
	CHECK(fake_log_find_prefix(f, "run /usr/sbin/iscsistart -i iqn.t:me -t iqn.t:target2 ", 0) > 0);
	CHECK(fake_log_count(f, "execve /sbin/init") == 1);
	CHECK(fake_log_count(f, "netlink link 2 down") == 0);
	CHECK(fake_log_count(f, "netlink link 3 down") == 0);
	CHECK(fake_boot_logged("<6>eth0: 192.168.50.15/24 from DHCP server 192.168.50.2\n"));
	CHECK(fake_boot_logged("<6>eth1: 192.168.51.15/24 from DHCP server 192.168.51.2\n"));
	init_free(&in);
	fake_ops_free(f);
}

/* One target: the first lease wins, the other NIC goes down, as before. */
static void test_dhcp_one_target(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = setup_two_dhcp("root=UUID=" UUID " rd.timeout=5 rd.shell=0 ip=dhcp "
			   "netroot=iscsi:192.168.50.1::::iqn.t:target2 rd.iscsi.initiator=iqn.t:me",
			   1u << 2 | 1u << 3);
	CHECK(fake_net_run(f, &in) == 0);
	/* sysfs lists eth1 first here: its lease comes first and wins */
	CHECK(fake_log_find(f, "netlink addr add 3 192.168.51.15/24") >= 0);
	CHECK(fake_log_find(f, "netlink link 2 down") >= 0);
	CHECK(fake_log_count(f, "netlink addr add 2 ") == 0);
	init_free(&in);
	fake_ops_free(f);
}

/* The second wire's DHCP is silent: the logins wait until it gives up,
 * then the first target logs in; nothing reaches the second. */
static void test_dhcp_one_wire_silent(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = setup_two_dhcp("root=UUID=" UUID " rd.timeout=900 rd.shell=0 ip=dhcp " TWO_TARGETS, 1u << 2);
	fake_net_run(f, &in);
	int login = fake_log_find_prefix(f, "run /usr/sbin/iscsistart", 0);
	CHECK(login > fake_log_find(f, "netlink addr add 2 192.168.50.15/24"));
	CHECK(fake_boot_logged("eth1: IPv4: no DHCP lease: "));
	CHECK(fake_log_count(f, "netlink addr add 3") == 0);
	init_free(&in);
	fake_ops_free(f);
}

/* rd.iscsi.waitnet=1: every interface settles before the logins, even
 * when each target's route is already there (here eth1 never answers). */
static void test_waitnet(void)
{
	struct fake_ops *f;
	struct init in;
	int login, gaveup;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	/* eth0's subnet reaches both targets (.50.1 twice): waitnet=0 logs
	 * in at eth0's lease, waitnet=1 after eth1 gave up */
	for (int wait = 0; wait < 2; wait++) {
		char cmd[400];
		snprintf(cmd, sizeof(cmd), "root=UUID=" UUID " rd.timeout=900 rd.shell=0 ip=dhcp "
			 "netroot=iscsi:192.168.50.1::::iqn.t:a netroot=iscsi:192.168.50.1::::iqn.t:b "
			 "rd.iscsi.initiator=iqn.t:me rd.iscsi.waitnet=%d", wait);
		f = setup_two_dhcp(cmd, 1u << 2);
		fake_net_run(f, &in);
		login = fake_log_find_prefix(f, "run /usr/sbin/iscsistart", 0);
		gaveup = fake_log_find_prefix(f, "close packet-socket", 0);
		CHECK(login > 0 && gaveup > 0);
		CHECK(wait ? login > gaveup : login < gaveup);
		init_free(&in);
		fake_ops_free(f);
	}
}

int main(void)
{
	RUN(test_two_named);
	RUN(test_dhcp_two_targets);
	RUN(test_dhcp_one_target);
	RUN(test_dhcp_one_wire_silent);
	RUN(test_waitnet);
	fake_boot_remove_ext4();
	return test_done();
}
