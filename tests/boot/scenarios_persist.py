# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for udev's persistent names (issue 22): root= and resume=
given as /dev/disk/by-id/... and /dev/disk/by-path/..., which the init
computes from sysfs (src/init/dev/persistname.c) since no udev runs.

The root is run.py's plain ext4 on an NVMe disk (serial "uniramfs0", as
BUSES["nvme"] has it); the swap is scenarios_early's plain swap (no
hibernation image), on a SCSI disk behind virtio-scsi with the serial
"persistswap".  A name the init got wrong never appears, so the root is
not found and there is no testinit marker; a resume= it got wrong is
waited for and given up on, so "is /dev/sda" is looked for in the log.
With -nodefaults the NVMe controller is the first PCI device (00:02.0)
and the virtio-scsi one the second (00:03.0).
"""

import contextlib

import disks
import scenarios_early

ROOT = scenarios_early.ROOT
SWAP_SERIAL = "persistswap"

# what udev 252 names them (the by-id forms as
# tests/unit/fixtures/persistname shows for the same QEMU devices)
NVME_BY_ID = "/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_uniramfs0"
NVME_BY_PATH = "/dev/disk/by-path/pci-0000:00:02.0-nvme-1"
SCSI_BY_ID = "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_" + SWAP_SERIAL
SCSI_BY_PATH = "/dev/disk/by-path/pci-0000:00:03.0-scsi-0:0:0:0"


class NvmeRootScsiSwap:
    """The root disk (run.py attaches it on the scenario's bus) and the
    swap, attached by attach() on virtio-scsi rather than virtio-blk."""

    name, fs = "persist-nvme-scsi", "ext4"

    def __init__(self):
        self.swap = None

    def build(self, testinit, work, ctx):
        self.swap = scenarios_early._swap(work, testinit)
        return [disks.ensure(ROOT, testinit, work)]

    def attach(self, dpaths):
        return contextlib.nullcontext([
            "-device", "virtio-scsi-pci,id=pscsi",
            "-drive", "if=none,id=pswap,format=raw,file=" + self.swap,
            "-device", "scsi-hd,drive=pswap,bus=pscsi.0,serial=" + SWAP_SERIAL])


def _resume_lines(spec):
    return ("uniramfs: resume=%s is /dev/sda" % spec,
            "uniramfs: no hibernation image on /dev/sda, booting normally")


def scenarios(Scenario):
    return [
        Scenario("persist-by-id", "root= and resume= as /dev/disk/by-id names: NVMe root, "
                 "swap on virtio-scsi", NvmeRootScsiSwap(), NVME_BY_ID, bus="nvme",
                 cmdline="resume=" + SCSI_BY_ID, ours_only=True,
                 expect=("resumed=no",), log_expect=_resume_lines(SCSI_BY_ID)),
        Scenario("persist-by-path", "root= and resume= as /dev/disk/by-path names",
                 NvmeRootScsiSwap(), NVME_BY_PATH, bus="nvme",
                 cmdline="resume=" + SCSI_BY_PATH, ours_only=True,
                 expect=("resumed=no",), log_expect=_resume_lines(SCSI_BY_PATH)),
    ]
