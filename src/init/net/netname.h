/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_NETNAME_H
#define UNIRAMFS_NET_NETNAME_H

#include <stdbool.h>

/* The names udev would give a network interface: the ID_NET_NAME_*
 * properties of systemd 252's net_id builtin (naming scheme v252,
 * Debian 12's), and the one its 99-default.link picks
 * (NamePolicy=keep kernel database onboard slot path). The generic
 * image only sees the kernel's ethN; an installed system's ip=, its
 * network configuration and its udev know the interface by these.
 *
 * Covered: Ethernet (ARPHRD_ETHER) interfaces on PCI, directly or
 * through virtio, SR-IOV virtual functions and ARI included. Not
 * covered (those names stay empty; the MAC name still comes): USB,
 * BCMA, s390 (CCW, function_id slots), PowerVM, Xen, ARM64 platform,
 * devicetree aliases, netdevsim, InfiniBand and SLIP, and hwdb's
 * ID_NET_NAME_FROM_DATABASE. */

/* udev's ALTIFNAMSIZ: a property may be longer than an interface name
 * can be; such names are never matched or picked. */
#define NET_NAME_MAX 128

struct net_names {
	char onboard[NET_NAME_MAX]; /* ID_NET_NAME_ONBOARD: eno1, eno1d1 */
	char slot[NET_NAME_MAX];    /* ID_NET_NAME_SLOT: ens3, ens5f1 */
	char path[NET_NAME_MAX];    /* ID_NET_NAME_PATH: enp0s3, enp1s0 */
	char mac[NET_NAME_MAX];     /* ID_NET_NAME_MAC: enx525400123456 */
	int assign_type;            /* name_assign_type; 0 when unreadable */
};

/* Reads sysfs as path(p) maps it (struct sysops' path: the real tree
 * or a test's fake one): /sys/class/net/IFNAME, the devices above it,
 * /sys/bus/pci/slots. Returns 0 (with whatever names apply, maybe
 * none), or -ENOENT when IFNAME's ifindex, iflink or type cannot be
 * read (udev gives no names then either). */
int net_names_read(char *(*path)(const char *p), const char *ifname, struct net_names *out);

/* The name 99-default.link renames the interface to, or NULL when it
 * keeps its name (a name given by userspace or a predictable kernel
 * one, or no usable property). */
const char *net_names_policy(const struct net_names *n);

/* Is name one of the interface's names (each one that can name an
 * interface)? */
bool net_names_has(const struct net_names *n, const char *name);

#endif
