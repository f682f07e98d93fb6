#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmark of network roots: an NFSv4 root and an ext4 root on an iSCSI
LUN, booted with uniramfs's image and dracut's (and mkinitramfs's, for
iSCSI), in one run on one machine.

  bench/net.py [--builddir DIR] [--runs N] [--boots N] [--only ROW:KEY,...]
               [--list] [--out DIR] [--workdir DIR] [--no-install]

The servers are the boot tests' (tests/boot/netservers.py): nfs-ganesha
(NFSv4) and tgtd, on 127.0.0.1, reached by the guest at 10.0.2.100 through
QEMU user networking with restrict=on and a guestfwd rule; a fresh server
for every boot (a guestfwd rule carries one connection for the VM's life),
started before QEMU and not counted.  The NFS export holds the boot tests'
root tree; the LUN is a copy of their ext4 root disk.

For each generator: build wall time (median, min, max of --runs builds,
after one untimed warm-up), image size, files and entries (`uniramfs ls`),
and over --boots QEMU TCG boots (one at a time) the init time as
bench/run.py defines it: the root's /sbin/init prints /proc/uptime, minus
the kernel's "Run /init as init process" timestamp; PASS/FAIL as
tests/boot/run.py judges any boot (the root's init ran as PID 1 from an
nfs4 or ext4 root).  The ratios are uniramfs's number over the other's.

mkinitramfs has no NFS row: initramfs-tools's NFS boot (BOOT=nfs, klibc's
nfsmount) speaks NFSv2/v3 only, and ganesha cannot serve v3 here (it needs
rpcbind for MOUNT, which the guest could not reach through one guestfwd
connection anyway).  Its iSCSI boot is open-iscsi's initramfs hook and
local-top script, which every mkinitramfs image on this host carries
(the hook runs unless /etc/initramfs-tools/conf.d/open-iscsi says
NO_ISCSI_IN_INITRAMFS=yes), driven by iscsi_* kernel parameters: no file
under /etc is needed or touched.

