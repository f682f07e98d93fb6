# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for the firmware's iSCSI Boot Firmware Table (issue 27,
part B): root=ibft, rd.iscsi.firmware, rd.iscsi.ibft; and dracut's
TEST-71, two iSCSI targets on two wires, each NIC with its own ip=.

The table is a real one: QEMU's iPXE ROM (Debian's ipxe-qemu) boots the
guest from its NIC, runs a script from QEMU's own TFTP server (slirp's,
inside QEMU, on the guest side only) that logs in to the target with
`sanhook` (which leaves the iBFT in base memory, where the kernel's
iscsi_ibft finds it) and then boots our kernel and image, fetched over
HTTP from a server on 127.0.0.1 (through a guestfwd, as the target), with
the scenario's command line.  The target is netservers.py's
tgtd on 127.0.0.1, reached at 10.0.2.100:3260 through a guestfwd whose
`cmd:` form runs one socat per connection: iPXE's login and the init's
are two connections (the `tcp:` form serves one for the VM's life).
No -acpitable table is made: the firmware's own is the test.

TEST-71's wires (and TEST-70's "target1 target2", the same with a bare
ip=dhcp) are two QEMU user networks with dracut's subnets
(192.168.50.0/24 and 192.168.51.0/24), each with a tgtd at .1 through a
guestfwd; the filesystem spanning both LUNs is scenarios_btrfs's btrfs
RAID0 (dracut's is LVM on an md stripe), one of its disks behind each.
"""

import contextlib
import functools
import http.server
import os
import shutil
import tempfile
import threading

import disks
import netservers
import scenarios_btrfs
import scenarios_net as net

LOCAL = net.LOCAL
SERVER, IQN, LUN = net.SERVER, netservers.ISCSI_IQN, netservers.ISCSI_LUN
MAC = net.MAC1
# The image: the NIC, iSCSI and the table's module, as the generic image has them.
BUILD = ["--add-modules", "virtio_pci,virtio_net,iscsi_tcp,iscsi_ibft,sd_mod,crc32c_generic",
         "--add-binaries", "iscsistart"]
# The initiator name is the table's (iPXE's initiator-iqn): the target
# lets in only that name, so a login under any other is refused.
FW_INITIATOR = "iqn.2026-12.test.uniramfs:ipxe"
ISCSI_NAME = "/run/uniramfs/iscsi/initiatorname.iscsi"


@contextlib.contextmanager
def _http(root):
    """An HTTP server for root's files on 127.0.0.1 (a port of its own):
    iPXE fetches the kernel and image over TCP in a fraction of the time
    slirp's TFTP takes, one block per round trip."""
    handler = functools.partial(_QuietHandler, directory=root)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield srv.server_address[1]
    finally:
        srv.shutdown()
        srv.server_close()
        t.join(timeout=5)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _script(cmdline, chap, static):
    """iPXE's script: DHCP (or a static address: the table's NIC says
    so), the target hooked (the iBFT made), our kernel."""
    lines = ["#!ipxe"]
    lines += (["set net0/ip 10.0.2.15", "set net0/netmask 255.255.255.0",
               "set net0/gateway 10.0.2.2"] if static else ["dhcp"])
    lines += ["set initiator-iqn " + FW_INITIATOR]
    if chap:
        lines += ["set username " + chap[0], "set password " + chap[1]]
    lines += ["sanhook iscsi:%s::3260:%d:%s" % (SERVER, LUN, IQN),
              "kernel http://%s/vmlinuz %s" % (SERVER, cmdline),
              "initrd http://%s/initrd.img" % SERVER,
              "boot", ""]
    return "\n".join(lines)


# QEMU's virtio-net ROM, which Debian's QEMU finds in ipxe-qemu's folder
IPXE_ROM = "/usr/lib/ipxe/qemu/efi-virtio.rom"


def ipxe_ibft(chap=None, static=False):
    """A copy of the local root disk as tgtd's LUN (CHAP when chap, only
    FW_INITIATOR let in), booted through iPXE's sanhook; static: iPXE's
    address set by hand, not by DHCP (the table's NIC origin then says so)."""
    def net_fn(testinit, work, boot):
        vmlinuz, image, cmdline = boot

        @contextlib.contextmanager
        def ctx():
            if not os.path.exists(IPXE_ROM):    # else QEMU boots without it: no iBFT
                raise netservers.ServerError("no %s: install ipxe-qemu (tools/install-deps.sh)"
                                             % IPXE_ROM)
            tmp = tempfile.mkdtemp(prefix="ibft-", dir=work)
            try:
                tftp = os.path.join(tmp, "tftp")
                os.mkdir(tftp)
                os.symlink(os.path.abspath(vmlinuz), os.path.join(tftp, "vmlinuz"))
                os.symlink(os.path.abspath(image), os.path.join(tftp, "initrd.img"))
                with open(os.path.join(tftp, "boot.ipxe"), "w") as f:
                    f.write(_script(cmdline, chap, static))
                lun = os.path.join(tmp, "lun.img")
                shutil.copyfile(disks.ensure(LOCAL, testinit, work), lun)
                with netservers.start_iscsi(lun, tmp, chap=chap, initiator=FW_INITIATOR) as s, \
                        _http(tftp) as web:
                    fwd = ",".join("guestfwd=tcp:%s:%d-cmd:socat - TCP:127.0.0.1:%d" % (
                        SERVER, guest, host) for guest, host in ((3260, s.port), (80, web)))
                    try:
                        yield [], ["-netdev", "user,id=n0,restrict=on,tftp=%s,bootfile=boot.ipxe,%s"
                                   % (tftp, fwd),
                                   "-device", "virtio-net-pci,netdev=n0,bootindex=1,mac=" + MAC,
                                   "-boot", "n"]
                    finally:
                        with open(os.path.join(work, "logs", "tgtd-last.log"), "w") as f:
                            f.write(s.log_text())
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return ctx()
    net_fn.firmware_boot = True
    return net_fn


TEST71_IQN = "iqn.2009-06.dracut:target%d"
TEST71_WIRES = ((0, "192.168.50"), (1, "192.168.51"))     # (disk, subnet): target1 on .51
SPAN = scenarios_btrfs.RAID0


def two_wires(testinit, work):
    """The spanning filesystem's two disks, each the LUN of its own tgtd
    (only net.INITIATOR let in), each tgtd on its own wire at .1."""
    @contextlib.contextmanager
    def ctx():
        tmp = tempfile.mkdtemp(prefix="iscsi71-", dir=work)
        try:
            src = SPAN.build(testinit, work, net.BUILDER_ENV)
            with contextlib.ExitStack() as stack:
                args = []
                for disk, subnet in TEST71_WIRES:
                    lun = os.path.join(tmp, "lun%d.img" % disk)
                    shutil.copyfile(src[disk], lun)
                    n = 2 if subnet.endswith("50") else 1       # dracut: target2 on .50
                    s = stack.enter_context(netservers.start_iscsi(
                        lun, tmp, iqn=TEST71_IQN % n, initiator=net.INITIATOR))
                    mac = (net.MAC1, net.MAC2)[disk]
                    # cmd:, not tcp:: QEMU names a tcp: forward's chardev by
                    # its port alone, and two of port 3260 clash
                    args += ["-netdev", "user,id=n%d,restrict=on,net=%s.0/24,host=%s.2,"
                             "guestfwd=tcp:%s.1:3260-cmd:socat - TCP:127.0.0.1:%d" % (
                                 disk, subnet, subnet, subnet, s.port),
                             "-device", "virtio-net-pci,netdev=n%d,mac=%s" % (disk, mac)]
                yield [], args
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return ctx()


def scenarios(Scenario):
    by_path = "/dev/disk/by-path/ip-%s:3260-iscsi-%s-lun-%d" % (SERVER, IQN, LUN)
    return [
        # root=ibft alone: the NIC (by the table's MAC), the target, its
        # CHAP account and the initiator name all from the firmware's
        # table, the root the LUN's whole disk
        Scenario("ibft-root", "root=ibft: iPXE's iBFT names the NIC, the target, its CHAP "
                 "account and our initiator name; the root is the LUN's disk",
                 LOCAL, "ibft", build=BUILD, net=ipxe_ibft(chap=net.CHAP), ours_only=True,
                 cmdline="rd.debug %s %s" % (net._show(ISCSI_NAME), net.KERNEL_NAMES),
                 expect=(r"root-mount=/dev/sd[a-z]+ ext4 ",
                         r"show %s: InitiatorName=%s$" % (ISCSI_NAME, FW_INITIATOR.replace(".", r"\."))),
                 # rd.debug: each line has its time after "uniramfs: "
                 log_expect=("iBFT: target %s at %s:3260 LUN %d, through the NIC %s" % (
                     IQN, SERVER, LUN, MAC),
                     "iBFT: NIC %s: DHCP, as the table says" % MAC,
                     "root=ibft: the root is " + by_path,
                     "iSCSI: logging in to %s at %s:3260" % (IQN, SERVER),
                     "-i %s -t %s" % (FW_INITIATOR, IQN),
                     "-u %s -w (secret)" % net.CHAP[0],
                     "root=%s is /dev/sd" % by_path)),
        # TEST-70 "root=ibft": dracut's command line for it
        Scenario("ibft-test70", "root=LABEL= rd.iscsi.ibft=1 rd.iscsi.firmware=1 (TEST-70's "
                 "root=ibft): the network and the login from the firmware's table",
                 LOCAL, "LABEL=" + LOCAL.label, build=BUILD, net=ipxe_ibft(static=True),
                 ours_only=True, cmdline="rd.iscsi.ibft=1 rd.iscsi.firmware=1 " + net.KERNEL_NAMES,
                 # iPXE's address was set by hand: the table's, no DHCP
                 log_expect=("uniramfs: iBFT: target %s at %s:3260 LUN %d, through the NIC %s" % (
                     IQN, SERVER, LUN, MAC),
                     "uniramfs: iBFT: NIC %s: 10.0.2.15/24" % MAC,
                     "uniramfs: eth0: 10.0.2.15/24 as ip=ibft says",
                     "uniramfs: iSCSI: logging in to %s at %s:3260" % (IQN, SERVER)),
                 log_absent=("asking for an address by DHCP",)),
        # TEST-71 "… rd.iscsi.waitnet=0 rd.iscsi.testroute=0 default GW":
        # its command line, with ifname= for dracut's .link files; no iBFT
        # on this machine, so rd.iscsi.firmware only warns
        Scenario("iscsi-test71-multi", "two iSCSI targets on two wires, each NIC with its own "
                 "static ip= and gateway, a btrfs RAID0 over both LUNs by LABEL= (TEST-71)",
                 SPAN, "LABEL=" + SPAN.label, build=tuple(net.ISCSI_BUILD), net=two_wires,
                 cmdline=("ip=192.168.50.101::192.168.50.1:255.255.255.0::lan0:off "
                          "ip=192.168.51.101::192.168.51.1:255.255.255.0::lan1:off "
                          "netroot=iscsi:192.168.51.1::::%s netroot=iscsi:192.168.50.1::::%s "
                          "rd.iscsi.firmware rd.iscsi.initiator=%s rd.iscsi.waitnet=0 "
                          "rd.iscsi.testroute=0 ifname=lan0:%s ifname=lan1:%s" % (
                              TEST71_IQN % 1, TEST71_IQN % 2, net.INITIATOR, net.MAC1, net.MAC2)),
                 expect=(r"root-mount=/dev/sd[a-z]+ btrfs ",),
                 log_expect=("uniramfs: lan0: 192.168.50.101/24 as ip=",
                             "uniramfs: lan1: 192.168.51.101/24 as ip=",
                             "uniramfs: iBFT: no /sys/firmware/ibft: the firmware left no iSCSI "
                             "boot table",
                             "uniramfs: iSCSI: logging in to %s at 192.168.51.1:3260"
                             % (TEST71_IQN % 1),
                             "uniramfs: iSCSI: logging in to %s at 192.168.50.1:3260"
                             % (TEST71_IQN % 2)),
                 log_absent=("exited with status",)),
        # TEST-70 "netroot=iscsi target1 target2": the same two wires, a
        # bare ip=dhcp (QEMU's DHCP server on each): both leases kept
        Scenario("iscsi-test70-dhcp2", "ip=dhcp with two iSCSI targets on two wires: every "
                 "interface's lease kept, each target reached through its own (TEST-70)",
                 SPAN, "LABEL=" + SPAN.label, build=tuple(net.ISCSI_BUILD), net=two_wires,
                 cmdline=("ip=dhcp netroot=iscsi:192.168.51.1::::%s "
                          "netroot=iscsi:192.168.50.1::::%s rd.iscsi.initiator=%s" % (
                              TEST71_IQN % 1, TEST71_IQN % 2, net.INITIATOR)),
                 expect=(r"root-mount=/dev/sd[a-z]+ btrfs ",),
                 log_expect=(": 192.168.50.15/24 from DHCP server 192.168.50.2",
                             ": 192.168.51.15/24 from DHCP server 192.168.51.2",
                             "uniramfs: iSCSI: logging in to %s at 192.168.51.1:3260"
                             % (TEST71_IQN % 1),
                             "uniramfs: iSCSI: logging in to %s at 192.168.50.1:3260"
                             % (TEST71_IQN % 2)),
                 log_absent=("exited with status", ": down (")),
    ]
