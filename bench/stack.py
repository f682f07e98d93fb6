#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmark of an encrypted root: the Debian installer's LVM on LUKS (the
boot tests' lvm-on-luks disk: vda1 LUKS2, in it a PV of VG testvg, LV root
ext4), booted with an image from each generator, the passphrase typed at
each one's own prompt on the serial console.

  bench/stack.py [--builddir DIR] [--boots N] [--only a,b] [--list]
                 [--out DIR] [--workdir DIR] [--no-install]

For each generator: image size, entries and regular files (`uniramfs ls`),
and over --boots QEMU TCG boots (one at a time): the init time as
bench/run.py defines it (the root's /sbin/init prints /proc/uptime, minus
the kernel's "Run /init as init process" timestamp), and PASS/FAIL as
tests/boot/run.py judges its lvm-on-luks scenario.  The init time includes
answering the prompt: the harness types the passphrase as soon as the
prompt shows (it polls every 0.1 s), the same for every generator.

Writes OUT/stack.md and OUT/stack.json.
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
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRCDIR, "tests/boot"))
sys.dont_write_bytecode = True
import run as boottest  # noqa: E402  tests/boot/run.py: boot(), check(), SCENARIOS
import builder  # noqa: E402
import scenarios_stack  # noqa: E402

RUN_INIT_RE = re.compile(r"^\[\s*([\d.]+)\] Run /init as init process", re.M)
UPTIME_RE = re.compile(r"^TESTINIT: uptime: ([\d.]+)", re.M)
ENTRIES_RE = re.compile(r"^\d+ segments?, (\d+) entries", re.M)

LAYOUT = scenarios_stack.LVM_LUKS
LUKS_UUID = dict(LAYOUT.params)["LUKS_UUID"]
ROOT = "/dev/mapper/testvg-root"
PASS = scenarios_stack.PASS
# The hostonly fixture describing the guest: virtio-blk, dm-crypt on a
# partition, LVM (vg0-root), ext4 root.  Its dm-crypt name is luks-3f1a7c2e.
FIXTURE = os.path.join(SRCDIR, "tests/unit/fixtures/hostonly/luks")
FIXTURE_CRYPT_NAME = "luks-3f1a7c2e"
CRYPTTAB_LINE = "luks-%s UUID=%s none luks" % (LUKS_UUID, LUKS_UUID)


@dataclasses.dataclass
class Gen:
    key: str
    label: str
    cmd: list           # the build command; {out} is the image
    prompt: str         # regex of its passphrase prompt
    cmdline: str = ""   # more kernel parameters it needs
    env: dict = None    # more environment for the build
    ours: bool = False
    note: str = ""


def log(*a):
    print(*a, flush=True)


def mirror(sysroot, path):
    """Copy host file `path` into sysroot at the same path, recreating each
    symlink on the way (/lib -> usr/lib, lib.so.1 -> lib.so.1.2.3) so that
    the generator resolves it inside the sysroot as it would on the host."""
    parts = os.path.normpath(path).strip("/").split("/")
    head = "/"
    for i, part in enumerate(parts):
        cur = os.path.join(head, part)
        if os.path.islink(cur):
            dst = sysroot + cur
            if not os.path.lexists(dst):
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                os.symlink(os.readlink(cur), dst)
            target = os.path.normpath(os.path.join(head, os.readlink(cur)))
            return mirror(sysroot, os.path.join(target, *parts[i + 1:]))
        head = cur
    dst = sysroot + head
    if os.path.isdir(head):
        os.makedirs(dst, exist_ok=True)
    elif not os.path.exists(dst):
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(head, dst)