Writes OUT/net.md and OUT/net.json.
"""

import argparse
import dataclasses
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRCDIR, "tests/boot"))
sys.dont_write_bytecode = True
import run as boottest  # noqa: E402  tests/boot/run.py: boot(), check(), SCENARIOS
import disks  # noqa: E402
import netservers  # noqa: E402
import scenarios_net  # noqa: E402

RUN_INIT_RE = re.compile(r"^\[\s*([\d.]+)\] Run /init as init process", re.M)
UPTIME_RE = re.compile(r"^TESTINIT: uptime: ([\d.]+)", re.M)
ENTRIES_RE = re.compile(r"^\d+ segments?, (\d+) entries", re.M)

SERVER = netservers.GUEST_ADDR
IQN = netservers.ISCSI_IQN
LUN = netservers.ISCSI_LUN
LOCAL = scenarios_net.LOCAL
INITIATOR = "iqn.2026-12.test.uniramfs:bench"
NIC = ["-device", "virtio-net-pci,netdev=n0"]
DRACUT_ISCSI_SKIP = (
    "dracut 059's iscsiroot.sh always asks the portal for its targets (iscsiadm -m "
    "discovery -t st) before it logs in through iscsid: two TCP connections, and the "
    "guestfwd rule that reaches tgtd carries one for the VM's life; in the one trial "
    "boot iscsid also failed to start (no /etc/iscsi/initiatorname.iscsi yet) and "
    "the discovery failed")
LEGACY = ("network-legacy (dhclient): with dracut's default handler on this host, "
          "systemd-networkd, the boot stops after network.target and never mounts the "
          "NFS root (two trial boots: the second was still there after 4 minutes)")


@dataclasses.dataclass
class Gen:
    row: str            # nfs | iscsi
    key: str
    label: str
    cmd: list           # the build command; {out} is the image
    cmdline: str        # the kernel parameters for its root
    ours: bool = False
    note: str = ""
    skip: str = ""      # why it is not run unless --only names it

    @property
    def id(self):
        return "%s:%s" % (self.row, self.key)


def log(*a):
    print(*a, flush=True)


def itools_conf(work):
    """A copy of /etc/initramfs-tools with MODULES=most (the generic
    image, which has the NIC's driver)."""
    d = os.path.join(work, "itools-conf")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree("/etc/initramfs-tools", d, symlinks=True)
    p = os.path.join(d, "initramfs.conf")
    with open(p) as f:
        text = f.read()
    text, n = re.subn(r"^MODULES=.*$", "MODULES=most", text, flags=re.M)
    with open(p, "w") as f:
        f.write(text + ("" if n else "MODULES=most\n"))
    return d


def generators(uniramfs, kver, work):
    u = [uniramfs, "build", "-k", kver, "-o", "{out}", "--config", "/dev/null", "--generic"]
    nfs = "nfs4:%s:%s" % (SERVER, netservers.NFS_PSEUDO)
    iscsi = "iscsi:%s::3260:%d:%s" % (SERVER, LUN, IQN)
    root = "root=UUID=" + LOCAL.uuid
    return [
        Gen("nfs", "uniramfs-generic", "uniramfs --generic", u, "root=" + nfs, ours=True),
        Gen("nfs", "dracut", "dracut --no-hostonly --add \"nfs network-legacy\"",
            ["dracut", "--no-hostonly", "--add", "nfs network-legacy", "--force", "--kver", kver,
             "{out}"],
            "root=%s ip=dhcp" % nfs,
            note="dracut-network's nfs module; ip=dhcp because dracut brings the "
                 "network up only when asked; " + LEGACY),
        Gen("iscsi", "uniramfs-generic", "uniramfs --generic", u,
            "%s netroot=%s rd.iscsi.initiator=%s" % (root, iscsi, INITIATOR), ours=True),
        Gen("iscsi", "dracut", "dracut --no-hostonly --add \"iscsi network-legacy\"",
            ["dracut", "--no-hostonly", "--add", "iscsi network-legacy", "--force", "--kver", kver,
             "{out}"],
            "%s netroot=%s rd.iscsi.initiator=%s ip=dhcp" % (root, iscsi, INITIATOR),
            note="dracut-network's iscsi module; " + LEGACY,
            skip=DRACUT_ISCSI_SKIP),
        Gen("iscsi", "mkinitramfs", "mkinitramfs MODULES=most + open-iscsi",
            ["mkinitramfs", "-d", itools_conf(work), "-o", "{out}", kver],
            "%s ip=dhcp iscsi_target_name=%s iscsi_target_ip=%s iscsi_initiator=%s" % (
                root, IQN, SERVER, INITIATOR),
            note="CONF: a copy of /etc/initramfs-tools with MODULES=most; open-iscsi's "
                 "hook (/usr/share/initramfs-tools/hooks/iscsi) adds iscsistart and "
                 "its local-top script logs in from the iscsi_* parameters"),
    ]


def build(g, img, work, runs):
    """One warm-up build (its output kept), then runs timed builds."""
    cmd = [a.replace("{out}", img) for a in g.cmd]
    blog = os.path.join(work, "build-%s-%s.log" % (g.row, g.key))
    res = {"command": " ".join(shlex.quote(a) for a in cmd), "build_log": blog}
    with open(blog, "w") as f:
        f.write("$ %s\n" % res["command"])
        f.flush()
        t = time.monotonic()
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
        warm = round(time.monotonic() - t, 3)
    if r.returncode != 0 or not os.path.isfile(img):
        with open(blog) as f:
            lines = f.read().strip().splitlines()
        res["build_error"] = "exit %d: %s" % (r.returncode, lines[-1] if lines else "")
        return res
    times = [] if runs else [warm]     # --runs 0: the warm-up's time
    for _ in range(runs):
        t = time.monotonic()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(round(time.monotonic() - t, 3))
    res["build"] = {"median": statistics.median(times), "min": min(times),
                    "max": max(times), "times": times}
    return res


def image_stats(img, uniramfs):
    res = {"size": os.path.getsize(img)}
    out = subprocess.run([uniramfs, "ls", img], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True).stdout
    m = ENTRIES_RE.search(out)
    if m:
        res["entries"] = int(m.group(1))
        res["files"] = sum(1 for ln in out.splitlines() if ln.startswith("-"))
    return res


def server(row, testinit, work, tmp):
    """The row's server, fresh, and the guest port it is forwarded to."""
    if row == "nfs":
        export = os.path.join(tmp, "export")
        if not os.path.isdir(export):
            disks._populate(export, testinit)
        return netservers.start_nfs(export, tmp), 2049
    lun = os.path.join(tmp, "lun.img")
    shutil.copyfile(disks.ensure(LOCAL, testinit, work), lun)
    return netservers.start_iscsi(lun, tmp, initiator=INITIATOR), 3260


def judge(row):
    """The boot tests' scenario for the row, without its uniramfs-only
    log expectations: check() then asks what it asks of any image."""
    name = {"nfs": "nfs-dhcp", "iscsi": "iscsi-chap"}[row]
    sc = next(s for s in boottest.SCENARIOS if s.name == name)
    return dataclasses.replace(sc, log_expect=(), log_absent=(), expect=())


def boots(g, img, vmlinuz, testinit, n, work):
    sc = judge(g.row)
    cmdline = " ".join((boottest.BASE_CMDLINE, "printk.time=1", g.cmdline))
    out = []
    for i in range(n):
        logf = os.path.join(work, "logs", "%s-%s-%d.log" % (g.row, g.key, i))
        tmp = tempfile.mkdtemp(prefix="srv-", dir=work)
        try:
            s, port = server(g.row, testinit, work, tmp)
            with s:
                text, dt, timed_out, missed = boottest.boot(
                    vmlinuz, img, [], "virtio", cmdline, logf,
                    extra=["-netdev", "user,id=n0,restrict=on," + s.guestfwd(port)] + NIC)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        err = boottest.check(sc, text, timed_out, ours=g.ours, missed=missed)
        ri, up = RUN_INIT_RE.search(text), UPTIME_RE.search(text)
        b = {"pass": err is None, "reason": err, "wall": round(dt, 2), "log": logf,
             "run_init": float(ri.group(1)) if ri else None,
             "uptime": float(up.group(1)) if up else None}
        if b["run_init"] is not None and b["uptime"] is not None:
            b["init"] = round(b["uptime"] - b["run_init"], 3)
        out.append(b)
        log("  %-6s %-40s boot %d: %s%s" % (g.row, g.label, i + 1, "PASS" if err is None
                                              else "FAIL (%s)" % err,
                                              "  init %.2f s" % b["init"] if "init" in b else ""))
        if err is not None:
            break   # one failure is the result
    return out


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
        if m:
            cpu = m.group(1).strip()
    with open("/proc/meminfo") as f:
        mem = int(re.search(r"MemTotal:\s+(\d+)", f.read()).group(1)) // 1024
    return "%d CPUs, %s, %d MB RAM, host kernel %s" % (os.cpu_count(), cpu, mem,
                                                     platform.release())


def versions():
    def q(p):
        r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", p], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        return r.stdout.strip() or "?"
    return {p: q(p) for p in ("dracut-core", "dracut-network", "initramfs-tools", "open-iscsi",
                              "nfs-ganesha", "tgt", "qemu-system-x86")}


def init_times(g):
    return [b["init"] for b in g.get("boots", []) if b["pass"] and "init" in b]


def ratio(a, b):
    return "%.2f" % (a / b) if a is not None and b else "-"


def report(res, path):
    def mb(n):
        return "%.1f MB" % (n / 1e6)
    L = ["# Network roots: uniramfs, dracut and mkinitramfs side by side", "",
         "Date: %s. Kernel: %s. Machine: %s. uniramfs %s." % (
             res["date"], res["kernel"], res["machine"], res["commit"]),
         "Versions: " + ", ".join("%s %s" % kv for kv in res["versions"].items()) + ".", "",
         "Servers on 127.0.0.1 (tests/boot/netservers.py), reached by the guest at %s "
         "through QEMU user networking (restrict=on, guestfwd), one fresh server per boot. "
         "**nfs**: nfs-ganesha, NFSv4, the boot tests' root tree at `%s`. **iscsi**: tgtd, "
         "a copy of the boot tests' ext4 root disk as LUN %d of `%s`, open only to the "
         "initiator `%s`. Build: median (min–max) of %d builds after a warm-up. Init: guest "
         "uptime at the real init minus the kernel's `Run /init` timestamp, median (min–max) "
         "of %d QEMU TCG boots. Ratios: uniramfs over the other. Made by `bench/net.py%s`." % (
             SERVER, netservers.NFS_PSEUDO, LUN, IQN, INITIATOR, res["runs"], res["boots"],
             res["args"]), "",
         "| root | generator | build | image size | files | init time | boot |",
         "| --- | --- | ---: | ---: | ---: | --- | --- |"]
    for g in res["generators"]:
        b = g.get("build")
        bt = "%.2f s (%.2f–%.2f)" % (b["median"], b["min"], b["max"]) if b else "-"
        size = mb(g["size"]) if "size" in g else "-"
        files = "%d (%d entries)" % (g["files"], g["entries"]) if "files" in g else "-"
        ok = init_times(g)
        t = "%.2f s (%.2f–%.2f)" % (statistics.median(ok), min(ok), max(ok)) if ok else "-"
        if "build_error" in g:
            verdict = "FAIL (build: %s)" % g["build_error"]
        elif g.get("boot_pass"):
            verdict = "PASS"
        else:
            bad = [x for x in g.get("boots", []) if not x["pass"]]
            verdict = "FAIL (%s)" % (bad[0]["reason"] if bad else "no boot")
        L.append("| %s | %s | %s | %s | %s | %s | %s |" % (g["row"], g["label"], bt, size,
                                                          files, t, verdict))
    L += ["", "| root | uniramfs / | build | size | init |", "| --- | --- | ---: | ---: | ---: |"]
    for row in ("nfs", "iscsi"):
        gs = [g for g in res["generators"] if g["row"] == row]
        us = next((g for g in gs if g["key"].startswith("uniramfs")), None)
        if not us:
            continue
        for o in gs:
            if o is us:
                continue
            def med(g, k):
                if k == "init":
                    t = init_times(g)
                    return statistics.median(t) if t else None
                if k == "build":
                    return g["build"]["median"] if "build" in g else None
                return g.get(k)
            L.append("| %s | %s | %s | %s | %s |" % (
                row, o["label"], *(ratio(med(us, k), med(o, k)) for k in ("build", "size",
                                                                           "init"))))
    for g in res.get("skipped", []):
        L += ["", "Not run: %s, %s: %s." % (g["row"], g["label"], g["why"])]
    if not any(g["row"] == "nfs" and g["key"] == "mkinitramfs" for g in res["generators"]):
        L += ["", "No mkinitramfs NFS row: initramfs-tools's NFS boot (`BOOT=nfs`, klibc's "
              "`nfsmount`) mounts NFSv2/v3 only, and the host's ganesha serves NFSv4 only "
              "(v3 needs rpcbind and MOUNT, which a guestfwd rule carrying one connection "
              "cannot carry either)."]
    L += ["", "Commands (KVER = %s); the kernel command line is `%s printk.time=1` and:" % (
        res["kernel"], boottest.BASE_CMDLINE), ""]
    for g in res["generators"]:
        L.append("- **%s, %s**: `%s`; `%s`%s" % (g["row"], g["label"], g["command"],
                                                 g["cmdline"],
                                                 ". " + g["note"] if g.get("note") else ""))
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--builddir", default=os.environ.get("UNIRAMFS_BUILDDIR",
                                                         os.path.join(SRCDIR, "build")))
    ap.add_argument("--runs", type=int, default=3, help="timed builds per generator (3; 0: time the warm-up)")
    ap.add_argument("--boots", type=int, default=3, help="TCG boots per image (3)")
    ap.add_argument("--only", help="comma-separated ROW:KEY (see --list)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--no-install", action="store_true", help="skip tools/install-deps.sh")
    ap.add_argument("--timeout", type=int, default=300,
                    help="seconds per boot (300: dracut's systemd boot takes 1-2 minutes "
                         "under TCG on a loaded machine)")
    ap.add_argument("--reuse", action="store_true",
                    help="boot the images of the last run, without building (no build times)")
    ap.add_argument("--kver", help="kernel version (default: newest installed)")
    ap.add_argument("--workdir", default=os.path.join(HERE, "work", "net"))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    a = ap.parse_args()

    if not a.no_install:
        subprocess.run([os.path.join(SRCDIR, "tools/install-deps.sh")], check=True)
    builddir = os.path.abspath(a.builddir)
    if not os.path.isfile(os.path.join(builddir, "build.ninja")):
        subprocess.run(["meson", "setup", builddir, SRCDIR], check=True,
                       stdout=subprocess.DEVNULL)
    subprocess.run(["ninja", "-C", builddir], check=True, stdout=subprocess.DEVNULL)
    uniramfs = os.path.join(builddir, "uniramfs")
    kver, vmlinuz = boottest.find_kernel(a.kver)
    work = os.path.abspath(a.workdir)
    for d in ("img", "logs"):
        os.makedirs(os.path.join(work, d), exist_ok=True)

    gens = generators(uniramfs, kver, work)
    skipped = []
    if a.list:
        for g in gens:
            print("%-22s %s\n%22s kernel: %s" % (g.id, " ".join(shlex.quote(x) for x in g.cmd),
                                                 "", g.cmdline))
        return 0
    if a.only:
        keep = a.only.split(",")
        bad = set(keep) - {g.id for g in gens}
        if bad:
            sys.exit("bench/net.py: unknown generator(s): " + ", ".join(sorted(bad)))
        gens = [g for g in gens if g.id in keep]
    else:
        for g in gens:
            if g.skip:
                log("bench/net.py: not running %s: %s" % (g.id, g.skip))
        skipped = [g for g in gens if g.skip]
        gens = [g for g in gens if not g.skip]
    for kind in sorted({g.row for g in gens}):
        if not netservers.available(kind):
            sys.exit("bench/net.py: no %s server (%s) installed" % (kind,
                                                                  netservers.TOOLS[kind]))

    boottest.BOOT_TIMEOUT = a.timeout
    started = datetime.datetime.now(datetime.timezone.utc)
    testinit = boottest.find_testinit(builddir, work)
    log("bench/net.py: kernel %s, %d builds and %d boots per image" % (kver, a.runs, a.boots))
    results = []
    for g in gens:
        img = os.path.join(work, "img", "%s-%s.img" % (g.row, g.key))
        r = {"row": g.row, "key": g.key, "label": g.label, "cmdline": g.cmdline,
             "note": g.note}
        if a.reuse and os.path.isfile(img):
            r["command"] = " ".join(shlex.quote(x.replace("{out}", img)) for x in g.cmd)
        else:
            if os.path.exists(img):
                os.unlink(img)
            r.update(build(g, img, work, a.runs))
        if "build_error" in r:
            log("  %-6s %-40s build FAILED: %s" % (g.row, g.label, r["build_error"]))
        else:
            r.update(image_stats(img, uniramfs))
            log("  %-6s %-40s build %s: %.1f MB, %s files" % (
                g.row, g.label, "%.1f s (median of %d)" % (r["build"]["median"], a.runs)
                if "build" in r else "reused", r["size"] / 1e6, r.get("files", "?")))
            r["boots"] = boots(g, img, vmlinuz, testinit, a.boots, work)
            r["boot_pass"] = len(r["boots"]) == a.boots and all(b["pass"] for b in r["boots"])
        results.append(r)

    args = " ".join(shlex.quote(x) for x in sys.argv[1:])
    res = {"date": started.strftime("%Y-%m-%d %H:%M UTC"), "kernel": kver,
           "machine": machine(), "versions": versions(), "runs": a.runs, "boots": a.boots,
           "args": (" " + args) if args else "",
           "commit": subprocess.run(["git", "-C", SRCDIR, "rev-parse", "--short", "HEAD"],
                                    stdout=subprocess.PIPE, text=True).stdout.strip(),
           "generators": results,
           "skipped": [{"row": g.row, "key": g.key, "label": g.label, "why": g.skip}
                       for g in skipped]}
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "net.json"), "w") as f:
        json.dump(res, f, indent=1)
    report(res, os.path.join(a.out, "net.md"))
    log("bench/net.py: %s" % os.path.join(a.out, "net.md"))
    return 0 if all(r.get("boot_pass") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
