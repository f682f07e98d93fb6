#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The memory floor: the smallest QEMU -m each image boots the plain ext4
root with (tests/boot's virtio-uuid: ext4 on virtio-blk, root=UUID=),
found by bisection, for uniramfs's generic, hostonly and kdump images
beside dracut's and mkinitramfs's for the same kernel and root, in one run.

  bench/memfloor.py [--builddir DIR] [--only a,b] [--list] [--low MIB]
                    [--high MIB] [--step MIB] [--meminfo] [--out DIR]
                    [--workdir DIR] [--no-install]

Each image is first booted at --high (1024 MiB: it must pass there, or
its row says so), then -m is bisected over multiples of --step (8 MiB)
between --low (64) and --high: the floor is the smallest -m that passed
while the step below it failed.  A boot passes as the boot tests judge
it (testinit's marker as PID 1 after switch_root, within the boot
timeout); every boot is recorded with its -m and, when it failed, why.
The kdump image boots as any image when the kernel is not a crash
kernel (its hook says so and the boot goes on), so its floor is that of
an ordinary boot: what crashkernel= must at least reserve for it.
Not part of CI (each image costs about seven TCG boots).

--meminfo: no bisection; each image boots once at --high, under
-icount shift=0, with testinit.show=/proc/meminfo, and OUT/meminfo.md
has the fields the root's init read there (RAM in use at the root's
init: MemTotal - MemAvailable, and where it is).

Writes OUT/memfloor.md and OUT/memfloor.json.
"""

import datetime
import importlib.util
import os
import re
import sys
import time

sys.dont_write_bytecode = True
import common  # noqa: E402  bench/common.py; it puts tests/boot on sys.path
from common import boottest, log, HERE  # noqa: E402
import disks  # noqa: E402
import scenarios_kdump  # noqa: E402  tests/boot: the --kdump image's sysroot

# "Memory: 178428K/261744K available": the guest's own count, so a row
# shows that QEMU's last -m is the one that counted
MEMORY_RE = re.compile(r"Memory: (\d+)K/(\d+)K available")
BOOT_TIMEOUT = 240   # seconds: a boot short of memory may crawl before it fails
# --meminfo: the fields of /proc/meminfo the root's init shows (testinit.show=)
MEMINFO = ("MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "Shmem", "Unevictable",
           "AnonPages", "Slab", "SUnreclaim", "KernelStack", "PageTables")
# deterministic, and dracut's boot then shows testinit's whole report (on
# TCG's clock its poweroff cut the serial text short, as in live.md)
ICOUNT = ("-icount", "shift=0")
# dracut's and mkinitramfs's images carry plymouth (the host has it) and
# start plymouthd without `splash`: it takes /dev/console and outlives
# switch_root (only a real system's plymouth-quit ends it), so testinit's
# report, passed on by it, was cut short at the power-off ("no end line"
# at any -m, 1024 too). Their floor boots go without it.
NO_PLYMOUTH = "plymouth.enable=0"
MEMINFO_RE = re.compile(r"^TESTINIT: show /proc/meminfo: (\w+):\s+(\d+) kB$", re.M)
# /proc/zoneinfo's pagesets: the free pages each CPU keeps on its own
# lists ("count"), which MemFree and MemAvailable leave out, and how many
# it may keep ("high"); "min" is the zone's min watermark
ZONE_RE = re.compile(r"^TESTINIT: show /proc/zoneinfo: Node \d+, zone\s+(\w+)$", re.M)
PCP_RE = re.compile(r"^TESTINIT: show /proc/zoneinfo:\s+(count:|high:|min)\s+(\d+)$", re.M)


def _bench_run():
    """bench/run.py (its generators table) under its own name: "run" is
    tests/boot/run.py here."""
    spec = importlib.util.spec_from_file_location("bench_run", os.path.join(HERE, "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def generators(builddir, uniramfs, kver, work):
    """bench/run.py's rows that boot this root, and the --kdump image."""
    bench_run = _bench_run()
    keep = ("uniramfs-generic", "uniramfs-hostonly", "mkinitramfs-most", "mkinitramfs-dep",
            "dracut-generic", "dracut-hostonly")
    gens = [g for g in bench_run.generators(uniramfs, kver, work) if g.key in keep]
    sysroot = scenarios_kdump.kdump_sysroot(builddir)
    img = os.path.join(work, "img", "uniramfs-kdump.img")
    cmd = [uniramfs, "build", "-k", kver, "-o", img, "--config", "/dev/null",
           "--sysroot", sysroot] + [a.replace("{kver}", kver)
                                    for a in scenarios_kdump.kdump_build_args()]
    gens.insert(2, bench_run.Gen("uniramfs-kdump", "uniramfs --kdump (guest sysroot)",
                                 " ".join(cmd), "kdump", img))
    bench_run.itools_confdirs(work)
    return gens


