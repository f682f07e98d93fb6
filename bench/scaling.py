#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""How uniramfs grows: build time, image size and init time against the
number of modules packed, and init time against the number of block
devices and of LVM volumes, in one run on one machine.

  bench/scaling.py [--builddir DIR] [--runs N] [--boots N] [--only AXIS,...]
                   [--out DIR] [--workdir DIR] [--no-install]

Axes (--only takes their names):
- modules: the host-only image of the guest (bench/run.py's
  `uniramfs-hostonly` row: the virtio fixture sysroot) plus
  `--add-modules` of the first 0, 300, 1000 and all modules under
  kernel/drivers (modules.dep order): build wall time (median of --runs
  builds after a warm-up), image size, and the init time of a boot of the
  boot tests' ext4 root by UUID;
- disks: the generic image with 1, 16 and 64 virtio-blk disks, the root
  (the same ext4 disk) the last of them, the others blank;
- lvs: the generic image booting root=/dev/testvg/root from one disk
  whose VG holds 1, 50 or 200 LVs (made in the boot tests' builder VM by
  tests/boot/builder/lvm-many.sh; every LV is activated at boot).

Init time as bench/run.py defines it: the root's /sbin/init prints
/proc/uptime, minus the kernel's "Run /init as init process" timestamp;
median over --boots QEMU TCG boots (-smp 1), one at a time, each judged as
the boot tests judge a boot.

