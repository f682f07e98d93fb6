#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A Debian live image boots under uniramfs (issue 28): the live filesystem
of tests/distro/liveroot.sh (a debootstrap of bookworm with systemd,
live-config and live-config-systemd; no live-boot) on a medium in Debian's
layout (live/filesystem.squashfs, live/vmlinuz, live/initrd.img): a vfat
USB stick on QEMU's xHCI, which the init is not told of. It boots with a
Debian live image's own command line; the init finds the stick by a look
at every block device, puts a tmpfs above the squashfs and switches to it;
the root's report unit prints on the console that multi-user.target was
reached and what live-config did (the user `user`, the hostname), then
powers off.

  tests/distro/debianlive.py [--builddir build] [--workdir DIR] [--keep]

The last line is "N passed, N failed". Needs root (the live filesystem is
made in a chroot once, then cached in /var/cache/uniramfs-tests)."""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
HOSTNAME = "uniramfs-live"
# what Debian's live images (live-build) put on the line, and the words
# live-config reads; console= for the test's serial port
CMDLINE = ("boot=live components quiet splash hostname=%s username=user "
           "console=ttyS0 panic=-1 rd.shell=0" % HOSTNAME)
LABEL = "DEBIAN_LIVE"


class Result:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, ok, why=""):
        if ok:
            self.passed += 1
            print("ok - " + name, flush=True)
        else:
            self.failed += 1
            print("FAIL - %s%s" % (name, (": " + why) if why else ""), flush=True)
        return ok


def kernel():
    """The newest installed kernel with its modules, as the boot tests take it."""
    best = None
    for p in glob.glob("/boot/vmlinuz-*"):
        k = p[len("/boot/vmlinuz-"):]
        if os.path.isdir("/lib/modules/" + k) and (best is None or k > best):
            best = k
    if not best:
        sys.exit("debianlive: no /boot/vmlinuz-KVER with /lib/modules/KVER installed")
    return best


def make_stick(path, files):
    """A vfat stick with live/NAME for each (NAME, source) in files, made
    with mtools: nothing is mounted on the host."""
    size = sum(os.path.getsize(src) for _, src in files)
    kib = (size * 11 // 10 + (16 << 20)) // 1024
    if os.path.exists(path):
        os.unlink(path)
    subprocess.run(["mkfs.vfat", "-C", "-n", LABEL, path, str(kib)], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["mmd", "-i", path, "::live"], check=True)
    for name, src in files:
        subprocess.run(["mcopy", "-i", path, src, "::live/" + name], check=True)


def boot(vmlinuz, initrd, stick, serial, cmdline, timeout):
    """A TCG boot from the stick to the report unit's poweroff: QEMU's own
    end (True), or the timeout (False)."""
    cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "1024", "-smp", "1", "-no-reboot",
           "-kernel", vmlinuz, "-initrd", initrd, "-append", cmdline,
           "-device", "qemu-xhci,id=xhci",
           "-drive", "if=none,id=stick,format=raw,readonly=on,file=" + stick,
           "-device", "usb-storage,bus=xhci.0,drive=stick,removable=on",
           "-serial", "file:" + serial, "-monitor", "none", "-display", "none",
           "-nic", "none"]
    try:
        subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.STDOUT, timeout=timeout, check=False)
        return True
    except subprocess.TimeoutExpired:
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--builddir", default=os.path.join(TOP, "build"))
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--keep", action="store_true", help="keep the stick and the logs")
    a = ap.parse_args()
    work = a.workdir or os.path.join(a.builddir, "debianlive-work")
    res = Result()
    t0 = time.monotonic()
    os.makedirs(work, exist_ok=True)

    print("# the live filesystem (liveroot.sh, cached)", flush=True)
    r = subprocess.run([os.path.join(HERE, "liveroot.sh")], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if not res.check("the Debian live filesystem (squashfs, live-config)", r.returncode == 0,
                     r.stderr[-2000:]):
        return res
    squash = r.stdout.strip().splitlines()[-1]

    kver = kernel()
    initrd = os.path.join(work, "initrd.img")
    r = subprocess.run([os.path.join(a.builddir, "uniramfs"), "build", "-k", kver, "--generic",
                        "-o", initrd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if not res.check("uniramfs build --generic for %s" % kver, r.returncode == 0, r.stdout[-2000:]):
        return res

    stick = os.path.join(work, "stick.img")
    make_stick(stick, [("filesystem.squashfs", squash), ("vmlinuz", "/boot/vmlinuz-" + kver),
                       ("initrd.img", initrd)])
    res.check("the stick in Debian's layout (live/filesystem.squashfs, vmlinuz, initrd.img)",
              True)

    print("# boot (QEMU TCG): %s" % CMDLINE, flush=True)
    serial = os.path.join(work, "serial.txt")
    tb = time.monotonic()
    ended = boot("/boot/vmlinuz-" + kver, initrd, stick, serial, CMDLINE, a.timeout)
    dt = time.monotonic() - tb
    with open(serial, "rb") as f:
        out = f.read().decode("utf-8", "replace")

    def said(tag):
        m = re.search(r"UNIRAMFS-LIVE-%s: ?([^\r\n]*)" % tag, out)
        return m.group(1).strip() if m else None

    res.check("QEMU ended by itself in %.0f s (not the %d s timeout)" % (dt, a.timeout), ended)
    res.check("systemd is PID 1 after switch_root", said("PID1") == "systemd", said("PID1") or "")
    res.check("the report unit printed its marker", "UNIRAMFS-LIVE-MARKER" in out)
    state = said("STATE")
    failed = re.findall(r"UNIRAMFS-LIVE-FAILED: (\S+)", out)
    res.check("multi-user.target reached (is-system-running: %s%s)"
              % (state, "; failed: " + " ".join(failed) if failed else ""),
              state == "running" or (state == "degraded" and failed))
    root = said("ROOT") or ""
    res.check("/ is an overlay with the squashfs below (%s)" % root,
              root.split()[1:2] == ["overlay"] and "lowerdir=" in root, root)
    res.check("the root takes writes (the tmpfs above)", said("WRITE") == "ok", said("WRITE") or "")
    lc = said("CONFIG") or ""
    res.check("live-config.service ran its components (%s)" % lc,
              lc.startswith("active ") and "hostname" in lc and "user-setup" in lc, lc)
    user = said("USER") or ""
    res.check("live-config made the user `user` (%s)" % user,
              user.startswith("user:/home/user "), user)
    res.check("live-config set the hostname from hostname= (%s)" % said("HOSTNAME"),
              said("HOSTNAME") == "%s %s" % (HOSTNAME, HOSTNAME), said("HOSTNAME") or "")
    res.check("the kernel powered down", "reboot: Power down" in out)
    print("debianlive: %.0f s" % (time.monotonic() - t0), flush=True)
    if res.failed:
        print("# the serial console's last lines:")
        for line in out.splitlines()[-40:]:
            print("#   " + line)
    if not a.keep and not res.failed:
        os.unlink(stick)
    return res


if __name__ == "__main__":
    res = main()
    print("%d passed, %d failed" % (res.passed, res.failed))
    sys.exit(1 if res.failed else 0)
