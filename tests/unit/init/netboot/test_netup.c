// SPDX-License-Identifier: GPL-2.0-or-later
/* The boot with the network, against fake_ops: rtnetlink requests and the
 * DHCP exchange through the fake sockets, an NFS root, the network kept
 * or brought down before switch_root, and a boot that needs no network
 * never opening a socket. */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_net.h"
#include "init/init.h"
#include "init/core/kmsg.h"
#include "init/net/rawudp.h"
#include "test.h"
#include <arpa/inet.h>

#define NIC "/sys/devices/pci0000:00/0000:00:03.0"

/* fake_net's machine with one NIC (eth0, index 2), and nfs and nfsv4 in
 * the image. */
static struct fake_ops *setup_net(const char *cmdline)
{
	struct fake_ops *f = fake_net_setup(cmdline, 1);

	fake_net_module(f, "kernel/fs/nfs/nfs.ko", NULL);
	fake_net_module(f, "kernel/fs/nfs/nfsv4.ko", "kernel/fs/nfs/nfs.ko");
	return f;
}

/* A DHCP server on the fake wire: OFFER for a DISCOVER, ACK for a
 * REQUEST, 10.0.2.15/24 from 10.0.2.2 with a root-path. */
static int dhcp_answers;
static int dhcp_nak; /* NAK every REQUEST */
static const char *dhcp_root_path = "10.0.2.100:/nfsrt";

static void dhcp_server(struct fake_ops *f, int ifindex, const void *frame, size_t len)
{
	const uint8_t *rq;
	size_t rlen;
	const char *why;
	uint8_t m[400] = { 0 }, out[600];
	struct in_addr yi, srv, any = { 0 }, bcast = { INADDR_BROADCAST };
	size_t n = 240, flen;
	int type = 0;

	(void)ifindex;
	if (!dhcp_answers || rawudp_parse(frame, len, 67, &rq, &rlen, &why) < 0 || rlen < 244)
		return;
	for (size_t i = 240; i + 2 < rlen && rq[i] != 255; i += 2 + rq[i + 1])
		if (rq[i] == 53)
			type = rq[i + 2];
	inet_pton(AF_INET, "10.0.2.15", &yi);
	inet_pton(AF_INET, "10.0.2.2", &srv);
	m[0] = 2;
	m[1] = 1;
	m[2] = 6;
	memcpy(m + 4, rq + 4, 4); /* xid */
	memcpy(m + 16, &yi, 4);
	memcpy(m + 28, rq + 28, 6);
	memcpy(m + 236, "\x63\x82\x53\x63", 4);
	m[n++] = 53, m[n++] = 1, m[n++] = type == 1 ? 2 : dhcp_nak ? 6 : 5;
	m[n++] = 54, m[n++] = 4, memcpy(m + n, &srv, 4), n += 4;
	m[n++] = 1, m[n++] = 4, memcpy(m + n, "\xff\xff\xff\x00", 4), n += 4;
	m[n++] = 51, m[n++] = 4, memcpy(m + n, "\x00\x00\x0e\x10", 4), n += 4;
	m[n++] = 17, m[n++] = (uint8_t)strlen(dhcp_root_path);
	memcpy(m + n, dhcp_root_path, strlen(dhcp_root_path)), n += strlen(dhcp_root_path);
	m[n++] = 255;
	(void)any;
	flen = rawudp_build(out, sizeof(out), srv, 67, bcast, 68, m, n);
	fake_packet(f, out, flen);
}

/* setup_net, and QEMU's DHCP server answering once on eth0 (ifindex 2). */
static struct fake_ops *setup_dhcp(const char *cmdline)
{
	struct fake_ops *f = setup_net(cmdline);

	f->on_packet = dhcp_server;
	f->pkt_ifindex = 2;
	dhcp_answers = 1;
	return f;
}

/* An executable the init finds in the image (the fake runs nothing). */
static void add_tool(struct fake_ops *f, const char *path)
{
	char *p;

	fake_write(f, path, "");
	p = fake_path(f, path);
	chmod(p, 0755);
	free(p);
}

static void test_no_network(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = setup_net("root=UUID=" UUID " rd.timeout=5");
	CHECK(fake_net_run(f, &in) == 0);
	CHECK(fake_log_count(f, "execve /sbin/init") == 1);
	/* not one socket, not one rtnetlink request, the NIC driver left */
	CHECK(fake_log_count(f, "socket") == 0);
	CHECK(fake_log_count(f, "netlink") == 0);
	CHECK(fake_log_count(f, "finit_module virtio_net") == 0);
	init_free(&in);
	fake_ops_free(f);
}

