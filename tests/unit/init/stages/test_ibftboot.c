// SPDX-License-Identifier: GPL-2.0-or-later
/* Booting from the firmware's iSCSI boot table, against fake_ops: the
 * table's NIC configured by its MAC, the login with the table's target
 * and CHAP under the table's initiator name, ip=ibft alone, and what a
 * missing or broken table says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_net.h"
#include "init/init.h"
#include "test.h"

#define IBFT "/sys/firmware/ibft"

/* fake_net's machine with one NIC, and iscsi_ibft in the image. */
static struct fake_ops *setup(const char *cmdline)
{
	struct fake_ops *f = fake_net_setup(cmdline, 1);

	fake_net_module(f, "kernel/drivers/firmware/iscsi_ibft.ko", NULL);
	return f;
}

/* The table as iscsi_ibft shows it: a static NIC, a boot target with CHAP. */
static void write_table(struct fake_ops *f)
{
	fake_write(f, IBFT "/initiator/initiator-name", "iqn.2026-12.fw:host\n");
	fake_write(f, IBFT "/ethernet0/mac", "52:54:00:12:34:56\n");
	fake_write(f, IBFT "/ethernet0/ip-addr", "10.0.2.15\n");
	fake_write(f, IBFT "/ethernet0/subnet-mask", "255.255.255.0\n");
	fake_write(f, IBFT "/ethernet0/gateway", "10.0.2.2\n");
	fake_write(f, IBFT "/ethernet0/origin", "1\n");
	fake_write(f, IBFT "/target0/flags", "3\n");
	fake_write(f, IBFT "/target0/nic-assoc", "0\n");
	fake_write(f, IBFT "/target0/ip-addr", "10.0.2.100\n");
	fake_write(f, IBFT "/target0/port", "3261\n");
	fake_write(f, IBFT "/target0/lun", "01000000\n");
	fake_write(f, IBFT "/target0/target-name", "iqn.2026-12.test:fw\n");
	fake_write(f, IBFT "/target0/chap-name", "fwuser\n");
	fake_write(f, IBFT "/target0/chap-secret", "fw-secret-123\n");
}

/* rd.iscsi.firmware=1 and no ip=: the table's NIC gets the table's
 * address, and iscsistart logs in to the table's boot target with its
 * CHAP under its initiator name, which iscsid is then given too, and
 * then to the table's other target. */
static void test_firmware_login(void)
{
	struct fake_ops *f;
	struct init in;
	char *t;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = setup("root=UUID=" UUID " rd.timeout=5 rd.shell=0 rd.iscsi.firmware=1");
	write_table(f);
	/* a second valid target, not the boot one: logged in to after it */
	fake_write(f, IBFT "/target1/flags", "1\n");
	fake_write(f, IBFT "/target1/ip-addr", "10.0.2.101\n");
	fake_write(f, IBFT "/target1/target-name", "iqn.2026-12.test:fw2\n");
	CHECK(fake_net_run(f, &in) == 0);
	const char *order[] = {
		"finit_module iscsi_ibft",
		"netlink link 2 up",
		"netlink addr add 2 10.0.2.15/24",
		"netlink route 2 via 10.0.2.2",
		"run /usr/sbin/iscsistart -i iqn.2026-12.fw:host -t iqn.2026-12.test:fw -g 1 -a 10.0.2.100 "
		"-p 3261 -u fwuser -w fw-secret-123",
		"run /usr/sbin/iscsistart -i iqn.2026-12.fw:host -t iqn.2026-12.test:fw2 -g 1 -a 10.0.2.101 -p 3260",
		"execve /sbin/init",
	};
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "packet-send") == 0); /* no DHCP: the table has the address */
	CHECK(fake_boot_logged("<6>iBFT: target iqn.2026-12.test:fw at 10.0.2.100:3261 LUN 1, "
			       "through the NIC 52:54:00:12:34:56\n"));
	CHECK(fake_boot_logged("<6>eth0: 10.0.2.15/24 as ip=ibft says\n"));
	CHECK(fake_boot_logged("-u fwuser -w (secret)"));
	t = fake_boot_read(f, "/run/uniramfs/iscsi/initiatorname.iscsi");
	CHECK(t && strstr(t, "\nInitiatorName=iqn.2026-12.fw:host\n"));
	free(t);
	init_free(&in);
	fake_ops_free(f);
}

/* ip=ibft alone: the network from the table, no login; rd.iscsi.initiator=
 * would win over the table's name, but nothing logs in here. */
static void test_ip_ibft(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = setup("root=UUID=" UUID " rd.timeout=5 rd.shell=0 ip=ibft");
	write_table(f);
	CHECK(fake_net_run(f, &in) == 0);
	const char *order[] = { "netlink addr add 2 10.0.2.15/24", "execve /sbin/init" };
	CHECK(fake_log_in_order(f, order, ARRAY_SIZE(order)));
	CHECK(fake_log_count(f, "run /usr/sbin/iscsistart") == 0);
	CHECK(fake_boot_logged("<6>iBFT: NIC 52:54:00:12:34:56: 10.0.2.15/24\n"));
	init_free(&in);
	fake_ops_free(f);
}

/* ip=ibft with no table: the interface says so, nothing is configured. */
static void test_ip_ibft_no_table(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = setup("root=UUID=" UUID " rd.timeout=5 rd.shell=0 ip=ibft");
	CHECK(fake_net_run(f, &in) == 0); /* a local root goes on */
	CHECK(fake_boot_logged("<4>iBFT: no /sys/firmware/ibft: the firmware left no iSCSI boot table "
			       "(or the image has no iscsi_ibft)\n"));
	CHECK(fake_boot_logged("<4>eth0: ip=ibft: the firmware left no iBFT to take it from\n"));
	CHECK(fake_log_count(f, "netlink addr add") == 0);
	init_free(&in);
	fake_ops_free(f);
}

/* root=ibft with a table whose every target is broken: each field's
 * problem named with its text, then why there is no root. */
static void test_root_ibft_broken_table(void)
{
	struct fake_ops *f;
	struct init in;

	f = setup("root=ibft rd.timeout=5 rd.shell=0 panic=1");
	write_table(f);
	fake_write(f, IBFT "/target0/port", "99999\n");
	fake_write(f, IBFT "/target0/target-name", "\n");
	fake_write(f, IBFT "/target1/flags", "banana\n");
	CHECK(fake_net_run(f, &in) < 0);
	CHECK(fake_boot_logged("<4>ibft: target0/port: \"99999\" is not a port\n"));
	CHECK(fake_boot_logged("<4>ibft: target0: no target-name\n"));
	CHECK(fake_boot_logged("<4>iBFT: /sys/firmware/ibft holds no target uniramfs can log in to\n"));
	CHECK(fake_boot_logged("<3>root=ibft: the firmware's iSCSI boot table gave no target to boot from\n"));
	CHECK(fake_log_count(f, "run /usr/sbin/iscsistart") == 0);
	init_free(&in);
	fake_ops_free(f);
}

int main(void)
{
	RUN(test_firmware_login);
	RUN(test_ip_ibft);
	RUN(test_ip_ibft_no_table);
	RUN(test_root_ibft_broken_table);
	fake_boot_remove_ext4();
	return test_done();
}
