# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for TEST-30's last live cases (issue 28): "erofs", a
whole disk that is an erofs image of the test root, named by its SCSI
serial (TEST-30 makes it with mkfs.erofs, so do we); and "autooverlay",
dracut's dmsquash-live-autooverlay: the medium is partition 1 of a disk
with free space after it, and rd.overlay=LABEL=persist (or the older
rd.live.overlay=) names a partition that is not there yet, which the
init makes in that free space, formats and uses as the upper layer. The
image packs sfdisk and mkfs.ext4 for it because its baked command line
asks (the generator's overlay-tools feature)."""

import contextlib
import hashlib
import os
import subprocess
import tempfile
import threading

import disks
import scenarios_live

_lock = threading.Lock()
MEDIUM_LABEL = scenarios_live.MEDIUM_LABEL
ROOT = scenarios_live.ROOT
EROFS_ID = "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_root_erofs"
PART_MB, FREE_MB = 64, 48


def _cached(testinit, work, tag, make):
    """WORK/disks/TAG-HASH.img, made by make(tmpdir, root_tree, out) once
    per testinit."""
    with open(testinit, "rb") as f:
        h = hashlib.sha256(tag.encode() + f.read()).hexdigest()[:12]
    path = os.path.join(work, "disks", "%s-%s.img" % (tag, h))
    with _lock:
        if os.path.exists(path):
            return path
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with tempfile.TemporaryDirectory(dir=os.path.dirname(path), prefix=".build-") as tmp:
            root = os.path.join(tmp, "root")
            disks._populate(root, testinit)
            out = os.path.join(tmp, "out.img")
            make(tmp, root, out)
            os.rename(out, path)
    return path


def _erofs(tmp, root, out):
    subprocess.run(["mkfs.erofs", "--quiet", out, root], check=True, stdout=subprocess.DEVNULL)


def _partitioned_medium(tmp, root, out):
    """TEST-30's root.img: an MBR, partition 1 the ext4 medium "dracut"
    with LiveOS/rootfs.img, and FREE_MB MiB free after it."""
    live = os.path.join(tmp, "live", "LiveOS")
    os.makedirs(live)
    subprocess.run(["gensquashfs", "-q", "-D", root, os.path.join(live, "rootfs.img")],
                   check=True, stdout=subprocess.DEVNULL)
    part = os.path.join(tmp, "part.img")
    with open(part, "wb") as f:
        f.truncate(PART_MB << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-L", MEDIUM_LABEL, "-d", os.path.dirname(live),
                    part], check=True)
    with open(out, "wb") as f:
        f.truncate((1 + PART_MB + FREE_MB) << 20)
    subprocess.run(["sfdisk", "-q", out], input="2048,%d\n" % (PART_MB << 11), text=True,
                   check=True)
    subprocess.run(["dd", "if=" + part, "of=" + out, "bs=1M", "seek=1", "conv=notrunc",
                    "status=none"], check=True)


class _Erofs:
    """TEST-30's drives: the ext4 medium first, the erofs disk on SCSI
    with the serial root_erofs; root=live: names the latter."""
    name = "test30-erofs"
    fs = "overlay"

    def build(self, testinit, work, env):
        self.erofs = _cached(testinit, work, "test30-erofs", _erofs)
        return scenarios_live.MEDIUM.build(testinit, work, env)

    def attach(self, paths):
        return contextlib.nullcontext((
            "-drive", "if=none,id=erofs,format=raw,file=" + self.erofs,
            "-device", "virtio-scsi-pci,id=scsi9",
            "-device", "scsi-hd,bus=scsi9.0,drive=erofs,serial=root_erofs"))


class _AutoOverlay:
    """The partitioned medium on virtio (-snapshot: each boot starts with
    one partition, as TEST-30's reset_overlay_partition makes it)."""
    name = "test30-autooverlay"
    fs = "overlay"

    def build(self, testinit, work, env):
        return [_cached(testinit, work, "test30-autooverlay", _partitioned_medium)]


AUTO_EXPECT = (r"root-mount=LiveOS_rootfs overlay rw,", "root-writable=yes",
               r"mounts: /dev/vda2 /run/overlayfs-backing ext4 ",
               r"mounts: /dev/loop\d+ /run/rootfsbase squashfs ro,")
AUTO_SAID = ("uniramfs: rd.overlay=LABEL=persist: made /dev/vda2 in the free space after "
             "/dev/vda1 on /dev/vda, an ext4 labelled persist",
             "uniramfs: rd.overlay: the upper layer is /dev/vda2 (ext4) on /run/overlayfs-backing")
# what a generic image needs to make the partition: the baked line asks
AUTO_BUILD = ["--cmdline", "rd.live.image rd.overlay=LABEL=persist"]


def scenarios(Scenario):
    """run.py's Scenario list for TEST-30's erofs and autooverlay cases."""
    return [
        Scenario("live-test30-erofs", "root=live:/dev/disk/by-id/...root_erofs (TEST-30 "
                 "\"erofs\"): an erofs disk is the image itself, a tmpfs above", _Erofs(),
                 ROOT, cmdline="rd.overlay root=live:" + EROFS_ID, ours_only=True,
                 expect=(r"root-mount=LiveOS_rootfs overlay rw,", "root-writable=yes",
                         r"mounts: /dev/sda /run/rootfsbase erofs ro,"),
                 log_expect=("uniramfs: root=live: mounted /dev/sda (erofs, ro) on /sysroot",)),
        Scenario("live-test30-autooverlay", "rd.live.image rd.overlay=LABEL=persist "
                 "rd.live.dir=LiveOS (TEST-30 \"autooverlay\"): the persistent partition is "
                 "made at boot after the medium's", _AutoOverlay(), ROOT,
                 cmdline="rd.overlay rd.live.image rd.overlay=LABEL=persist rd.live.dir=LiveOS",
                 build=AUTO_BUILD, ours_only=True, expect=AUTO_EXPECT, log_expect=AUTO_SAID),
        Scenario("live-test30-autooverlay-old", "rd.live.image rd.live.overlay=LABEL=persist "
                 "rd.live.dir=LiveOS (TEST-30 \"autooverlay (deprecated rd.live.overlay)\")",
                 _AutoOverlay(), ROOT,
                 cmdline="rd.overlay rd.live.image rd.live.overlay=LABEL=persist "
                 "rd.live.dir=LiveOS",
                 build=AUTO_BUILD, ours_only=True, expect=AUTO_EXPECT,
                 log_expect=AUTO_SAID),
    ]
