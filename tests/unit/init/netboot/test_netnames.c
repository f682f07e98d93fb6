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

#include "fake_boot.h"
#include "init/init.h"
#include "init/net/dns_msg.h"
#include "init/net/rawudp.h"
#include "test.h"

static int x_run(const char *path, char *const argv[], char *const envp[], const void *input, size_t len)
{
	struct buf b = { 0 };

	(void)envp;
	(void)input;
	(void)len;
	buf_printf(&b, "run %s", path);
	for (size_t i = 1; argv[i]; i++)
		buf_printf(&b, " %s", argv[i]);
	strv_push(&fake_boot_tree->log, b.p);
	buf_free(&b);
	return 0;
}

static const struct initops fake_initops = {
	.run = x_run,
	.uname_release = fake_boot_uname,
	.free_initramfs = fake_free_initramfs,
	.reboot = fake_reboot,
	.spawn = fake_boot_spawn,
};

#define NIC "/sys/devices/pci0000:00/0000:00:03.0"

/* DHCP: 10.0.2.15/24 from 10.0.2.2, DNS 10.0.2.3, domain "test". */
static void dhcp_server(struct fake_ops *f, int ifindex, const void *frame, size_t len)
{
	const uint8_t *rq;
	size_t rlen, n = 240;
	const char *why;
	uint8_t m[400] = { 0 }, out[600];
	struct in_addr yi, srv, dns, bcast = { INADDR_BROADCAST };
	int type = 0;

	(void)ifindex;
	if (rawudp_parse(frame, len, 67, &rq, &rlen, &why) < 0 || rlen < 244)
		return;
	for (size_t i = 240; i + 2 < rlen && rq[i] != 255; i += 2 + rq[i + 1])
		if (rq[i] == 53)
			type = rq[i + 2];
	inet_pton(AF_INET, "10.0.2.15", &yi);
	inet_pton(AF_INET, "10.0.2.2", &srv);
	inet_pton(AF_INET, "10.0.2.3", &dns);
	m[0] = 2, m[1] = 1, m[2] = 6;
	memcpy(m + 4, rq + 4, 4);
	memcpy(m + 16, &yi, 4);
	memcpy(m + 28, rq + 28, 6);
	memcpy(m + 236, "\x63\x82\x53\x63", 4);
	m[n++] = 53, m[n++] = 1, m[n++] = type == 1 ? 2 : 5;
	m[n++] = 54, m[n++] = 4, memcpy(m + n, &srv, 4), n += 4;
	m[n++] = 1, m[n++] = 4, memcpy(m + n, "\xff\xff\xff\x00", 4), n += 4;
	m[n++] = 51, m[n++] = 4, memcpy(m + n, "\x00\x00\x0e\x10", 4), n += 4;
	m[n++] = 6, m[n++] = 4, memcpy(m + n, &dns, 4), n += 4;
	m[n++] = 15, m[n++] = 4, memcpy(m + n, "test", 4), n += 4;
	m[n++] = 255;
	fake_packet(f, out, rawudp_build(out, sizeof(out), srv, 67, bcast, 68, m, n));
}

/* The DNS server at 10.0.2.3 knows nfsserver.test and iscsi.test; any
 * other server is silent. */
static void dns_server(struct fake_ops *f, const struct sockaddr_in *to, const void *buf, size_t len)
{
	uint8_t a[600];
	char name[DNS_NAME_TEXT];
	size_t off = 12;
	const char *why, *ip = NULL;
	struct in_addr known;

	inet_pton(AF_INET, "10.0.2.3", &known);
	if (to->sin_addr.s_addr != known.s_addr || ntohs(to->sin_port) != 53 || len > 300 ||
	    dns_name_read(buf, len, &off, name, &why) < 0)
		return;
	if (!strcmp(name, "nfsserver.test"))
		ip = "10.0.2.100";
	else if (!strcmp(name, "iscsi.test"))
		ip = "10.0.2.50";
	memcpy(a, buf, len);
	a[2] |= 0x80;
	a[3] = ip ? 0x80 : 0x83;
	if (ip) {
		struct in_addr v;
		inet_pton(AF_INET, ip, &v);
		a[7] = 1;
		memcpy(a + len, "\xc0\x0c\0\1\0\1\0\0\0\x3c\0\4", 12);
		memcpy(a + len + 12, &v, 4);
		len += 16;
	}
	fake_udp(f, "10.0.2.3", 53, a, len);
}

static struct fake_ops *setup(const char *cmdline)
{
	struct fake_ops *f = fake_boot_setup(cmdline);
	char *dep = fake_boot_read(f, MODDIR "/modules.dep"), *al = fake_boot_read(f, MODDIR "/modules.alias");
	char *t;

	fake_write(f, MODDIR "/kernel/drivers/net/virtio_net.ko", "");
	fake_write(f, MODDIR "/kernel/fs/nfs/nfs.ko", "");
	t = xasprintf("%skernel/drivers/net/virtio_net.ko:\nkernel/fs/nfs/nfs.ko:\n", dep);
	fake_write(f, MODDIR "/modules.dep", t);
	free(t);
	t = xasprintf("%salias virtio:d00000001v* virtio_net\n", al);
	fake_write(f, MODDIR "/modules.alias", t);
	free(t);
	free(dep);
	free(al);
	fake_write(f, NIC "/virtio2/modalias", "virtio:d00000001v00001AF4\n");
	fake_symlink(f, "../../../../bus/virtio", NIC "/virtio2/subsystem");
	fake_write(f, "/sys/class/net/eth0/type", "1\n");
	fake_write(f, "/sys/class/net/eth0/ifindex", "2\n");
	fake_write(f, "/sys/class/net/eth0/address", "52:54:00:12:34:56\n");
	f->on_packet = dhcp_server;
	f->pkt_ifindex = 2;
	f->on_udp = dns_server;
	return f;
}

static void test_nfs_server_by_name(void)
{
	struct fake_ops *f;
	struct init in;
	int i;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = setup("root=nfs:nfsserver:/srv/root ip=dhcp rd.timeout=5 rd.shell=0");
	CHECK(fake_boot_run(f, &in, &fake_initops, fake_boot_kernel_env) == 0);
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
	f = setup("root=UUID=" UUID " rd.timeout=5 rd.shell=0 rd.iscsi.initiator=iqn.x:me "
		  "netroot=iscsi:iscsi.test::::iqn.2026-12.test:root");
	fake_write(f, "/usr/sbin/iscsistart", "");
	{
		char *p = fake_path(f, "/usr/sbin/iscsistart");
		chmod(p, 0755);
		free(p);
	}
	CHECK(fake_boot_run(f, &in, &fake_initops, fake_boot_kernel_env) == 0);
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
	f = setup("root=iscsi:iscsi.test::::iqn.2026-12.test:root rd.timeout=3 rd.shell=0 panic=1");
	fake_write(f, "/usr/sbin/iscsistart", "");
	{
		char *p = fake_path(f, "/usr/sbin/iscsistart");
		chmod(p, 0755);
		free(p);
	}
	CHECK(fake_boot_run(f, &in, &fake_initops, fake_boot_kernel_env) < 0);
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
	f = setup("root=nfs:nosuch.test:/srv/root nameserver=10.0.2.4 rd.timeout=30 rd.shell=0 panic=1");
	CHECK(fake_boot_run(f, &in, &fake_initops, fake_boot_kernel_env) < 0);
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