static void test_nfs_by_dhcp(void)
{
	struct fake_ops *f;
	struct init in;
	char *t;

	f = setup_dhcp("root=nfs:10.0.2.100:/root rd.timeout=5 rd.shell=0");
	CHECK(fake_net_run(f, &in) == 0);
	const char *order[] = {
		"socket 16 3 0",
		"socket 17 2 8",
		"netlink link 2 up",
		"packet-send 2",
		"packet-send 2",
		"netlink addr add 2 10.0.2.15/24",
		/* issue 24: DHCP has settled, its raw socket goes at once */
		"close packet-socket",
		"finit_module nfs",
		"finit_module nfsv4",
		"mount 10.0.2.100:/root /sysroot nfs 0x1 vers=4.2,",
		"chroot .",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_find_prefix(f, "mount 10.0.2.100:/root /sysroot nfs 0x1 vers=4.2,", 0) >= 0 &&
	      strstr(f->log.v[fake_log_find_prefix(f, "mount 10.0.2.100:/root", 0)], "addr=10.0.2.100"));
	CHECK(fake_log_count(f, "finit_module virtio_net") == 1);
	CHECK(fake_log_count(f, "close packet-socket") == 1);
	CHECK(f->pkt_type & SOCK_CLOEXEC); /* no child ever inherits it */
	/* the root is on the network: the link stays up */
	CHECK(fake_log_count(f, "netlink link 2 down") == 0);
	CHECK(fake_log_count(f, "netlink addr del") == 0);
	CHECK(fake_boot_logged("eth0: 10.0.2.15/24 from DHCP server 10.0.2.2"));
	t = fake_boot_read(f, "/run/uniramfs/net/eth0.conf");
	CHECK(t && strstr(t, "IPV4ADDR='10.0.2.15'") && strstr(t, "ROOTPATH='10.0.2.100:/nfsrt'"));
	if (t && !strstr(t, "IPV4ADDR='10.0.2.15'"))
		printf("# %s\n", t);
	free(t);
	t = fake_boot_read(f, "/run/uniramfs/resolv.conf");
	CHECK(t != NULL);
	free(t);
	/* initramfs-tools' file, and the root's network managers told to
	 * leave the link alone */
	t = fake_boot_read(f, "/run/net-eth0.conf");
	CHECK(t && !strncmp(t, "DEVICE='eth0'\nPROTO='dhcp'\nIPV4ADDR='10.0.2.15'\n"
			       "IPV4BROADCAST='10.0.2.255'\nIPV4NETMASK='255.255.255.0'\n", 103) &&
	      strstr(t, "\nROOTPATH='10.0.2.100:/nfsrt'\n") && strstr(t, "\nDHCPLEASETIME='3600'\n"));
	free(t);
	t = fake_boot_read(f, "/run/NetworkManager/conf.d/90-uniramfs-eth0.conf");
	CHECK(t && strstr(t, "match-device=interface-name:eth0\nmanaged=0\n"));
	free(t);
	t = fake_boot_read(f, "/run/systemd/network/00-uniramfs-eth0.network");
	CHECK(t && strstr(t, "Name=eth0\n") && strstr(t, "DHCP=ipv4\nKeepConfiguration=yes\n"));
	free(t);
	init_free(&in);
	fake_ops_free(f);
}

/* root=dhcp: the root-path names the root (rw: mounted writable). */
static void test_root_path(void)
{
	struct fake_ops *f;
	struct init in;

	f = setup_dhcp("root=dhcp rw rd.timeout=5 rd.shell=0");
	CHECK(fake_net_run(f, &in) == 0);
	/* the kernel's SERVER:PATH form: NFSv3 over TCP, as its nfsroot */
	CHECK(fake_log_find_prefix(f, "mount 10.0.2.100:/nfsrt /sysroot nfs 0x0 vers=3,tcp,", 0) >= 0);
	CHECK(fake_boot_logged("root-path 10.0.2.100:/nfsrt from DHCP"));
	init_free(&in);
	fake_ops_free(f);
}

/* Issue 24: DHCP's text reaches the console and /run/uniramfs/log
 * escaped: a root-path that would clear the screen, rewrite the line
 * and forge another (ESC, CR, LF, C1's CSI) shows as \xNN. */
