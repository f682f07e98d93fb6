# SPDX-License-Identifier: GPL-2.0-or-later
"""Turn bench/run.py's results.json into results.md and chart.png.

  python3 bench/report.py [RESULTS_DIR]   (re-renders from results.json)
"""

import json
import os
import subprocess
import sys

REF = {"generic": "uniramfs-generic", "hostonly": "uniramfs-hostonly"}
RSS_LIMIT_KIB = 64 * 1024


def _by_key(res):
    return {g["key"]: g for g in res["generators"]}


def _ratio(v, ref):
    if v is None or not ref:
        return ""
    r = v / ref
    return "%.0f×" % r if r >= 10 else "%.1f×" % r if r >= 0.095 else "%.2f×" % r


def _get(g, *path):
    for p in path:
        if g is None or p not in g:
            return None
        g = g[p]
    return g


def _boot_cell(g):
    if "build_error" in g:
        return "build failed"
    if "boots" not in g:
        return "not booted"
    boots = g["boots"]
    ok = sum(b["pass"] for b in boots)
    if ok == len(boots):
        return "PASS (%d/%d)" % (ok, len(boots))
    reasons = sorted({b["reason"] for b in boots if b["reason"]})
    return "FAIL (%d/%d: %s)" % (ok, len(boots), "; ".join(reasons))


def table(res):
    gs = _by_key(res)
    rows = ["| generator | build s, median (min–max) | build ×uniramfs | size MiB | "
            "size ×uniramfs | entries (regular files) | kernel to `Run /init` s | "
            "init s, median (min–max) | init ×uniramfs | boot |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for g in res["generators"]:
        ref = None if g["key"].startswith("uniramfs") else gs.get(REF[g["class"]])
        b = g.get("build")
        build = "%.3f (%.3f–%.3f)" % (b["median"], b["min"], b["max"]) if b else "—"
        size = g.get("size")
        ri = g.get("run_init")
        init = ("%.2f (%.2f–%.2f)" % (g["init"], g["init_min"], g["init_max"])
                if "init" in g else "—")
        ents = "%d (%d)" % (g["entries"], g["files"]) if "entries" in g else "—"
        rows.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            g["label"], build,
            _ratio(_get(b, "median"), _get(ref, "build", "median")) if ref else "",
            "%.1f" % (size / 2**20) if size else "—",
            _ratio(size, _get(ref, "size")) if ref else "",
            ents, "%.2f" % ri if ri is not None else "—", init,
            _ratio(g.get("init"), _get(ref, "init")) if ref else "",
            _boot_cell(g)))
    return "\n".join(rows)


def targets(res):
    gs = _by_key(res)
    u, uh, uhh = (gs.get(k) for k in ("uniramfs-generic", "uniramfs-hostonly",
                                      "uniramfs-hostonly-host"))
    most, dg = gs.get("mkinitramfs-most"), gs.get("dracut-generic")
    out = []

    def line(name, ok, detail):
        out.append("| %s | %s | %s |" % (name, "—" if ok is None else
                                        ("met" if ok else "**missed**"), detail))

    def ratio_target(name, a, b, want):
        """b/a >= want"""
        if a is None or b is None:
            return line(name, None, "not measured")
        r = b / a
        line(name, r >= want, "%.1f× (target ≥ %d×%s)" % (
            r, want, "" if r >= want else "; short by %.0f%%" % (100 * (1 - r / want))))

    ratio_target("build: generic vs dracut --no-hostonly",
                 _get(u, "build", "median"), _get(dg, "build", "median"), 20)
    ratio_target("build: generic vs mkinitramfs MODULES=most",
                 _get(u, "build", "median"), _get(most, "build", "median"), 10)
    for g in (uh, uhh):
        t = _get(g, "build", "median")
        if t is not None:
            line("build: %s < 0.3 s" % g["label"], t < 0.3, "%.3f s" % t)
    ratio_target("size: generic vs mkinitramfs MODULES=most",
                 _get(u, "size"), _get(most, "size"), 3)
    ratio_target("init time: generic vs initramfs-tools (MODULES=most)",
                 _get(u, "init"), _get(most, "init"), 5)
    ratio_target("init time: generic vs dracut --no-hostonly",
                 _get(u, "init"), _get(dg, "init"), 3)
    rss = res.get("peak_rss_kib") or []
    if rss:
        line("peak RSS of `uniramfs build --generic` < 64 MiB", max(rss) < RSS_LIMIT_KIB,
             "%.1f MiB (max of %d runs: %s KiB)" % (max(rss) / 1024, len(rss),
                                                     ", ".join(map(str, rss))))
    return "\n".join(["| target | result | measured |", "|---|---|---|"] + out)


