# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for a root on NVMe over TCP (issue 27, part B): the
server VM of servervm.py with nvmet=True serves the test root's disk as
namespace 1 of servervm.NVMET_NQN through the kernel's own nvmet-tcp on
192.168.100.1:4420; the guest's only NIC is on that VM's wire.

nvmf-discover is dracut's spelling (its nvmf module, dracut.cmdline(7)):
rd.nvmf.discover= names a discovery controller, which lists the
subsystem the init then connects to, as the host rd.nvmf.hostnqn= and
rd.nvmf.hostid= name; the target admits that host NQN alone, so the
boot also proves the init connects as it.  dracut-ng has no NVMe-oF
test of its own to replay (its test/ has none).
"""

import contextlib
import os

import disks
import scenarios_net as net
import scenarios_netvm as netvm
import servervm

LOCAL = net.LOCAL
SERVER, NQN, PORT = servervm.SERVER_ADDR, servervm.NVMET_NQN, servervm.NVMET_PORT
HOSTID = "5f0c1a4e-1b2d-4c3e-9f10-0000000000f1"
HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:" + HOSTID
DISCOVERY = "nqn.2014-08.org.nvmexpress.discovery"
# The guest as a hostonly build would see it once booted (its root on
# NQN at SERVER:PORT through eth0): tests/unit/fixtures/hostonly/make-fixtures.sh
GUEST_SYSROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "fixtures",
                             "hostonly", "nvmf-guest")
REFUSED_PORT = 4421     # nothing listens there


def served(name, host=""):
    """scenarios_netvm.served with the server VM's nvmet on."""
    def net_(testinit, work):
        @contextlib.contextmanager
        def ctx():
            disk = disks.ensure(LOCAL, testinit, work)
            with servervm.start(netvm.ENV, work, disk, name, nvmet=True, nvmet_host=host) as s:
                yield [], s.guest_nic()
        return ctx()
    return net_


def scenarios(Scenario):
    return [
        Scenario("nvmf-discover", "root=LABEL= rd.nvmf.discover=tcp,SERVER,,4420 ip=dhcp with "
                 "rd.nvmf.hostnqn=/hostid=: the discovery controller lists the subsystem, whose "
                 "namespace holds the root; the target admits only that host NQN",
                 LOCAL, "LABEL=" + LOCAL.label,
                 cmdline="rd.nvmf.discover=tcp,%s,,%d rd.nvmf.hostnqn=%s rd.nvmf.hostid=%s ip=dhcp %s" % (
                     SERVER, PORT, HOSTNQN, HOSTID, net.KERNEL_NAMES),
                 net=served("nvmf-discover", host=HOSTNQN),
                 expect=(r"root-mount=/dev/nvme\d+n1 ext4 ro",),
                 log_expect=("uniramfs: NVMe/TCP: connecting to %s at %s:%d over eth0 (IPv4)" % (
                     DISCOVERY, SERVER, PORT),
                     "uniramfs: NVMe/TCP: %s at %s:%d is nvme" % (NQN, SERVER, PORT)),
                 log_absent=("NVMe/TCP: cannot",)),
        # hostonly's bake, read by the init: rd.nvmf.traddr=/nqn=/hostnqn=
        # connect straight to the subsystem; the --cmdline's discovery
        # controller on a port nothing listens on fails first, named
        Scenario("nvmf-hostonly", "a --hostonly image for a root on NVMe/TCP bakes rd.nvmf.traddr= "
                 "rd.nvmf.nqn= rd.nvmf.hostnqn= ip=eth0:dhcp and boots by them; a refused "
                 "rd.nvmf.discover= says who refused",
                 LOCAL, "LABEL=" + LOCAL.label, ours_only=True,
                 build=("--hostonly", "--sysroot", GUEST_SYSROOT, "--kmoddir", "/lib/modules/{kver}",
                        "--microcode", "none",
                        "--cmdline", "rd.nvmf.discover=tcp,%s,,%d" % (SERVER, REFUSED_PORT)),
                 cmdline=net.KERNEL_NAMES, net=served("nvmf-hostonly", host=HOSTNQN),
                 expect=(r"root-mount=/dev/nvme\d+n1 ext4 ro",),
                 log_expect=("uniramfs: NVMe/TCP: cannot connect to %s at %s:%d over eth0 (IPv4): "
                             "Connection refused: the server answered that nothing listens on that port"
                             % (DISCOVERY, SERVER, REFUSED_PORT),
                             "uniramfs: NVMe/TCP: connecting to %s at %s:%d over eth0 (IPv4)" % (
                                 NQN, SERVER, PORT),
                             "uniramfs: NVMe/TCP: %s at %s:%d is nvme" % (NQN, SERVER, PORT))),
    ]
