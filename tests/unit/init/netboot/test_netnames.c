// SPDX-License-Identifier: GPL-2.0-or-later
/* Servers by name, against fake_ops: once DHCP has given the address,
 * the DNS server it names (option 6) is asked over the fake UDP socket
 * with its domain (option 15) as the search list, and the root's
 * mount or login gets the address; a name nobody resolves fails with
 * the interface, the family, the servers asked and what each said. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_dns.h"
#include "init/init.h"
#include "init/net/dns_msg.h"
#include "test.h"

static void test_nfs_server_by_name(void)
{
	struct fake_ops *f;
	struct init in;
	int i;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_dns_setup("root=nfs:nfsserver:/srv/root ip=dhcp rd.timeout=5 rd.shell=0", 1);
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) == 0);
	/* the search list's name first (no dot in it), then the mount */
	const char *order[] = {
		"netlink addr add 2 10.0.2.15/24",
		"socket 2 2 0",
		"udp-send 10.0.2.3:53 32",
		"close udp",
		"mount 10.0.2.100:/srv/root /sysroot nfs",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	i = fake_log_find_prefix(f, "mount 10.0.2.100:/srv/root", 0);
	CHECK(i >= 0 && strstr(f->log.v[i], "addr=10.0.2.100"));
	CHECK(fake_log_count(f, "udp-send") == 1);
	CHECK(fake_boot_logged("eth0: nfsserver is 10.0.2.100"));
	if (!fake_log_in_order(f, order, ARRAY_SIZE(order)))
		fake_log_dump(f);
	init_free(&in);
	fake_ops_free(f);
}

static void test_iscsi_server_by_name(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_dns_setup("root=UUID=" UUID " rd.timeout=5 rd.shell=0 rd.iscsi.initiator=iqn.x:me "
		  "netroot=iscsi:iscsi.test::::iqn.2026-12.test:root", 1);
	fake_net_tool(f, "/usr/sbin/iscsistart");
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) == 0);
	CHECK(fake_log_find_prefix(f, "run /usr/sbin/iscsistart -i iqn.x:me -t iqn.2026-12.test:root -g 1 "
				   "-a 10.0.2.50 -p 3260", 0) >= 0);
	init_free(&in);
	fake_ops_free(f);
}

/* root=iscsi:NAME…: the disk waited for is named by the address */
static void test_iscsi_root_spec_by_name(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_dns_setup("root=iscsi:iscsi.test::::iqn.2026-12.test:root rd.timeout=3 rd.shell=0 panic=1", 1);
	fake_net_tool(f, "/usr/sbin/iscsistart");
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) < 0);
	CHECK(fake_log_find_prefix(f, "run /usr/sbin/iscsistart -i iqn.2026-12.org.uniramfs:initiator -t "
				   "iqn.2026-12.test:root -g 1 -a 10.0.2.50 -p 3260", 0) >= 0);
	CHECK(fake_boot_logged("root device root=/dev/disk/by-path/ip-10.0.2.50:3260-iscsi-iqn.2026-12.test:root-lun-0 "
			       "did not appear"));
	init_free(&in);
	fake_ops_free(f);
}

/* nameserver= is asked first and is silent; DHCP's says there is no
 * such name, for the name and for it in the search domain. */
static void test_name_not_found(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_dns_setup("root=nfs:nosuch.test:/srv/root nameserver=10.0.2.4 rd.timeout=30 rd.shell=0 panic=1", 1);
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) < 0);
	CHECK(fake_boot_logged("<3>NFS: not mounted: eth0: cannot resolve nosuch.test (IPv4): 10.0.2.4: no answer; "
			       "10.0.2.3: no such name (NXDOMAIN) for nosuch.test, no such name (NXDOMAIN) for "
			       "nosuch.test.test\n"));
	CHECK(fake_log_count(f, "mount ") == 0 || fake_log_find_prefix(f, "mount nosuch", 0) < 0);
	CHECK(fake_log_find_prefix(f, "mount 10.0.2", 0) < 0);
	CHECK(fake_log_count(f, "udp-send 10.0.2.4:53") == 2 && fake_log_count(f, "udp-send 10.0.2.3:53") == 2);
	CHECK(fake_log_count(f, "close udp") == 1);
	init_free(&in);
	fake_ops_free(f);
}

int main(void)
{
	RUN(test_nfs_server_by_name);
	RUN(test_iscsi_server_by_name);
	RUN(test_iscsi_root_spec_by_name);
	RUN(test_name_not_found);
	fake_boot_remove_ext4();
	return test_done();
}
