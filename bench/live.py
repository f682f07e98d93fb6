#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmark of live roots (issue 28): one squashfs of the boot tests'
root, booted from a live ISO attached as a CD-ROM and netbooted over HTTP,
with uniramfs's image and dracut's (dmsquash-live, livenet) in one run on
one machine.

  bench/live.py [--builddir DIR] [--boots N] [--only ROW:KEY,...] [--list]
                [--out DIR] [--workdir DIR] [--no-install]

The squashfs is tests/boot/scenarios_http.py's (gensquashfs of the boot
tests' root tree). **iso**: an ISO 9660 image (xorriso), volume id
UNIRAMFS_LIVE, holding it as LiveOS/squashfs.img (the layout dracut's
dmsquash-live and `root=live:` read), on QEMU's IDE CD-ROM. **http**: the
same file served by Python's http.server on 127.0.0.1, reached by the guest
at 10.0.2.100:8080 through QEMU user networking (restrict=on, a guestfwd
rule running one socat per connection), a fresh server per boot.  Both
generators get the same command line per row; dracut ignores the words it
does not know (rd.live.sha256=).

For each row and generator: the build's wall time (one build) and the
image's size; then --boots QEMU TCG boots (one at a time) and --boots more
with `-icount shift=0`.  Init time: guest uptime at the root's /sbin/init
(tests/boot/testinit.c) minus the kernel's "Run /init as init process"
timestamp; under plain TCG in the guest's seconds, which follow the host's
(loaded) clock, under -icount on the instruction clock (a guest second is
10^9 instructions, whatever the host's load). RAM: MemAvailable in
/proc/meminfo as the root's init sees it (testinit.show=), and MemTotal
minus it (the downloaded image sits in /run, RAM, on the http row). PASS or
FAIL as tests/boot/run.py judges a boot: the root's init ran as PID 1 on
an overlay that takes writes.

Writes OUT/live.md and OUT/live.json.
"""

import dataclasses
import datetime
import hashlib
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True     # no __pycache__ in bench/ or tests/boot/
import common  # noqa: E402  bench/common.py; it puts tests/boot on sys.path
from common import boottest, log, HERE  # noqa: E402
import scenarios_http  # noqa: E402

LABEL = "UNIRAMFS_LIVE"
URL = scenarios_http.URL
VERSIONS = ("dracut-core", "dracut-live", "dracut-network", "xorriso", "squashfs-tools-ng",
            "qemu-system-x86")
ICOUNT = ["-icount", "shift=0"]
MEM_RE = {k: re.compile(r"^TESTINIT: show /proc/meminfo: %s:\s+(\d+) kB" % k, re.M)
          for k in ("MemTotal", "MemAvailable")}
# what both rows ask: the overlay over the image (dracut's word; uniramfs
# reads it as rd.overlay), no shell on a failure
COMMON = "rd.live.overlay.overlayfs=1 rd.shell=0 testinit.show=/proc/meminfo"
DRACUT_NOTE = ("dracut --no-hostonly with dracut-live's modules; its image runs systemd, "
               "which brings the root up through its own units")


@dataclasses.dataclass
class Gen:
    row: str        # iso, http
    key: str        # uniramfs, dracut
    label: str
    cmd: list       # {out}: the image
    cmdline: str    # {sha256}: the image's digest
    note: str = ""

    @property
    def id(self):
        return "%s:%s" % (self.row, self.key)


def generators(uniramfs, kver):
    iso_line = "root=live:LABEL=%s rd.live.image %s" % (LABEL, COMMON)
    http_line = "root=live:%s rd.live.sha256={sha256} ip=dhcp %s" % (URL, COMMON)
    u = [uniramfs, "build", "-k", kver, "-o", "{out}", "--generic"]
    return [
        Gen("iso", "uniramfs", "uniramfs build --generic", u, iso_line),
        Gen("iso", "dracut", "dracut --no-hostonly --add dmsquash-live",
            ["dracut", "--no-hostonly", "--add", "dmsquash-live", "--force", "--kver", kver,
             "{out}"], iso_line, DRACUT_NOTE),
        Gen("http", "uniramfs", "uniramfs build --generic --add-modules …",
            u + list(scenarios_http.BUILD), http_line,
            "the boot tests' modules for the HTTP root (virtio_net, algif_hash …); the "
            "download checked against rd.live.sha256="),
        Gen("http", "dracut", "dracut --no-hostonly --add \"livenet dmsquash-live "
            "network-legacy\"",
            ["dracut", "--no-hostonly", "--add", "livenet dmsquash-live network-legacy",
             "--force", "--kver", kver, "{out}"], http_line,
            DRACUT_NOTE + "; livenet fetches with curl (url-lib), dhclient brings the NIC up "
            "(network-legacy, as bench/net.py); no digest is checked"),
    ]


def make_iso(squash, work):
    """WORK/live-HASH.iso holding squash as LiveOS/squashfs.img (made once)."""
    with open(squash, "rb") as f:
        h = hashlib.sha256(b"bench-live-iso-1" + f.read()).hexdigest()[:12]
    iso = os.path.join(work, "live-%s.iso" % h)
    if os.path.exists(iso):
        return iso
    with tempfile.TemporaryDirectory(dir=work, prefix=".iso-") as tmp:
        os.makedirs(os.path.join(tmp, "top", "LiveOS"))
        shutil.copyfile(squash, os.path.join(tmp, "top", "LiveOS", "squashfs.img"))
        out = os.path.join(tmp, "live.iso")
        subprocess.run(["xorriso", "-as", "mkisofs", "-quiet", "-V", LABEL, "-R", "-J",
                        "-o", out, os.path.join(tmp, "top")], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.rename(out, iso)
    return iso


class _Overlay:
    fs = "overlay"


def judge():
    """What any image's boot must show: the marker from PID 1, / an
    overlay that takes writes."""
    return boottest.Scenario("bench-live", "", _Overlay(), "", expect=("root-writable=yes",))


def boot_one(g, img, vmlinuz, testinit, work, iso, squash, sha, icount, i):
    cmdline = " ".join((boottest.BASE_CMDLINE, "printk.time=1",
                        g.cmdline.replace("{sha256}", sha)))
    logf = os.path.join(work, "logs", "%s-%s-%s-%d.log" % (g.row, g.key,
                                                           "icount" if icount else "tcg", i))
    extra = ICOUNT if icount else []
    if g.row == "iso":
        extra = extra + ["-drive", "if=ide,index=2,media=cdrom,readonly=on,format=raw,file=" + iso]
        text, dt, timed_out, missed = boottest.boot(vmlinuz, img, [], "virtio", cmdline, logf,
                                                    extra=extra)
    else:
        with scenarios_http.http_root(())(testinit, work) as (_, nic):
            text, dt, timed_out, missed = boottest.boot(vmlinuz, img, [], "virtio", cmdline,
                                                        logf, extra=extra + nic)
    err = boottest.check(judge(), text, timed_out, ours=g.key == "uniramfs", missed=missed)
    b = common.boot_record(text, dt, err, logf)
    b["clock"] = "icount" if icount else "tcg"
    for k, rx in MEM_RE.items():
        m = rx.search(text)
        if m:
            b[k] = int(m.group(1))
    if "MemTotal" in b and "MemAvailable" in b:
        b["used"] = b["MemTotal"] - b["MemAvailable"]
    log("  %-5s %-9s %-6s boot %d: %s%s%s" % (
        g.row, g.key, b["clock"], i + 1, "PASS" if err is None else "FAIL (%s)" % err,
        "  init %.2f s" % b["init"] if "init" in b else "",
        "  MemAvailable %d MiB" % (b["MemAvailable"] // 1024) if "MemAvailable" in b else ""))
    return b


def cell(g, clock, key, fmt):
    vals = [b[key] for b in g.get("boots", []) if b["clock"] == clock and b["pass"] and key in b]
    if not vals:
        return "-"
    return fmt(statistics.median(vals)) + (" (%s–%s)" % (fmt(min(vals)), fmt(max(vals)))
                                           if len(vals) > 1 else "")


def verdict(g):
    if "build_error" in g:
        return "FAIL (build: %s)" % g["build_error"]
    bad = [b for b in g.get("boots", []) if not b["pass"]]
    if bad:
        return "FAIL (%s boot: %s)" % (bad[0]["clock"], bad[0]["reason"])
    return "PASS" if g.get("boots") else "not booted"


def report(res, path):
    secs = lambda v: "%.2f s" % v  # noqa: E731
    mib = lambda v: "%d MiB" % (v // 1024)  # noqa: E731
    L = common.report_head("Live roots: a live ISO and an HTTP netboot, uniramfs and dracut", res)
    L += ["One squashfs (%d bytes, the boot tests' root tree): **iso**, as LiveOS/squashfs.img "
          "on an ISO 9660 image (xorriso, volume id `%s`) on QEMU's IDE CD-ROM; **http**, served "
          "on 127.0.0.1 and reached at `%s` (QEMU user net, restrict=on, guestfwd), a fresh "
          "server per boot. Init: guest uptime at the root's init minus the kernel's `Run /init`; "
          "**TCG**: plain QEMU TCG, the guest's seconds follow the loaded host's; **icount**: "
          "`-icount shift=0`, the instruction clock (10^9 instructions a second). RAM: "
          "`/proc/meminfo` at the root's init; used = MemTotal − MemAvailable (the guest has 1 "
          "GiB). Median (min–max) of %d boots per clock. Made by `bench/live.py%s`." % (
              res["squashfs_size"], LABEL, URL, res["boots"], res["args"]), "",
          "| root | generator | build | image size | init, TCG | init, icount | "
          "MemAvailable | used | boot |",
          "| --- | --- | ---: | ---: | --- | --- | ---: | ---: | --- |"]
    for g in res["generators"]:
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            g["row"], g["label"], "%.1f s" % g["build_s"] if "build_s" in g else "-",
            "%.1f MB" % (g["size"] / 1e6) if "size" in g else "-",
            cell(g, "tcg", "init", secs), cell(g, "icount", "init", secs),
            cell(g, "icount", "MemAvailable", mib), cell(g, "icount", "used", mib), verdict(g)))
    L += ["", "Commands (KVER = %s); the kernel command line is `%s printk.time=1` and the "
          "row's words:" % (res["kernel"], boottest.BASE_CMDLINE), ""]
    for g in res["generators"]:
        L.append("- **%s, %s**: `%s`; `%s`%s" % (g["row"], g["label"], g["command"], g["cmdline"],
                                                 ". " + g["note"] if g.get("note") else ""))
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def main():
    ap = common.rows_parser(__doc__, 2, "boots per image and clock", "ROW:KEY", (
        400, "seconds per boot (400: dracut's systemd under -icount on a loaded host)"))
    a = common.parse_args(ap, os.path.join(HERE, "work", "live"))
    builddir, uniramfs, kver, vmlinuz, work = common.setup(a)
    gens = generators(uniramfs, kver)
    if a.list:
        for g in gens:
            print("%-14s %s\n%14s kernel: %s" % (g.id, " ".join(shlex.quote(x) for x in g.cmd),
                                                 "", g.cmdline))
        return 0
    gens = common.pick(gens, a.only, lambda g: g.id, "bench/live.py")
    boottest.BOOT_TIMEOUT = a.timeout
    started = datetime.datetime.now(datetime.timezone.utc)
    testinit = boottest.find_testinit(builddir, work)
    squash = scenarios_http.IMAGE.path(testinit, work)
    with open(squash, "rb") as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    iso = make_iso(squash, work)
    log("bench/live.py: kernel %s, %d boots per image and clock" % (kver, a.boots))
    results = []
    for g in gens:
        img = os.path.join(work, "img", "%s-%s.img" % (g.row, g.key))
        if os.path.exists(img):
            os.unlink(img)
        cmd = [x.replace("{out}", img) for x in g.cmd]
        r = {"row": g.row, "key": g.key, "label": g.label, "note": g.note,
             "cmdline": g.cmdline}
        res, dt = common.build_once(cmd, img, os.path.join(work, "build-%s-%s.log" % (g.row,
                                                                                     g.key)))
        r.update(res)
        if "build_error" in r:
            log("  %-5s %-9s build FAILED: %s" % (g.row, g.key, r["build_error"]))
            results.append(r)
            continue
        r["build_s"] = round(dt, 2)
        r.update(common.image_stats(img, uniramfs))
        log("  %-5s %-9s build %.1f s, %.1f MB" % (g.row, g.key, dt, r["size"] / 1e6))
        r["boots"] = []
        for icount in (False, True):
            for i in range(a.boots):
                b = boot_one(g, img, vmlinuz, testinit, work, iso, squash, sha, icount, i)
                r["boots"].append(b)
                if not b["pass"]:
                    break
        results.append(r)
    res = common.results_head(started, kver, VERSIONS, boots=a.boots,
                              squashfs_size=os.path.getsize(squash), generators=results)
    common.write_results(res, a.out, "live", report, "bench/live.py")
    return 0 if all(verdict(r) == "PASS" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
