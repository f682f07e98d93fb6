// SPDX-License-Identifier: GPL-2.0-or-later
/* An iSCSI or NBD root whose tool fails, against fake_ops: the message
 * names the target or server, what the exit status says, the interface
 * and the address family it went out from. */
#include <stdio.h>
#include <string.h>

#include "fake_dns.h"
#include "init/init.h"
#include "test.h"

static void test_iscsi_refused(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_dns_setup("root=LABEL=onthelun rd.timeout=3 rd.shell=0 panic=1 "
			   "netroot=iscsi:10.0.2.100::::iqn.2026-12.test:root", 1);
	fake_net_tool(f, "/usr/sbin/iscsistart");
	fake_net_tool_status = 24;
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) < 0);
	fake_net_tool_status = 0;
	CHECK(fake_boot_logged("<3>iscsistart for iqn.2026-12.test:root exited with status 24 (the target refused the "
			       "login: authorization failed): the target at 10.0.2.100:3260, from eth0 (IPv4 "
			       "10.0.2.15/24)\n"));
	init_free(&in);
	fake_ops_free(f);
}

static void test_nbd_fails(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_dns_setup("root=LABEL=onthelun rd.timeout=3 rd.shell=0 panic=1 netroot=nbd:10.0.2.100:10809/root", 1);
	fake_net_tool(f, "/usr/sbin/nbd-client");
	fake_net_tool_status = 1;
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) < 0);
	fake_net_tool_status = 0;
	CHECK(fake_boot_logged("<3>nbd-client for 10.0.2.100:10809 exited with status 1, from eth0 (IPv4 "
			       "10.0.2.15/24) (its own message says what the server answered)\n"));
	init_free(&in);
	fake_ops_free(f);
}

/* A name nobody resolves: no login is tried at all. */
static void test_iscsi_name_unresolved(void)
{
	struct fake_ops *f;
	struct init in;

	if (!fake_boot_make_ext4())
		SKIP("mkfs.ext4 not available");
	f = fake_dns_setup("root=LABEL=onthelun rd.timeout=20 rd.shell=0 panic=1 "
			   "netroot=iscsi:nosuch.test::::iqn.2026-12.test:root", 1);
	fake_net_tool(f, "/usr/sbin/iscsistart");
	CHECK(fake_boot_run(f, &in, &fake_net_initops, fake_boot_kernel_env) < 0);
	CHECK(fake_boot_logged("<3>iSCSI: not logged in: eth0: cannot resolve nosuch.test (IPv4): 10.0.2.3: no such "
			       "name (NXDOMAIN) for nosuch.test, no such name (NXDOMAIN) for nosuch.test.test\n"));
	CHECK(fake_log_find_prefix(f, "run /usr/sbin/iscsistart", 0) < 0);
	init_free(&in);
	fake_ops_free(f);
}

int main(void)
{
	RUN(test_iscsi_refused);
	RUN(test_nbd_fails);
	RUN(test_iscsi_name_unresolved);
	fake_boot_remove_ext4();
	return test_done();
}
