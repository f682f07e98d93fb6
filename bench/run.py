#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmarks side by side: uniramfs against mkinitramfs (initramfs-tools)
and dracut, for the same installed kernel and the same root disk (ext4 on
virtio-blk, root=UUID=), in one run on one machine.

  bench/run.py [--builddir DIR] [--runs N] [--boots N] [--only a,b]
               [--no-boot] [--out DIR] [--workdir DIR] [--no-install]

A variant row (uniramfs --generic with fsck.mode=skip) boots its base
row's image with more on the command line.  For each generator: build wall time (hyperfine, median/min/max of --runs),
image size, entries and regular files in the image (`uniramfs ls`), and
over --boots TCG boots of the last image built: the kernel's timestamp of
"Run /init as init process", the init's time from there to the real init
(the root's /sbin/init prints /proc/uptime), and PASS/FAIL as the boot
tests judge it.  Also the peak RSS of `uniramfs build --generic`.

Writes OUT/results.md, OUT/results.json and OUT/chart.png (gnuplot).
"""

import datetime
import inspect
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True     # no __pycache__ in bench/ or tests/boot/
import common  # noqa: E402  bench/common.py; it puts tests/boot on sys.path
from common import boottest, log, HERE, SRCDIR  # noqa: E402
import disks  # noqa: E402


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


class Gen:
    """One generator configuration: how to build an image, what it is for.
    base: the key of the row whose image this one boots (with boot_args
    on the command line) instead of building its own; handover=False: an
    image that leaves no /proc, /sys, /run mounted to the real init."""

    def __init__(self, key, label, cmd, cls, img, boot=True, base=None, boot_args="",
                 handover=True):
        self.key, self.label, self.cmd, self.cls, self.boot = key, label, cmd, cls, boot
        self.img, self.base, self.boot_args, self.handover = img, base, boot_args, handover
        self.res = {"key": key, "label": label, "class": cls}
        if base:
            self.res["base"], self.res["boot_args"] = base, boot_args


# tiny-initramfs finds no modules by itself for another machine's root:
# these and their dependencies (mktirfs resolves them) make the guest's
# ext4 on virtio-blk mountable; crc32c_generic since ext4's metadata
# checksums ask the crypto API for crc32c, which no modprobe loads there.
TINY_MODULES = "virtio_pci,virtio_blk,ext4,crc32c_generic"


def generators(uniramfs, kver, work):
    """(key, label, class, command with {out} for the image, boots?)"""
    virtio = shlex.quote(os.path.join(SRCDIR, "tests/unit/fixtures/hostonly/virtio"))
    u = "%s build -k %s -o {out} --config /dev/null " % (shlex.quote(uniramfs), kver)
    itools = "mkinitramfs -d " + os.path.join(work, "itools-%s") + " -o {out} " + kver
    table = [
        ("uniramfs-generic", "uniramfs --generic", "generic", u + "--generic", True),
        ("uniramfs-generic-nofsck", "uniramfs --generic, fsck.mode=skip", "generic",
         "uniramfs-generic", "fsck.mode=skip"),
        # the same image in one compressed segment: as before the squashfs
        # segment (issue 15), in the same run
        ("uniramfs-generic-1seg", "uniramfs --generic --squashfs no", "generic",
         u + "--generic --squashfs no", True),
        ("uniramfs-generic-1seg-nofsck", "uniramfs --generic --squashfs no, fsck.mode=skip",
         "generic", "uniramfs-generic-1seg", "fsck.mode=skip"),
        # the smallest generic image: its squashfs in xz too
        ("uniramfs-generic-xz", "uniramfs --generic --compress xz", "generic",
         u + "--generic --compress xz", True),
        ("uniramfs-hostonly", "uniramfs --hostonly (guest sysroot)", "hostonly",
         u + "--hostonly --sysroot %s --kmoddir /lib/modules/%s --microcode none"
         % (virtio, kver), True),
        # issue 31 compares generic and host-only both with the check skipped
        ("uniramfs-hostonly-nofsck", "uniramfs --hostonly (guest sysroot), fsck.mode=skip",
         "hostonly", "uniramfs-hostonly", "fsck.mode=skip"),
        ("uniramfs-hostonly-host", "uniramfs --hostonly (this host)", "hostonly",
         u + "--hostonly", False),
        ("mkinitramfs-most", "mkinitramfs MODULES=most", "generic", itools % "most", True),
        ("mkinitramfs-dep", "mkinitramfs MODULES=dep", "hostonly", itools % "dep", True),
        ("dracut-generic", "dracut --no-hostonly", "generic",
         "dracut --no-hostonly --force --kver %s {out}" % kver, True),
        ("dracut-hostonly", "dracut --hostonly", "hostonly",
         "dracut --hostonly --force --kver %s {out}" % kver, True),
        ("tiny-initramfs", "tiny-initramfs (mktirfs, the guest's modules)", "hostonly",
         "mktirfs -o {out} -m no -M no --include-modules=%s %s" % (TINY_MODULES, kver), True),
    ]
    gens, by_key = [], {}
    for key, label, cls, cmd, boot in table:
        img = os.path.join(work, "img", key + ".img")
        if isinstance(boot, str):   # a variant: boots cmd's (its base's) image
            b = by_key[cmd]
            g = Gen(key, label, b.cmd, cls, b.img, base=cmd, boot_args=boot)
        else:
            g = Gen(key, label, cmd.replace("{out}", img), cls, img, boot,
                    handover=not key.startswith("tiny-"))
        gens.append(g)
        by_key[key] = g
    return gens


def itools_confdirs(work):
    """Copies of /etc/initramfs-tools differing only in MODULES=."""
    for m in ("most", "dep"):
        common.itools_conf(work, "itools-" + m, MODULES=m)


def measure_build(g, runs, work, timed=True):
    """hyperfine over g.cmd; the image of the last run stays for the rest.
    timed=False: the one untimed build only (a variant whose base row is
    not in this run)."""
    js = os.path.join(work, "hf-%s.json" % g.key)
    outlog = os.path.join(work, "build-%s.log" % g.key)
    # A failing command would stop hyperfine: try once first, keep its output.
    with open(outlog, "w") as f:
        r = subprocess.run(g.cmd, shell=True, stdout=f, stderr=subprocess.STDOUT)
    g.res["build_log"] = outlog
    if r.returncode != 0 or not os.path.isfile(g.img):
        with open(outlog) as f:
            tail = f.read()[-2000:]
        g.res["build_error"] = "exit %d: %s" % (r.returncode, tail.strip().splitlines()[-1]
                                                if tail.strip() else "")
        log("  %s: build FAILED (%s)" % (g.label, g.res["build_error"]))
        return
    if not timed:
        g.res["built"] = True
        return
    # The run above is the warm-up (page cache); hyperfine measures the rest.
    run(["hyperfine", "--runs", str(runs), "--style", "basic", "--export-json", js,
         "--command-name", g.key, g.cmd],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(js) as f:
        t = json.load(f)["results"][0]["times"]
    g.res["build"] = {"median": statistics.median(t), "min": min(t), "max": max(t),
                      "runs": len(t), "times": t}
    log("  %-45s build %8.3f s (min %.3f, max %.3f, %d runs)"
        % (g.label, g.res["build"]["median"], min(t), max(t), len(t)))


def measure_image(g, uniramfs):
    img = g.img
    if not os.path.isfile(img):
        return
    g.res["size"] = os.path.getsize(img)
    out = subprocess.run([uniramfs, "ls", img], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    m = common.ENTRIES_RE.search(out.stdout)
    if out.returncode != 0 or not m:
        g.res["ls_error"] = out.stdout.strip().splitlines()[-1:] or ["?"]
        return
    g.res["entries"] = int(m.group(1))
    g.res["files"] = sum(1 for ln in out.stdout.splitlines() if ln.startswith("-"))
    g.res["segments"] = [ln for ln in out.stdout.splitlines() if ln.startswith("segment ")]


def measure_rss(uniramfs, kver, work, n=3):
    out = os.path.join(work, "img", "rss.img")
    vals = []
    for _ in range(n):
        r = subprocess.run(["/usr/bin/time", "-f", "RSS %M", uniramfs, "build", "-k", kver,
                            "-o", out, "--generic", "--config", "/dev/null"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        m = re.search(r"^RSS (\d+)$", r.stderr, re.M)
        if r.returncode == 0 and m:
            vals.append(int(m.group(1)))
    os.unlink(out) if os.path.exists(out) else None
    return vals


# What --smp and --icount add to every boot's QEMU command line.
QEMU_EXTRA = []


def boot_once(vmlinuz, img, disk, sc, cmdline, logf, ours, handover):
    """tests/boot/run.py's boot() and check(), whichever of their signatures
    this checkout has (disk_path or disk_paths; check's ours=)."""
    params = inspect.signature(boottest.boot).parameters
    kw = {"extra": QEMU_EXTRA} if QEMU_EXTRA else {}
    r = boottest.boot(vmlinuz, img, [disk] if "disk_paths" in params else disk,
                      sc.bus, cmdline, logf, **kw)
    text, dt, timed_out = r[0], r[1], r[2]
    kw = {}
    cparams = inspect.signature(boottest.check).parameters
    if "ours" in cparams:
        kw["ours"] = ours
    if "missed" in cparams and len(r) > 3:
        kw["missed"] = r[3]
    if not handover:
        kw["handover"] = False
    return text, dt, timed_out, boottest.check(sc, text, timed_out, **kw)


def boot_one(g, i, vmlinuz, disk, work):
    """g's i-th boot; False when there is no point booting it again (a
    hang, or an image the kernel refused)."""
    sc = next(s for s in boottest.SCENARIOS if s.name == "virtio-uuid")
    cmdline = "%s printk.time=1 root=%s" % (boottest.BASE_CMDLINE, sc.root)
    if g.boot_args:
        cmdline += " " + g.boot_args
    logf = os.path.join(work, "logs", "%s-%d.log" % (g.key, i))
    text, dt, timed_out, err = boot_once(vmlinuz, g.img, disk, sc, cmdline, logf,
                                         g.key.startswith("uniramfs"), g.handover)
    b = common.boot_record(text, dt, err, logf)
    b["cmdline"] = cmdline
    g.res.setdefault("boots", []).append(b)
    log("  %-45s boot %d: %s%s" % (g.label, i + 1, "PASS" if err is None else "FAIL",
        "" if err is None else " (%s)" % err) +
        ("  Run /init %.3f s, real init at %.2f s" % (b["run_init"], b["uptime"])
         if "init" in b else ""))
    return not (err is not None and (timed_out or b["run_init"] is None))


def summarize_boots(g, nboots):
    boots = g.res.get("boots", [])
    g.res["boot_pass"] = all(b["pass"] for b in boots) and len(boots) == nboots
    ok = [b for b in boots if b["pass"] and "init" in b]
    ris = [b["run_init"] for b in boots if b["run_init"] is not None]
    if ris:
        g.res["run_init"] = statistics.median(ris)
    un = [b["unpack"] for b in boots if b.get("unpack") is not None]
    if un:
        g.res["unpack"] = statistics.median(un)
    if ok:
        for k in ("init", "uptime"):
            g.res[k] = statistics.median(b[k] for b in ok)
            g.res[k + "_min"] = min(b[k] for b in ok)
            g.res[k + "_max"] = max(b[k] for b in ok)


def measure_boots(gens, vmlinuz, disk, nboots, work):
    """Round i boots every image once, so that a change in the machine's
    load halfway through the run stretches every row alike."""
    going = list(gens)
    for i in range(nboots):
        going = [g for g in going if boot_one(g, i, vmlinuz, disk, work)]
    for g in gens:
        summarize_boots(g, nboots)


def machine():
    nproc, cpu, mem, host_kernel = common.host()
    virt = subprocess.run(["systemd-detect-virt"], stdout=subprocess.PIPE, text=True,
                          stderr=subprocess.DEVNULL).stdout.strip() \
        if shutil.which("systemd-detect-virt") else "?"
    return {"nproc": nproc, "cpu": cpu, "mem_mb": mem, "virt": virt or "none",
            "host_kernel": host_kernel}


VERSIONS = ("initramfs-tools", "dracut-core", "qemu-system-x86", "hyperfine", "zstd")


def main():
    ap = common.new_parser(__doc__)
    ap.add_argument("--runs", type=int, default=5, help="timed builds per generator (5)")
    ap.add_argument("--boots", type=int, default=3, help="TCG boots per image (3)")
    ap.add_argument("--only", help="comma-separated generator keys (see --list)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--no-boot", action="store_true", help="builds only")
    ap.add_argument("--smp", type=int, default=1, help="CPUs of each boot (1)")
    ap.add_argument("--icount", type=int, metavar="SHIFT",
                    help="boot with QEMU -icount shift=SHIFT: the guest's clock counts "
                    "its instructions (2^SHIFT ns each), not the host's busy time")
    a = common.parse_args(ap, os.path.join(HERE, "work"))
    if a.smp != 1:
        QEMU_EXTRA.extend(["-smp", str(a.smp)])  # after boot()'s -smp 1: the last one counts
    if a.icount is not None:
        QEMU_EXTRA.extend(["-icount", "shift=%d" % a.icount])
        # the instruction clock keeps the guest's times, not the wall
        # time: on a loaded host a boot may take minutes
        boottest.BOOT_TIMEOUT = 300

    builddir, uniramfs, kver, vmlinuz, work = common.setup(a)
    gens = generators(uniramfs, kver, work)
    if a.list:
        for g in gens:
            print("%-24s %s" % (g.key, "boots %s's image with %s" % (g.base, g.boot_args)
                                if g.base else g.cmd))
        return 0
    gens = common.pick(gens, a.only, lambda g: g.key, "bench")
    itools_confdirs(work)

    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.monotonic()
    log("bench: kernel %s, %d build runs, %d boots per image, %d generators"
        % (kver, a.runs, 0 if a.no_boot else a.boots, len(gens)))
    log("builds:")
    picked = {g.key for g in gens}
    for g in gens:
        if g.base in picked:
            continue   # its base row builds the image it boots
        measure_build(g, a.runs, work, timed=g.base is None)
        measure_image(g, uniramfs)
    rss = measure_rss(uniramfs, kver, work)
    log("  peak RSS of uniramfs build --generic: %s KiB" % rss)

    if not a.no_boot:
        log("boots:")
        testinit = boottest.find_testinit(builddir, work)
        disk = disks.ensure(boottest.EXT4, testinit, work)
        built = {g.key for g in gens if "build" in g.res or "built" in g.res}
        measure_boots([g for g in gens if g.boot and (g.key in built or g.base in built)],
                      vmlinuz, disk, a.boots, work)

    res = {"date": started.strftime("%Y-%m-%d %H:%M UTC"), "kernel": kver,
           "machine": machine(), "versions": common.versions(VERSIONS), "runs": a.runs,
           "boots": 0 if a.no_boot else a.boots, "qemu_extra": QEMU_EXTRA,
           "uniramfs_commit": common.commit(),
           "peak_rss_kib": rss, "wall_seconds": round(time.monotonic() - t0),
           "generators": [g.res for g in gens]}
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    sys.path.insert(0, HERE)
    import report
    report.write(res, a.out, work)
    log("bench: done in %d s; %s" % (res["wall_seconds"], os.path.join(a.out, "results.md")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
