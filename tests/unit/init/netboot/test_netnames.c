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

/* root=dhcp: a name inside DHCP's root-path is resolved as the
 * command line's are, then the root-path is read with the address. */
static void test_rootpath_nfs_name(void)
{
	struct fake_ops *f;
	struct init in;
	int i;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	fake_dns_root_path = "nfs:nfsserver.test:/srv/root";
	f = fake_dns_setup("root=dhcp ip=dhcp rd.timeout=5 rd.shell=0", 1);
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) == 0);
	i = fake_log_find_prefix(f, "mount 10.0.2.100:/srv/root /sysroot nfs", 0);
	CHECK(i >= 0 && strstr(f->log.v[i], "addr=10.0.2.100"));
	CHECK(fake_boot_logged("eth0: resolving nfsserver.test (IPv4)"));
	CHECK(fake_boot_logged("eth0: nfsserver.test is 10.0.2.100"));
	CHECK(fake_boot_logged("root-path nfs:10.0.2.100:/srv/root from DHCP"));
	init_free(&in);
	fake_ops_free(f);
	fake_dns_root_path = NULL;
}

/* iscsi: and the CHAP part before the '@': the server after it */
static void test_rootpath_iscsi_name(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	fake_dns_root_path = "iscsi:alice:s3cret@iscsi.test::3261:1:iqn.2026-12.test:root";
	f = fake_dns_setup("root=dhcp ip=dhcp rd.timeout=3 rd.shell=0 panic=1 rd.iscsi.initiator=iqn.x:me", 1);
	fake_net_tool(f, "/usr/sbin/iscsistart");
	fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env);
	CHECK(fake_log_find_prefix(f, "run /usr/sbin/iscsistart -i iqn.x:me -t iqn.2026-12.test:root -g 1 "
				   "-a 10.0.2.50 -p 3261 -u alice -w s3cret", 0) >= 0);
	CHECK(fake_boot_logged("eth0: iscsi.test is 10.0.2.50"));
	init_free(&in);
	fake_ops_free(f);
	fake_dns_root_path = NULL;
}

/* A root-path naming a server nobody knows: the NFS failure says the
 * name, the family and what the server answered; nothing is mounted. */
static void test_rootpath_name_not_found(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	fake_dns_root_path = "nfs:nosuch.test:/srv/root";
	f = fake_dns_setup("root=dhcp ip=dhcp rd.timeout=30 rd.shell=0 panic=1", 1);
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) < 0);
	CHECK(fake_boot_logged("<3>NFS: not mounted: eth0: cannot resolve nosuch.test (IPv4): 10.0.2.3: no such "
			       "name (NXDOMAIN) for nosuch.test, no such name (NXDOMAIN) for nosuch.test.test\n"));
	CHECK(fake_log_find_prefix(f, "mount ", 0) < 0 || fake_log_find_prefix(f, "mount nosuch", 0) < 0);
	CHECK(fake_log_find_prefix(f, "mount 10.0.2", 0) < 0);
	init_free(&in);
	fake_ops_free(f);
	fake_dns_root_path = NULL;
}

/* Addresses and what is not a name stay as they are: no DNS asked. */
static void test_rootpath_address_untouched(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	fake_dns_root_path = "10.0.2.100:/srv/root";
	f = fake_dns_setup("root=dhcp ip=dhcp rd.timeout=5 rd.shell=0", 1);
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) == 0);
	CHECK(fake_log_find_prefix(f, "mount 10.0.2.100:/srv/root /sysroot nfs", 0) >= 0);
	CHECK(fake_log_count(f, "socket 2 2 0") == 0);
	init_free(&in);
	fake_ops_free(f);
	fake_dns_root_path = NULL;
}

/* An IPv6 DNS server at fd00::3 that knows nfsserver.test as fd00::64
 * (AAAA only: an A question is refused), or answers with aaaa_answer. */
static const char *aaaa_answer = "fd00::64";

