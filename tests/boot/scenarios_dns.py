# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for servers given by name (issue 27): the server VM
(servervm.py, dns=) runs a DNS server (dnsmasq) that knows one name, the
command line's or the one inside DHCP's root-path, and
its DHCP (udhcpd) names that DNS server (option 6), its domain (option
15) and a search list (option 119).  The guest's init resolves the NFS server's name through it before
the mount.  QEMU's slirp DNS forwards to the host's resolver: it is never
used (the guest's only NIC is the socket netdev to the server VM).
"""

import scenarios_netvm
import servervm

NAME = "nfsserver.test"
SERVER, EXPORT, POOL = servervm.SERVER_ADDR, servervm.EXPORT, servervm.POOL
RESOLV = "/run/uniramfs/resolv.conf"


def scenarios(Scenario):
    return [
        Scenario("nfs-dns-name", "root=nfs:NAME:/PATH ip=dhcp: the server's name resolved through "
                 "DHCP's DNS server (dnsmasq in the server VM) before the NFS mount",
                 scenarios_netvm.NFS4, "nfs:%s:%s" % (NAME, EXPORT), build=scenarios_netvm.MODULES,
                 cmdline="ip=dhcp testinit.show=%s %s" % (RESOLV, scenarios_netvm.KERNEL_NAMES),
                 net=scenarios_netvm.served("nfs-dns-name", dns=NAME),
                 expect=(r"root-mount=%s:%s nfs4 " % (SERVER, EXPORT),
                         # what the root finds: DHCP's DNS server, its search
                         # list (option 119, compressed) and domain, one line
                         r"show %s: nameserver %s$" % (RESOLV, SERVER.replace(".", r"\.")),
                         r"show %s: search lab\.test test$" % RESOLV),
                 log_expect=("uniramfs: eth0: %s/24 from DHCP server %s" % (POOL, SERVER),
                             "uniramfs: eth0: resolving %s (IPv4)" % NAME,
                             "uniramfs: eth0: %s is %s" % (NAME, SERVER),
                             "uniramfs: mounted %s:%s (NFS 4.2, ro) on /sysroot" % (SERVER, EXPORT))),
        # a name inside DHCP's root-path (root=dhcp), resolved as the
        # command line's are before the root-path is read
        Scenario("nfs-dns-rootpath", "root=dhcp ip=dhcp, DHCP's root-path nfs:NAME:/PATH: the "
                 "name resolved through DHCP's DNS server before the NFS mount",
                 scenarios_netvm.NFS4, "dhcp", build=scenarios_netvm.MODULES,
                 cmdline="ip=dhcp " + scenarios_netvm.KERNEL_NAMES,
                 net=scenarios_netvm.served("nfs-dns-rootpath", rootpath="nfs:%s:%s" % (NAME, EXPORT),
                                            dns=NAME),
                 expect=(r"root-mount=%s:%s nfs4 " % (SERVER, EXPORT),),
                 log_expect=("uniramfs: eth0: resolving %s (IPv4)" % NAME,
                             "uniramfs: eth0: %s is %s" % (NAME, SERVER),
                             "uniramfs: root-path nfs:%s:%s from DHCP" % (SERVER, EXPORT),
                             "uniramfs: mounted %s:%s (NFS 4.2, ro) on /sysroot" % (SERVER, EXPORT))),
    ]