def guest_sysroot(work):
    """The --sysroot for a hostonly image of the guest: the LVM-on-LUKS
    fixture's /proc and /sys, the host's cryptsetup and lvm with their
    libraries (a hostonly build takes the stack's tools from the sysroot),
    and a crypttab naming the guest's LUKS UUID under the fixture's
    dm-crypt name (a hostonly image unlocks what the crypttab lists)."""
    root = os.path.join(work, "sysroot")
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(FIXTURE, root, symlinks=True)
    for tool in ("cryptsetup", "lvm"):
        exe = shutil.which(tool, path="/usr/sbin:/sbin:/usr/bin:/bin")
        out = subprocess.run(["ldd", exe], stdout=subprocess.PIPE, text=True).stdout
        for p in [exe] + re.findall(r"(/\S+) \(0x", out):
            mirror(root, p)
    os.makedirs(os.path.join(root, "etc"), exist_ok=True)
    with open(os.path.join(root, "etc/crypttab"), "w") as f:
        f.write("%s UUID=%s none luks\n" % (FIXTURE_CRYPT_NAME, LUKS_UUID))
    return root


def itools_conf(work):
    """A copy of /etc/initramfs-tools with MODULES=most and a hook that puts
    the guest's crypttab line in the image.  cryptsetup-initramfs's own hook
    reads only the host's /etc/crypttab (its path is fixed), and keeps the
    lines for the host's root or those marked `initramfs`: ours runs after
    it (a CONFDIR hook) and adds the line to the image's cryptroot/crypttab,
    which the image's cryptroot script unlocks at local-top."""
    d = os.path.join(work, "itools-conf")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree("/etc/initramfs-tools", d, symlinks=True)
    p = os.path.join(d, "initramfs.conf")
    with open(p) as f:
        text = f.read()
    text, n = re.subn(r"^MODULES=.*$", "MODULES=most", text, flags=re.M)
    with open(p, "w") as f:
        f.write(text + ("" if n else "MODULES=most\n"))
    hook = os.path.join(d, "hooks", "bench-crypttab")
    os.makedirs(os.path.dirname(hook), exist_ok=True)
    with open(hook, "w") as f:
        f.write('#!/bin/sh\n'
                '# bench/stack.py: the guest\'s LUKS device for cryptsetup-initramfs\n'
                'case "$1" in prereqs) echo cryptroot; exit 0;; esac\n'
                'mkdir -p "$DESTDIR/cryptroot"\n'
                'echo "%s" >>"$DESTDIR/cryptroot/crypttab"\n' % CRYPTTAB_LINE)
    os.chmod(hook, 0o755)
    return d


def generators(uniramfs, kver, work):
    sysroot = guest_sysroot(work)
    conf = itools_conf(work)
    u = [uniramfs, "build", "-k", kver, "-o", "{out}", "--config", "/dev/null"]
    return [
        Gen("uniramfs-hostonly", "uniramfs --hostonly (guest sysroot)",
            u + ["--hostonly", "--sysroot", sysroot, "--kmoddir", "/lib/modules/" + kver,
                 "--microcode", "none"],
            r"Passphrase for /dev/vda1 \(%s\): " % LUKS_UUID, ours=True,
            note="--sysroot: tests/unit/fixtures/hostonly/luks (virtio-blk, dm-crypt, "
                 "LVM, ext4) + the host's cryptsetup and lvm + a crypttab line for the "
                 "guest's LUKS UUID"),
        Gen("uniramfs-generic", "uniramfs --generic", u + ["--generic"],
            r"Passphrase for /dev/vda1 \(%s\): " % LUKS_UUID, ours=True),
        Gen("dracut", "dracut --no-hostonly --add \"crypt lvm\"",
            ["dracut", "--no-hostonly", "--add", "crypt lvm", "--force", "--kver", kver,
             "{out}"],
            r"Please enter passphrase|Passphrase for",
            cmdline="rd.luks.uuid=%s rd.lvm.lv=testvg/root" % LUKS_UUID,
            note="not --hostonly: this host's root is not LVM on LUKS, so dracut "
                 "--hostonly cannot describe the guest"),
        Gen("mkinitramfs", "mkinitramfs MODULES=most + cryptsetup-initramfs",
            ["mkinitramfs", "-d", conf, "-o", "{out}", kver],
            r"Please unlock disk",
            note="CONF: a copy of /etc/initramfs-tools with MODULES=most and a hook "
                 "(hooks/bench-crypttab, after cryptsetup-initramfs's cryptroot) adding "
                 "`%s` to the image's cryptroot/crypttab; this host's /etc/crypttab is "
                 "not touched" % CRYPTTAB_LINE),
    ]


