// SPDX-License-Identifier: GPL-2.0-or-later
/* The network with several interfaces each named by its own ip=
 * (netup.c), against fake_ops: each configured and kept, and the
 * network's on_up (an iSCSI login) only once all have their addresses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_boot.h"
#include "init/init.h"
#include "test.h"

static int x_run(const char *path, char *const argv[], char *const envp[], const void *input,
		 size_t len)
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

static int run(struct fake_ops *f, struct init *in)
{
	return fake_boot_run(f, in, &fake_initops, fake_boot_kernel_env);
}

#define NIC "/sys/devices/pci0000:00/0000:00:03.0"
#define NIC2 "/sys/devices/pci0000:00/0000:00:04.0"

/* fake_boot_setup()'s machine with two virtio NICs, eth0 (index 2, MAC
 * 52:54:00:12:34:56) and eth1 (index 3, MAC ...:57), and iscsistart. */
static struct fake_ops *setup(const char *cmdline)
{
	struct fake_ops *f = fake_boot_setup(cmdline);
	char *dep = fake_boot_read(f, MODDIR "/modules.dep"), *al = fake_boot_read(f, MODDIR "/modules.alias");
	char *t;

	fake_write(f, MODDIR "/kernel/drivers/net/virtio_net.ko", "");
	t = xasprintf("%skernel/drivers/net/virtio_net.ko:\n", dep);
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
	fake_write(f, NIC2 "/virtio3/modalias", "virtio:d00000001v00001AF4\n");
	fake_symlink(f, "../../../../bus/virtio", NIC2 "/virtio3/subsystem");
	fake_write(f, "/sys/class/net/eth1/type", "1\n");
	fake_write(f, "/sys/class/net/eth1/ifindex", "3\n");
	fake_write(f, "/sys/class/net/eth1/address", "52:54:00:12:34:57\n");
	fake_write(f, "/sys/class/net/lo/type", "772\n");
	fake_write(f, "/sys/class/net/lo/ifindex", "1\n");
	fake_write(f, "/sys/class/net/lo/address", "00:00:00:00:00:00\n");
	fake_write(f, "/usr/sbin/iscsistart", "");
	{
		char *p = fake_path(f, "/usr/sbin/iscsistart");
		chmod(p, 0755);
		free(p);
	}
	return f;
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
	CHECK(run(f, &in) == 0);
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
