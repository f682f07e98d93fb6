# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for load the init must not lose (issue 24): a root disk
that is hot-plugged while the init waits for it, and the same during a
storm of device events.

The root is run.py's plain ext4 disk, not attached at boot: its drive is
given to QEMU without a device, and once the console says the init is
waiting, QEMU's monitor adds a virtio-blk device for it (PCI hotplug
through ACPI, as a disk put into a running machine).  The storm is a
pre-udev hook (hooks/uevent-storm) adding and removing scsi_debug hosts
of eight LUNs in the background, thousands of uevents racing the init's
probes; the root arrives in the middle of it.  A boot passes only on
testinit's marker after switch_root, as every other.
"""

import contextlib
import os
import shutil
import socket
import tempfile
import time

import disks
import scenarios_early

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = scenarios_early.ROOT
WAITING = r"uniramfs: waiting up to \d+ seconds for root="


class Hotplugged:
    """The root disk, attached by QEMU's monitor when plug() is called."""

    fs = "ext4"

    def __init__(self, name):
        self.name, self.mon, self.path, self.plugged = name, None, None, False

    def build(self, testinit, work, ctx):
        self.path = disks.ensure(ROOT, testinit, work)
        return []   # nothing on the bus at boot

    def attach(self, dpaths):
        @contextlib.contextmanager
        def ctx():
            tmp = tempfile.mkdtemp(prefix="hotplug-")
            self.mon = os.path.join(tmp, "mon")
            try:
                # the drive without a device; run.py's -snapshot covers it
                yield ["-monitor", "unix:%s,server=on,wait=off" % self.mon,
                       "-drive", "if=none,id=hp0,format=raw,file=" + self.path]
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return ctx()

    def plug(self):
        """An interact action: must not block the console for long."""
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(self.mon)
            s.sendall(b"device_add virtio-blk-pci,drive=hp0,id=hproot\n")
            time.sleep(0.3)
            self.plugged = True
        finally:
            s.close()

    def missed(self):
        return None if self.plugged else "the hot-plug of the root disk"


def scenarios(Scenario):
    hp = Hotplugged("hotplug-root")
    storm = Hotplugged("hotplug-root-storm")
    return [
        Scenario("hotplug-root", "the root disk hot-plugged (PCI, through QEMU's monitor) while "
                 "the init waits for it", hp, "UUID=" + ROOT.uuid, ours_only=True,
                 cmdline="rd.timeout=120", interact=((WAITING, hp.plug),),
                 log_expect=("uniramfs: root=UUID=%s is /dev/vda" % ROOT.uuid,)),
        Scenario("uevent-storm", "a storm of device events (scsi_debug hosts of eight LUNs "
                 "added and removed in a loop) while the init waits, the root hot-plugged in "
                 "the middle of it", storm, "UUID=" + ROOT.uuid, ours_only=True,
                 build=("--add-binaries", "busybox", "--add-modules", "scsi_debug",
                        "--add-hook", "pre-udev:" + os.path.join(HERE, "hooks", "uevent-storm")),
                 cmdline="rd.timeout=300",
                 interact=((r"storm: started", storm.plug),),
                 log_expect=("uniramfs: root=UUID=%s is /dev/vda" % ROOT.uuid,
                             "storm: started"),
                 log_absent=("storm: no scsi_debug",)),
    ]