static void test_root_path_escaped(void)
{
	struct fake_ops *f;
	struct init in;
	char *t;

	dhcp_root_path = "10.0.2.100:/nfsrt\x1b[2J\r\n<2>uniramfs: ok\xc2\x9b" "1m";
	f = setup_dhcp("root=dhcp rw rd.timeout=5 rd.shell=0");
	CHECK(fake_net_run(f, &in) == 0);
	dhcp_root_path = "10.0.2.100:/nfsrt";
	CHECK(fake_boot_logged("root-path 10.0.2.100:/nfsrt\\x1b[2J\\x0d\\x0a<2>uniramfs: ok\\xc2\\x9b1m from DHCP"));
	t = fake_boot_read(f, "/run/uniramfs/log");
	CHECK(t && !strchr(t, '\x1b') && !strchr(t, '\r') && !strstr(t, "\n<2>uniramfs: ok"));
	free(t);
	init_free(&in);
	fake_ops_free(f);
}

/* A local root with a static ip=: configured, then down before
 * switch_root. */
static void test_static_local_down(void)
{
	struct fake_ops *f;
	struct init in;
	char *t;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = setup_net("root=UUID=" UUID " rd.timeout=5 "
		      "ip=192.168.7.9::192.168.7.1:255.255.255.0:box:eth0:off:1400");
	CHECK(fake_net_run(f, &in) == 0);
	const char *order[] = {
		"socket 17 2 8",
		"netlink link 2 up",
		"netlink addr add 2 192.168.7.9/24",
		"netlink link 2 up mtu 1400",
		"netlink route 2 via 192.168.7.1",
		/* no DHCP runs: the socket opened at the start goes */
		"close packet-socket",
		"netlink addr del 2 192.168.7.9/24",
		"netlink link 2 down",
		"chroot .",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "packet-send") == 0);
	/* initramfs-tools' file as for any configured interface, but no
	 * hand-over: the link goes down, the root's managers may have it */
	t = fake_boot_read(f, "/run/net-eth0.conf");
	CHECK(t && strstr(t, "\nPROTO='none'\nIPV4ADDR='192.168.7.9'\n") &&
	      strstr(t, "\nHOSTNAME='box'\n"));
	free(t);
	t = fake_boot_read(f, "/run/NetworkManager/conf.d/90-uniramfs-eth0.conf");
	CHECK(t == NULL);
	free(t);
	t = fake_boot_read(f, "/run/systemd/network/00-uniramfs-eth0.network");
	CHECK(t == NULL);
	free(t);
	init_free(&in);
	fake_ops_free(f);
}

/* No DHCP server: the failure report names the interface and what it
 * did not get, within rd.timeout. */
