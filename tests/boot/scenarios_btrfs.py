# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for btrfs over several devices (issue 26; booster's
TestBtrfsRaid0 and TestLuksBtrfsRaid1).

Every member is registered with the kernel (BTRFS_IOC_DEVICES_READY on
/dev/btrfs-control) and the root is mounted only once its filesystem has
them all; with a member missing, rootflags=degraded mounts what is there
after rd.timeout and says so, and without it the failure names the count.
The disks are made in the builder VM (builder.py, builder/btrfs-*.sh):
btrfs-progs 6.2's --rootdir takes one device only.
"""

import builder
import scenarios_stack as st

PROFILE = lambda p: (("PROFILE", p),)  # noqa: E731
# btrfs wants ~114 MB per device for its default chunks
RAID0 = builder.Layout("btrfs-raid0", "btrfs-multi", "btrfs", st._fs(0x28), "btrraid0",
                       ndisks=2, size_mb=160, params=PROFILE("raid0"))
RAID1 = builder.Layout("btrfs-raid1", "btrfs-multi", "btrfs", st._fs(0x29), "btrraid1",
                       ndisks=2, size_mb=160, params=PROFILE("raid1"))
LUKS_A = "5f0c1a4e-1b2d-4c3e-9f10-0000000001da"
LUKS_B = "5f0c1a4e-1b2d-4c3e-9f10-0000000001db"
LUKS_RAID1 = builder.Layout("btrfs-luks-raid1", "btrfs-luks-multi", "btrfs", st._fs(0x2a),
                            "btrluksraid1", ndisks=2, size_mb=160,
                            params=(("LUKS_UUID", LUKS_A), ("LUKS_UUID2", LUKS_B),
                                    ("PASS", st.PASS)))
# Three devices: one passphrase (the boot tests and bench/multidev.py), and
# the same disks with the third's own passphrase.
LUKS3_UUIDS = ("5f0c1a4e-1b2d-4c3e-9f10-0000000001e3", "5f0c1a4e-1b2d-4c3e-9f10-0000000001e4",
               "5f0c1a4e-1b2d-4c3e-9f10-0000000001e5")
_LUKS3_PARAMS = (("LUKS_UUID", LUKS3_UUIDS[0]), ("LUKS_UUID2", LUKS3_UUIDS[1]),
                 ("LUKS_UUID3", LUKS3_UUIDS[2]), ("PASS", st.PASS))
LUKS3 = builder.Layout("btrfs-luks3", "btrfs-luks-multi", "btrfs", st._fs(0x2c), "btrluks3",
                       ndisks=3, size_mb=160, params=_LUKS3_PARAMS)
OWN_PASS = "third-disk-own"
LUKS3_OWN = builder.Layout("btrfs-luks3-own", "btrfs-luks-multi", "btrfs", st._fs(0x2d), "btrluks3own",
                           ndisks=3, size_mb=160, params=_LUKS3_PARAMS + (("PASS_3", OWN_PASS),))

SHORT = "rd.timeout=8"


def missing_msg(layout, have, want):
    return ("uniramfs: root=UUID=%s: btrfs UUID=%s has %d of %d devices (rootflags=degraded "
            "mounts it with those)" % (layout.uuid, layout.uuid, have, want))


def scenarios(Scenario):
    """run.py's Scenario list for multi-device btrfs."""
    u = lambda layout: "UUID=" + layout.uuid  # noqa: E731
    S = lambda *a, **k: Scenario(*a, ours_only=True, **k)  # noqa: E731
    waiting = lambda layout, dev: (  # noqa: E731
        "uniramfs: root=UUID=%s is %s, btrfs UUID=%s: waiting for its other devices"
        % (layout.uuid, dev, layout.uuid))
    return [
        S("btrfs-raid0", "btrfs RAID0 over two disks: both registered, then mounted",
          RAID0, u(RAID0)),
        S("btrfs-raid1", "btrfs RAID1 over two disks: both registered, then mounted",
          RAID1, u(RAID1)),
        S("btrfs-raid1-degraded", "btrfs RAID1 with its second disk gone and "
          "rootflags=degraded: mounted with one after rd.timeout, a warning",
          st.Missing(RAID1, (0,)), u(RAID1), cmdline=SHORT + " rootflags=degraded",
          expect=(r"root-mount=\S+ btrfs \S*degraded",),
          log_expect=(waiting(RAID1, "/dev/vda"),
                      "uniramfs: root=UUID=%s: btrfs UUID=%s has 1 of 2 devices: mounting it "
                      "degraded (rootflags=degraded)" % (RAID1.uuid, RAID1.uuid))),
        S("btrfs-raid1-missing", "btrfs RAID1 with its second disk gone, no degraded: the "
          "failure names the count", st.Missing(RAID1, (0,)), u(RAID1),
          cmdline=SHORT + " " + st.NO_SHELL,
          fail_msgs=(missing_msg(RAID1, 1, 2),
                     "uniramfs: root device root=UUID=%s did not appear within 8 seconds"
                     % RAID1.uuid,
                     "uniramfs: rebooting now")),
        S("btrfs-luks-raid1", "btrfs RAID1 over two LUKS2 devices with one passphrase, typed "
          "once", LUKS_RAID1, u(LUKS_RAID1),
          interact=st.typed("/dev/vda", LUKS_A, st.PASS),
          log_expect=("uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS_A,
                      "uniramfs: /dev/vdb: opened with a passphrase typed earlier in this boot",
                      "uniramfs: unlocked /dev/vdb as /dev/mapper/luks-" + LUKS_B),
          log_absent=("Passphrase for /dev/vdb",)),
        S("btrfs-luks3-raid1", "btrfs RAID1 over three LUKS2 devices with one passphrase, "
          "typed once: the other two open with it", LUKS3, u(LUKS3),
          interact=st.typed("/dev/vda", LUKS3_UUIDS[0], st.PASS),
          log_expect=tuple("uniramfs: %s: opened with a passphrase typed earlier in this boot"
                           % d for d in ("/dev/vdb", "/dev/vdc")) +
          tuple("uniramfs: unlocked /dev/vd%s as /dev/mapper/luks-%s" % (c, uu)
                for c, uu in zip("abc", LUKS3_UUIDS)),
          log_absent=("Passphrase for /dev/vdb", "Passphrase for /dev/vdc")),
        S("btrfs-luks3-own-pass", "the same with the third device's own passphrase: the "
          "second opens with the first's, the third is asked for its own",
          LUKS3_OWN, u(LUKS3_OWN),
          interact=st.typed("/dev/vda", LUKS3_UUIDS[0], st.PASS) +
          st.typed("/dev/vdc", LUKS3_UUIDS[2], OWN_PASS),
          log_expect=("uniramfs: /dev/vdb: opened with a passphrase typed earlier in this boot",
                      "uniramfs: unlocked /dev/vdc as /dev/mapper/luks-" + LUKS3_UUIDS[2]),
          log_absent=("Passphrase for /dev/vdb",)),
    ]
