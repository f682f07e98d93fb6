# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for the links servers sit on (issue 27 part B): bond=,
bridge= and vlan= in dracut's syntax, made by the init's own rtnetlink
code, the root reached through them.

bond-failover: two NICs, each on its own QEMU user network (restrict=on,
the same guestfwd to the host's NFS server), bonded active-backup; the
first one's link is down from the start (QEMU's monitor `set_link n0
off` as QEMU starts, long before the guest's kernel loads the NIC's
driver: no NIC property starts a link down), so the root comes through
the second and /proc/net/bonding/bond0 names it as the active port; the
kernel says the first was enslaved "with a down link".  802.3ad is not
booted: QEMU's user network answers no LACPDU, so no aggregator would
ever form (the mode is parsed and sent, test_netvirt).

bridge-test60: dracut-ng TEST-60's "NFSv3 Bridge" command line (`bridge
net.ifnames=0`: br0 over eth0), the root over NFS through br0.

vlan-nfs3: the server VM (servervm.py, vlan=5) has its address only on
a VLAN 5 interface, so nothing but 802.1Q-tagged frames reach it over
the socket netdev; the guest's root is NFSv3 on vlan5 over eth0.
"""

import contextlib
import os
import socket
import tempfile
import threading

import disks
import netservers
import scenarios_net as net
import scenarios_netvm as netvm
import servervm

SERVER, PSEUDO = netservers.GUEST_ADDR, netservers.NFS_PSEUDO
NFS = net.NFS
MAC1, MAC2 = net.MAC1, net.MAC2
# bonding, 8021q and bridge are not named: the generic image has them
MODULES = net.NET_MODULES
VM_MODULES = netvm.MODULES


@contextlib.contextmanager
def _monitor(commands, log):
    """QEMU arguments that connect a second monitor to a socket here,
    which sends commands as soon as QEMU starts, while the firmware
    runs, seconds before the guest's kernel loads a NIC driver (the
    scenario checks the kernel's word that the bond found it down).
    What the monitor answers goes to log.  No -S and `cont`: two boots
    that way left nothing on the guest's console (the cause was not
    found; one boot without -S did the same once since)."""
    tmp = tempfile.mkdtemp(prefix="mon-")
    path = os.path.join(tmp, "mon.sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    srv.settimeout(120)
    conns = []

    def feed():
        with open(log, "wb") as out:
            try:
                c, _ = srv.accept()
            except OSError as e:
                out.write(b"no connection from QEMU: %s\n" % str(e).encode())
                return
            conns.append(c)
            c.settimeout(None)
            c.sendall("".join(cmd + "\n" for cmd in commands).encode())
            while True:
                try:
                    data = c.recv(4096)
                except OSError:
                    return
                if not data:
                    return
                out.write(data)
                out.flush()

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    try:
        yield ["-chardev", "socket,id=mon1,path=" + path, "-mon", "chardev=mon1,mode=readline"]
    finally:
        srv.close()
        for c in conns:
            c.shutdown(socket.SHUT_RDWR)
            c.close()
        t.join(5)
        os.unlink(path)
        os.rmdir(tmp)


def bond_nfs(testinit, work):
    """Two NICs on two user networks, the first one's link down from the
    start, the second reaching the NFS server (QEMU cannot give two
    netdevs a guestfwd to the same guest port: "duplicate yank
    instance"; the first would carry nothing anyway)."""
    @contextlib.contextmanager
    def ctx():
        log = os.path.join(work, "logs", "bond-failover-monitor.log")
        with net._nfs_server(testinit, work) as s, _monitor(["set_link n0 off"], log) as mon:
            yield [], mon + [
                "-netdev", "user,id=n0,restrict=on",
                "-device", "virtio-net-pci,netdev=n0,mac=" + MAC1,
                "-netdev", "user,id=n1,restrict=on," + s.guestfwd(2049),
                "-device", "virtio-net-pci,netdev=n1,mac=" + MAC2]
    return ctx()


BOND = "bond=bond0:eth0,eth1:mode=active-backup,miimon=100"
BONDING = "/proc/net/bonding/bond0"
ND_BOND = "/run/systemd/network/00-uniramfs-bond0.network"
ND_PORT = "/run/systemd/network/00-uniramfs-eth1.network"


def _vlan_served(name):
    def net_(testinit, work):
        @contextlib.contextmanager
        def ctx():
            disk = disks.ensure(netvm.LOCAL, testinit, work)
            with servervm.start(netvm.ENV, work, disk, name, vlan=5) as s:
                yield [], s.guest_nic()
        return ctx()
    return net_


def scenarios(Scenario):
    return [
        Scenario("bond-failover", "bond=bond0:eth0,eth1:mode=active-backup,miimon=100 ip=bond0:dhcp, "
                 "eth0's link down from the start: DHCP and the NFS root through eth1, the active "
                 "port; the ports never ask DHCP; networkd's hand-over files for bond0 and its ports",
                 NFS, "nfs4:%s:%s" % (SERVER, PSEUDO), build=MODULES, net=bond_nfs, ours_only=True,
                 cmdline="%s ip=bond0:dhcp net.ifnames=0 testinit.show=%s testinit.show=%s "
                 "testinit.show=%s" % (BOND, BONDING, ND_BOND, ND_PORT),
                 expect=(r"root-mount=%s:%s nfs4 " % (SERVER, PSEUDO),
                         r"show %s: Bonding Mode: fault-tolerance \(active-backup\)" % BONDING,
                         r"show %s: Currently Active Slave: eth1$" % BONDING,
                         r"show %s: MII Status: down$" % BONDING,
                         r"show %s: Name=bond0$" % ND_BOND,
                         r"show %s: DHCP=ipv4$" % ND_BOND,
                         r"show %s: Unmanaged=yes$" % ND_PORT),
                 # the kernel's word that eth0 was down before the bond had it
                 log_expect=("bond0: (slave eth0): Enslaving as a backup interface with a down link",
                             "uniramfs: bond0: bond over eth0,eth1 (%s)" % BOND,
                             "uniramfs: bond0: asking for an address by DHCP",
                             "uniramfs: bond0: 10.0.2.15/24 from DHCP server 10.0.2.2"),
                 log_absent=("eth0: asking for an address", "eth1: asking for an address",
                             "ignoring bond")),
        # dracut-ng TEST-60 "NFSv3 Bridge root=nfs:...": its command line
        # with our server (ganesha speaks NFSv4 only: mounted as nfs4)
        Scenario("bridge-test60", "root=nfs:SERVER:/PATH bridge net.ifnames=0 (TEST-60): br0 "
                 "over eth0, DHCP and the NFS root through br0",
                 NFS, "nfs:%s:%s" % (SERVER, PSEUDO), build=MODULES, net=net.nfs_root, ours_only=True,
                 cmdline="bridge net.ifnames=0", argv="/sbin/init bridge",
                 expect=(r"root-mount=%s:%s nfs4 " % (SERVER, PSEUDO),),
                 log_expect=("uniramfs: br0: bridge over eth0 (bridge)",
                             "uniramfs: br0: 10.0.2.15/24 from DHCP server 10.0.2.2"),
                 log_absent=("eth0: asking for an address", "ignoring bridge")),
        Scenario("vlan-nfs3", "vlan=vlan5:eth0 ip=vlan5:dhcp: the server VM answers only on "
                 "VLAN 5; DHCP and the NFSv3 root through vlan5",
                 netvm.NFS3, "nfs:%s:%s,vers=3" % (servervm.SERVER_ADDR, servervm.EXPORT),
                 build=VM_MODULES, net=_vlan_served("vlan-nfs3"), ours_only=True,
                 cmdline="vlan=vlan5:eth0 ip=vlan5:dhcp net.ifnames=0",
                 expect=(r"root-mount=%s:%s nfs \S*vers=3" % (servervm.SERVER_ADDR, servervm.EXPORT),),
                 log_expect=("uniramfs: vlan5: VLAN 5 on eth0 (vlan=vlan5:eth0)",
                             "uniramfs: vlan5: %s/24 from DHCP server %s" % (
                                 servervm.POOL, servervm.SERVER_ADDR)),
                 log_absent=("eth0: asking for an address", "ignoring vlan")),
    ]
