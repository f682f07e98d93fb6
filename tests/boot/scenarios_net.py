# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for network roots (issue 11).

Each boot's guest has a virtio-net NIC on QEMU user networking with
restrict=on: QEMU's DHCP server gives it 10.0.2.15/24 and nothing leaves
the host; the real servers of netservers.py listen on 127.0.0.1 and the
guest reaches them at 10.0.2.100 through guestfwd rules (one connection
per rule for the VM's life, so the server starts first).  The images name
the NIC driver and the NFS client explicitly (--add-modules), so these
tests do not depend on the generator's own choice of modules.
"""

import contextlib
import os
import re
import shutil
import tempfile

import builder
import disks
import netservers
import scenarios_stack

NFS = disks.Disk("nfs", "nfs4", "", "")           # only .fs is looked at
LOCAL = disks.Disk("ext4", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000001", "testroot")
NET_MODULES = ["--add-modules", "virtio_pci,virtio_net,nfs,nfsv4"]
SERVER = netservers.GUEST_ADDR
# What builder.py needs to lay out a stacked disk (kver, vmlinuz, uniramfs):
# run.py fills it in before the boots.
BUILDER_ENV = {}


def _nic(netdev_extra=""):
    netdev = "user,id=n0,restrict=on" + ("," + netdev_extra if netdev_extra else "")
    return ["-netdev", netdev, "-device", "virtio-net-pci,netdev=n0"]


@contextlib.contextmanager
def _nfs_server(testinit, work):
    """ganesha serving an export that holds a root like disks.py's."""
    tmp = tempfile.mkdtemp(prefix="nfs-", dir=work)
    try:
        export = os.path.join(tmp, "export")
        disks._populate(export, testinit)
        with netservers.start_nfs(export, tmp) as s:
            yield s
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def nfs_root(testinit, work):
    """An export holding a root like disks.py's, served by ganesha."""
    @contextlib.contextmanager
    def ctx():
        with _nfs_server(testinit, work) as s:
            yield [], _nic(s.guestfwd(2049))
    return ctx()


MAC1, MAC2 = "52:54:00:12:34:56", "52:54:00:12:34:57"


def nfs_on_second(testinit, work):
    """Two NICs; the NFS server is reachable only through the second."""
    @contextlib.contextmanager
    def ctx():
        with _nfs_server(testinit, work) as s:
            yield [], ["-netdev", "user,id=n0,restrict=on",
                       "-device", "virtio-net-pci,netdev=n0,mac=" + MAC1,
                       "-netdev", "user,id=n1,restrict=on," + s.guestfwd(2049),
                       "-device", "virtio-net-pci,netdev=n1,mac=" + MAC2]
    return ctx()


CHAP = ("uniramfs", "chap-secret-12")   # tgt wants 12 or more characters


def iscsi_root(testinit, work, chap=CHAP, layout=None, initiator=None):
    """A copy of the local root disk (or of the builder's layout) as the
    LUN of a tgtd target that asks for CHAP (chap None: that does not),
    open to any initiator (initiator: to that name only)."""
    @contextlib.contextmanager
    def ctx():
        tmp = tempfile.mkdtemp(prefix="iscsi-", dir=work)
        try:
            lun = os.path.join(tmp, "lun.img")
            src = layout.build(testinit, work, BUILDER_ENV)[0] if layout \
                else disks.ensure(LOCAL, testinit, work)
            shutil.copyfile(src, lun)
            with netservers.start_iscsi(lun, tmp, chap=chap, initiator=initiator) as s:
                try:
                    yield [], _nic(s.guestfwd(3260))
                finally:
                    with open(os.path.join(work, "logs", "tgtd-last.log"), "w") as f:
                        f.write(s.log_text())
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return ctx()


# The LUN of the LVM scenarios (builder/lvm.sh: the whole disk a PV of
# VG testvg, LV root ext4), behind a target that knows no CHAP and lets
# in only INITIATOR: a login under any other name is refused.
LVM = scenarios_stack.LVM
INITIATOR = "iqn.2026-12.test.uniramfs:client1"


def iscsi_lvm(testinit, work):
    return iscsi_root(testinit, work, chap=None, layout=LVM, initiator=INITIATOR)


def nbd_root(testinit, work):
    """A copy of the local root disk exported by nbd-server."""
    @contextlib.contextmanager
    def ctx():
        tmp = tempfile.mkdtemp(prefix="nbd-", dir=work)
        try:
            img = os.path.join(tmp, "nbd.img")
            shutil.copyfile(disks.ensure(LOCAL, testinit, work), img)
            with netservers.start_nbd(img, tmp) as s:
                yield [], _nic(s.guestfwd(10809))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return ctx()


def nfs_at_slot5(testinit, work):
    """The NFS root's server through a NIC at PCI 00:05.0: udev calls it
    ens5 (ACPI hotplug slot 5 of -M pc) or enp0s5 (its path)."""
    @contextlib.contextmanager
    def ctx():
        with _nfs_server(testinit, work) as s:
            yield [], ["-nic", "none", "-netdev", "user,id=n0,restrict=on," + s.guestfwd(2049),
                       "-device", "virtio-net-pci,netdev=n0,addr=05.0"]
    return ctx()


def nfs_down(testinit, work):
    """A NIC, but no NFS server behind 10.0.2.100:2049."""
    @contextlib.contextmanager
    def ctx():
        yield [], _nic()
    return ctx()


def nic_only(testinit, work):
    """A local root disk and a NIC that nothing asks for."""
    @contextlib.contextmanager
    def ctx():
        yield [disks.ensure(LOCAL, testinit, work)], _nic()
    return ctx()


# What the root's own network tools read from the network root's
# hand-over (issue 22): testinit prints each file.
def _show(*paths):
    return " ".join("testinit.show=" + p for p in paths)


NET_CONF, NM_CONF, NETWORKD = ("/run/net-eth0.conf", "/run/NetworkManager/conf.d/90-uniramfs-eth0.conf",
                               "/run/systemd/network/00-uniramfs-eth0.network")
# The scenarios that name eth0 keep the kernel's names: by default the
# NIC comes up under udev's name (scenario ifnames), which depends on the
# PCI slot QEMU gives it.
KERNEL_NAMES = "net.ifnames=0"
HANDOVER_SHOW = _show(NET_CONF, NM_CONF, NETWORKD) + " " + KERNEL_NAMES
HANDOVER_DHCP = (r"show %s: DEVICE='eth0'$" % NET_CONF,
                 r"show %s: PROTO='dhcp'$" % NET_CONF,
                 r"show %s: IPV4ADDR='10\.0\.2\.15'$" % NET_CONF,
                 r"show %s: IPV4BROADCAST='10\.0\.2\.255'$" % NET_CONF,
                 # restrict=on: QEMU's DHCP names no router, klibc's 0.0.0.0 says so
                 r"show %s: IPV4GATEWAY='0\.0\.0\.0'$" % NET_CONF,
                 r"show %s: DOMAINSEARCH=''$" % NET_CONF,
                 r"show %s: match-device=interface-name:eth0$" % NM_CONF,
                 r"show %s: managed=0$" % NM_CONF,
                 r"show %s: Name=eth0$" % NETWORKD,
                 r"show %s: DHCP=ipv4$" % NETWORKD,
                 r"show %s: KeepConfiguration=yes$" % NETWORKD)
ISCSI_IF, ISCSI_NAME = "/run/initramfs/open-iscsi.interface", "/run/uniramfs/iscsi/initiatorname.iscsi"
ISCSI_DROPIN = "/run/systemd/system.control/iscsid.service.d/50-uniramfs-initiator.conf"

ISCSI_BUILD = ["--add-modules", "virtio_pci,virtio_net,iscsi_tcp,sd_mod,crc32c_generic",
               "--add-binaries", "iscsistart"]


def scenarios(Scenario):
    return [
        Scenario("nfs-dhcp", "NFSv4 root by root=nfs4:SERVER:/PATH, address by DHCP",
                 NFS, "nfs4:%s:%s" % (SERVER, netservers.NFS_PSEUDO), build=NET_MODULES,
                 net=nfs_root, cmdline=HANDOVER_SHOW, expect=("root-writable=no",) + HANDOVER_DHCP,
                 log_expect=("uniramfs: eth0: 10.0.2.15/24 from DHCP server 10.0.2.2",)),
        Scenario("nfs-static", "NFSv4 root by root=/dev/nfs nfsroot= with a static ip=",
                 NFS, "/dev/nfs", build=NET_MODULES, net=nfs_root,
                 cmdline="nfsroot=%s:%s,vers=4.2 ip=10.0.2.15::10.0.2.2:255.255.255.0::eth0:off %s %s"
                 % (SERVER, netservers.NFS_PSEUDO, _show(NET_CONF, NETWORKD), KERNEL_NAMES),
                 expect=(r"show %s: PROTO='none'$" % NET_CONF,
                         r"show %s: IPV4NETMASK='255\.255\.255\.0'$" % NET_CONF,
                         r"show %s: Address=10\.0\.2\.15/24$" % NETWORKD,
                         r"show %s: Gateway=10\.0\.2\.2$" % NETWORKD),
                 log_expect=("uniramfs: eth0: 10.0.2.15/24 as ip=",),
                 log_absent=("by DHCP", "from DHCP")),
        Scenario("nfs-rw", "NFSv4 root by netroot=nfs: mounted read-write with rw",
                 NFS, "", build=NET_MODULES, net=nfs_root,
                 cmdline="netroot=nfs:%s:%s rw" % (SERVER, netservers.NFS_PSEUDO),
                 expect=("root-writable=yes",)),
        Scenario("net-unused", "a local root with a NIC and no ip=: the network is never touched",
                 LOCAL, "UUID=" + LOCAL.uuid, build=NET_MODULES,
                 net=nic_only, cmdline="rd.debug",
                 log_absent=("waiting for the network", "link up", "DHCP", "virtio_net")),
        Scenario("nic2-bootif", "BOOTIF= picks the second of two NICs for the NFS root",
                 NFS, "nfs4:%s:%s" % (SERVER, netservers.NFS_PSEUDO), build=NET_MODULES,
                 net=nfs_on_second, cmdline="BOOTIF=01-" + MAC2.replace(":", "-") + " " + KERNEL_NAMES,
                 log_expect=("uniramfs: eth1: 10.0.2.15/24 from DHCP server 10.0.2.2",),
                 log_absent=("eth0: asking",)),
        Scenario("nic2-ifname", "ifname= renames the second NIC, ip=NAME:dhcp picks it",
                 NFS, "nfs4:%s:%s" % (SERVER, netservers.NFS_PSEUDO), build=NET_MODULES,
                 net=nfs_on_second, cmdline="ifname=boot0:%s ip=boot0:dhcp" % MAC2,
                 log_expect=("uniramfs: eth1 is now boot0 (ifname=)",
                             "uniramfs: boot0: 10.0.2.15/24 from DHCP server 10.0.2.2"),
                 log_absent=("eth0: asking",)),
        Scenario("ifnames", "ip=enp0s5:dhcp names the NIC by udev's path name: it comes up "
                 "renamed ens5, the name udev gives it, and the root finds it so",
                 NFS, "nfs4:%s:%s" % (SERVER, netservers.NFS_PSEUDO), build=NET_MODULES,
                 net=nfs_at_slot5, ours_only=True,
                 cmdline="ip=enp0s5:dhcp " + _show("/run/net-ens5.conf", "/sys/class/net/ens5/address"),
                 expect=(r"show /run/net-ens5\.conf: DEVICE='ens5'$",
                         r"show /sys/class/net/ens5/address: 52:54:00:12:34:56$"),
                 log_expect=("uniramfs: eth0 is now ens5 (as udev names it)",
                             "uniramfs: ens5: 10.0.2.15/24 from DHCP server 10.0.2.2")),
        Scenario("iscsi-chap", "ext4 root on an iSCSI LUN by netroot=iscsi: with CHAP",
                 LOCAL, "UUID=" + LOCAL.uuid,
                 build=ISCSI_BUILD, net=iscsi_root,
                 cmdline="netroot=iscsi:%s:%s@%s::3260:%d:%s rd.debug" % (
                     CHAP + (SERVER, netservers.ISCSI_LUN, netservers.ISCSI_IQN)),
                 log_expect=("iSCSI: logging in to %s at %s:3260" % (
                     netservers.ISCSI_IQN, SERVER), "-u uniramfs -w (secret)"),
                 log_absent=("-w " + CHAP[1],)),
        # dracut's root=iscsi:…: the LUN's disk is the root itself, found
        # by the by-path name udev gives it
        Scenario("iscsi-rootspec", "ext4 root on an iSCSI LUN's whole disk by root=iscsi:…",
                 LOCAL, "iscsi:%s::3260:%d:%s" % (SERVER, netservers.ISCSI_LUN, netservers.ISCSI_IQN),
                 build=ISCSI_BUILD, net=lambda t, w: iscsi_root(t, w, chap=None),
                 cmdline=KERNEL_NAMES,
                 log_expect=("uniramfs: root=/dev/disk/by-path/ip-%s:3260-iscsi-%s-lun-%d is /dev/sd" % (
                     SERVER, netservers.ISCSI_IQN, netservers.ISCSI_LUN),),
                 log_absent=("is not a device uniramfs understands",)),
        Scenario("iscsi-lvm", "LVM on an iSCSI LUN, no CHAP, rd.iscsi.initiator= the only "
                 "name the target lets in",
                 LVM, "/dev/testvg/root", build=ISCSI_BUILD, net=iscsi_lvm,
                 cmdline="netroot=iscsi:%s::3260:%d:%s rd.iscsi.initiator=%s rd.debug %s %s" % (
                     SERVER, netservers.ISCSI_LUN, netservers.ISCSI_IQN, INITIATOR,
                     _show(ISCSI_IF, ISCSI_NAME, ISCSI_DROPIN, NM_CONF), KERNEL_NAMES),
                 expect=(r"show %s: eth0$" % ISCSI_IF,
                         r"show %s: InitiatorName=%s$" % (ISCSI_NAME, re.escape(INITIATOR)),
                         r"show %s: BindReadOnlyPaths=%s:/etc/iscsi/initiatorname\.iscsi$" % (
                             ISCSI_DROPIN, re.escape(ISCSI_NAME)),
                         r"show %s: managed=0$" % NM_CONF),
                 log_expect=("iSCSI: logging in to %s at %s:3260" % (netservers.ISCSI_IQN, SERVER),
                             "-i %s -t %s" % (INITIATOR, netservers.ISCSI_IQN),
                             # rd.debug puts the init's clock after "uniramfs: "
                             # LVM is a plugin row (plugins/lvm.conf): its log lines
                             "/dev/sda is LVM2_member: opening it with plugin lvm",
                             "running /usr/sbin/lvm vgchange -ay --sysinit",
                             "root=/dev/testvg/root is /dev/dm-0"),
                 log_absent=(" -u ",)),
        Scenario("iscsi-initiator-refused", "without rd.iscsi.initiator= the default name is "
                 "not the one the target lets in: login refused, the failure report",
                 LVM, "/dev/testvg/root", build=ISCSI_BUILD, net=iscsi_lvm,
                 cmdline="netroot=iscsi:%s::3260:%d:%s rd.timeout=10 rd.shell=0" % (
                     SERVER, netservers.ISCSI_LUN, netservers.ISCSI_IQN),
                 fail_msgs=("uniramfs: iscsistart for %s exited with status " % netservers.ISCSI_IQN,
                            "uniramfs: root device root=/dev/testvg/root did not appear",
                            "uniramfs: rebooting now")),
        # nbd-client as the generic image packs it (GnuTLS's stand-in,
        # src/notls/); nbdroot below adds it with --add-binaries (the real one)
        Scenario("nbd", "ext4 root on NBD by netroot=nbd:SERVER:PORT/EXPORT",
                 LOCAL, "UUID=" + LOCAL.uuid,
                 build=["--add-modules", "virtio_pci,virtio_net,nbd"],
                 net=nbd_root, cmdline="netroot=nbd:%s:10809/%s rd.debug %s %s" % (
                     SERVER, netservers.NBD_EXPORT, _show(NETWORKD), KERNEL_NAMES),
                 expect=(r"show %s: KeepConfiguration=yes$" % NETWORKD,),
                 # rd.debug puts the init's clock after "uniramfs: "
                 log_expect=("NBD: connecting /dev/nbd0 to %s:10809 export %s" % (
                     SERVER, netservers.NBD_EXPORT), "root=UUID=%s is /dev/nbd0" % LOCAL.uuid,
                     # systemd's mark for a root storage daemon, and reconnects
                     "running @nbd-client %s 10809 /dev/nbd0 -N %s -persist -systemd-mark" % (
                         SERVER, netservers.NBD_EXPORT))),
        # dracut's root=nbd:…: the NBD disk is the root itself (it was
        # accepted as a network root and then refused as "not a device")
        Scenario("nbd-rootspec", "ext4 root on NBD by dracut's root=nbd:SERVER:PORT/EXPORT:FSTYPE",
                 LOCAL, "nbd:%s:10809/%s:ext4" % (SERVER, netservers.NBD_EXPORT),
                 build=["--add-modules", "virtio_pci,virtio_net,nbd"],
                 net=nbd_root, cmdline=KERNEL_NAMES,
                 log_expect=("uniramfs: NBD: connecting /dev/nbd0 to %s:10809 export %s" % (
                     SERVER, netservers.NBD_EXPORT),
                     "uniramfs: root=/dev/nbd0 is /dev/nbd0"),
                 log_absent=("is not a device uniramfs understands",)),
        Scenario("nbdroot", "ext4 root on NBD by the kernel's root=/dev/nbd0 nbdroot=SERVER:PORT/EXPORT",
                 LOCAL, "/dev/nbd0",
                 build=["--add-modules", "virtio_pci,virtio_net,nbd", "--add-binaries", "nbd-client"],
                 net=nbd_root, cmdline="nbdroot=%s:10809/%s" % (SERVER, netservers.NBD_EXPORT),
                 log_expect=("uniramfs: NBD: connecting /dev/nbd0 to %s:10809 export %s" % (
                     SERVER, netservers.NBD_EXPORT), "uniramfs: root=/dev/nbd0 is /dev/nbd0")),
        Scenario("nfs-down", "an NFS server that is down: the failure report names the "
                 "interface, its address and the server, within rd.timeout",
                 NFS, "nfs4:%s:%s" % (SERVER, netservers.NFS_PSEUDO), build=NET_MODULES,
                 net=nfs_down, cmdline="rd.timeout=10 rd.shell=0 " + KERNEL_NAMES,
                 # what follows is the kernel's: "No route to host" once ARP
                 # for the absent server gives up, or "no answer within 10
                 # seconds" when the attempt outlives rd.timeout
                 fail_msgs=("uniramfs: cannot mount the NFS root 10.0.2.100:/root from eth0 "
                            "(10.0.2.15/24): ",
                            "uniramfs:   eth0: 10.0.2.15/24 from DHCP",
                            "uniramfs: not starting a shell: rd.shell=0",
                            "uniramfs: rebooting now")),
        Scenario("ip-typo", "a local root with a wrong ip=: a warning, and the boot goes on",
                 LOCAL, "UUID=" + LOCAL.uuid, build=NET_MODULES, net=nic_only,
                 cmdline="ip=10.0.2.300::10.0.2.2:255.255.255.0::eth0:off rd.timeout=10",
                 log_expect=('uniramfs: ip=10.0.2.300::10.0.2.2:255.255.255.0::eth0:off: '
                             '"10.0.2.300" is not an IPv4 address',),
                 log_absent=("waiting for the network", "uniramfs: eth0:")),
    ]
