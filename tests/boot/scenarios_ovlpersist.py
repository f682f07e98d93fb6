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

import disks
import pvh
import scenarios_liveovl
import scenarios_overlay
import serialtext

FIRST_BOOT_TIMEOUT = 300   # seconds; a loaded host's TCG boot is slow
MARK = "/persist-mark"
WORDS = "rd.live.image rd.overlay=LABEL=persist rd.live.dir=LiveOS"


def _boot_writing(ctx, img, cmdline, log, drives):
    """One boot of img without -snapshot (drives say which of their
    disks the guest's writes reach): its serial text."""
    os.makedirs(os.path.dirname(log), exist_ok=True)
    cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "1G", "-smp", "1",
           "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none",
           "-serial", "file:" + log, "-kernel", ctx["vmlinuz"], "-initrd", img,
           "-append", cmdline] + drives
    try:
        for _ in range(serialtext.BOOT_TRIES):
            subprocess.run(pvh.argv(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.STDOUT, timeout=FIRST_BOOT_TIMEOUT)
            text = serialtext.read(log)
            if not serialtext.host_too_slow(text):
                break
    except subprocess.TimeoutExpired:
        raise RuntimeError("the first boot did not power off within %d s (%s)"
                           % (FIRST_BOOT_TIMEOUT, log))
    return text


def _build_image(ctx, out, args=()):
    r = subprocess.run([ctx["uniramfs"], "build", "-k", ctx["kver"], "-o", out, "--generic"]
                       + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError("uniramfs build failed (%d):\n%s" % (r.returncode, r.stdout))


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
        _build_image(ctx, img, scenarios_liveovl.AUTO_BUILD)
        log = os.path.join(work, "logs", self.name + "-first-boot.log")
        cmdline = "console=ttyS0 panic=-1 root=%s %s testinit.mark=%s" % (
            scenarios_liveovl.ROOT, WORDS, MARK)
        try:
            text = _boot_writing(ctx, img, cmdline, log, [
                "-drive", "if=none,id=d0,format=raw,file=" + disk,
                "-device", "virtio-blk-pci,drive=d0"])
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


class _OverlayRebooted(scenarios_overlay._Layout):
    """A persistent overlay over an ordinary root (TEST-21's layout: the
    ext4 root labelled dracut, the OVERLAY disk on SCSI) after a first
    boot with rd.overlay=LABEL=OVERLAY that wrote MARK through the
    overlay: on a private copy of the OVERLAY disk (the root's drive
    with snapshot=on: only the upper layer is written)."""
    name = "ovlpersist-plain"

    def __init__(self):
        super().__init__("overlay")
        self.lock = threading.Lock()
        self.result = None

    def _first_boot(self, testinit, work, ctx):
        root = disks.ensure(scenarios_overlay.ROOT, testinit, work)
        d = os.path.join(work, self.name)
        os.makedirs(d, exist_ok=True)
        upper = os.path.join(d, "overlay.img")
        shutil.copyfile(disks.ensure(scenarios_overlay.UPPER, testinit, work), upper)
        img = os.path.join(d, "image")
        _build_image(ctx, img)
        log = os.path.join(work, "logs", self.name + "-first-boot.log")
        cmdline = "console=ttyS0 panic=-1 root=LABEL=dracut %s testinit.mark=%s" % (
            PLAIN_WORDS, MARK)
        try:
            text = _boot_writing(ctx, img, cmdline, log, [
                "-drive", "if=none,id=d0,format=raw,snapshot=on,file=" + root,
                "-device", "virtio-blk-pci,drive=d0",
                "-drive", "if=none,id=ovl,format=raw,file=" + upper,
                "-device", "virtio-scsi-pci,id=scsi9",
                "-device", "scsi-hd,bus=scsi9.0,drive=ovl,serial=overlay"])
        finally:
            os.unlink(img)
        if "TESTINIT: marked " + MARK not in text or PLAIN_MADE not in text:
            raise RuntimeError("the first boot did not make overlay/ on OVERLAY and write %s "
                               "(%s)" % (MARK, log))
        return root, upper

    def build(self, testinit, work, ctx):
        with self.lock:
            if self.result is None:
                self.result = self._first_boot(testinit, work, ctx)
            self.upper = self.result[1]
            return [self.result[0]]


REBOOTED = _Rebooted()
PLAIN_WORDS = "rd.overlay=LABEL=OVERLAY"
PLAIN_MADE = "uniramfs: rd.overlay: made overlay and ovlwork on /run/overlayfs-backing"
PLAIN_REBOOTED = _OverlayRebooted()
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
        # not live: rd.overlay=LABEL= over an ordinary ext4 root, across a reboot
        Scenario("overlay-persist-reboot", "rd.overlay=LABEL=OVERLAY over an ext4 root, after "
                 "a boot that wrote through it: the device's overlay/ is found, not made, and "
                 "what that boot wrote is in /", PLAIN_REBOOTED, "LABEL=dracut",
                 cmdline="%s testinit.show=%s" % (PLAIN_WORDS, MARK), ours_only=True,
                 expect=(scenarios_overlay.OVERLAY_ROOT, scenarios_overlay.WRITABLE,
                         r"mounts: /dev/sda /run/overlayfs-backing ext4 rw,",
                         r"show %s: written by an earlier boot$" % MARK),
                 log_expect=("uniramfs: rd.overlay: the upper layer is /dev/sda (ext4) on "
                             "/run/overlayfs-backing",
                             "uniramfs: rd.overlay: found overlay and ovlwork on "
                             "/run/overlayfs-backing"),
                 log_absent=(PLAIN_MADE,)),
        # rd.overlay.readonly: that device mounted read-only, its layer
        # between the root and a tmpfs that takes this boot's writes
        Scenario("overlay-readonly-reboot", "rd.overlay.readonly on the same rebooted device: "
                 "mounted read-only below a tmpfs, the earlier boot's file in /, a new write "
                 "in the tmpfs", PLAIN_REBOOTED, "LABEL=dracut",
                 cmdline="%s rd.overlay.readonly testinit.show=%s testinit.mark=/new-mark"
                 % (PLAIN_WORDS, MARK), ours_only=True,
                 expect=(scenarios_overlay.OVERLAY_ROOT
                         + r"\S*lowerdir=/run/overlayfs-backing/overlay:/run/rootfsbase,"
                         r"upperdir=/run/initramfs/overlay/",
                         scenarios_overlay.WRITABLE,
                         r"mounts: /dev/sda /run/overlayfs-backing ext4 ro,",
                         r"show %s: written by an earlier boot$" % MARK,
                         r"marked /new-mark$"),
                 log_expect=("uniramfs: rd.overlay: found overlay and ovlwork on "
                             "/run/overlayfs-backing",
                             "uniramfs: rd.overlay.readonly: /run/overlayfs-backing/overlay is "
                             "a read-only layer below the tmpfs"),
                 log_absent=(PLAIN_MADE,)),
    ]