def _med_range(g, k, f="%.2f"):
    if k not in g:
        return "—"
    return (f + " (" + f + "–" + f + ")") % (g[k], g[k + "_min"], g[k + "_max"])


def _stages(g):
    """The median of each of our init's stage timings, in ms."""
    per = {}
    for b in g.get("boots", []):
        if b["pass"]:
            for k, v in b.get("stages", {}).items():
                per.setdefault(k, []).append(v)
    return ", ".join("%s %d" % (k, sorted(v)[len(v) // 2]) for k, v in per.items()
                     if k != "total") or "—"


def tiny_table(res):
    """uniramfs's booted rows against tiny-initramfs (issue 15): whole boot
    (the guest's uptime at the root's /sbin/init) and the init's share."""
    gs = _by_key(res)
    tiny = gs.get("tiny-initramfs")
    rows = [g for g in res["generators"]
            if (g["key"].startswith("uniramfs") or g is tiny) and "boots" in g]
    if tiny is None or not rows:
        return None
    out = ["| image | size MiB | kernel unpack s | kernel to `Run /init` s | "
           "init s, median (min–max) | init ×tiny | "
           "whole boot s, median (min–max) | whole boot − tiny s | our init's stages, "
           "ms (median) |", "|---|---|---|---|---|---|---|---|---|"]
    for g in rows:
        ri = g.get("run_init")
        d = (g["uptime"] - tiny["uptime"]) if "uptime" in g and "uptime" in tiny else None
        size = g.get("size") or _get(gs.get(g.get("base")), "size")
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            g["label"], "%.1f" % (size / 2**20) if size else "—",
            "%.3f" % g["unpack"] if "unpack" in g else "—",
            "%.2f" % ri if ri is not None else "—", _med_range(g, "init"),
            _ratio(g.get("init"), tiny.get("init")) if g is not tiny else "",
            _med_range(g, "uptime"),
            "%+.2f" % d if d is not None and g is not tiny else "",
            _stages(g) if g is not tiny else "—"))
    return "\n".join(out)


def tiny_targets(res):
    gs = _by_key(res)
    tiny, u, us = (gs.get(k) for k in ("tiny-initramfs", "uniramfs-generic",
                                      "uniramfs-generic-nofsck"))
    out = ["| target | result | measured |", "|---|---|---|"]
    t_up, t_init = _get(tiny, "uptime"), _get(tiny, "init")
    for g, name in ((u, "whole boot: generic (fsck included) within 0.3 s of tiny-initramfs"),
                    (us, "whole boot: generic, fsck.mode=skip, within 0.3 s of "
                         "tiny-initramfs")):
        v = _get(g, "uptime")
        if v is None or t_up is None:
            out.append("| %s | — | not measured |" % name)
        else:
            out.append("| %s | %s | %.2f s against %.2f s: %+.2f s |" % (
                name, "met" if v - t_up <= 0.3 else "**missed**", v, t_up, v - t_up))
    v = _get(us, "init")
    name = "init: generic, fsck.mode=skip, ≤ 1.1× tiny-initramfs"
    if v is None or not t_init:
        out.append("| %s | — | not measured |" % name)
    else:
        out.append("| %s | %s | %.2f s against %.2f s: %.2f× |" % (
            name, "met" if v <= 1.1 * t_init else "**missed**", v, t_init, v / t_init))
    if _get(u, "init") is not None and v is not None:
        out.append("| fsck's share (generic init − fsck.mode=skip init) | — | %.2f s |"
                   % (u["init"] - v))
    return "\n".join(out)