static void test_dhcp_silent(void)
{
	struct fake_ops *f;
	struct init in;

	f = setup_net("root=nfs:10.0.2.100:/root rd.timeout=20 rd.shell=0 panic=1");
	f->pkt_ifindex = 2;
	dhcp_answers = 0;
	CHECK(fake_net_run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>the network did not come up within 20 seconds\n"));
	CHECK(fake_boot_logged("<3>  eth0: no address yet\n"));
	CHECK(fake_log_count(f, "packet-send 2") >= 3);
	CHECK(fake_log_count(f, "mount 10.0.2.100") == 0);
	init_free(&in);
	fake_ops_free(f);
}

/* ip=dhcp6 and no DHCPv6 server: the listener hears eth0's link-local
 * address, SOLICITs go to port 547 on eth0's link until the client gives
 * up, and the failure names the interface, the family and that nothing
 * answered. */
static bool v6_ll_sent;

static void v6_linklocal(struct fake_ops *f)
{
	struct {
		struct nlmsghdr h;
		struct ifaddrmsg ifa;
		struct rtattr rta;
		struct in6_addr a;
	} m = { .h = { .nlmsg_len = sizeof(m), .nlmsg_type = RTM_NEWADDR },
		.ifa = { .ifa_family = AF_INET6, .ifa_prefixlen = 64, .ifa_scope = RT_SCOPE_LINK, .ifa_index = 2 },
		.rta = { .rta_len = RTA_LENGTH(sizeof(struct in6_addr)), .rta_type = IFA_ADDRESS } };

	if (f->nlmon_fd < 0 || v6_ll_sent)
		return;
	inet_pton(AF_INET6, "fe80::5054:ff:fe12:3456", &m.a);
	memcpy(f->nlmon, &m, sizeof(m));
	f->nlmon_len = sizeof(m);
	v6_ll_sent = true;
}

static void test_dhcp6_silent(void)
{
	struct fake_ops *f = setup_net("root=nfs4:[fd00::1]:/root ip=dhcp6 rd.timeout=300 rd.shell=0 panic=1");
	struct init in;

	v6_ll_sent = false;
	f->on_idle = v6_linklocal;
	CHECK(fake_net_run(f, &in) < 0);
	CHECK(fake_boot_logged("<6>eth0: IPv6: waiting for a link-local address, to ask DHCPv6 from\n"));
	CHECK(fake_boot_logged("<6>eth0: asking for an IPv6 address by DHCPv6\n"));
	CHECK(fake_boot_logged("<4>eth0: IPv6: no DHCPv6 lease: no server answered (SOLICIT to ff02::1:2)\n"));
	CHECK(fake_boot_logged("<3>  eth0: no IPv6 address (ip=dhcp6)\n"));
	CHECK(fake_log_count(f, "udp6-send 2 547 ") == 7);
	CHECK(fake_log_count(f, "netlink listener 22") == 1); /* RTM_GETADDR: what is there already */
	CHECK(fake_log_count(f, "packet-send") == 0);         /* no DHCPv4 */
	CHECK(fake_log_count(f, "mount [fd00::1]") == 0);
	if (!fake_boot_logged("<4>eth0: IPv6: no DHCPv6 lease: no server answered (SOLICIT to ff02::1:2)\n"))
		fake_log_dump(f);
	init_free(&in);
	fake_ops_free(f);
}

/* Issue 24: a server that NAKs every REQUEST: the client gives up, and
 * the raw socket goes with it, not at switch_root (a broadcast flood
 * would keep PID 1 checksumming frames meanwhile). */
static void test_dhcp_gives_up_closes(void)
{
	struct fake_ops *f = setup_dhcp("root=nfs:10.0.2.100:/root rd.timeout=120 rd.shell=0 panic=1");
	struct init in;
	int i;

	dhcp_nak = 1;
	CHECK(fake_net_run(f, &in) < 0);
	dhcp_nak = 0;
	CHECK(fake_boot_logged("<4>eth0: IPv4: no DHCP lease: 10.0.2.2 refused 10.0.2.15 (DHCPNAK)\n"));
	i = fake_log_find(f, "close packet-socket");
	CHECK(i >= 0);
	/* nothing sent after it, and the failure came later */
	CHECK(i >= 0 && fake_log_find_prefix(f, "packet-send", i) < 0);
	CHECK(fake_log_count(f, "mount 10.0.2.100") == 0);
	init_free(&in);
	fake_ops_free(f);
}

/* The server refuses: the message names the server, the interface, its
 * address and what mount said. */
static void test_nfs_refused(void)
{
	struct fake_ops *f;
	struct init in;

	f = setup_dhcp("root=nfs:10.0.2.100:/root rd.timeout=5 rd.shell=0 panic=1");
	fake_fail(f, "mount", "nfs", ECONNREFUSED);
	CHECK(fake_net_run(f, &in) < 0);
	CHECK(fake_boot_logged("<3>cannot mount the NFS root 10.0.2.100:/root from eth0 (10.0.2.15/24): "
		     "Connection refused\n"));
	CHECK(fake_log_count(f, "mount 10.0.2.100:/root /sysroot nfs") == 1);
	init_free(&in);
	fake_ops_free(f);
}

/* An iSCSI root: iscsistart runs once the address is there, with the
 * CHAP account; the LUN comes as a disk (here vda1 is already there);
 * the link stays up. */
static void test_iscsi_login(void)
{
	struct fake_ops *f;
	struct init in;
	char *t;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = setup_dhcp("root=UUID=" UUID " rd.timeout=5 rd.shell=0 rd.iscsi.initiator=iqn.x:me "
		      "netroot=iscsi:alice:s3cret-pass@10.0.2.100::3261:1:iqn.2026-12.test:root");
	add_tool(f, "/usr/sbin/iscsistart");
	CHECK(fake_net_run(f, &in) == 0);
	const char *order[] = {
		"netlink addr add 2 10.0.2.15/24",
		"run /usr/sbin/iscsistart -i iqn.x:me -t iqn.2026-12.test:root -g 1 -a 10.0.2.100 "
		"-p 3261 -u alice -w s3cret-pass",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "netlink link 2 down") == 0);
	CHECK(fake_boot_logged("iSCSI: logging in to iqn.2026-12.test:root at 10.0.2.100:3261"));
	/* the root's open-iscsi: Debian's interface note, the initiator
	 * name for iscsid and the drop-in that shows it to iscsid */
	t = fake_boot_read(f, "/run/initramfs/open-iscsi.interface");
	CHECK(t && !strcmp(t, "eth0\n"));
	free(t);
	t = fake_boot_read(f, "/run/uniramfs/iscsi/initiatorname.iscsi");
	CHECK(t && strstr(t, "\nInitiatorName=iqn.x:me\n"));
	free(t);
	t = fake_boot_read(f, "/run/systemd/system.control/iscsid.service.d/50-uniramfs-initiator.conf");
	CHECK(t && strstr(t, "BindReadOnlyPaths=/run/uniramfs/iscsi/initiatorname.iscsi:"));
	free(t);
	/* nothing that tells programs systemd runs: the root's init may not be it */
	{
		char *p = fake_path(f, "/run/systemd/system");
		struct stat st;
		CHECK(stat(p, &st) < 0);
		free(p);
	}
	t = fake_boot_read(f, "/run/systemd/network/00-uniramfs-eth0.network");
	CHECK(t != NULL);
	free(t);
	/* the command line (world-readable in /proc/cmdline) holds it, the
	 * log of the tool's run does not */
	CHECK(fake_boot_logged("-u alice -w (secret)"));
	CHECK(!fake_boot_logged("-w s3cret-pass"));
	init_free(&in);
	fake_ops_free(f);
}

