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
LUKS_RAID1 = builder.Layout("btrfs-luks-raid1", "btrfs-luks-raid1", "btrfs", st._fs(0x2a),
                            "btrluksraid1", ndisks=2, size_mb=160,
                            params=(("LUKS_UUID", LUKS_A), ("LUKS_UUID2", LUKS_B),
                                    ("PASS", st.PASS)))

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
    ]