def build(g, img, work):
    cmd = [a.replace("{out}", img) for a in g.cmd]
    blog = os.path.join(work, "build-%s.log" % g.key)
    env = dict(os.environ, **(g.env or {}))
    t = time.monotonic()
    with open(blog, "w") as f:
        f.write("$ %s%s\n" % ("".join("%s=%s " % kv for kv in (g.env or {}).items()),
                                 " ".join(shlex.quote(a) for a in cmd)))
        f.flush()
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
    res = {"command": " ".join(shlex.quote(a) for a in cmd), "build_log": blog,
           "build_seconds": round(time.monotonic() - t, 2)}
    if r.returncode != 0 or not os.path.isfile(img):
        with open(blog) as f:
            lines = f.read().strip().splitlines()
        res["build_error"] = "exit %d: %s" % (r.returncode, lines[-1] if lines else "")
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


def boots(g, img, vmlinuz, disk_paths, n, work):
    sc = next(s for s in boottest.SCENARIOS if s.name == "lvm-on-luks")
    cmdline = " ".join(x for x in (boottest.BASE_CMDLINE, "printk.time=1",
                                   "root=" + ROOT, g.cmdline) if x)
    out = []
    for i in range(n):
        logf = os.path.join(work, "logs", "%s-%d.log" % (g.key, i))
        text, dt, timed_out, missed = boottest.boot(
            vmlinuz, img, disk_paths, "virtio", cmdline, logf,
            interact=((g.prompt, PASS + "\n"),))
        err = boottest.check(sc, text, timed_out, ours=g.ours, missed=missed)
        ri, up = RUN_INIT_RE.search(text), UPTIME_RE.search(text)
        b = {"pass": err is None, "reason": err, "wall": round(dt, 2), "log": logf,
             "run_init": float(ri.group(1)) if ri else None,
             "uptime": float(up.group(1)) if up else None}
        if b["run_init"] is not None and b["uptime"] is not None:
            b["init"] = round(b["uptime"] - b["run_init"], 3)
        out.append(b)
        log("  %-40s boot %d: %s%s" % (g.label, i + 1, "PASS" if err is None else
                                         "FAIL (%s)" % err,
                                         "  init %.2f s" % b["init"] if "init" in b else ""))
        if err is not None:
            break   # one failure is the result; no need to wait for more
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
    return {p: q(p) for p in ("initramfs-tools", "cryptsetup-initramfs", "dracut-core",
                              "cryptsetup-bin", "lvm2", "qemu-system-x86")}


