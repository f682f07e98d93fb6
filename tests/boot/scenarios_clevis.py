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
import shutil

import builder
import netservers
import scenarios_stack
import scenarios_tpm
import tang
import tpm

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
# booster's luks2.clevis.tpm2.img (TestLUKS2ClevisTpm2): the tpm2 pin alone,
# no network; and sss with t=2 over Tang and tpm2 (issue 29)
B_TPM2_UUID = "3756ba2c-1505-4283-8f0b-b1d1bd7b844f"
B_TPM2 = builder.Layout("booster-luks2-clevis-tpm2", "luks2-clevis-tpm2", "ext4",
                        "c3cc0321-fba8-42c3-ad73-d13f8826d8d7", "luks2clevistpm2root",
                        params=(("LUKS_UUID", B_TPM2_UUID), ("PASS", "1234"),
                                ("PIN", "tpm2"), ("PINCFG", "{}")),
                        tpm=True)
# booster's luks1.clevis.tpm2.img (TestLUKS1ClevisTpm2): LUKS1, the tpm2 pin
# in luksmeta's slots, no network
B_LUKS1_TPM2_UUID = "28c2e412-ab72-4416-b224-8abd116d6f2f"
B_LUKS1_TPM2 = builder.Layout("booster-luks1-clevis-tpm2", "luks1-clevis-tpm2", "ext4",
                              "2996cec0-16fd-4f1d-8bf3-6606afa77043", "luks1clevistpm2root",
                              params=(("LUKS_UUID", B_LUKS1_TPM2_UUID), ("PASS", "1234")),
                              tpm=True)
SSS_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001d1"
SSS = builder.Layout("luks2-clevis-sss", "luks2-clevis-tpm2", "ext4",
                     "5f0c1a4e-1b2d-4c3e-9f10-000000000141", "luks2clevissssroot",
                     params=(("LUKS_UUID", SSS_UUID), ("PASS", scenarios_stack.PASS),
                             ("PIN", "sss"),
                             ("PINCFG", '{"t":2,"pins":{"tang":[{"url":"%s","adv":"/src/tang.adv"}],'
                                        '"tpm2":{}}}' % tang.URL)),
                     tpm=True, tang=True)
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


class WithTangTpm(WithTang):
    """sss's disk: Tang serving its keys and its TPM's state, both."""

    @contextlib.contextmanager
    def attach(self, paths):
        with contextlib.ExitStack() as st:
            nic = st.enter_context(WithTang.attach(self, paths))
            tpmargs = st.enter_context(scenarios_tpm.WithTpm(self.layout).attach(paths))
            yield nic + tpmargs


def _tpm2_pin():
    """swtpm, and clevis's tpm2 pin for the builder and the image."""
    return tpm.available() and shutil.which("clevis-decrypt-tpm2") is not None


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
    ] + ([
        S("booster-luks2-clevis-tpm2", "booster TestLUKS2ClevisTpm2: a LUKS2 root bound to the "
          "TPM with clevis's tpm2 pin: unlocked with no prompt and no network",
          scenarios_tpm.WithTpm(B_TPM2), "UUID=" + B_TPM2.uuid,
          cmdline="rd.luks.uuid=" + B_TPM2_UUID,
          log_expect=("uniramfs: /dev/vda: opened with clevis",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + B_TPM2_UUID),
          log_absent=("Passphrase for", "asking for the passphrase",
                      "waiting for the network")),
        S("booster-luks1-clevis-tpm2", "booster TestLUKS1ClevisTpm2: a LUKS1 root whose "
          "luksmeta slot binds it to the TPM with the tpm2 pin: the pin read from the slot, "
          "the TPM waited for, unlocked with no prompt and no network",
          scenarios_tpm.WithTpm(B_LUKS1_TPM2), "UUID=" + B_LUKS1_TPM2.uuid,
          cmdline="rd.luks.uuid=" + B_LUKS1_TPM2_UUID,
          log_expect=("uniramfs: /dev/vda: opened with clevis",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + B_LUKS1_TPM2_UUID),
          log_absent=("Passphrase for", "asking for the passphrase",
                      "waiting for the network", "needs the network")),
        S("luks-clevis-sss", "a LUKS2 root bound with sss, t=2 of Tang and tpm2: both "
          "reached, unlocked with no prompt",
          WithTangTpm(SSS, True), "UUID=" + SSS.uuid, cmdline=NET,
          log_expect=("uniramfs: /dev/vda: waiting for the network to reach its clevis server",
                      "uniramfs: /dev/vda: opened with clevis",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + SSS_UUID),
          log_absent=("Passphrase for", "asking for the passphrase")),
    ] if _tpm2_pin() else [])
