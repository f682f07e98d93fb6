# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for TEST-30's last live cases (issue 28): "erofs", a
whole disk that is an erofs image of the test root, named by its SCSI
serial (TEST-30 makes it with mkfs.erofs, so do we)."""

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


def scenarios(Scenario):
    """run.py's Scenario list for TEST-30's erofs case."""
    return [
        Scenario("live-test30-erofs", "root=live:/dev/disk/by-id/...root_erofs (TEST-30 "
                 "\"erofs\"): an erofs disk is the image itself, a tmpfs above", _Erofs(),
                 ROOT, cmdline="rd.overlay root=live:" + EROFS_ID, ours_only=True,
                 expect=(r"root-mount=LiveOS_rootfs overlay rw,", "root-writable=yes",
                         r"mounts: /dev/sda /run/rootfsbase erofs ro,"),
                 log_expect=("uniramfs: root=live: mounted /dev/sda (erofs, ro) on /sysroot",)),
    ]
