# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for a persistent overlay that persists (issue 28):
TEST-30's "autooverlay" checks after a reboot that the partition the
first boot made is found, not made again, and that what was written
through the overlay is still in /.  One first boot per run, without
-snapshot, on a private copy of scenarios_liveovl's partitioned medium:
the init makes the partition and dracut's LiveOS/overlay-LABEL-UUID on
it, and testinit.mark= writes /persist-mark through the overlay.  The
scenarios' own boots (run.py, -snapshot) start from that copy: one finds
the mark, one with rd.overlay.reset finds the upper layer emptied."""

import os
import shutil
import subprocess
import threading

import scenarios_liveovl
import serialtext

FIRST_BOOT_TIMEOUT = 300   # seconds; a loaded host's TCG boot is slow
MARK = "/persist-mark"
WORDS = "rd.live.image rd.overlay=LABEL=persist rd.live.dir=LiveOS"


class _Rebooted:
    """The partitioned medium after one boot that made its overlay
    partition and wrote MARK; the scenarios boot copies of it (-snapshot)."""
    name = "ovlpersist-rebooted"
    fs = "overlay"

    def __init__(self):
        self.lock = threading.Lock()
        self.result = None

    def _first_boot(self, testinit, work, ctx):
        src = scenarios_liveovl._AutoOverlay().build(testinit, work, ctx)[0]
        d = os.path.join(work, self.name)
        os.makedirs(d, exist_ok=True)
        disk = os.path.join(d, "medium.img")
        shutil.copyfile(src, disk)
        img = os.path.join(d, "image")
        r = subprocess.run([ctx["uniramfs"], "build", "-k", ctx["kver"], "-o", img, "--generic"]
                           + scenarios_liveovl.AUTO_BUILD, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise RuntimeError("uniramfs build failed (%d):\n%s" % (r.returncode, r.stdout))
        log = os.path.join(work, "logs", self.name + "-first-boot.log")
        os.makedirs(os.path.dirname(log), exist_ok=True)
        cmdline = "console=ttyS0 panic=-1 root=%s %s testinit.mark=%s" % (
            scenarios_liveovl.ROOT, WORDS, MARK)
        cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "1G", "-smp", "1",
               "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none",
               "-serial", "file:" + log, "-kernel", ctx["vmlinuz"], "-initrd", img,
               "-append", cmdline,
               "-drive", "if=none,id=d0,format=raw,file=" + disk,
               "-device", "virtio-blk-pci,drive=d0"]
        try:
            for _ in range(serialtext.BOOT_TRIES):
                subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.STDOUT, timeout=FIRST_BOOT_TIMEOUT)
                text = serialtext.read(log)
                if not serialtext.host_too_slow(text):
                    break
        except subprocess.TimeoutExpired:
            raise RuntimeError("the first boot did not power off within %d s (%s)"
                               % (FIRST_BOOT_TIMEOUT, log))
        finally:
            os.unlink(img)
        if "TESTINIT: marked " + MARK not in text or scenarios_liveovl.AUTO_SAID[0] not in text:
            raise RuntimeError("the first boot did not make the partition and write %s (%s)"
                               % (MARK, log))
        return disk

    def build(self, testinit, work, ctx):
        with self.lock:
            if self.result is None:
                self.result = self._first_boot(testinit, work, ctx)
            return [self.result]


REBOOTED = _Rebooted()
FOUND = ("uniramfs: rd.overlay: the upper layer is /dev/vda2 (ext4) on /run/overlayfs-backing",
         "uniramfs: rd.overlay: found LiveOS/overlay-" + scenarios_liveovl.MEDIUM_LABEL + "-")
NOT_MADE = ("uniramfs: rd.overlay=LABEL=persist: made",)


def scenarios(Scenario):
    """run.py's Scenario list for the overlay across a reboot."""
    return [
        Scenario("live-test30-autooverlay-reboot", "TEST-30 \"autooverlay\" after a reboot: the "
                 "partition the first boot made is found, and what it wrote is in /",
                 REBOOTED, scenarios_liveovl.ROOT, cmdline="%s testinit.show=%s" % (WORDS, MARK),
                 build=scenarios_liveovl.AUTO_BUILD, ours_only=True,
                 expect=scenarios_liveovl.AUTO_EXPECT
                 + (r"show %s: written by an earlier boot$" % MARK,),
                 log_expect=FOUND, log_absent=NOT_MADE),
        Scenario("live-overlay-reset", "rd.live.overlay.reset after that reboot: the upper "
                 "layer is emptied before use, / has no mark", REBOOTED, scenarios_liveovl.ROOT,
                 cmdline="%s rd.live.overlay.reset testinit.show=%s" % (WORDS, MARK),
                 build=scenarios_liveovl.AUTO_BUILD, ours_only=True,
                 expect=scenarios_liveovl.AUTO_EXPECT
                 + (r"show %s: cannot open %s: No such file" % (MARK, MARK),),
                 log_expect=FOUND + ("uniramfs: rd.overlay.reset: emptied /run/overlayfs-backing/"
                                     "LiveOS/overlay-" + scenarios_liveovl.MEDIUM_LABEL + "-",),
                 log_absent=NOT_MADE),
    ]
