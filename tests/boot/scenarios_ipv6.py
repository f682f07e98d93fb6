# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for IPv6 (issue 27, part B): an NFS root over IPv6 from
the server VM (servervm.start(ipv6=True): its address fd00::1/64, dnsmasq's
router advertisements with RDNSS/DNSSL and its DHCPv6 server handing out
fd00::10; with its tgtd, the disk as an iSCSI LUN), the guest configured
by DHCPv6 (ip=dhcp6), by the kernel's SLAAC (ip=auto6, with an iSCSI root
over IPv6) or statically (dracut's bracketed ip=).

QEMU's user network (slirp) sends router advertisements but its DHCPv6
answers information requests only, and its forwarding to the host
(guestfwd) is IPv4: so the server is the VM, on a wire of its own.
Each boot proves the address, the root over IPv6 (an NFS mount's addr=
and NFSv4 callback address clientaddr= are IPv6; the iSCSI portal is
[fd00::1]:3260), and the files left for the real system:
/run/uniramfs/resolv.conf and /run/uniramfs/net/IFACE.conf.
"""

import contextlib

import disks
import netservers
import scenarios_net as net
import scenarios_netvm as netvm
import servervm

NFS4 = disks.Disk("nfs4", "nfs4", "", "")   # only .fs is looked at
MODULES = ["--add-modules", "virtio_pci,virtio_net,nfs,nfsv3,nfsv4"]
SRV6, EXPORT, POOL6 = servervm.SERVER_ADDR6, servervm.EXPORT, servervm.POOL6
# the guest's MAC 52:54:00:64:00:0a as the kernel's EUI-64 interface id
SLAAC6 = "fd00::5054:ff:fe64:a"
ROOT = "nfs4:[%s]:%s" % (SRV6, EXPORT)
# a name only the server VM's DNS knows, asked over IPv6 for its AAAA
NAME6 = "nfs6server.test"
SHOW = ("net.ifnames=0 testinit.show=/run/uniramfs/resolv.conf "
        "testinit.show=/run/uniramfs/net/eth0.conf")


def served6(name, iscsi="", dns=""):
    """run.py's net hook: the server VM with IPv6 on, exporting the test
    root (iscsi: and its disk as that target's LUN 1; dns: a name its DNS
    server answers, with an AAAA record); the guest gets one NIC on its
    wire and no disk."""
    def net(testinit, work):
        @contextlib.contextmanager
        def ctx():
            disk = disks.ensure(netvm.LOCAL, testinit, work)
            with servervm.start(netvm.ENV, work, disk, name, ipv6=True, iscsi=iscsi,
                                dns=dns) as s:
                yield [], s.guest_nic()
        return ctx()
    return net


def _mount(client):
    return (r"root-mount=\[%s\]:%s nfs4 \S*clientaddr=%s,\S*addr=%s" % (SRV6, EXPORT, client, SRV6),)


def scenarios(Scenario):
    return [
        Scenario("ipv6-dhcp6-nfs", "ip=dhcp6: a DHCPv6 address (asked once the link-local address "
                 "is past DAD), DNS and search list from DHCPv6, the NFSv4 server's name resolved "
                 "there (AAAA), the root over IPv6",
                 NFS4, "nfs4:%s:%s" % (NAME6, EXPORT), build=MODULES,
                 net=served6("ipv6-dhcp6-nfs", dns=NAME6),
                 cmdline="ip=dhcp6 " + SHOW,
                 expect=_mount(POOL6) + (
                     r"show /run/uniramfs/resolv.conf: nameserver %s$" % SRV6,
                     r"show /run/uniramfs/resolv.conf: search test$",
                     r"show /run/uniramfs/net/eth0.conf: IPV6PROTO='dhcp6'",
                     r"show /run/uniramfs/net/eth0.conf: IPV6ADDR='%s'" % POOL6),
                 log_expect=("uniramfs: eth0: asking for an IPv6 address by DHCPv6",
                             "uniramfs: eth0: %s/128 from DHCPv6 server fe80::" % POOL6,
                             "uniramfs: eth0: resolving %s (IPv6)" % NAME6,
                             "uniramfs: eth0: %s is %s" % (NAME6, SRV6),
                             "uniramfs: mounted [%s]:%s (NFS 4.2, ro) on /sysroot" % (SRV6, EXPORT)),
                 log_absent=("DHCP server", "not supported")),
        Scenario("ipv6-auto6-iscsi", "ip=auto6: the kernel's SLAAC address from the server VM's "
                 "router advertisement, its RDNSS and DNSSL, and an iSCSI root over IPv6 "
                 "(netroot=iscsi:[SERVER]::3260:1:TARGET, root=LABEL= on its LUN)",
                 netvm.LOCAL, "LABEL=" + netvm.LOCAL.label, build=net.ISCSI_BUILD,
                 net=served6("ipv6-auto6-iscsi", iscsi=netservers.ISCSI_IQN),
                 cmdline="ip=auto6 netroot=iscsi:[%s]::3260:1:%s rd.iscsi.initiator=%s %s" % (
                     SRV6, netservers.ISCSI_IQN, net.INITIATOR, SHOW),
                 expect=(r"root-mount=/dev/sd[a-z]+ ext4 ro",
                         r"show /run/uniramfs/resolv.conf: nameserver %s$" % SRV6,
                         r"show /run/uniramfs/resolv.conf: search test$",
                         r"show /run/uniramfs/net/eth0.conf: IPV6PROTO='auto6'",
                         r"show /run/uniramfs/net/eth0.conf: IPV6ADDR='%s'" % SLAAC6),
                 log_expect=("uniramfs: eth0: %s/64 from a router advertisement (SLAAC, with DNS)" % SLAAC6,
                             "uniramfs: iSCSI: logging in to %s at [%s]:3260" % (netservers.ISCSI_IQN, SRV6)),
                 log_absent=("DHCPv6", "not supported")),
        Scenario("ipv6-static-nfs", "dracut's static IPv6 ip=[ADDR]:[PEER]::PREFIX:HOST:IFACE:none "
                 "with nameserver=[v6]: the NFSv4 root from the peer over IPv6",
                 NFS4, "nfs4:%s" % EXPORT, build=MODULES, net=served6("ipv6-static-nfs"),
                 cmdline="ip=[fd00::2]:[%s]::64:guest6:eth0:none nameserver=[%s] %s" % (SRV6, SRV6, SHOW),
                 expect=_mount("fd00::2") + (
                     r"show /run/uniramfs/resolv.conf: nameserver %s$" % SRV6,
                     r"show /run/uniramfs/net/eth0.conf: IPV6PROTO='none'"),
                 log_expect=("uniramfs: eth0: fd00::2/64 as ip=",),
                 log_absent=("DHCP server", "DHCPv6", "not supported")),
    ]
