# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for dracut-ng's network test cases (issue 27, part A):
the root= forms of TEST-50, TEST-60 and TEST-72 that uniramfs did not
take, each with the test's own command line where the servers allow
(docs/compat.md maps every case to its scenario).

The servers are scenarios_net.py's (on 127.0.0.1, reached at 10.0.2.100
through QEMU user networking with restrict=on) where the command line
names the server; a DHCP root-path needs the server VM of
scenarios_netvm.py (servervm.py), whose udhcpd sends it.  dracut's
servers are 192.168.50.1-3; ours are 10.0.2.100 and 192.168.100.1.
"""

import disks
import netservers
import scenarios_net as net
import scenarios_netvm as netvm
import servervm

LOCAL = net.LOCAL
SERVER, NBD_EXPORT, PSEUDO = net.SERVER, netservers.NBD_EXPORT, netservers.NFS_PSEUDO
NBD_BUILD = ["--add-modules", "virtio_pci,virtio_net,nbd"]
VM_SERVER, VM_EXPORT = servervm.SERVER_ADDR, servervm.EXPORT
NFS3 = disks.Disk("nfs3", "nfs", "", "")        # only .fs is looked at: v3 shows as "nfs"
# TEST-60 checks that the mount has no wsize=4096: the kernel's nfsroot
# default, which uniramfs set for root=/dev/nfs until issue 27
NO_WSIZE_4K = r"(?!\S*wsize=4096\b)"


def scenarios(Scenario):
    return [
        # TEST-72 "NBD root=nbd:IP:port::fsopts": the export by name on
        # the default port, the filesystem type probed, the options used
        Scenario("nbd-test72-fsopts", "root=nbd:SERVER:EXPORT::errors=panic (TEST-72): the NBD "
                 "disk is the root, mounted with the spec's options",
                 LOCAL, "nbd:%s:%s::errors=panic" % (SERVER, NBD_EXPORT), build=NBD_BUILD,
                 net=net.nbd_root, cmdline=net.KERNEL_NAMES,
                 expect=(r"root-mount=/dev/nbd0 ext4 ro,\S*errors=panic",),
                 log_expect=("uniramfs: NBD: connecting /dev/nbd0 to %s:10809 export %s" % (
                     SERVER, NBD_EXPORT),)),
        # dracut's root=/dev/root behaviour: netroot= alone names the root
        Scenario("nbd-netroot-alone", "netroot=nbd:SERVER:PORT/EXPORT and no root=: the "
                 "filesystem on the NBD disk is the root",
                 LOCAL, "", build=NBD_BUILD, net=net.nbd_root,
                 cmdline="netroot=nbd:%s:10809/%s %s" % (SERVER, NBD_EXPORT, net.KERNEL_NAMES),
                 expect=(r"root-mount=/dev/nbd0 ext4 ",),
                 log_absent=("nothing to mount",)),
        Scenario("iscsi-netroot-alone", "netroot=iscsi:… and no root=: the filesystem on the "
                 "LUN's whole disk is the root",
                 LOCAL, "", build=net.ISCSI_BUILD, net=lambda t, w: net.iscsi_root(t, w, chap=None),
                 cmdline="netroot=iscsi:%s::3260:%d:%s %s" % (
                     SERVER, netservers.ISCSI_LUN, netservers.ISCSI_IQN, net.KERNEL_NAMES),
                 expect=(r"root-mount=/dev/sd[a-z]+ ext4 ",),
                 log_expect=("uniramfs: root=/dev/disk/by-path/ip-%s:3260-iscsi-%s-lun-%d is /dev/sd" % (
                     SERVER, netservers.ISCSI_IQN, netservers.ISCSI_LUN),),
                 log_absent=("nothing to mount",)),
        # TEST-70 "netroot=iscsi target0": dracut names the NIC lan0 by a
        # .link file, ifname= here; the LUN is found by its label
        Scenario("iscsi-test70-target0", "root=LABEL= netroot=iscsi:SERVER::::TARGET with a "
                 "static ip= on lan0 and rd.iscsi.initiator= (TEST-70)",
                 LOCAL, "LABEL=" + LOCAL.label, build=net.ISCSI_BUILD,
                 net=lambda t, w: net.iscsi_root(t, w, chap=None),
                 cmdline="netroot=iscsi:%s::::%s ip=10.0.2.15::10.0.2.2:255.255.255.0:iscsi-1:lan0:off "
                 "rd.iscsi.initiator=%s ifname=lan0:%s" % (
                     SERVER, netservers.ISCSI_IQN, net.INITIATOR, net.MAC1),
                 expect=(r"root-mount=/dev/sd[a-z]+ ext4 ",),
                 log_expect=("uniramfs: eth0 is now lan0 (ifname=)",
                             "uniramfs: lan0: 10.0.2.15/24 as ip=",
                             "uniramfs: iSCSI: logging in to %s at %s:3260" % (
                                 netservers.ISCSI_IQN, SERVER))),
        # TEST-60 "NFSv3 Legacy root=IP:path"
        Scenario("nfs-legacy-ippath", "root=SERVER:/PATH, the kernel's legacy form (TEST-60): "
                 "an NFS root, its version negotiated",
                 net.NFS, "%s:%s" % (SERVER, PSEUDO), build=net.NET_MODULES, net=net.nfs_root,
                 cmdline=net.KERNEL_NAMES,
                 expect=(r"root-mount=%s:%s nfs4 " % (SERVER, PSEUDO),),
                 log_absent=("is not a device uniramfs understands",)),
        # TEST-60's proto:IP:path,options root-paths, as a root=
        Scenario("nfs-comma-opts", "root=nfs4:SERVER:/PATH,wsize=4096: dracut's PATH,OPTIONS "
                 "(TEST-60's root-paths): the options leave the path",
                 net.NFS, "nfs4:%s:%s,wsize=4096" % (SERVER, PSEUDO), build=net.NET_MODULES,
                 net=net.nfs_root, cmdline=net.KERNEL_NAMES,
                 expect=(r"root-mount=%s:%s nfs4 \S*wsize=4096\b" % (SERVER, PSEUDO),)),
        # TEST-50: a local root with rd.neednet=1 keeps its network
        Scenario("neednet-local", "root=LABEL= with rd.neednet=1 (TEST-50): the address from "
                 "DHCP stays through switch_root, the hand-over files written",
                 LOCAL, "LABEL=" + LOCAL.label, build=net.NET_MODULES, net=net.nic_only,
                 cmdline="rd.neednet=1 %s %s" % (
                     net._show("/sys/class/net/eth0/flags", "/proc/net/route", net.NET_CONF),
                     net.KERNEL_NAMES),
                 # IFF_UP (operstate may still say "down": the kernel's
                 # linkwatch reports the carrier up to a second late)
                 expect=(r"show /sys/class/net/eth0/flags: 0x[0-9a-f]*[13579bdf]$",
                         # the subnet's route: there while the address is
                         r"show /proc/net/route: eth0\s+0002000A\s",
                         r"show %s: IPV4ADDR='10\.0\.2\.15'$" % net.NET_CONF),
                 log_expect=("uniramfs: eth0: 10.0.2.15/24 from DHCP server 10.0.2.2",),
                 log_absent=("down: the root is not on the network",)),
        # TEST-60 "NFSv3 Legacy root=/dev/nfs DHCP IP:path"
        Scenario("nfs-devnfs-rootpath", "root=/dev/nfs, the path from DHCP's root-path "
                 "SERVER:PATH (TEST-60): NFSv3, no 4 KiB rsize/wsize",
                 NFS3, "/dev/nfs", build=netvm.MODULES, cmdline=net.KERNEL_NAMES,
                 net=netvm.served("nfs-devnfs-rootpath", rootpath="%s:%s" % (VM_SERVER, VM_EXPORT)),
                 expect=(r"root-mount=%s:%s nfs %s\S*vers=3" % (VM_SERVER, VM_EXPORT, NO_WSIZE_4K),),
                 log_expect=("uniramfs: root-path %s:%s from DHCP" % (VM_SERVER, VM_EXPORT),)),
        # TEST-72 "NBD root=/dev/root netroot=dhcp DHCP root-path nbd:srv:port::fsopts"
        Scenario("nbd-dhcp-rootpath", "root=/dev/root netroot=dhcp ip=dhcp (TEST-72): DHCP's "
                 "root-path nbd:SERVER:EXPORT::errors=panic names the root's disk",
                 LOCAL, "/dev/root", build=NBD_BUILD, ours_only=True,
                 cmdline="netroot=dhcp ip=dhcp " + net.KERNEL_NAMES,
                 net=netvm.served("nbd-dhcp-rootpath", rootpath="nbd:%s:raw::errors=panic" % VM_SERVER,
                                  nbd="raw"),
                 expect=(r"root-mount=/dev/nbd0 ext4 ro,\S*errors=panic",),
                 log_expect=("uniramfs: root-path nbd:%s:raw::errors=panic from DHCP" % VM_SERVER,
                             "uniramfs: NBD: connecting /dev/nbd0 to %s:10809 export raw" % VM_SERVER)),
        # TEST-70 "root=dhcp": the NIC lan0 by ifname= (a .link file there)
        Scenario("iscsi-dhcp-rootpath", "root=/dev/root netroot=dhcp ip=lan0:dhcp (TEST-70): "
                 "DHCP's root-path iscsi:SERVER:::1:TARGET names the root's LUN",
                 LOCAL, "/dev/root", build=net.ISCSI_BUILD, ours_only=True,
                 cmdline="netroot=dhcp ip=lan0:dhcp rd.iscsi.initiator=%s ifname=lan0:%s" % (
                     net.INITIATOR, servervm.GUEST_MAC),
                 net=netvm.served("iscsi-dhcp-rootpath", iscsi=netservers.ISCSI_IQN,
                                  rootpath="iscsi:%s:::1:%s" % (VM_SERVER, netservers.ISCSI_IQN)),
                 expect=(r"root-mount=/dev/sd[a-z]+ ext4 ro",),
                 log_expect=("uniramfs: root-path iscsi:%s:::1:%s from DHCP" % (
                     VM_SERVER, netservers.ISCSI_IQN),
                     "uniramfs: iSCSI: logging in to %s at %s:3260" % (
                         netservers.ISCSI_IQN, VM_SERVER))),
    ]
