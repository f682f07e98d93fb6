#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""arm64 boots: a generic image for Debian 12's arm64 kernel, made by the
host's (amd64) uniramfs from an arm64 tree, booted under
`qemu-system-aarch64 -M virt -cpu cortex-a57 -accel tcg` (console
ttyAMA0, the board's PL011) to a root whose /sbin/init is testinit
built for arm64.

  arm64/virtio-mmio   ext4 by UUID on a virtio-mmio disk (no PCI: the
                      board's device tree names the transport, and the
                      init loads virtio_mmio and virtio_blk for it)
  arm64/luks2         a LUKS2 root on virtio-blk-pci, the passphrase
                      typed on the serial line
  arm64/lvm           an LVM root by /dev/testvg/root on virtio-blk-pci

The pieces, each cached: sysroot.py (bookworm's arm64 packages and
kernel, through a private apt state), cross.py (uniramfs-init and
testinit cross-built in BUILD/arm64-cross), disks.py's ext4 root and
builder.py's LUKS2 and LVM layouts (the x86 builder VM lays them out: a
disk's format does not depend on the architecture; their root holds the
arm64 testinit).  Boots and checks are tests/boot/run.py's.  The last
line is `N passed, N failed`; exit status 1 on a failure.

  tests/arm64/arm64.py [--builddir BUILD] [--workdir DIR] [--only a,b] [--list]
"""

import argparse
import dataclasses
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "boot"))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import run as boottest  # noqa: E402  tests/boot/run.py: boot(), check(), Images
import builder  # noqa: E402
import disks  # noqa: E402
import scenarios_stack as stack  # noqa: E402
import cross  # noqa: E402
import sysroot  # noqa: E402

QEMU = ("qemu-system-aarch64", "-accel", "tcg", "-M", "virt", "-cpu", "cortex-a57")
CMDLINE = "console=ttyAMA0 panic=-1"
# A TCG arm64 boot of Debian's kernel takes about a minute here (x86: 10 s)
TIMEOUT = 300

# The stacked layouts of tests/boot under names of their own: the
# builder's cache is keyed by the layout (name included) and testinit's
# source, not by the binary, so the x86 disks must not be taken.
LUKS2 = dataclasses.replace(stack.LUKS2, name="arm64-luks2")
LVM = dataclasses.replace(stack.LVM, name="arm64-lvm")


def scenarios():
    S = boottest.Scenario
    return [
        S("arm64/virtio-mmio", "ext4 by UUID on virtio-mmio", boottest.EXT4,
          "UUID=" + boottest.EXT4.uuid, bus="virtio-mmio", expect=("root-writable=no",)),
        # aes_ce_blk's reference count: the mapping holds its xts(aes),
        # the Crypto Extensions' (cortex-a57 has them), not the C one
        S("arm64/luks2", "LUKS2 root, the passphrase typed on the serial line; "
          "dm-crypt uses the Crypto Extensions' AES", LUKS2, "UUID=" + LUKS2.uuid,
          cmdline="testinit.show=/sys/module/aes_ce_blk/refcnt",
          expect=(r"show /sys/module/aes_ce_blk/refcnt: [1-9]",),
          interact=stack.typed("/dev/vda", stack.LUKS2_UUID, stack.PASS)),
        S("arm64/lvm", "LVM root by /dev/VG/LV", LVM, "/dev/testvg/root"),
    ]


def say(*a):
    print(*a, flush=True)


def tail(text, n=30):
    return "\n".join("    | " + ln for ln in text.splitlines()[-n:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--builddir", default=os.environ.get("UNIRAMFS_BUILDDIR",
                                                         os.path.join(SRCDIR, "build")))
    ap.add_argument("--workdir", help="default: BUILDDIR/arm64-work")
    ap.add_argument("--cache", default=sysroot.CACHE)
    ap.add_argument("--only", help="comma-separated test names (see --list)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--timeout", type=int, default=TIMEOUT)
    a = ap.parse_args()
    scs = scenarios()
    if a.list:
        print("\n".join(s.name for s in scs))
        return 0
    if a.only:
        only = set(a.only.split(","))
        unknown = only - {s.name for s in scs}
        if unknown:
            sys.exit("arm64.py: unknown test(s): " + ", ".join(sorted(unknown)))
        scs = [s for s in scs if s.name in only]
    builddir = os.path.abspath(a.builddir)
    work = os.path.abspath(a.workdir or os.path.join(builddir, "arm64-work"))
    logs = os.path.join(work, "logs")
    os.makedirs(logs, exist_ok=True)
    uniramfs = os.path.join(builddir, "uniramfs")
    if not os.access(uniramfs, os.X_OK):
        sys.exit("arm64.py: %s not built" % uniramfs)
    boottest.BOOT_TIMEOUT = a.timeout
    t0 = time.monotonic()
    passed = failed = 0

    def result(name, err, secs=0.0):
        nonlocal passed, failed
        if err is None:
            passed += 1
            say("PASS %s (%.1f s)" % (name, secs))
        else:
            failed += 1
            say("FAIL %s: %s" % (name, err))

    try:
        t = time.monotonic()
        tree = sysroot.tree(a.cache)
        say("arm64 tree %s, kernel %s (%.1f s)" % (tree["root"], tree["kver"], time.monotonic() - t))
        t = time.monotonic()
        init, testinit = cross.build(builddir, tree["root"])
        say("cross-built %s and %s (%.1f s)" % (init, testinit, time.monotonic() - t))
    except Exception as e:  # noqa: BLE001 - no tree or no init fails every boot
        for sc in scs:
            result(sc.name, "no arm64 tree or init: %s" % e)
        say("%d passed, %d failed" % (passed, failed))
        return 1

    # The host's kernel boots the x86 builder VM that lays out the stacks.
    host_kver, host_vmlinuz = boottest.find_kernel()
    host = {"kver": host_kver, "vmlinuz": host_vmlinuz, "uniramfs": uniramfs}
    images = boottest.Images(uniramfs, tree["kver"], work)
    build = ("--sysroot", tree["root"], "--init", init, "--microcode", "none")
    for sc in scs:
        try:
            if isinstance(sc.disk, builder.Layout):
                dpaths = sc.disk.build(testinit, work, host)
            else:
                dpaths = [disks.ensure(sc.disk, testinit, work)]
        except Exception as e:  # noqa: BLE001 - a disk we cannot make fails the test
            result(sc.name, "cannot build disk %s: %s" % (sc.disk.name, e))
            continue
        img, err = images.get(build)
        if err:
            result(sc.name, err)
            continue
        log = os.path.join(logs, sc.name.replace("/", "-") + ".log")
        cmdline = " ".join(x for x in (CMDLINE, "root=" + sc.root, sc.cmdline) if x)
        text, dt, timed_out, missed = boottest.boot(tree["vmlinuz"], img, dpaths, sc.bus, cmdline,
                                                    log, interact=sc.interact, qemu=QEMU)
        err = boottest.check(sc, text, timed_out, missed=missed)
        result(sc.name, err and "%s\n%s\n    full log: %s" % (err, tail(text), log), dt)
    say("%d passed, %d failed (%.1f s wall)" % (passed, failed, time.monotonic() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
