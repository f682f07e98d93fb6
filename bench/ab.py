#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Two images, booted in turn on bench/run.py's root disk: which is faster.

  bench/ab.py [--boots N] [--cmdline "..."] [--icount SHIFT] [--builddir DIR] IMAGE_A IMAGE_B

A change worth a few tens of milliseconds is smaller than what two runs of
bench/run.py differ by (bench/results/notes.md), so both images boot
alternately, A B A B ..., on the same quiet machine, and each line
compares the medians: the init's stages (/run/uniramfs/timings), the
init's time (Run /init to the real init), the kernel's unpack and the
whole boot. Every boot must pass as bench/run.py's do (the marker after
switch_root)."""

import os
import statistics
import sys

sys.dont_write_bytecode = True
import common  # noqa: E402  bench/common.py; it puts tests/boot on sys.path
from common import boottest, log, HERE  # noqa: E402
import disks  # noqa: E402


def values(boots):
    """name -> the values of every boot: each stage in ms, and init,
    unpack and the whole boot in ms."""
    out = {}
    for b in boots:
        for k, v in b.get("stages", {}).items():
            out.setdefault(k, []).append(v)
        for k, src in (("init", "init"), ("unpack", "unpack"), ("boot", "uptime")):
            if b.get(src) is not None:
                out.setdefault(k, []).append(b[src] * 1000)
    return out


def main():
    ap = common.new_parser(__doc__)
    ap.add_argument("a", metavar="IMAGE_A")
    ap.add_argument("b", metavar="IMAGE_B")
    ap.add_argument("--boots", type=int, default=5, help="boots of each image (5)")
    ap.add_argument("--cmdline", default="", help="more on the kernel command line")
    ap.add_argument("--icount", type=int, metavar="SHIFT",
                    help="boot with QEMU -icount shift=SHIFT (bench/run.py's --icount)")
    a = common.parse_args(ap, os.path.join(HERE, "work"))
    for img in (a.a, a.b):
        if not os.path.isfile(img):
            sys.exit("ab: %s: no such image" % img)
    builddir, _, _, vmlinuz, work = common.setup(a)
    disk = disks.ensure(boottest.EXT4, boottest.find_testinit(builddir, work), work)
    sc = next(s for s in boottest.SCENARIOS if s.name == "virtio-uuid")
    cmdline = "%s printk.time=1 root=%s %s" % (boottest.BASE_CMDLINE, sc.root, a.cmdline)
    extra = ["-icount", "shift=%d" % a.icount] if a.icount is not None else []
    if extra:
        boottest.BOOT_TIMEOUT = 300  # as bench/run.py's --icount: wall time stretches
    boots = {a.a: [], a.b: []}
    for i in range(a.boots):
        for tag, img in (("a", a.a), ("b", a.b)):
            logf = os.path.join(work, "logs", "ab-%s-%d.log" % (tag, i))
            text, dt, timed_out, missed = boottest.boot(vmlinuz, img, [disk], sc.bus,
                                                        cmdline.strip(), logf, extra=extra)
            err = boottest.check(sc, text, timed_out, missed=missed)
            if err is not None:
                sys.exit("ab: %s, boot %d: %s (log %s)" % (img, i + 1, err, logf))
            boots[img].append(common.boot_record(text, dt, err, logf))
    va, vb = values(boots[a.a]), values(boots[a.b])
    log("medians of %d boots each, ms: A %s, B %s" % (a.boots, a.a, a.b))
    for k in [k for k in va if k in vb]:
        ma, mb = statistics.median(va[k]), statistics.median(vb[k])
        log("  %-9s A %7.1f  B %7.1f  B-A %+7.1f" % (k, ma, mb, mb - ma))
    return 0


if __name__ == "__main__":
    sys.exit(main())