/* netroot=nbd: nbd-client connects /dev/nbd0 once the address is there. */
static void test_nbd_connect(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = setup_dhcp("root=UUID=" UUID " rd.timeout=5 rd.shell=0 netroot=nbd:10.0.2.100:10809/root");
	add_tool(f, "/usr/sbin/nbd-client");
	CHECK(fake_net_run(f, &in) == 0);
	const char *order[] = {
		"netlink addr add 2 10.0.2.15/24",
		"run /usr/sbin/nbd-client (as @nbd-client) 10.0.2.100 10809 /dev/nbd0 -N root -persist "
		"-systemd-mark",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "netlink link 2 down") == 0);
	init_free(&in);
	fake_ops_free(f);
}

/* eth0 as sysfs really shows it (netname.h): a link into the virtio
 * device of the PCI card at 00:03.0, in ACPI hotplug slot 3, so udev
 * would call it ens3 (slot), enp0s3 (path), enx525400123456 (MAC). */
static void sysfs_as_udev_sees(struct fake_ops *f)
{
	static const char *const attrs[][2] = {
		{ "type", "1\n" },		 { "ifindex", "2\n" },		{ "iflink", "2\n" },
		{ "address", "52:54:00:12:34:56\n" }, { "addr_assign_type", "0\n" }, { "name_assign_type", "1\n" },
	};
	char *dir = fake_path(f, "/sys/class/net/eth0");

	for (size_t i = 0; i < ARRAY_SIZE(attrs); i++) {
		char *p = xasprintf("%s/%s", dir, attrs[i][0]), *q = xasprintf(NIC "/virtio2/net/eth0/%s", attrs[i][0]);
		unlink(p);
		fake_write(f, q, attrs[i][1]);
		free(p);
		free(q);
	}
	CHECK(rmdir(dir) == 0);
	free(dir);
	fake_symlink(f, "../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth0", "/sys/class/net/eth0");
	fake_write(f, NIC "/virtio2/uevent", "DRIVER=virtio_net\n");
	fake_write(f, NIC "/uevent", "PCI_SLOT_NAME=0000:00:03.0\n");
	fake_symlink(f, "../../../bus/pci", NIC "/subsystem");
	fake_write(f, "/sys/bus/pci/slots/3/address", "0000:00:03\n");
}

/* The root's ip= names the card as the installed system knows it: the
 * kernel's eth0 answers to its path name, and is renamed to udev's
 * choice (the slot name) while still down, so the root's files and its
 * udev find it under the name they expect. */
static void test_predictable_name(void)
{
	struct fake_ops *f;
	struct init in;
	char *t;

	f = setup_dhcp("root=nfs:10.0.2.100:/root ip=enp0s3:dhcp rd.timeout=5 rd.shell=0");
	sysfs_as_udev_sees(f);
	CHECK(fake_net_run(f, &in) == 0);
	const char *order[] = {
		"netlink link 2 down name ens3",
		"netlink link 2 up",
		"packet-send 2",
		"netlink addr add 2 10.0.2.15/24",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_boot_logged("eth0 is now ens3 (as udev names it)"));
	CHECK(fake_boot_logged("ens3: 10.0.2.15/24 from DHCP server 10.0.2.2"));
	t = fake_boot_read(f, "/run/uniramfs/net/ens3.conf");
	CHECK(t && strstr(t, "DEVICE='ens3'"));
	free(t);
	t = fake_boot_read(f, "/run/systemd/network/00-uniramfs-ens3.network");
	CHECK(t && strstr(t, "Name=ens3\n"));
	free(t);
	init_free(&in);
	fake_ops_free(f);
}

