# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for the multipath plugin (plugins/multipath.conf.in,
docs/plugins.md "Claim rows", issue 25).

One ext4 disk image seen through two QEMU paths: two virtio-scsi
controllers, each with a scsi-hd on the same file, with the same serial
and WWN, so the guest sees /dev/sda and /dev/sdb with one WWID (VPD page
0x83) and one filesystem UUID.  The plugin's claim row asks its program
about each disk before root= may match it; the program builds the map
(multipath-tools from the host, packed by the plugin), and root=UUID=
must resolve to the map, never a path: the root the real init sees is a
dm device, and the paths are marked for the root's udev
(DM_MULTIPATH_DEVICE_PATH=1 in /run/udev/data).  With one controller only
the boot still succeeds, on the single path.
"""

import contextlib
import os
import shutil
import tempfile
import threading

import disks
import netservers
import scenarios_early
import scenarios_net
import scratch

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))

MPATH_ROOT = disks.Disk("mpath-root", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-00000000aa01", "mpathroot")
MPATH_GPT = disks.Disk("mpath-gpt", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-00000000aa02", "mpathgpt",
                       gpt=True, disk_guid="5f0c1a4e-1b2d-4c3e-9f10-00000000aad2",
                       partuuid="5f0c1a4e-1b2d-4c3e-9f10-00000000aaa2", partlabel="mpath-root")
SERIAL = "UNIRAMFSMP01"
WWN = "0x5000c50015ea71ac"


class TwoPaths:
    """The root disk file behind `paths` virtio-scsi controllers (no
    disk on run.py's bus: attach() gives every QEMU argument)."""

    def __init__(self, name, paths, disk=MPATH_ROOT):
        self.name, self.fs, self.paths, self.disk = name, "ext4", paths, disk
        self.path = None

    def build(self, testinit, work, ctx):
        _copy_claim(os.path.dirname(ctx["uniramfs"]))
        self.path = disks.ensure(self.disk, testinit, work) if self.disk.gpt \
            else scenarios_early._ext4(work, testinit, self.disk)
        return []

    def attach(self, dpaths):
        args = []
        for i in range(self.paths):
            args += ["-device", "virtio-scsi-pci,id=mpscsi%d" % i,
                     "-drive", "if=none,id=mp%d,format=raw,file.locking=off,file=%s"
                     % (i, self.path),
                     "-device", "scsi-hd,drive=mp%d,bus=mpscsi%d.0,serial=%s,wwn=%s,share-rw=on"
                     % (i, i, SERIAL, WWN)]
        return contextlib.nullcontext(args)


PLUGIN_DIR = scratch.scratch_dir("mpath")
CLAIM = os.path.join(PLUGIN_DIR, "uniramfs-multipath-claim")


def _multipath_plugin():
    """The tree's plugin (plugins/multipath.conf.in) with its claim
    program where TwoPaths.build copies the build tree's: an installed
    one would be in libexecdir."""
    os.makedirs(PLUGIN_DIR, exist_ok=True)
    with open(os.path.join(SRCDIR, "plugins/multipath.conf.in")) as f:
        text = f.read().replace("@LIBEXECDIR@/uniramfs-multipath-claim", CLAIM)
    path = os.path.join(PLUGIN_DIR, "multipath.conf")
    tmp = path + ".%d" % os.getpid()
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
    return path


def _wwids():
    """A wwids file as multipath-tools keeps it, listing the disk's WWID
    (VPD page 0x83's NAA designator, as multipath reads it from sysfs):
    what a hostonly image carries from a host that had made the map."""
    os.makedirs(PLUGIN_DIR, exist_ok=True)
    path = os.path.join(PLUGIN_DIR, "wwids")
    with open(path, "w") as f:
        f.write("# Multipath wwids, Version : 1.0\n/3%s/\n" % WWN[2:])
    return path


def _copy_claim(builddir):
    tmp = CLAIM + ".%d.%d" % (os.getpid(), threading.get_ident())
    shutil.copy2(os.path.join(builddir, "src/plugins/multipath/uniramfs-multipath-claim"), tmp)
    os.replace(tmp, CLAIM)


def iscsi_two_portals(testinit, work):
    """The root disk file served twice: two tgtd, each with the same
    target name, LUN number and file (so the same VPD identity and WWID),
    at 10.0.2.100:3260 and :3261 in the guest."""
    @contextlib.contextmanager
    def ctx():
        tmp = tempfile.mkdtemp(prefix="iscsi-mp-", dir=work)
        try:
            lun = os.path.join(tmp, "lun.img")
            shutil.copyfile(scenarios_early._ext4(work, testinit, MPATH_ROOT), lun)
            with netservers.start_iscsi(lun, tmp) as s1, netservers.start_iscsi(lun, tmp) as s2:
                try:
                    yield [], scenarios_net._nic(s1.guestfwd(3260) + "," + s2.guestfwd(3261))
                finally:
                    with open(os.path.join(work, "logs", "tgtd-mpath-last.log"), "w") as f:
                        f.write(s1.log_text() + s2.log_text())
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return ctx()


ISCSI_PATHS = " ".join("netroot=iscsi:%s::%d:%d:%s" % (netservers.GUEST_ADDR, port, netservers.ISCSI_LUN,
                                                        netservers.ISCSI_IQN) for port in (3260, 3261))


def scenarios(Scenario):
    plugin = ("--plugin", _multipath_plugin())
    return [
        Scenario("multipath",
                 "one disk through two virtio-scsi paths: root=UUID= is mounted through "
                 "the multipath map the plugin's claim row built, never a path",
                 TwoPaths("mpath2", 2), "UUID=" + MPATH_ROOT.uuid,
                 cmdline="testinit.show=/run/udev/data/b8:0 testinit.show=/run/udev/data/b8:16",
                 build=plugin, ours_only=True,
                 expect=(r"root-mount=/dev/dm-\d+ ext4 ro",
                         r"show /run/udev/data/b8:0: E:DM_MULTIPATH_DEVICE_PATH=1",
                         r"show /run/udev/data/b8:16: E:DM_MULTIPATH_DEVICE_PATH=1"),
                 log_expect=("is claimed by plugin multipath: not a root candidate",)),
        Scenario("multipath-one-path",
                 "the same disk with one path left: the boot still succeeds",
                 TwoPaths("mpath1", 1), "UUID=" + MPATH_ROOT.uuid,
                 build=plugin, ours_only=True,
                 expect=(r"root-mount=/dev/(dm-\d+|sda) ext4 ro",)),
        Scenario("multipath-gpt",
                 "a GPT disk through two paths: the map's partition (kpartx, as the root's "
                 "udev rules name it) holds the root, never a path's partition",
                 TwoPaths("mpath2gpt", 2, MPATH_GPT), "PARTUUID=" + MPATH_GPT.partuuid,
                 build=plugin, ours_only=True,
                 expect=(r"root-mount=/dev/dm-\d+ ext4 ro",),
                 log_expect=("is /dev/dm-1",)),
        Scenario("multipath-one-path-wwid",
                 "one path left, its WWID in the image's /etc/multipath/wwids: the map is "
                 "built over the one path and holds the root",
                 TwoPaths("mpath1", 1), "UUID=" + MPATH_ROOT.uuid,
                 build=plugin + ("--add-files", _wwids() + ":/etc/multipath/wwids"), ours_only=True,
                 expect=(r"root-mount=/dev/dm-\d+ ext4 ro",),
                 log_expect=("/dev/sda is claimed by plugin multipath: not a root candidate",)),
        Scenario("multipath-iscsi",
                 "one iSCSI LUN through two portals (two netroot=iscsi:, dracut's spelling): "
                 "both logged in, the root mounted through their multipath map",
                 MPATH_ROOT, "UUID=" + MPATH_ROOT.uuid,
                 build=tuple(scenarios_net.ISCSI_BUILD) + plugin, net=iscsi_two_portals,
                 cmdline=ISCSI_PATHS, ours_only=True,
                 expect=(r"root-mount=/dev/dm-\d+ ext4 ro",),
                 log_expect=("iSCSI: logging in to %s at %s:3260" % (netservers.ISCSI_IQN,
                                                                    netservers.GUEST_ADDR),
                             "iSCSI: logging in to %s at %s:3261" % (netservers.ISCSI_IQN,
                                                                    netservers.GUEST_ADDR),
                             "is claimed by plugin multipath: not a root candidate")),
        Scenario("multipath-off",
                 "rd.multipath=0: no map is built, the root is a path",
                 TwoPaths("mpath2", 2), "UUID=" + MPATH_ROOT.uuid,
                 cmdline="rd.multipath=0", build=plugin, ours_only=True,
                 expect=(r"root-mount=/dev/sd[ab] ext4 ro",)),
    ]