def report(res, path):
    def mb(n):
        return "%.1f MB" % (n / 1e6)
    L = ["# LVM on LUKS: uniramfs, dracut and mkinitramfs side by side", "",
         "Date: %s. Kernel: %s. Machine: %s. uniramfs %s." % (
             res["date"], res["kernel"], res["machine"], res["commit"]),
         "Versions: " + ", ".join("%s %s" % kv for kv in res["versions"].items()) + ".", "",
         "Disk: the boot tests' `lvm-on-luks` layout (vda1 LUKS2 with PBKDF2 at 1000 "
         "iterations, PV of VG testvg, LV root ext4), `root=%s`; the passphrase typed "
         "on the serial console at each generator's prompt. Init time: guest uptime at "
         "the real init minus the kernel's `Run /init` timestamp, median (min-max) of "
         "%d QEMU TCG boots. Made by `bench/stack.py`." % (ROOT, res["boots"]), "",
         "| generator | image size | files | init time median (min–max) | boot |",
         "| --- | ---: | ---: | --- | --- |"]
    for g in res["generators"]:
        size = mb(g["size"]) if "size" in g else "-"
        files = "%d (%d entries)" % (g["files"], g["entries"]) if "files" in g else "-"
        ok = [b["init"] for b in g.get("boots", []) if b["pass"] and "init" in b]
        t = "%.2f s (%.2f–%.2f)" % (statistics.median(ok), min(ok), max(ok)) if ok else "-"
        if "build_error" in g:
            verdict = "FAIL (build: %s)" % g["build_error"]
        elif g.get("boot_pass"):
            verdict = "PASS"
        else:
            bad = [b for b in g.get("boots", []) if not b["pass"]]
            verdict = "FAIL (%s)" % (bad[0]["reason"] if bad else "no boot")
        L.append("| %s | %s | %s | %s | %s |" % (g["label"], size, files, t, verdict))
    L += ["", "Commands (KVER = %s):" % res["kernel"], ""]
    for g in res["generators"]:
        L.append("- **%s**: `%s%s`%s%s" % (
            g["label"], "".join("%s=%s " % kv for kv in (g.get("env") or {}).items()),
            g["command"], "; kernel command line adds `%s`" % g["cmdline"]
            if g.get("cmdline") else "", ". " + g["note"] if g.get("note") else ""))
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--builddir", default=os.environ.get("UNIRAMFS_BUILDDIR",
                                                         os.path.join(SRCDIR, "build")))
    ap.add_argument("--boots", type=int, default=3, help="TCG boots per image (3)")
    ap.add_argument("--only", help="comma-separated generator keys (see --list)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--no-install", action="store_true", help="skip tools/install-deps.sh")
    ap.add_argument("--kver", help="kernel version (default: newest installed)")
    ap.add_argument("--workdir", default=os.path.join(HERE, "work", "stack"))
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
    if a.list:
        for g in gens:
            print("%-18s %s%s" % (g.key, "".join("%s=%s " % kv for kv in (g.env or {}).items()),
                                  " ".join(shlex.quote(x) for x in g.cmd)))
        return 0
    if a.only:
        keep = a.only.split(",")
        bad = set(keep) - {g.key for g in gens}
        if bad:
            sys.exit("bench/stack.py: unknown generator(s): " + ", ".join(sorted(bad)))
        gens = [g for g in gens if g.key in keep]

    started = datetime.datetime.now(datetime.timezone.utc)
    testinit = boottest.find_testinit(builddir, work)
    disk_paths = LAYOUT.build(testinit, work, {"kver": kver, "vmlinuz": vmlinuz,
                                               "uniramfs": uniramfs})
    log("bench/stack.py: kernel %s, disk %s, %d boots per image" % (kver, LAYOUT.name,
                                                                   a.boots))
    results = []
    for g in gens:
        img = os.path.join(work, "img", g.key + ".img")
        if os.path.exists(img):
            os.unlink(img)
        r = {"key": g.key, "label": g.label, "env": g.env, "cmdline": g.cmdline,
             "note": g.note}
        r.update(build(g, img, work))
        if "build_error" in r:
            log("  %-40s build FAILED: %s" % (g.label, r["build_error"]))
        else:
            r.update(image_stats(img, uniramfs))
            log("  %-40s built in %.1f s: %.1f MB, %s files" % (
                g.label, r["build_seconds"], r["size"] / 1e6, r.get("files", "?")))
            r["boots"] = boots(g, img, vmlinuz, disk_paths, a.boots, work)
            r["boot_pass"] = len(r["boots"]) == a.boots and all(b["pass"] for b in r["boots"])
        results.append(r)

    res = {"date": started.strftime("%Y-%m-%d %H:%M UTC"), "kernel": kver,
           "machine": machine(), "versions": versions(), "boots": a.boots,
           "commit": subprocess.run(["git", "-C", SRCDIR, "rev-parse", "--short", "HEAD"],
                                    stdout=subprocess.PIPE, text=True).stdout.strip(),
           "generators": results}
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "stack.json"), "w") as f:
        json.dump(res, f, indent=1)
    report(res, os.path.join(a.out, "stack.md"))
    log("bench/stack.py: %s" % os.path.join(a.out, "stack.md"))
    return 0 if all(r.get("boot_pass") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
