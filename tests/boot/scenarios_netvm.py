# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for network roots served by a server VM (issue 11):
NFSv3 (kernel nfsd) and a DHCP root-path (option 17, busybox udhcpd),
which the host's own servers cannot give (servervm.py says why and how).

The guest's only NIC is a socket netdev to the server VM's: no user
networking, nothing leaves the two VMs.  The server exports the same test
root as the local disks (testinit as /sbin/init) at servervm.EXPORT; the
guest's root is then an "nfs" (v3) or "nfs4" mount of it.

root=dhcp is dracut's syntax, which Debian's initramfs-tools does not
know: those scenarios are ours only.  run.py calls configure() with the kernel and the generator before any boot.
"""

import contextlib

import disks
import servervm

ENV = {}
NFS3 = disks.Disk("nfs3", "nfs", "", "")        # only .fs is looked at: v3 shows as "nfs"
NFS4 = disks.Disk("nfs4", "nfs4", "", "")
LOCAL = disks.Disk("ext4", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000001", "testroot")
MODULES = ["--add-modules", "virtio_pci,virtio_net,nfs,nfsv3,nfsv4"]
SERVER, EXPORT, POOL = servervm.SERVER_ADDR, servervm.EXPORT, servervm.POOL
NEXT = servervm.NEXT_SERVER
# eth0 in these expectations: the kernel's names (net.ifnames=0), not
# udev's, which depend on the PCI slot QEMU gives the NIC.
STATIC_IP = "ip=%s::%s:%s::eth0:off" % (servervm.STATIC, SERVER, servervm.NETMASK)
KERNEL_NAMES = "net.ifnames=0"


def configure(kver, vmlinuz, uniramfs):
    ENV.update(kver=kver, vmlinuz=vmlinuz, uniramfs=uniramfs)


def served(name, rootpath="", siaddr="", v4=True, nbd="", iscsi="", dns=""):
    """run.py's net hook: a server VM exporting LOCAL's tree (nbd: and its
    disk as that NBD export; iscsi: as LUN 1 of that target; dns: a DNS
    server knowing that one name), its DHCP sending rootpath; the guest
    gets no disk, one NIC on its wire."""
    def net(testinit, work):
        @contextlib.contextmanager
        def ctx():
            disk = disks.ensure(LOCAL, testinit, work)
            with servervm.start(ENV, work, disk, name, rootpath=rootpath, siaddr=siaddr,
                                 v4=v4, nbd=nbd, iscsi=iscsi, dns=dns) as s:
                yield [], s.guest_nic()
        return ctx()
    return net


def _lease(ifname="eth0"):
    return "uniramfs: %s: %s/24 from DHCP server %s" % (ifname, POOL, SERVER)


def _root_path(rp):
    return "uniramfs: root-path %s from DHCP" % rp


def _mounted(vers, server=SERVER):
    return "uniramfs: mounted %s:%s (NFS %s, ro) on /sysroot" % (server, EXPORT, vers)


def scenarios(Scenario):
    return [
        Scenario("nfs3-static", "NFSv3 root (kernel nfsd in a server VM) by root=/dev/nfs "
                 "nfsroot=SERVER:PATH,vers=3 with a static ip=",
                 NFS3, "/dev/nfs", build=MODULES, net=served("nfs3-static"),
                 cmdline="nfsroot=%s:%s,vers=3 %s %s" % (SERVER, EXPORT, STATIC_IP, KERNEL_NAMES),
                 expect=(r"root-mount=%s:%s nfs \S*vers=3" % (SERVER, EXPORT),),
                 log_expect=("uniramfs: eth0: %s/24 as ip=" % servervm.STATIC, _mounted("3")),
                 log_absent=("DHCP",)),
        Scenario("nfs-rootpath", "root=dhcp: the NFS root named by DHCP's root-path "
                 "(option 17) SERVER:PATH, NFSv3 by default",
                 NFS3, "dhcp", build=MODULES, ours_only=True, cmdline=KERNEL_NAMES,
                 net=served("nfs-rootpath", rootpath="%s:%s" % (SERVER, EXPORT)),
                 # no wsize=4096, the kernel's nfsroot default (dracut-ng TEST-60)
                 expect=(r"root-mount=%s:%s nfs (?!\S*wsize=4096\b)\S*vers=3" % (SERVER, EXPORT),),
                 log_expect=(_lease(), _root_path("%s:%s" % (SERVER, EXPORT)), _mounted("3"))),
        Scenario("nfs3-rootpath-opts", "root=dhcp with a root-path of PATH,OPTS only: the server "
                 "is DHCP's next-server (siaddr, not its server id), the options the root-path's",
                 NFS3, "dhcp", build=MODULES, ours_only=True, cmdline=KERNEL_NAMES,
                 net=served("nfs3-rootpath-opts", rootpath="%s,vers=3,timeo=50" % EXPORT,
                            siaddr=NEXT),
                 expect=(r"root-mount=%s:%s nfs \S*vers=3\S*timeo=50" % (NEXT, EXPORT),),
                 log_expect=(_lease(), _root_path("%s,vers=3,timeo=50" % EXPORT),
                             _mounted("3", NEXT))),
        Scenario("nfs4-rootpath", "root=dhcp with dracut's nfs4:SERVER:PATH as the root-path, "
                 "NFSv4.2 from kernel nfsd",
                 NFS4, "dhcp", build=MODULES, ours_only=True, cmdline=KERNEL_NAMES,
                 net=served("nfs4-rootpath", rootpath="nfs4:%s:%s" % (SERVER, EXPORT)),
                 log_expect=(_lease(), _root_path("nfs4:%s:%s" % (SERVER, EXPORT)), _mounted("4.2"))),
        Scenario("nfs-v3-fallback", "root=nfs:SERVER:PATH with no vers= on a server without "
                 "NFSv4: 4.2, 4.1 and 4.0 are refused, 3 mounts",
                 NFS3, "nfs:%s:%s" % (SERVER, EXPORT), build=MODULES, cmdline="rd.debug",
                 net=served("nfs-v3-fallback", v4=False),
                 expect=(r"root-mount=%s:%s nfs \S*vers=3" % (SERVER, EXPORT),),
                 # rd.debug: each attempt's error, after the log's time stamp
                 log_expect=("] NFS 4.2: Protocol not supported", "] NFS 4.1: Protocol not supported",
                             "] NFS 4.0: Protocol not supported",
                             "] mounted %s:%s (NFS 3, ro) on /sysroot" % (SERVER, EXPORT))),
    ]