def floor_targets(res):
    """Issue 31's targets that one run of these rows measures (the
    squashfs segment's reads need an rd.debug boot: bench/results/floor.md)."""
    gs = _by_key(res)
    tiny, u, us, h, hs = (gs.get(k) for k in (
        "tiny-initramfs", "uniramfs-generic", "uniramfs-generic-nofsck", "uniramfs-hostonly",
        "uniramfs-hostonly-nofsck"))
    if tiny is None or us is None:
        return None
    out = ["| target | result | measured |", "|---|---|---|"]

    def row(name, a, b, what, limit, unit="s"):
        # judged on each row's fastest boot: the instruction clock runs
        # at the host's pace only while the guest idles (its disk), so a
        # loaded host can add to a boot, never take away; the medians
        # are beside it
        va, vb = _get(a, what + "_min"), _get(b, what + "_min")
        ma, mb = _get(a, what), _get(b, what)
        if va is None or vb is None:
            out.append("| %s | — | not measured |" % name)
        elif unit == "×":
            out.append("| %s | %s | fastest %.3f s against %.3f s: %.2f×; medians %.3f, %.3f: "
                       "%.2f× |" % (name, "met" if va <= limit * vb else "**missed**", va, vb,
                                    va / vb, ma, mb, ma / mb))
        else:
            out.append("| %s | %s | fastest %.2f s against %.2f s: %+.2f s; medians %.2f, "
                       "%.2f: %+.2f s |" % (name, "met" if va - vb <= limit + 1e-9 else
                                           "**missed**", va, vb, va - vb, ma, mb, ma - mb))

    row("whole boot: generic − host-only ≤ 0.05 s, both fsck.mode=skip", us, hs or h,
        "uptime", 0.05)
    row("init: generic − host-only ≤ 0.05 s, both fsck.mode=skip", us, hs or h, "init", 0.05)
    row("whole boot: generic, fsck.mode=skip, within 0.05 s of tiny-initramfs", us, tiny,
        "uptime", 0.05)
    row("whole boot: host-only no slower than tiny-initramfs", h, tiny, "uptime", 0.0)
    row("init: host-only ≤ 1.0× tiny-initramfs", h, tiny, "init", 1.0, unit="×")
    if _get(u, "init") is not None and _get(us, "init") is not None:
        out.append("| fsck's share (generic init − fsck.mode=skip init) | — | %+.2f s |"
                   % (u["init"] - us["init"]))
    return "\n".join(out)


def markdown(res, outdir):
    m, v = res["machine"], res["versions"]
    lines = [
        "# uniramfs benchmarks side by side",
        "",
        "Made by `bench/run.py` on %s (wall %d s for the whole run)." % (
            res["date"], res["wall_seconds"]),
        "",
        "- kernel: `%s` (the installed Debian kernel, for every generator)" % res["kernel"],
        "- machine: %d CPUs, %s, %d MiB RAM, virtualization: %s, host kernel %s" % (
            m["nproc"], m["cpu"], m["mem_mb"], m["virt"], m["host_kernel"]),
        "- uniramfs commit %s; initramfs-tools %s, dracut-core %s, qemu %s, hyperfine %s" % (
            res["uniramfs_commit"], v["initramfs-tools"], v["dracut-core"],
            v["qemu-system-x86"], v["hyperfine"]),
        "- build: %d timed runs each after one untimed warm-up run (hyperfine); boots: "
        "%d per image, QEMU `-accel tcg -smp 1 -m 1G%s`, root ext4 on virtio-blk by "
        "`root=UUID=`, `printk.time=1`" % (res["runs"], res["boots"], "".join(
            " " + x for x in res.get("qemu_extra", []))),
        "",
        table(res),
        "",
        "×uniramfs compares a generator with uniramfs of the same kind: generic images "
        "(`mkinitramfs MODULES=most`, `dracut --no-hostonly`) with `uniramfs --generic`, "
        "host-only ones (`MODULES=dep`, `dracut --hostonly`) with `uniramfs --hostonly` "
        "for the guest's virtio sysroot. *Kernel to `Run /init`* is the kernel's own "
        "timestamp of that line (decompressing and unpacking the image grows it); "
        "*init* is the guest's `/proc/uptime` printed by the root's `/sbin/init` minus "
        "that timestamp: the whole initramfs stage up to the real init. Entries counts "
        "every cpio entry (`uniramfs ls`), regular files in brackets.",
        "",
        "![chart](chart.png)",
        "",
        "## Targets (issue 4)",
        "",
        targets(res),
        "",
    ]
    tt = tiny_table(res)
    if tt:
        lines += [
            "## Against tiny-initramfs (issue 15)", "",
            "The same boots again, against tiny-initramfs: a static init that "
            "loads a fixed list of modules in order, waits for `root=` in "
            "devtmpfs, mounts it (no fsck) and switches root. *Whole boot* is "
            "the guest's `/proc/uptime` printed by the root's `/sbin/init`: "
            "kernel start to the real init. Variant rows boot their base row's "
            "image with the options named. *Our init's stages* are "
            "`/run/uniramfs/timings` (setup, coldplug, devices: waiting for "
            "the root, mount: fsck and mount, switch). *Kernel unpack* is the "
            "kernel's span from `Trying to unpack rootfs image` to `Freeing "
            "initrd memory` (median): decompressing the image and copying "
            "it into the rootfs.", "",
            tt, "", tiny_targets(res), ""]
        ft = floor_targets(res)
        if ft:
            lines += ["### Issue 31's targets", "",
                      "Judged on each row's fastest boot (the instruction clock follows the "
                      "host only while the guest idles, so load adds, never removes), medians "
                      "beside; *init* is `Run /init` to the root's `/sbin/init`, *whole boot* "
                      "kernel start to it.", "", ft, ""]
    notes = notes_for(res)
    if notes:
        lines += ["## What happened", ""] + notes + [""]
    extra = os.path.join(outdir, "notes.md")
    if os.path.isfile(extra):
        with open(extra) as f:
            lines += ["## Notes on this run", "", f.read().strip(), ""]
    return "\n".join(lines)


