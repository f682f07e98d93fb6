// SPDX-License-Identifier: GPL-2.0-or-later
/* Several interfaces configured, a root on the network: before
 * switch_root only those on a root server's subnet stay up. */
#include <stdio.h>
#include <string.h>

#include "fake_dns.h"
#include "init/init.h"
#include "test.h"

#define TWO_IPS "ip=192.168.50.101:::255.255.255.0::eth0:off ip=192.168.51.101:::255.255.255.0::eth1:off "

static void test_other_goes_down(void)
{
	struct fake_ops *f;
	struct init in;
	int stop;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_dns_setup("root=nfs:192.168.51.1:/root rd.timeout=5 rd.shell=0 " TWO_IPS, 2);
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) == 0);
	stop = fake_log_find_prefix(f, "mount 192.168.51.1:/root /sysroot nfs", 0);
	CHECK(stop >= 0);
	CHECK(fake_log_find_prefix(f, "netlink addr del 2 192.168.50.101/24", stop) > stop);
	CHECK(fake_log_find_prefix(f, "netlink link 2 down", stop) > stop);
	CHECK(fake_log_count(f, "netlink link 3 down") == 0 && fake_log_count(f, "netlink addr del 3") == 0);
	CHECK(fake_boot_logged("<6>eth0: down (192.168.50.101/24): the root's server is reached through eth1\n"));
	init_free(&in);
	fake_ops_free(f);
}

/* A server behind a router: no interface is judged, both stay. */
static void test_routed_server_keeps_all(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_dns_setup("root=nfs:10.9.9.9:/root rd.timeout=5 rd.shell=0 " TWO_IPS, 2);
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) == 0);
	CHECK(fake_log_count(f, "netlink link 2 down") == 0 && fake_log_count(f, "netlink link 3 down") == 0);
	init_free(&in);
	fake_ops_free(f);
}

int main(void)
{
	RUN(test_other_goes_down);
	RUN(test_routed_server_keeps_all);
	fake_boot_remove_ext4();
	return test_done();
}
