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
- luns: 1, 16, 64 and 256 scsi-hd LUNs on one virtio-scsi target, the
  root the last LUN, the others blank files;
- sdebug: the same counts, the N-1 blank disks being scsi_debug's RAM
  LUNs (the generic image with --add-modules scsi_debug; the command
  line's rd.driver.pre=scsi_debug,sd_mod loads it and sd_mod before
  coldplug, and sd_mod's load returns once its disks are attached), the
  root a real virtio-blk disk whose driver coldplug loads after them:
  uniramfs only (a generic dracut packs no scsi_debug);
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
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True     # no __pycache__ in bench/ or tests/boot/
import common  # noqa: E402  bench/common.py; it puts tests/boot on sys.path
from common import boottest, log, HERE, SRCDIR, image_stats  # noqa: E402
import builder  # noqa: E402
import disks  # noqa: E402
sys.path.insert(0, os.path.join(SRCDIR, "tests/kernels"))
import fetch  # noqa: E402

AXES = ("modules", "disks", "luns", "sdebug", "lvs", "kernels")
MODULE_COUNTS = (0, 300, 1000, None)    # None: all of kernel/drivers
DISK_COUNTS = (1, 16, 64)
LUN_COUNTS = (1, 16, 64, 256)
CLOCKS = ("icount", "tcg")
ICOUNT = ["-icount", "shift=0"]
# the generic images the device axes boot: (key, how it is built)
GENERATORS = (("uniramfs-generic", "uniramfs build -k KVER -o FILE --config /dev/null --generic"),
              ("dracut-generic", "dracut --no-hostonly --force --kver KVER FILE"))
BOOT_SECS = 600     # 256 LUNs under TCG on a loaded host, dracut's udev settling them
boottest.BOOT_TIMEOUT = BOOT_SECS   # what check() says a timed out boot waited
LV_COUNTS = (1, 50, 200)
VIRTIO = os.path.join(SRCDIR, "tests/unit/fixtures/hostonly/virtio")
VERSIONS = ("qemu-system-x86", "lvm2", "libkmod2", "dracut-core", "udev")


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


LAST_DISK_RE = re.compile(r"^\[\s*([\d.]+)\] (?:virtio_blk virtio\d+: \[vd[a-z]+\]|"
                          r"sd \S+: \[sd[a-z]+\] Attached SCSI disk)", re.M)


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


def blanks(work, n):
    """n blank 1 MiB raw files (sparse), made once."""
    d = os.path.join(work, "blank")
    os.makedirs(d, exist_ok=True)
    paths = []
    for i in range(n):
        p = os.path.join(d, "%d.img" % i)
        if not os.path.exists(p):
            with open(p, "wb") as f:
                f.truncate(1 << 20)
        paths.append(p)
    return paths


def virtio_disks(paths):
    """QEMU arguments: one virtio-blk disk per path, eight functions to a
    PCI slot (multifunction) from slot 4, so 64 fit on the one bus."""
    extra = []
    for i, p in enumerate(paths):
        slot, fn = 4 + i // 8, i % 8
        extra += ["-drive", "if=none,id=x%d,format=raw,file=%s" % (i, p),
                  "-device", "virtio-blk-pci,drive=x%d,addr=0x%x.%d%s" % (
                      i, slot, fn, ",multifunction=on" if fn == 0 else "")]
    return extra


def scsi_luns(paths):
    """QEMU arguments: one virtio-scsi controller, one target, a scsi-hd
    LUN per path (LUN i), as a SAN's array presents its volumes."""
    extra = ["-device", "virtio-scsi-pci,id=scsi0"]
    for i, p in enumerate(paths):
        extra += ["-drive", "if=none,id=x%d,format=raw,file=%s" % (i, p),
                  "-device", "scsi-hd,drive=x%d,bus=scsi0.0,channel=0,scsi-id=0,lun=%d" % (i, i)]
    return extra


def sdebug_luns(n):
    """scsi_debug's RAM LUNs (n of them: one host, one target, LUNs
    0..n-1, 1 MiB each, sharing one store; delay=0: each command answered
    at once, where the default holds it a jiffy, 125-160 ms a LUN of
    scan and probes on this guest), loaded by rd.driver.pre=
    with sd_mod before coldplug: sd_mod's load returns only once its
    disks are attached, so the real root (a virtio-blk disk, whose
    driver coldplug loads) is the last disk announced. Kernel command
    line words."""
    if n <= 0:
        return ""
    return ("rd.driver.pre=scsi_debug,sd_mod scsi_debug.max_luns=%d scsi_debug.num_tgts=1 "
            "scsi_debug.dev_size_mb=1 scsi_debug.add_host=1 scsi_debug.delay=0" % n)


def axis_devices(a, env, name):
    """The root disk (the boot tests' ext4 by UUID) last of n devices, the
    others blank: booted with each generator's generic image on each
    clock, round by round (every image once per point and clock, then
    again)."""
    work, testinit = env["work"], env["testinit"]
    root = disks.ensure(boottest.EXT4, testinit, work)
    sc = next(s for s in boottest.SCENARIOS if s.name == "virtio-uuid")
    counts = env["counts"][name]
    shape = {"disks": virtio_disks, "luns": scsi_luns, "sdebug": virtio_disks}[name]
    images = env["sdebug_images"] if name == "sdebug" else env["images"]
    points = env["res"]["axes"].setdefault(name, [])   # saved after each point
    for n in counts:
        points[:] = [p for p in points if p["x"] != n]     # an earlier run's (--merge)
        if name == "sdebug":    # the RAM LUNs are the kernel's, the root the one disk
            extra = shape([root])
            cmdline = "%s printk.time=1 root=%s %s" % (boottest.BASE_CMDLINE, sc.root,
                                                      sdebug_luns(n - 1))
        else:
            extra = shape(blanks(work, n - 1) + [root])
            cmdline = "%s printk.time=1 root=%s" % (boottest.BASE_CMDLINE, sc.root)
        p = {"x": n, "gens": {}}
        for clock in a.clocks:
            for gen, img, ours in images:
                g = p["gens"].setdefault(gen, {})
                boots = []
                for i in range(a.boots):
                    key = "%s-%d-%s-%s-%d" % (name, n, gen, clock, i)
                    logf = os.path.join(work, "logs", key + ".log")
                    text, dt, timed_out, missed = boottest.boot(
                        env["vmlinuz"], img, [], "virtio", cmdline, logf,
                        extra=extra + (ICOUNT if clock == "icount" else []))
                    err = boottest.check(sc, text, timed_out, ours=ours, missed=missed)
                    b = common.boot_record(text, dt, err, logf)
                    boots.append(b)
                    log("  %-40s %s%s  (%.0f s wall)" % (
                        key, "PASS" if err is None else "FAIL (%s)" % err,
                        "  init %.2f s" % b["init"] if "init" in b else "", dt))
                    if err is not None:
                        break
                g[clock] = summary({}, boots, a.boots)
        # the uniramfs TCG row is what the earlier runs had: keep its keys
        # (a run of dracut alone: its row's)
        g = p["gens"].get("uniramfs-generic") or next(iter(p["gens"].values()))
        u = g.get("tcg") or g.get("icount")
        for k in ("init", "last_disk", "boot_pass"):
            if k in u:
                p[k] = u[k]
        points.append(p)
        points.sort(key=lambda p: p["x"])
        env["save"]()
    return points


# sh -c KERNELS_NS sh WORK KVER MODDIR [KVER MODDIR...] -- CMD...
KERNELS_NS = r"""set -e
w=$1; shift
mount --make-rprivate /
while [ "$1" != -- ]; do
	mkdir -p "$w/modules/$1"
	mount --bind "$2" "$w/modules/$1"
	shift 2
done
shift
mount --rbind "$w/modules" /usr/lib/modules
mount --bind "$w/boot" /boot
exec "$@"
"""


def installed_kernels(kver):
    """(kver, /boot dir, module dir) of this host's kernel and of the
    trixie 6.12 kernels tests/kernels/fetch.py unpacked before (never
    fetched here)."""
    found = [(kver, "/boot", "/usr/lib/modules/" + kver)]
    for fl in fetch.FLAVOURS:
        ver = fetch.cached(fetch.CACHE, fl)
        if ver:
            root, kv, _, moddir = fetch.unpack(fetch.CACHE, fl, None, ver)
            found.append((kv, os.path.join(root, "boot"), moddir))
    return found


def in_kernels_ns(work, kernels, cmd):
    """cmd run in a private mount namespace whose /boot and /usr/lib/modules
    hold just these kernels (bind mounts; the host's are not touched), the
    images --all writes landing in WORK/boot."""
    pairs = [x for k, _, mod in kernels for x in (k, mod)]
    return subprocess.run(["unshare", "-m", "sh", "-c", KERNELS_NS, "sh", work] + pairs + ["--"]
                          + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def timed(work, kernels, cmd, runs):
    """runs of cmd under /usr/bin/time in the namespace: medians of wall,
    user+sys and peak RSS; or the error."""
    walls, cpus, rss = [], [], []
    for _ in range(runs):
        r = in_kernels_ns(work, kernels, ["/usr/bin/time", "-f", "TIME %e %U %S %M"] + cmd)
        m = re.search(r"^TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)$", r.stdout, re.M)
        if r.returncode != 0 or not m:
            return {"error": r.stdout.strip().splitlines()[-1] if r.stdout.strip() else
                    "exit %d" % r.returncode}
        walls.append(float(m.group(1)))
        cpus.append(float(m.group(2)) + float(m.group(3)))
        rss.append(int(m.group(4)))
    return {"wall": statistics.median(walls), "cpu": statistics.median(cpus),
            "rss_kb": statistics.median(rss), "walls": walls, "cpus": cpus}


def axis_kernels(a, env):
    """`uniramfs build --all --generic` for the first 1, 2 and 3 installed
    kernels, and each kernel's own build (-k), in one namespace each."""
    uniramfs, work = env["uniramfs"], os.path.join(env["work"], "kernels")
    kernels = installed_kernels(env["kver"])[:3]
    points = []
    for n in range(1, len(kernels) + 1):
        w = os.path.join(work, "%d" % n)
        shutil.rmtree(w, ignore_errors=True)
        os.makedirs(os.path.join(w, "boot"))
        for k, boot, _ in kernels[:n]:
            for f in ("vmlinuz-", "config-", "System.map-"):
                if os.path.exists(os.path.join(boot, f + k)):
                    shutil.copy(os.path.join(boot, f + k), os.path.join(w, "boot"))
        # one warm-up (the page cache holds every module after it), then the timed runs
        cmd = [uniramfs, "build", "--all", "--config", "/dev/null", "--generic"]
        in_kernels_ns(w, kernels[:n], cmd)
        p = {"x": n, "kvers": [k for k, _, _ in kernels[:n]], "command": " ".join(cmd)}
        p.update(timed(w, kernels[:n], cmd, a.runs))
        p["images"] = {k: os.path.getsize(os.path.join(w, "boot", "initrd.img-" + k))
                       for k in p["kvers"]
                       if os.path.exists(os.path.join(w, "boot", "initrd.img-" + k))}
        log("  --all, %d kernel(s): %s" % (n, p.get("error") or "wall %.2f s, cpu %.2f s" % (
            p["wall"], p["cpu"])))
        points.append(p)
    # each kernel alone, as `-k KVER` builds it (the namespace of all of them)
    single = {}
    for k, _, _ in kernels:
        out = os.path.join(work, "single-%s.img" % k)
        cmd = [uniramfs, "build", "-k", k, "-o", out, "--config", "/dev/null", "--generic"]
        in_kernels_ns(os.path.join(work, "%d" % len(kernels)), kernels, cmd)
        single[k] = timed(os.path.join(work, "%d" % len(kernels)), kernels, cmd, a.runs)
        single[k]["command"] = " ".join(cmd)
        log("  -k %s: %s" % (k, single[k].get("error") or "wall %.2f s, cpu %.2f s" % (
            single[k]["wall"], single[k]["cpu"])))
    env["res"]["kernels_single"] = single
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
        "Made by `%s`. Init time: median of the boots (QEMU TCG, `-smp 1`; **icount**: "
        "with `-icount shift=0`, the guest's instruction clock, which the host's load does "
        "not reach; **tcg**: the guest's seconds, which follow the host's load), guest uptime "
        "at the real init minus the kernel's `Run /init` timestamp. Load average "
        "(1, 5, 15 min) at the start %s, at the end %s. ![scaling](scaling.png)" % (
            res.get("command", "bench/scaling.py --runs %d --boots %d" % (res["runs"],
                                                                          res["boots"])),
            load(res.get("load_start")), load(res.get("load_end"))), ""]
    if res.get("earlier"):
        L += ["With `--merge`: the points this run did not make are those of the run of %s "
              "(uniramfs %s, `%s`)." % (res["earlier"]["date"], res["earlier"]["commit"],
                                        res["earlier"].get("command", "bench/scaling.py")), ""]
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
    for name, title, unit in (("disks", "Virtio disks (generic images, root the last virtio-blk "
                                        "disk)", "disks"),
                              ("luns", "SCSI LUNs (generic images, one virtio-scsi target, root "
                                       "the last LUN)", "LUNs"),
                              ("sdebug", "scsi_debug RAM LUNs (generic image + scsi_debug, "
                                         "rd.driver.pre=scsi_debug,sd_mod; the root a virtio-blk "
                                         "disk, announced last)", "devices")):
        if name in ax:
            L += device_table(ax[name], title, unit, res)
    if "lvs" in ax:
        L += ["## LVM volumes (generic image, one VG, root the last LV)", "",
              "| LVs | init s | boot |", "| ---: | ---: | --- |"]
        for p in ax["lvs"]:
            L.append("| %d | %s | %s |" % (p["x"], "%.2f" % p["init"] if "init" in p else "-",
                                           "PASS" if p.get("boot_pass") else "FAIL"))
        L += ["", "- init time: " + growth(ax["lvs"], "init"), ""]
    if "kernels" in ax:
        L += kernels_table(ax["kernels"], res.get("kernels_single", {}))
    if res.get("notes"):
        L += ["## Notes on this run", "", res["notes"], ""]
    with open(path, "w") as f:
        f.write("\n".join(L))


def kernels_table(points, single):
    """--all for 1..3 kernels against one kernel's own build."""
    L = ["## `uniramfs build --all`: several installed kernels", "",
         "In a private mount namespace whose `/boot` and `/usr/lib/modules` hold only the "
         "kernels named (bind mounts of this host's and of tests/kernels/fetch.py's unpacked "
         "trixie kernels). Medians of the runs after a warm-up; CPU = user+sys of the whole "
         "command.", "",
         "| kernels | wall s | CPU s | peak RSS MiB | × one build (wall) | × one build (CPU) |",
         "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    first = single.get(points[0]["kvers"][0]) if points else None
    for p in points:
        if "error" in p:
            L.append("| %d | FAIL: %s | | | | |" % (p["x"], p["error"]))
            continue
        L.append("| %d (%s) | %.2f | %.2f | %.1f | %s | %s |" % (
            p["x"], ", ".join(p["kvers"]), p["wall"], p["cpu"], p["rss_kb"] / 1024,
            "%.2f" % (p["wall"] / first["wall"]) if first and "wall" in first else "-",
            "%.2f" % (p["cpu"] / first["cpu"]) if first and "cpu" in first else "-"))
    L += ["", "Each kernel alone (`-k KVER`):", "", "| kernel | wall s | CPU s | peak RSS MiB |",
          "| --- | ---: | ---: | ---: |"]
    for k, t in single.items():
        L.append("| %s | %s | %s | %s |" % (k, "%.2f" % t["wall"] if "wall" in t else
                                           t.get("error"), "%.2f" % t.get("cpu", 0),
                                           "%.1f" % (t.get("rss_kb", 0) / 1024)))
    L.append("")
    return L


def load(v):
    return "/".join("%.1f" % x for x in v) if v else "?"


def device_table(points, title, unit, res):
    """A table of init times, each generator on each clock, and a line per
    generator and clock on how they grow."""
    gens = [g for g, _ in GENERATORS if any(g in p.get("gens", {}) for p in points)]
    clocks = [c for c in CLOCKS if any(c in p.get("gens", {}).get(g, {}) for p in points
                                       for g in gens)]

    def cell(p, g, c, field="init", f="%.2f"):
        v = p.get("gens", {}).get(g, {}).get(c, {})
        if field == "init" and v and not v.get("boot_pass"):
            return "FAIL"
        return f % v[field] if v.get(field) is not None else "-"

    head = ["| %s |" % unit]
    for c in clocks:
        head.append(" %s |" % " | ".join("%s, %s" % (g, c) for g in gens))
        if len(gens) == 2:
            head.append(" ratio, %s |" % c)
    head.append(" last device announced (uniramfs, icount), s after `Run /init` |")
    L = ["## " + title, "", "Init time, s (Run /init to the root's `/sbin/init`).", "",
         "".join(head), "|" + " ---: |" * (2 + len(clocks) * (len(gens) + (len(gens) == 2)))]
    for p in points:
        row = ["| %d |" % p["x"]]
        for c in clocks:
            row.append(" %s |" % " | ".join(cell(p, g, c) for g in gens))
            if len(gens) == 2:
                a, b = (p["gens"].get(g, {}).get(c, {}).get("init") for g in gens)
                row.append(" %s |" % ("%.1f×" % (b / a) if a and b else "-"))
        row.append(" %s |" % cell(p, "uniramfs-generic", "icount", "last_disk"))
        L.append("".join(row))
    L.append("")
    for g in gens:
        for c in clocks:
            pts = [{"x": p["x"], "init": p["gens"].get(g, {}).get(c, {}).get("init")}
                   for p in points]
            L.append("- %s, %s: init time %s" % (g, c, growth(pts, "init")))
    L.append("")
    return L


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
             for n, t in (("disks", "virtio disks"), ("luns", "SCSI LUNs"),
                          ("lvs", "LVM volumes")) if n in dat]
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


def dracut_image(kver, work, reuse):
    """dracut's generic image (GENERATORS), built once per run, or the one
    an earlier run built (reuse: dracut takes minutes a build)."""
    img = os.path.join(work, "img", "dracut-generic.img")
    cmd = ["dracut", "--no-hostonly", "--force", "--kver", kver, img]
    if reuse and os.path.exists(img):
        log("  dracut: the image of an earlier run, %s" % img)
        return img
    log("  building %s" % " ".join(cmd))
    res, dt = common.build_once(cmd, img, os.path.join(work, "build-dracut-generic.log"))
    if "build_error" in res:
        sys.exit("bench/scaling.py: dracut: " + res["build_error"])
    log("  dracut built in %.0f s" % dt)
    return img


def main():
    ap = common.new_parser(__doc__)
    ap.add_argument("--runs", type=int, default=3, help="timed builds per point (3)")
    ap.add_argument("--boots", type=int, default=1, help="boots per point, clock and image (1)")
    ap.add_argument("--only", help="comma-separated axes: " + ",".join(AXES))
    ap.add_argument("--clocks", default=",".join(CLOCKS),
                    help="disks and luns: icount (-icount shift=0), tcg, or both (default)")
    ap.add_argument("--generators", default=",".join(g for g, _ in GENERATORS),
                    help="disks and luns: the generic images booted (default: both)")
    ap.add_argument("--disks", default=",".join(map(str, DISK_COUNTS)),
                    help="virtio disk counts (%(default)s)")
    ap.add_argument("--luns", default=",".join(map(str, LUN_COUNTS)),
                    help="SCSI LUN counts (%(default)s)")
    ap.add_argument("--notes", help="a file whose text the report ends with")
    ap.add_argument("--uniramfs", help="the generator to run (default: BUILDDIR's)")
    ap.add_argument("--reuse-dracut", action="store_true",
                    help="boot the dracut image an earlier run left in WORKDIR, if any")
    ap.add_argument("--merge", action="store_true",
                    help="keep OUT/scaling.json's axes and device points this run does not make")
    a = common.parse_args(ap, os.path.join(HERE, "work", "scaling"))
    axes = common.pick(list(AXES), a.only, lambda x: x, "bench/scaling.py")
    a.clocks = common.pick(list(CLOCKS), a.clocks, lambda x: x, "bench/scaling.py")
    gens = common.pick([g for g, _ in GENERATORS], a.generators, lambda x: x,
                       "bench/scaling.py")
    counts = {"disks": [int(x) for x in a.disks.split(",")],
              "luns": [int(x) for x in a.luns.split(",")],
              "sdebug": [int(x) for x in a.luns.split(",")]}
    builddir, uniramfs, kver, vmlinuz, work = common.setup(a)
    uniramfs = os.path.abspath(a.uniramfs) if a.uniramfs else uniramfs

    started = datetime.datetime.now(datetime.timezone.utc)
    testinit = boottest.find_testinit(builddir, work)
    images = boottest.Images(uniramfs, kver, work)
    generic, err = images.get(())
    if err:
        sys.exit("bench/scaling.py: " + err)
    res = common.results_head(started, kver, VERSIONS, runs=a.runs, boots=a.boots,
                              load_start=os.getloadavg(), axes={})
    if a.notes:
        with open(a.notes) as f:
            res["notes"] = f.read().strip()
    old = os.path.join(a.out, "scaling.json")
    if a.merge and os.path.exists(old):
        with open(old) as f:
            res["earlier"] = json.load(f)
        res["axes"] = res["earlier"].pop("axes")
        res["earlier"].pop("earlier", None)
    env = {"uniramfs": uniramfs, "kver": kver, "vmlinuz": vmlinuz, "work": work,
           "testinit": testinit, "generic": generic, "res": res, "counts": counts,
           "runner": boottest.Runner(kver, vmlinuz, builddir, work, testinit, images),
           "save": lambda: common.write_results(res, a.out, "scaling", report,
                                                "bench/scaling.py")}
    if {"disks", "luns"} & set(axes):
        env["images"] = [(g, generic if g == "uniramfs-generic" else
                          dracut_image(kver, work, a.reuse_dracut), g == "uniramfs-generic")
                         for g in gens]
    if "sdebug" in axes:    # uniramfs only: scsi_debug is no module a generic image packs
        img, err = images.get(("--add-modules", "scsi_debug"))
        if err:
            sys.exit("bench/scaling.py: " + err)
        env["sdebug_images"] = [("uniramfs-generic", img, True)]
    for name in axes:
        log("bench/scaling.py: %s" % name)
        if name in ("disks", "luns", "sdebug"):
            axis_devices(a, env, name)
        else:
            res["axes"][name] = {"modules": axis_modules, "lvs": axis_lvs,
                                 "kernels": axis_kernels}[name](a, env)
    res["load_end"] = os.getloadavg()
    common.write_results(res, a.out, "scaling", report, "bench/scaling.py")
    chart(res, a.out, work)
    ok = all(p.get("boot_pass") for pts in res["axes"].values() for p in pts)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