def boot_at(g, mib, vmlinuz, disk, sc, work, words="", tag="memfloor", extra=()):
    """One boot of g's image with -m MIB, words added to its command
    line, extra QEMU arguments: (passed, record, serial text)."""
    cmdline = "%s root=%s%s" % (boottest.BASE_CMDLINE, sc.root, " " + words if words else "")
    logf = os.path.join(work, "logs", "%s-%s-%d.log" % (tag, g.key, mib))
    r = boottest.boot(vmlinuz, g.img, [disk], sc.bus, cmdline, logf, extra=["-m", "%dM" % mib] + list(extra))
    text, dt, timed_out = r[0], r[1], r[2]
    err = boottest.check(sc, text, timed_out, ours=g.key.startswith("uniramfs"))
    m = MEMORY_RE.search(text)
    rec = {"mib": mib, "pass": err is None, "seconds": round(dt, 1), "log": logf,
           "available_kib": int(m.group(1)) if m else None,
           "total_kib": int(m.group(2)) if m else None}
    if err:
        rec["reason"] = err
        oom = re.search(r"(Out of memory[^\n]*|Initramfs unpacking failed[^\n]*|"
                        r"Kernel panic - not syncing:[^\n]*)", text)
        if oom:
            rec["kernel_said"] = oom.group(1).strip()
        elif not text.strip():
            rec["kernel_said"] = "nothing on the console (the kernel stopped before it)"
        elif "[qemu]" in text:
            rec["kernel_said"] = text[text.index("[qemu]"):].strip().splitlines()[0]
    said = "" if err is None else "  " + rec.get("kernel_said", err)
    log("  %-36s -m %4d: %s (%.0f s)%s" % (g.label, mib, "PASS" if err is None else "FAIL", dt,
                                          said))
    return err is None, rec, text


def floor(g, a, vmlinuz, disk, sc, work, words):
    if not g.key.startswith("uniramfs"):
        words = " ".join(w for w in (words, NO_PLYMOUTH) if w)
    boots = []
    ok, rec, _ = boot_at(g, a.high, vmlinuz, disk, sc, work, words)
    boots.append(rec)
    if not ok:
        return None, boots
    lo, hi = a.low // a.step, a.high // a.step   # in steps: hi passes; lo is assumed to fail
    ok, rec, _ = boot_at(g, lo * a.step, vmlinuz, disk, sc, work, words)
    boots.append(rec)
    if ok:
        return lo * a.step, boots
    while hi - lo > 1:
        mid = (lo + hi) // 2
        ok, rec, _ = boot_at(g, mid * a.step, vmlinuz, disk, sc, work, words)
        boots.append(rec)
        if ok:
            hi = mid
        else:
            lo = mid
    return hi * a.step, boots


def pcp(text):
    """From testinit's /proc/zoneinfo: KiB of free pages on the per-CPU
    lists (all zones), and the largest zone's min watermark and per-CPU
    high mark, in KiB."""
    zones = list(ZONE_RE.finditer(text))
    count, most = 0, {}
    for i, z in enumerate(zones):
        end = zones[i + 1].start() if i + 1 < len(zones) else len(text)
        seen = {}
        for k, v in PCP_RE.findall(text, z.end(), end):
            if k == "count:":
                count += int(v)
            seen.setdefault(k.rstrip(":"), int(v))   # the zone's min, its first CPU's high
        if seen.get("min", 0) > most.get("min", -1):
            most = seen
    page = 4   # KiB
    return {"pcp_kib": count * page, "min_kib": most.get("min", 0) * page,
            "pcp_high_kib": most.get("high", 0) * page}


