# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for LVM's other volume kinds (issue 26): a thin LV, a
RAID1 LV and a cached LV as roots, activated by uniramfs's own LVM
plugins (plugins/lvm.conf, lvm-thin.conf, lvm-cache.conf).

One builder disk pair serves them all, and dracut TEST-20's "disk-thin"
replay in scenarios_compat too (builder/lvm-kinds.sh): VG dracut over
both disks holding the three LVs.  A boot with no LVM option activates
all three, so it needs what each needs: thin_check and cache_check in
the image, named by its lvm.conf (global/thin_check_executable,
cache_check_executable), and dm_raid, loaded only after lvm failed
without it (the plugin's layer-retry-modules).  The RAID1 boot names its
LV under rd.auto=0, so lvm activates that one alone.  Each scenario
passes only on the root's marker after switch_root, with the root the LV
its command line names.
"""

import builder

# thin-provisioning-tools' checkers (tools/install-deps.sh): the builder's
# lvm runs them as the image's does
CHECKERS = ("thin_check", "cache_check")
DM_MODULES = ("dm_thin_pool", "dm_raid", "dm_cache", "dm_cache_smq")


def _fs(n):
    return "5f0c1a4e-1b2d-4c3e-9f10-0000000030%02x" % n


class LvmxLayout(builder.Layout):
    """A layout whose builder image has the dm targets and checkers
    LVM's thin, RAID and cache volumes need."""

    def build(self, testinit, work, env):
        env = dict(env, builder={"name": "builder-lvmx.img", "binaries": CHECKERS,
                                 "modules": DM_MODULES})
        return builder.ensure(self, testinit, work, env)


RAID1_UUID, CACHED_UUID = _fs(2), _fs(3)
KINDS = LvmxLayout("lvm-kinds", "lvm-kinds", "ext4", _fs(1), "dracut", ndisks=2, size_mb=80,
                   params=(("RAID1_UUID", RAID1_UUID), ("CACHED_UUID", CACHED_UUID)))


# the first vgchange meets the RAID1 LV without dm_raid (the image has no
# modprobe for lvm to call): the plugin loads it and runs vgchange again
NO_DM_RAID = "Can't process LV dracut/raid1: raid1 target support missing from kernel?"
RETRIED = "device-mapper: raid: Loading target version"


def scenarios(Scenario):
    S = lambda *a, **k: Scenario(*a, ours_only=True, **k)  # noqa: E731
    return [
        S("lvm-thin", "a thin LV in a thin pool: thin_check packed, named by the image's "
          "lvm.conf", KINDS, "/dev/dracut/root",
          log_absent=("thin_check: execvp failed", "Check of pool")),
        # and dracut's rd.auto=0 written out: only the LV named is activated
        # (no thin pool, no cache: lvm's "N logical volume(s) ... now
        # active" is vgchange's, never said), md left alone
        S("lvm-raid1", "a RAID1 LV (lvcreate --type raid1) under rd.auto=0 rd.lvm.lv=: lvchange "
          "fails without dm_raid, which is loaded then, and runs again; nothing else activated",
          KINDS, "UUID=" + RAID1_UUID, cmdline="rd.auto=0 rd.lvm.lv=dracut/raid1",
          log_expect=(NO_DM_RAID, RETRIED,
                      "uniramfs: rd.auto=0: md arrays left alone: no rd.md.uuid= names one"),
          log_absent=("logical volume(s) in volume group",)),
        S("lvm-cache", "a cached LV (a cache pool on the other disk): cache_check packed, "
          "named by the image's lvm.conf", KINDS, "UUID=" + CACHED_UUID,
          log_absent=("cache_check: execvp failed", "Check of pool")),
    ]