Writes OUT/scaling.md, OUT/scaling.json and OUT/scaling.png.
"""

import dataclasses
import datetime
import os
import re
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True     # no __pycache__ in bench/ or tests/boot/
import common  # noqa: E402  bench/common.py; it puts tests/boot on sys.path
from common import boottest, log, HERE, SRCDIR, image_stats  # noqa: E402
import builder  # noqa: E402
import disks  # noqa: E402

AXES = ("modules", "disks", "lvs")
MODULE_COUNTS = (0, 300, 1000, None)    # None: all of kernel/drivers
DISK_COUNTS = (1, 16, 64)
LV_COUNTS = (1, 50, 200)
VIRTIO = os.path.join(SRCDIR, "tests/unit/fixtures/hostonly/virtio")
VERSIONS = ("qemu-system-x86", "lvm2", "libkmod2")


def lvm_layout(n):
    return builder.Layout("lvm-many-%d" % n, "lvm-many", "ext4",
                          "5f0c1a4e-1b2d-4c3e-9f10-%012x" % (0x300 + n), "lvmmany",
                          size_mb=320, params=(("NLV", str(n)),))


def driver_modules(kver):
    """Module names under kernel/drivers, in modules.dep order."""
    names = []
    with open("/lib/modules/%s/modules.dep" % kver) as f:
        for line in f:
            path = line.split(":", 1)[0]
            if path.startswith("kernel/drivers/"):
                base = os.path.basename(path)
                names.append(base[:base.index(".ko")])
    return names


def boots_of(runner, sc, initrd, n, key):
    """n boots of sc; their records (bench/common.py's boot_record)."""
    out = []
    for i in range(n):
        one = dataclasses.replace(sc, name="%s-%d" % (key, i))
        one, err, dt, _, text = runner.scenario(one, initrd=initrd)
        b = common.boot_record(text, dt, err, runner.log_path(one))
        out.append(b)
        log("  %-16s boot %d: %s%s" % (key, i + 1, "PASS" if err is None else "FAIL (%s)" % err,
                                        "  init %.2f s" % b["init"] if "init" in b else ""))
        if err is not None:
            break
    return out


LAST_DISK_RE = re.compile(r"^\[\s*([\d.]+)\] virtio_blk virtio\d+: \[vd[a-z]+\]", re.M)


def last_disk(b):
    """Seconds from Run /init until the kernel announced the last disk."""
    if b.get("run_init") is None or not os.path.exists(b["log"]):
        return None
    with open(b["log"], errors="replace") as f:
        found = LAST_DISK_RE.findall(f.read())
    return round(float(found[-1]) - b["run_init"], 3) if found else None


def summary(point, boots, nboots):
    ok = [b["init"] for b in boots if b["pass"] and "init" in b]
    for b in boots:
        b["last_disk"] = last_disk(b)
    disk = [b["last_disk"] for b in boots if b["last_disk"] is not None]
    if disk:
        point["last_disk"] = statistics.median(disk)
    point["boots"] = boots
    point["boot_pass"] = len(ok) == nboots
    if ok:
        point["init"] = statistics.median(ok)
    return point


def timed_build(cmd, img, runs, blog):
    """Median wall time of runs builds after one warm-up; None if it fails."""
    res, _ = common.build_once(cmd, img, blog)
    if "build_error" in res:
        return None, res["build_error"]
    ts = []
    for _ in range(runs):
        t = time.monotonic()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ts.append(time.monotonic() - t)
    return statistics.median(ts), None


def axis_modules(a, env):
    uniramfs, kver, work, runner = env["uniramfs"], env["kver"], env["work"], env["runner"]
    every = driver_modules(kver)
    sc = next(s for s in boottest.SCENARIOS if s.name == "virtio-uuid")
    sc = dataclasses.replace(sc, cmdline="printk.time=1")
    points = []
    for n in MODULE_COUNTS:
        mods = every if n is None else every[:n]
        key = "modules-%d" % len(mods)
        img = os.path.join(work, "img", key + ".img")
        cmd = [uniramfs, "build", "-k", kver, "-o", img, "--config", "/dev/null", "--hostonly",
               "--sysroot", VIRTIO, "--kmoddir", "/lib/modules/" + kver, "--microcode", "none"]
        if mods:
            cmd += ["--add-modules", ",".join(mods)]
        secs, err = timed_build(cmd, img, a.runs, os.path.join(work, "build-%s.log" % key))
        p = {"x": len(mods), "build_seconds": secs}
        if err:
            p["build_error"] = err
            log("  %-16s build FAILED: %s" % (key, err))
            points.append(p)
            continue
        p.update(image_stats(img, uniramfs))
        out = subprocess.run([uniramfs, "ls", img], stdout=subprocess.PIPE, text=True).stdout
        p["ko"] = sum(1 for ln in out.splitlines() if ".ko" in ln and ln.startswith("-"))
        log("  %-16s built in %.2f s: %.1f MB, %d modules" % (key, secs, p["size"] / 1e6,
                                                              p["ko"]))
        points.append(summary(p, boots_of(runner, sc, img, a.boots, key), a.boots))
    return points


def axis_disks(a, env):
    """The root disk last of n virtio-blk disks: eight functions to a PCI
    slot (multifunction), from slot 4, so 64 fit on the one bus."""
    work, testinit = env["work"], env["testinit"]
    root = disks.ensure(boottest.EXT4, testinit, work)
    sc = next(s for s in boottest.SCENARIOS if s.name == "virtio-uuid")
    blank = os.path.join(work, "blank")
    os.makedirs(blank, exist_ok=True)
    points = []
    for n in DISK_COUNTS:
        paths = []
        for i in range(n - 1):
            p = os.path.join(blank, "%d.img" % i)
            if not os.path.exists(p):
                with open(p, "wb") as f:
                    f.truncate(1 << 20)
            paths.append(p)
        paths.append(root)
        extra = []
        for i, p in enumerate(paths):
            slot, fn = 4 + i // 8, i % 8
            extra += ["-drive", "if=none,id=x%d,format=raw,file=%s" % (i, p),
                      "-device", "virtio-blk-pci,drive=x%d,addr=0x%x.%d%s" % (
                          i, slot, fn, ",multifunction=on" if fn == 0 else "")]
        key = "disks-%d" % n
        cmdline = "%s printk.time=1 root=%s" % (boottest.BASE_CMDLINE, sc.root)
        boots = []
        for i in range(a.boots):
            logf = os.path.join(work, "logs", "%s-%d.log" % (key, i))
            text, dt, timed_out, missed = boottest.boot(env["vmlinuz"], env["generic"], [],
                                                        "virtio", cmdline, logf, extra=extra)
            err = boottest.check(sc, text, timed_out, missed=missed)
            b = common.boot_record(text, dt, err, logf)
            boots.append(b)
            log("  %-16s boot %d: %s%s" % (key, i + 1, "PASS" if err is None else
                                            "FAIL (%s)" % err,
                                            "  init %.2f s" % b["init"] if "init" in b else ""))
            if err is not None:
                break
        points.append(summary({"x": n}, boots, a.boots))
    return points


def axis_lvs(a, env):
    points = []
    for n in LV_COUNTS:
        lay = lvm_layout(n)
        sc = boottest.Scenario("lvs-%d" % n, "", lay, "/dev/testvg/root", cmdline="printk.time=1")
        points.append(summary({"x": n}, boots_of(env["runner"], sc, env["generic"], a.boots,
                                                 sc.name), a.boots))
    return points


def growth(points, field):
    """A sentence on how field grows over the axis: the cost per unit of
    the last step against the average from the first point to the last
    (above 1.5 times it: faster than linearly)."""
    pts = [(p["x"], p[field]) for p in points if p.get(field) is not None]
    if len(pts) < 3:
        return "not enough points"
    whole = (pts[-1][1] - pts[0][1]) / max(1, pts[-1][0] - pts[0][0])
    last = (pts[-1][1] - pts[-2][1]) / max(1, pts[-1][0] - pts[-2][0])
    if whole <= 0:
        kind = "does not grow measurably"
    elif last > 1.5 * whole:
        kind = "grows faster than linearly"
    elif last < whole / 1.5:
        kind = "grows slower than linearly"
    else:
        kind = "grows about linearly"
    return "%s per unit on average, %s on the last step: %s" % (
        fmt(whole, field), fmt(last, field), kind)


def fmt(v, field):
    if field == "size":
        return "%.1f KB" % (v / 1e3)
    return "%.2f ms" % (v * 1e3)


def report(res, path):
    L = common.report_head("Scaling: modules, block devices, LVM volumes", res) + [
        "Made by `bench/scaling.py --runs %d --boots %d`. Init time: median of the boots "
        "(QEMU TCG, `-smp 1`), guest uptime at the real init minus the kernel's "
        "`Run /init` timestamp. ![scaling](scaling.png)" % (res["runs"], res["boots"]), ""]
    ax = res["axes"]
    if "modules" in ax:
        L += ["## Modules (host-only image of the guest + `--add-modules`)", "",
              "| modules added | .ko in image | build s (median) | size MB | init s | boot |",
              "| ---: | ---: | ---: | ---: | ---: | --- |"]
        for p in ax["modules"]:
            L.append("| %d | %s | %s | %s | %s | %s |" % (
                p["x"], p.get("ko", "-"),
                "%.3f" % p["build_seconds"] if p.get("build_seconds") else "-",
                "%.1f" % (p["size"] / 1e6) if "size" in p else "-",
                "%.2f" % p["init"] if "init" in p else "-",
                "PASS" if p.get("boot_pass") else "FAIL"))
        L += ["", "- build time: " + growth(ax["modules"], "build_seconds"),
              "- image size: " + growth(ax["modules"], "size"),
              "- init time: " + growth(ax["modules"], "init"), ""]
    for name, title, unit in (("disks", "Block devices (generic image, root the last virtio "
                                        "disk)", "disks"),
                              ("lvs", "LVM volumes (generic image, one VG, root the last LV)",
                               "LVs")):
        if name not in ax:
            continue
        L += ["## " + title, "", "| %s | init s | last disk announced, s after `Run /init` "
              "| boot |" % unit, "| ---: | ---: | ---: | --- |"]
        for p in ax[name]:
            L.append("| %d | %s | %s | %s |" % (
                p["x"], "%.2f" % p["init"] if "init" in p else "-",
                "%.2f" % p["last_disk"] if p.get("last_disk") is not None else "-",
                "PASS" if p.get("boot_pass") else "FAIL"))
        L += ["", "- init time: " + growth(ax[name], "init"), ""]
        if name == "disks":
            L += ["The last column is the kernel's part: virtio_pci probes each function "
                  "(enabling its interrupt link through ACPI, slow under TCG) before "
                  "virtio_blk sees any disk, and the init only waits for it. An "
                  "initramfs-tools image shows the same span with 16 disks.", ""]
    with open(path, "w") as f:
        f.write("\n".join(L))


def chart(res, out, work):
    ax = res["axes"]
    dat = {}
    for name, pts in ax.items():
        dat[name] = os.path.join(work, "scaling-%s.dat" % name)
        with open(dat[name], "w") as f:
            for p in pts:
                f.write("%d %s %s %s\n" % (p["x"], p.get("build_seconds") or "?",
                                           p["size"] / 2**20 if "size" in p else "?",
                                           p.get("init", "?")))
    plots = []
    if "modules" in dat:
        for col, title in ((2, "build wall time, s"), (3, "image size, MiB"),
                           (4, "init time, s")):
            plots.append('set title "%s vs modules added"\nset xlabel "modules"\n'
                         'plot "%s" using 1:%d with linespoints lw 2 pt 7\n'
                         % (title, dat["modules"], col))
    lines = ['"%s" using 1:4 with linespoints lw 2 pt 7 title "%s"' % (dat[n], t)
             for n, t in (("disks", "virtio disks"), ("lvs", "LVM volumes")) if n in dat]
    if lines:
        plots.append('set title "init time, s, vs devices"\nset xlabel "count"\nset key left\n'
                     'plot ' + ", ".join(lines) + "\n")
    gp = ('set terminal pngcairo size 1200,900 font ",10"\nset output "%s"\n'
          'set datafile missing "?"\nset grid\nunset key\nset yrange [0:*]\n'
          'set multiplot layout 2,2 title "uniramfs scaling - kernel %s, %s"\n%s'
          'unset multiplot\n' % (os.path.join(out, "scaling.png"), res["kernel"], res["date"],
                                 "".join(plots)))
    gpf = os.path.join(work, "scaling.gp")
    with open(gpf, "w") as f:
        f.write(gp)
    subprocess.run(["gnuplot", gpf], check=True)


def main():
    ap = common.new_parser(__doc__)
    ap.add_argument("--runs", type=int, default=3, help="timed builds per point (3)")
    ap.add_argument("--boots", type=int, default=1, help="TCG boots per point (1)")
    ap.add_argument("--only", help="comma-separated axes: " + ",".join(AXES))
    a = common.parse_args(ap, os.path.join(HERE, "work", "scaling"))
    axes = common.pick(list(AXES), a.only, lambda x: x, "bench/scaling.py")
    builddir, uniramfs, kver, vmlinuz, work = common.setup(a)

    started = datetime.datetime.now(datetime.timezone.utc)
    testinit = boottest.find_testinit(builddir, work)
    images = boottest.Images(uniramfs, kver, work)
    generic, err = images.get(())
    if err:
        sys.exit("bench/scaling.py: " + err)
    env = {"uniramfs": uniramfs, "kver": kver, "vmlinuz": vmlinuz, "work": work,
           "testinit": testinit, "generic": generic,
           "runner": boottest.Runner(kver, vmlinuz, builddir, work, testinit, images)}
    res = {"date": started.strftime("%Y-%m-%d %H:%M UTC"), "kernel": kver,
           "machine": common.machine(), "versions": common.versions(VERSIONS),
           "runs": a.runs, "boots": a.boots, "commit": common.commit(), "axes": {}}
    for name in axes:
        log("bench/scaling.py: %s" % name)
        res["axes"][name] = {"modules": axis_modules, "disks": axis_disks,
                             "lvs": axis_lvs}[name](a, env)
    common.write_results(res, a.out, "scaling", report, "bench/scaling.py")
    chart(res, a.out, work)
    ok = all(p.get("boot_pass") for pts in res["axes"].values() for p in pts)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
