// SPDX-License-Identifier: GPL-2.0-or-later
/* The network with several interfaces each named by its own ip=
 * (netup.c), against fake_ops: each configured and kept, and the
 * network's on_up (an iSCSI login) only once all have their addresses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_net.h"
#include "init/init.h"
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

int main(void)
{
	RUN(test_two_named);
	fake_boot_remove_ext4();
	return test_done();
}
