/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Servers on fake_net's wire for the boot tests of the network: on eth0
 * (index 2) a DHCP server (10.0.2.2) giving 10.0.2.15/24, DNS 10.0.2.3
 * and the domain "test"; the DNS server at 10.0.2.3 knows
 * nfsserver.test (10.0.2.100) and iscsi.test (10.0.2.50) and says
 * NXDOMAIN for the rest; any other server is silent. */
#ifndef UNIRAMFS_FAKE_DNS_H
#define UNIRAMFS_FAKE_DNS_H

#include "fake_net.h"

/* The DHCP server's root-path (option 17), NULL: none. */
extern const char *fake_dns_root_path;

/* fake_net_setup(cmdline, nics) with those servers and the nfs module. */
struct fake_ops *fake_dns_setup(const char *cmdline, unsigned nics);

#endif
