# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for clevis and Tang (issue 14; booster's LUKS1 case, issue
27): a LUKS2 (or LUKS1) root bound with
`clevis luks bind` in the builder VM (tang.py makes the keys, cached with
the disk as STEM.tang/, and hands the VM their advertisement, so the
builder needs no network).  Each boot's guest has a virtio-net NIC on
QEMU user networking with restrict=on, and its connections to
10.0.2.100:80 go through a guestfwd rule to 127.0.0.1 only: to a tangd
behind socat, or to a port nothing listens on (Tang down).  The generic
image packs clevis (--clevis); the command line asks for the network
(rd.neednet=1 ip=dhcp), as clevis's dracut module needs too.
"""

import contextlib

import builder
import netservers
import scenarios_stack
import tang

LUKS_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001d0"
LAYOUT = builder.Layout("luks2-clevis", "luks2-clevis", "ext4",
                        "5f0c1a4e-1b2d-4c3e-9f10-000000000140", "luks2clevisroot",
                        params=(("LUKS_UUID", LUKS_UUID), ("PASS", scenarios_stack.PASS),
                                ("TANG_URL", tang.URL)),
                        tang=True)
# booster's luks1.clevis.tang.img (TestLUKS1ClevisTang): LUKS1, the binding
# in luksmeta's slots; booster's static network (10.0.2.15/24) as ip=
B_LUKS1_UUID = "4cdaa447-ef43-42a6-bfef-89ebb0c61b05"
B_LUKS1 = builder.Layout("booster-luks1-clevis", "luks1-clevis", "ext4",
                         "c23aacf4-9e7e-4206-ba6c-af017934e6fa", "luks1clevisroot",
                         params=(("LUKS_UUID", B_LUKS1_UUID), ("PASS", "1234"),
                                 ("TANG_URL", tang.URL)),
                         tang=True)
B_STATIC = "rd.neednet=1 ip=10.0.2.15:::255.255.255.0::eth0:off net.ifnames=0"
BUILD = ("--clevis", "--add-modules", "virtio_pci,virtio_net")
NET = "rd.neednet=1 ip=dhcp"
DOWN_MSG = ("uniramfs: /dev/vda: clevis could not unlock it (exit status 1); asking for the "
            "passphrase")


def _nic(fwd):
    return ["-netdev", "user,id=n0,restrict=on," + fwd,
            "-device", "virtio-net-pci,netdev=n0"]


class WithTang:
    """The layout's disk and its NIC (run.py calls attach(paths) as a
    context manager for the extra QEMU arguments): with tangd serving the
    keys the disk was bound to, or (up=False) with nothing at the port."""

    def __init__(self, layout, up):
        self.layout, self.name, self.fs, self.up = layout, layout.name, layout.fs, up

    def build(self, testinit, work, env):
        return self.layout.build(testinit, work, env)

    @contextlib.contextmanager
    def attach(self, paths):
        if not self.up:
            yield _nic(tang.guestfwd(netservers.free_port()))
            return
        with tang.serve(paths[0][:-len(".0.img")] + ".tang", None) as port:
            yield _nic(tang.guestfwd(port))


def scenarios(Scenario):
    """run.py's Scenario list for clevis."""
    if not tang.available():
        return []
    S = lambda *a, **k: Scenario(*a, ours_only=True, build=BUILD, **k)  # noqa: E731
    return [
        S("booster-luks1-clevis-tang", "booster TestLUKS1ClevisTang: a LUKS1 root bound to Tang "
          "(luksmeta's slots), booster's static address: unlocked with no prompt",
          WithTang(B_LUKS1, True), "UUID=" + B_LUKS1.uuid,
          cmdline="rd.luks.uuid=%s %s" % (B_LUKS1_UUID, B_STATIC),
          log_expect=("uniramfs: eth0: 10.0.2.15/24 as ip=",
                      "uniramfs: /dev/vda: opened with clevis",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + B_LUKS1_UUID),
          log_absent=("Passphrase for", "asking for the passphrase", "DHCP")),
        S("luks-clevis-tang", "LUKS2 root bound to Tang with clevis: unlocked after the "
          "network is up, with no prompt",
          WithTang(LAYOUT, True), "UUID=" + LAYOUT.uuid, cmdline=NET,
          log_expect=("uniramfs: /dev/vda: opened with clevis",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS_UUID),
          log_absent=("Passphrase for", "asking for the passphrase")),
        S("luks-clevis-tang-down", "the same disk with Tang not running: the passphrase",
          WithTang(LAYOUT, False), "UUID=" + LAYOUT.uuid, cmdline=NET,
          interact=scenarios_stack.typed("/dev/vda", LUKS_UUID, scenarios_stack.PASS),
          log_expect=(DOWN_MSG,)),
    ]
