// SPDX-License-Identifier: GPL-2.0-or-later
/* bond=, vlan=, bridge= at boot (netvirt_up.c), against fake_ops: the
 * ports claimed and never configured, the link created once all are
 * there and its ports enslaved while down, then the link configured
 * like any interface; a root not on the network deletes it. */
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_net.h"
#include "init/init.h"
#include "test.h"

/* The kernel's side of a create: the new link in sysfs, index 4 (its
 * MAC the first port's, as a bond takes it). */
static void make_link(struct fake_ops *f, const void *msg, size_t len)
{
	const struct nlmsghdr *h = msg;
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	const struct rtattr *a = IFLA_RTA(ifi);
	size_t alen = IFLA_PAYLOAD(h);

	(void)len;
	if (h->nlmsg_type != RTM_NEWLINK || !(h->nlmsg_flags & NLM_F_CREATE))
		return;
	for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen))
		if (a->rta_type == IFLA_IFNAME) {
			char *dir = xasprintf("/sys/class/net/%s", (char *)RTA_DATA(a)), *p;
			p = xasprintf("%s/type", dir);
			fake_write(f, p, "1\n");
			free(p);
			p = xasprintf("%s/ifindex", dir);
			fake_write(f, p, "4\n");
			free(p);
			p = xasprintf("%s/address", dir);
			fake_write(f, p, "52:54:00:12:34:56\n");
			free(p);
			free(dir);
		}
}

/* fake_net's machine with two NICs, eth0 (index 2) and eth1 (index 3),
 * and bonding, nfs and nfsv4 in the image. */
static struct fake_ops *setup(const char *cmdline)
{
	struct fake_ops *f = fake_net_setup(cmdline, 2);

	fake_net_module(f, "kernel/drivers/net/bonding/bonding.ko", NULL);
	fake_net_module(f, "kernel/fs/nfs/nfs.ko", NULL);
	fake_net_module(f, "kernel/fs/nfs/nfsv4.ko", "kernel/fs/nfs/nfs.ko");
	f->on_netlink = make_link;
	return f;
}

static void test_bond_root(void)
{
	struct fake_ops *f;
	struct init in;
	char *t;

	if (!fake_boot_make_ext4()) /* fake_boot_setup's disk */
		SKIP("mkfs.ext4 not available");
	f = setup("root=nfs:10.0.2.100:/root rd.timeout=5 rd.shell=0 net.ifnames=0 "
		  "bond=bond0:eth0,eth1:mode=active-backup,miimon=100 "
		  "ip=10.0.2.15::10.0.2.2:255.255.255.0::bond0:off");

	CHECK(fake_net_run(f, &in) == 0);
	const char *order[] = {
		"finit_module bonding",
		"netlink link 0 down name bond0 kind bond",
		"netlink link 2 down master 4",
		"netlink link 2 up",
		"netlink link 3 down master 4",
		"netlink link 3 up",
		"netlink link 4 up",
		"netlink addr add 4 10.0.2.15/24",
		"netlink route 4 via 10.0.2.2",
		"mount 10.0.2.100:/root /sysroot nfs",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	/* the ports: no address, no DHCP, never taken down, not deleted */
	CHECK(fake_log_count(f, "netlink addr add 2") == 0 && fake_log_count(f, "netlink addr add 3") == 0);
	CHECK(fake_log_count(f, "packet-send") == 0);
	CHECK(fake_log_count(f, "netlink link 2 down") == 1); /* the enslaving request only */
	CHECK(fake_log_count(f, "netlink dellink") == 0);
	CHECK(fake_boot_logged("<6>bond0: bond over eth0,eth1 (bond=bond0:eth0,eth1:mode=active-backup,miimon=100)\n"));
	CHECK(fake_boot_logged("<6>bond0: 10.0.2.15/24 as ip=10.0.2.15::10.0.2.2:255.255.255.0::bond0:off says\n"));
	/* networkd keeps its hands off the ports */
	t = fake_boot_read(f, "/run/systemd/network/00-uniramfs-eth1.network");
	CHECK(t && strstr(t, "Name=eth1\n") && strstr(t, "[Link]\nUnmanaged=yes\n"));
	free(t);
	t = fake_boot_read(f, "/run/systemd/network/00-uniramfs-bond0.network");
	CHECK(t && strstr(t, "Name=bond0\n") && strstr(t, "Address=10.0.2.15/24\n"));
	free(t);
	t = fake_boot_read(f, "/run/NetworkManager/conf.d/90-uniramfs-eth0.conf");
	CHECK(t && strstr(t, "match-device=interface-name:eth0\n"));
	free(t);
	init_free(&in);
	fake_ops_free(f);
}

/* A local root with rd.neednet=0 and ip=: the VLAN is made, then
 * deleted before switch_root; the bad bond= is only a warning. */
static void test_vlan_local_down(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = setup("root=UUID=" UUID " rd.timeout=5 rd.shell=0 net.ifnames=0 vlan=vlan5:eth1 "
		  "bond=bond1:eth9:mode=fastest ip=10.0.5.2:::255.255.255.0::vlan5:off");
	CHECK(fake_net_run(f, &in) == 0);
	const char *order[] = {
		"netlink link 0 down name vlan5 kind vlan",
		"netlink link 3 up",
		"netlink link 4 up",
		"netlink addr add 4 10.0.5.2/24",
		"netlink dellink 4",
		"netlink link 3 down",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "master") == 0); /* a VLAN's device is not enslaved */
	CHECK(fake_log_count(f, "netlink link 2 up") == 0); /* eth0: no ip= names it */
	CHECK(fake_boot_logged("<4>ignoring bond=bond1:eth9:mode=fastest: mode=fastest: not a value bonding "
			       "takes for mode\n"));
	CHECK(fake_boot_logged("<6>vlan5: VLAN 5 on eth1 (vlan=vlan5:eth1)\n"));
	init_free(&in);
	fake_ops_free(f);
}

int main(void)
{
	RUN(test_bond_root);
	RUN(test_vlan_local_down);
	fake_boot_remove_ext4();
	return test_done();
}