/* net.ifnames=0 keeps the kernel's name, as udev does; so do a naming
 * scheme other than v252 and biosdevname=1, whose names would differ.
 * A predictable name in ip= still finds the card. */
static void test_ifnames_off(void)
{
	static const char *const keep[] = { "net.ifnames=0", "net.naming-scheme=v255", "biosdevname=1" };

	for (size_t i = 0; i < ARRAY_SIZE(keep); i++) {
		struct fake_ops *f;
		struct init in;
		char *t, *cmd = xasprintf("root=nfs:10.0.2.100:/root ip=ens3:dhcp %s rd.timeout=5 rd.shell=0",
					  keep[i]);

		f = setup_dhcp(cmd);
		sysfs_as_udev_sees(f);
		CHECK(fake_net_run(f, &in) == 0);
		CHECK(fake_log_count(f, "netlink link 2 down name") == 0);
		CHECK(fake_log_count(f, "netlink addr add 2 10.0.2.15/24") == 1);
		t = fake_boot_read(f, "/run/uniramfs/net/eth0.conf");
		CHECK(t != NULL);
		free(t);
		if (i == 1)
			CHECK(fake_boot_logged("net.naming-scheme=v255: only v252's names are known"));
		init_free(&in);
		fake_ops_free(f);
		free(cmd);
	}
}

/* The scheme udev 252 uses anyway: renamed as without it. */
static void test_naming_scheme_v252(void)
{
	struct fake_ops *f;
	struct init in;

	f = setup_dhcp("root=nfs:10.0.2.100:/root net.naming-scheme=v252 rd.timeout=5 rd.shell=0");
	sysfs_as_udev_sees(f);
	CHECK(fake_net_run(f, &in) == 0);
	CHECK(fake_log_count(f, "netlink link 2 down name ens3") == 1);
	init_free(&in);
	fake_ops_free(f);
}

/* ifname= names the card, not udev: renamed once, to its name; the
 * kernel's name in ip= still means it. */
static void test_ifname_wins(void)
{
	struct fake_ops *f;
	struct init in;

	f = setup_dhcp("root=nfs:10.0.2.100:/root ifname=lan0:52:54:00:12:34:56 ip=eth0:dhcp "
		       "rd.timeout=5 rd.shell=0");
	sysfs_as_udev_sees(f);
	CHECK(fake_net_run(f, &in) == 0);
	CHECK(fake_log_count(f, "netlink link 2 down name lan0") == 1);
	CHECK(fake_log_count(f, "netlink link 2 down name ens3") == 0);
	CHECK(fake_boot_logged("lan0: 10.0.2.15/24 from DHCP server 10.0.2.2"));
	init_free(&in);
	fake_ops_free(f);
}

/* A name no interface has: nothing is brought up, the report says so. */
static void test_unknown_name(void)
{
	struct fake_ops *f;
	struct init in;

	f = setup_dhcp("root=nfs:10.0.2.100:/root ip=enp9s9:dhcp rd.timeout=3 rd.shell=0 panic=1");
	sysfs_as_udev_sees(f);
	CHECK(fake_net_run(f, &in) < 0);
	CHECK(fake_log_count(f, "netlink link 2") == 0);
	CHECK(fake_boot_logged("<3>  eth0: not used\n"));
	init_free(&in);
	fake_ops_free(f);
}

int main(void)
{
	RUN(test_iscsi_login);
	RUN(test_nbd_connect);
	RUN(test_no_network);
	RUN(test_nfs_by_dhcp);
	RUN(test_root_path);
	RUN(test_root_path_escaped);
	RUN(test_static_local_down);
	RUN(test_predictable_name);
	RUN(test_ifnames_off);
	RUN(test_naming_scheme_v252);
	RUN(test_ifname_wins);
	RUN(test_unknown_name);
	RUN(test_dhcp_silent);
	RUN(test_dhcp6_silent);
	RUN(test_dhcp_gives_up_closes);
	RUN(test_nfs_refused);
	fake_boot_remove_ext4();
	return test_done();
}