static void dns6_server(struct fake_ops *f, const struct sockaddr_in6 *to, const void *buf, size_t len)
{
	uint8_t a[600];
	char name[DNS_NAME_TEXT], t[INET6_ADDRSTRLEN];
	size_t off = 12;
	const char *why;
	const uint8_t *q = buf;

	if (ntohs(to->sin6_port) != 53 || strcmp(inet_ntop(AF_INET6, &to->sin6_addr, t, sizeof(t)), "fd00::3") ||
	    len > 300 || dns_name_read(buf, len, &off, name, &why) < 0 || off + 4 > len)
		return;
	memcpy(a, buf, len);
	a[2] |= 0x80;
	a[3] = 0x80;
	if (q[off + 1] != DNS_TYPE_AAAA) {
		a[3] |= DNS_REFUSED;
	} else if (!strcmp(name, "nfsserver.test")) {
		a[7] = 1;
		memcpy(a + len, "\xc0\x0c\0\x1c\0\1\0\0\0\x3c\0\x10", 12);
		inet_pton(AF_INET6, aaaa_answer, a + len + 12);
		len += 28;
	} else {
		a[3] |= DNS_NXDOMAIN;
	}
	fake_udp6(f, "fd00::3", 53, a, len);
}

#define V6_BOOT "ip=[fd00::15]::[fd00::1]:64::eth0:none:[fd00::3] rd.shell=0 panic=1"

/* An IPv6 boot asks AAAA of its IPv6 DNS server over an IPv6 socket;
 * the NFS server's address goes into the mount in brackets. */
static void test_aaaa_over_ipv6(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_dns_setup("root=nfs4:nfsserver.test:/srv/root rd.timeout=5 " V6_BOOT, 1);
	f->on_udp6 = dns6_server;
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) == 0);
	CHECK(fake_boot_logged("eth0: resolving nfsserver.test (IPv6)"));
	CHECK(fake_boot_logged("eth0: nfsserver.test is fd00::64"));
	CHECK(fake_log_find_prefix(f, "socket 10 2 0", 0) >= 0);
	CHECK(fake_log_count(f, "socket 2 2 0") == 0);
	CHECK(fake_log_find_prefix(f, "mount [fd00::64]:/srv/root /sysroot nfs 0x1 vers=4.2,clientaddr=fd00::15,"
				   "addr=fd00::64", 0) >= 0);
	init_free(&in);
	fake_ops_free(f);
}

/* A hostile AAAA (an IPv4-mapped address) is a broken answer, said. */
static void test_aaaa_mapped_refused(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	aaaa_answer = "::ffff:10.0.2.100";
	f = fake_dns_setup("root=nfs4:nfsserver.test:/srv/root rd.timeout=30 " V6_BOOT, 1);
	f->on_udp6 = dns6_server;
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) < 0);
	CHECK(fake_boot_logged("<3>NFS: not mounted: eth0: cannot resolve nfsserver.test (IPv6): fd00::3: a broken "
			       "answer (an address no server has (unspecified, broadcast, multicast or IPv4-mapped)) "
			       "for nfsserver.test, no answer\n"));
	CHECK(fake_log_find_prefix(f, "mount ", 0) < 0 || fake_log_find_prefix(f, "mount [", 0) < 0);
	init_free(&in);
	fake_ops_free(f);
	aaaa_answer = "fd00::64";
}

int main(void)
{
	RUN(test_nfs_server_by_name);
	RUN(test_iscsi_server_by_name);
	RUN(test_iscsi_root_spec_by_name);
	RUN(test_name_not_found);
	RUN(test_rootpath_nfs_name);
	RUN(test_rootpath_iscsi_name);
	RUN(test_rootpath_name_not_found);
	RUN(test_rootpath_address_untouched);
	RUN(test_aaaa_over_ipv6);
	RUN(test_aaaa_mapped_refused);
	fake_boot_remove_ext4();
	return test_done();
}