def notes_for(res):
    out = []
    for g in res["generators"]:
        if "build_error" in g:
            out.append("- %s: the build failed: `%s`" % (g["label"], g["build_error"]))
        for b in g.get("boots", []):
            if not b["pass"]:
                out.append("- %s: boot failed: %s (log: %s)" % (g["label"], b["reason"],
                                                                os.path.basename(b["log"])))
                break
    return out


def chart(res, outdir, work):
    dat = os.path.join(work, "chart.dat")
    q = lambda x, f="%.4f": "?" if x is None else f % x  # noqa: E731
    with open(dat, "w") as f:
        for g in res["generators"]:
            b = g.get("build") or {}
            color = {"uniramfs": 0x4477aa, "mkinitramfs": 0x228833,
                     "dracut": 0xee6677, "tiny": 0xccbb44}[g["key"].split("-")[0]]
            failed = "boots" in g and not all(b["pass"] for b in g["boots"])
            f.write('"%s" %s %s %s %s %s %s %s %s %d "%s"\n' % (
                g["label"].replace(" (", "\\n("),
                q(b.get("median")), q(b.get("min")), q(b.get("max")),
                q(g["size"] / 2**20 if "size" in g else None),
                q(g.get("run_init")), q(g.get("init")), q(g.get("init_min")),
                q(g.get("init_max")), color, "boot\\nFAILED" if failed else ""))
    png = os.path.join(outdir, "chart.png")
    gp = """
set terminal pngcairo size 1400,1000 font ",10"
set output "%(png)s"
set datafile missing "?"
set style fill solid 0.7 border -1
set boxwidth 0.6
set grid ytics
set xtics rotate by -30 nomirror
set bmargin 7
unset key
set xrange [-0.6:%(n)d-0.4]
set multiplot layout 2,2 title "%(title)s"
set title "build wall time, s (median, min-max; log scale)"
set logscale y
plot "%(dat)s" using 0:2:10:xtic(1) with boxes lc rgb variable, \\
     "" using 0:2:3:4 with yerrorbars lc rgb "black" pt 0 lw 1.5
unset logscale y
set yrange [0:*]
set title "image size, MiB"
plot "%(dat)s" using 0:5:10:xtic(1) with boxes lc rgb variable
set title "kernel: boot to 'Run /init', s (median)"
plot "%(dat)s" using 0:6:10:xtic(1) with boxes lc rgb variable
set title "init: 'Run /init' to the real init, s (median, min-max)"
plot "%(dat)s" using 0:7:10:xtic(1) with boxes lc rgb variable, \\
     "" using 0:7:8:9 with yerrorbars lc rgb "black" pt 0 lw 1.5, \\
     "" using 0:(0):11 with labels offset 0,1.5 tc rgb "#cc0000"
unset multiplot
""" % {"png": png, "dat": dat, "n": len(res["generators"]),
       "title": "uniramfs vs mkinitramfs vs dracut - kernel %s, %s, %d CPUs, %s" % (
           res["kernel"], res["date"], res["machine"]["nproc"], res["machine"]["cpu"])}
    gpf = os.path.join(work, "chart.gp")
    with open(gpf, "w") as f:
        f.write(gp)
    subprocess.run(["gnuplot", gpf], check=True)


def write(res, outdir, work):
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write(markdown(res, outdir))
    chart(res, outdir, work)


if __name__ == "__main__":
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "results")
    with open(os.path.join(d, "results.json")) as f:
        r = json.load(f)
    w = os.path.join(os.path.dirname(os.path.abspath(__file__)), "work")
    os.makedirs(w, exist_ok=True)
    write(r, d, w)