def meminfo(g, a, vmlinuz, disk, sc, work):
    """--meminfo: g's image booted at --high MiB, once; what
    /proc/meminfo and /proc/zoneinfo said to the root's init, in KiB, or
    why it did not."""
    words = " ".join(["testinit.show=/proc/meminfo", "testinit.show=/proc/zoneinfo"] +
                     ([a.cmdline] if a.cmdline else []))
    ok, rec, text = boot_at(g, a.high, vmlinuz, disk, sc, work, words, "meminfo", ICOUNT)
    fields = {k: int(v) for k, v in MEMINFO_RE.findall(text) if k in MEMINFO}
    rec["meminfo"] = fields
    rec.update(pcp(text))
    if "MemAvailable" in fields:   # also from a boot whose report was cut short
        rec["used_kib"] = fields["MemTotal"] - fields["MemAvailable"]
        log("  %-36s used %d MiB, per-CPU lists %d MiB: %s" % (
            g.label, rec["used_kib"] // 1024, rec["pcp_kib"] // 1024, ", ".join(
                "%s %d" % (k, fields[k] // 1024) for k in MEMINFO if k in fields)))
    return rec


def meminfo_report(res, path):
    lines = common.report_head("RAM in use at the root's init", res)
    lines += ["Command: `%s`" % res["command"], "",
              "Each image booted the plain ext4 root on virtio-blk (root=UUID=, tests/boot's "
              "virtio-uuid) under QEMU TCG with `-icount shift=0`, one CPU, -m %d, once, with "
              "`testinit.show=/proc/meminfo testinit.show=/proc/zoneinfo%s`: the root's init "
              "(tests/boot/testinit.c, PID 1 after switch_root) prints them first thing. MiB; "
              "used = MemTotal − MemAvailable; **PCP**: free pages on the per-CPU lists "
              "(/proc/zoneinfo's pagesets `count`), which MemFree and MemAvailable leave out "
              "although any allocation takes them first; **used − PCP**: what is in use "
              "with them counted free; **PCP high**: "
              "how much the largest zone's per-CPU list may hold before it gives pages back, "
              "with that zone's **min** watermark." % (
                  res["high"], " " + res["cmdline"] if res.get("cmdline") else ""), "",
              "| image | size (bytes) | used | used − PCP | MemFree + PCP | PCP | PCP high | min | " +
              " | ".join(MEMINFO[1:]) + " | boot |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | " +
              " | ".join("---:" for _ in MEMINFO[1:]) + " | --- |"]

    def mib(kib):
        return "%.1f" % (kib / 1024) if kib is not None else ""
    for g in res["generators"]:
        b = g.get("meminfo_boot", {})
        f = b.get("meminfo", {})
        cells = [mib(f.get(k)) for k in MEMINFO[1:]]
        free_pcp = f["MemFree"] + b["pcp_kib"] if "pcp_kib" in b and "MemFree" in f else None
        in_use = b["used_kib"] - b["pcp_kib"] if "pcp_kib" in b and "used_kib" in b else None
        verdict = ("PASS" if b.get("pass") else "FAIL (%s)" % b.get("reason", g.get(
            "build_error", "not booted")))
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            g["label"], g.get("size", ""), mib(b.get("used_kib")), mib(in_use), mib(free_pcp),
            mib(b.get("pcp_kib")), mib(b.get("pcp_high_kib")), mib(b.get("min_kib")),
            " | ".join(cells), verdict))
    lines += ["", "Images:", ""] + ["- **%s**: `%s`" % (g["label"], g.get("command", "?"))
                                     for g in res["generators"]]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def report(res, path):
    lines = common.report_head("The memory floor: smallest -m that boots", res)
    lines += ["Command: `%s`" % res["command"], "",
              "Each image booted the same ext4 root on virtio-blk (root=UUID=, "
              "tests/boot's virtio-uuid) under QEMU TCG, one CPU; -m bisected in "
              "%d MiB steps between %d and %d MiB. The floor is the smallest -m "
              "that passed with the step below failing; the kernel's own "
              "\"Memory: available/total\" at the floor is in the last column. dracut's "
              "and mkinitramfs's images boot with `%s` (their plymouthd cut the root's "
              "report short at any -m)."
              % (res["step"], res["low"], res["high"], NO_PLYMOUTH), "",
              "| image | class | size (bytes) | floor (MiB) | boots | kernel at the floor |",
              "| --- | --- | ---: | ---: | ---: | --- |"]
    for g in res["generators"]:
        at = [b for b in g.get("boots", []) if b["mib"] == g.get("floor_mib") and b["pass"]]
        mem = ("%d K / %d K" % (at[0]["available_kib"], at[0]["total_kib"])
               if at and at[0]["available_kib"] else "")
        if g.get("floor_mib"):
            floor_cell = str(g["floor_mib"])
        elif g.get("boots"):
            floor_cell = "did not boot at %d" % res["high"]
        else:
            floor_cell = g.get("build_error", "not reached in this run")
        lines.append("| %s | %s | %s | %s | %d | %s |" % (
            g["label"], g["class"], g.get("size", ""), floor_cell, len(g.get("boots", [])), mem))
    lines += ["", "What the step below each floor said:", ""]
    for g in res["generators"]:
        below = [b for b in g.get("boots", []) if g.get("floor_mib")
                 and b["mib"] == g["floor_mib"] - res["step"]]
        if below:
            said = below[0].get("kernel_said", below[0].get("reason"))
            lines.append("- %s at %d MiB: %s" % (g["label"], below[0]["mib"], said))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = common.rows_parser(__doc__, only="image keys")
    ap.add_argument("--low", type=int, default=64, help="MiB assumed too little (64)")
    ap.add_argument("--high", type=int, default=1024, help="MiB that must boot (1024)")
    ap.add_argument("--step", type=int, default=8, help="MiB (8)")
    ap.add_argument("--meminfo", action="store_true",
                    help="no bisection: one boot at --high each, /proc/meminfo and "
                    "/proc/zoneinfo at the root's init (OUT/meminfo.md)")
    ap.add_argument("--cmdline", default="",
                    help="words added to every boot's kernel command line")
    a = common.parse_args(ap, os.path.join(HERE, "work"))
    boottest.BOOT_TIMEOUT = BOOT_TIMEOUT
    builddir, uniramfs, kver, vmlinuz, work = common.setup(a)
    gens = generators(builddir, uniramfs, kver, work)
    if a.list:
        for g in gens:
            print("%-20s %s" % (g.key, g.cmd))
        return 0
    gens = common.pick(gens, a.only, lambda g: g.key, "memfloor")
    if a.only:   # in the order given: a run cut short has the first ones
        order = a.only.split(",")
        gens.sort(key=lambda g: order.index(g.key))
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.monotonic()
    testinit = boottest.find_testinit(builddir, work)
    disk = disks.ensure(boottest.EXT4, testinit, work)
    sc = next(s for s in boottest.SCENARIOS if s.name == "virtio-uuid")
    log("memfloor: kernel %s, %d images, -m %d..%d MiB in %d MiB steps"
        % (kver, len(gens), a.low, a.high, a.step))
    for g in gens:
        res, _ = common.build_once(["sh", "-c", g.cmd], g.img,
                                   os.path.join(work, "logs", "memfloor-build-%s.log" % g.key))
        g.res.update(res)
        if "build_error" in res:
            log("  %s: build failed: %s" % (g.label, res["build_error"]))
            continue
        g.res["command"] = g.cmd
        g.res["size"] = os.path.getsize(g.img)
        if a.meminfo:
            g.res["meminfo_boot"] = meminfo(g, a, vmlinuz, disk, sc, work)
            write(a, kver, started, t0, gens)
            continue
        g.res["floor_mib"], g.res["boots"] = floor(g, a, vmlinuz, disk, sc, work, a.cmdline)
        log("  %s: %s" % (g.label, "floor %d MiB" % g.res["floor_mib"] if g.res["floor_mib"]
                          else "did not boot at %d MiB" % a.high))
        write(a, kver, started, t0, gens)
    return 0


def write(a, kver, started, t0, gens):
    """The results so far: rewritten after each image, so a run cut short
    keeps the images it finished (the ones not reached have no boots)."""
    res = common.results_head(started, kver, ("initramfs-tools", "dracut-core",
                                               "qemu-system-x86", "makedumpfile"),
                              low=a.low, high=a.high, step=a.step, cmdline=a.cmdline,
                              wall_seconds=round(time.monotonic() - t0),
                              generators=[g.res for g in gens])
    if a.meminfo:
        common.write_results(res, a.out, "meminfo", meminfo_report, "memfloor")
    else:
        common.write_results(res, a.out, "memfloor", report, "memfloor")


if __name__ == "__main__":
    sys.exit(main())
