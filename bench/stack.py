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

dracut's and mkinitramfs's images have plymouth in them (the host has it)
and are booted with `plymouth.enable=0`: both start plymouthd without
`splash` too, it redirects /dev/console to itself (TIOCCONS) and outlives
switch_root, and only the real system's plymouth-quit would end it, so the
root's init's report never reached the serial line (roots.md, 2026-12-06).
uniramfs's images have no plymouth unless asked.

Writes OUT/stack.md and OUT/stack.json.
"""

import dataclasses
import datetime
import os
import re
import shlex
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True     # no __pycache__ in bench/ or tests/boot/
import common  # noqa: E402  bench/common.py; it puts tests/boot on sys.path
from common import boottest, log, HERE, SRCDIR, image_stats  # noqa: E402
import scenarios_stack  # noqa: E402

VERSIONS = ("initramfs-tools", "cryptsetup-initramfs", "dracut-core", "cryptsetup-bin", "lvm2",
            "qemu-system-x86")
LAYOUT = scenarios_stack.LVM_LUKS
LUKS_UUID = dict(LAYOUT.params)["LUKS_UUID"]
ROOT = "/dev/mapper/testvg-root"
# dracut's and initramfs-tools' plymouthd, which would keep the root's
# console (the docstring)
NO_PLYMOUTH = "plymouth.enable=0"
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
    d = common.itools_conf(work, "itools-conf", MODULES="most")
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
            cmdline="rd.luks.uuid=%s rd.lvm.lv=testvg/root %s" % (LUKS_UUID, NO_PLYMOUTH),
            note="not --hostonly: this host's root is not LVM on LUKS, so dracut "
                 "--hostonly cannot describe the guest; %s: see the docstring" % NO_PLYMOUTH),
        Gen("mkinitramfs", "mkinitramfs MODULES=most + cryptsetup-initramfs",
            ["mkinitramfs", "-d", conf, "-o", "{out}", kver],
            r"Please unlock disk", cmdline=NO_PLYMOUTH,
            note="%s: see the docstring. CONF: a copy of /etc/initramfs-tools with MODULES=most and a hook "
                 "(hooks/bench-crypttab, after cryptsetup-initramfs's cryptroot) adding "
                 "`%s` to the image's cryptroot/crypttab; this host's /etc/crypttab is "
                 "not touched" % (NO_PLYMOUTH, CRYPTTAB_LINE)),
    ]


def build(g, img, work):
    cmd = [a.replace("{out}", img) for a in g.cmd]
    res, dt = common.build_once(cmd, img, os.path.join(work, "build-%s.log" % g.key), g.env)
    res["build_seconds"] = round(dt, 2)
    return res


def boots(g, img, vmlinuz, disk_paths, n, work, extra=(), tag=""):
    """n boots of img; extra: more QEMU arguments (bench/roots.py's
    -icount), tag: a word in the log files' names."""
    sc = next(s for s in boottest.SCENARIOS if s.name == "lvm-on-luks")
    cmdline = " ".join(x for x in (boottest.BASE_CMDLINE, "printk.time=1",
                                   "root=" + ROOT, g.cmdline) if x)
    out = []
    for i in range(n):
        logf = os.path.join(work, "logs", "%s%s-%d.log" % (g.key, tag, i))
        text, dt, timed_out, missed = boottest.boot(
            vmlinuz, img, disk_paths, "virtio", cmdline, logf,
            interact=((g.prompt, PASS + "\n"),), extra=list(extra))
        err = boottest.check(sc, text, timed_out, ours=g.ours, missed=missed)
        b = common.boot_record(text, dt, err, logf)
        out.append(b)
        log("  %-40s boot %d: %s%s" % (g.label, i + 1, "PASS" if err is None else
                                         "FAIL (%s)" % err,
                                         "  init %.2f s" % b["init"] if "init" in b else ""))
        if err is not None:
            break   # one failure is the result; no need to wait for more
    return out


def report(res, path):
    L = common.report_head("LVM on LUKS: uniramfs, dracut and mkinitramfs side by side", res) + [
         "Disk: the boot tests' `lvm-on-luks` layout (vda1 LUKS2 with PBKDF2 at 1000 "
         "iterations, PV of VG testvg, LV root ext4), `root=%s`; the passphrase typed "
         "on the serial console at each generator's prompt. Init time: guest uptime at "
         "the real init minus the kernel's `Run /init` timestamp, median (min-max) of "
         "%d QEMU TCG boots. Made by `bench/stack.py`." % (ROOT, res["boots"]), "",
         "| generator | image size | files | init time median (min–max) | boot |",
         "| --- | ---: | ---: | --- | --- |"]
    for g in res["generators"]:
        size, files, t, verdict = common.report_cells(g)
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
    ap = common.rows_parser(__doc__, 3, "TCG boots per image", "generator keys")
    a = common.parse_args(ap, os.path.join(HERE, "work", "stack"))

    builddir, uniramfs, kver, vmlinuz, work = common.setup(a)

    gens = generators(uniramfs, kver, work)
    if a.list:
        for g in gens:
            print("%-18s %s%s" % (g.key, "".join("%s=%s " % kv for kv in (g.env or {}).items()),
                                  " ".join(shlex.quote(x) for x in g.cmd)))
        return 0
    gens = common.pick(gens, a.only, lambda g: g.key, "bench/stack.py")

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

    res = common.results_head(started, kver, VERSIONS, boots=a.boots, generators=results)
    common.write_results(res, a.out, "stack", report, "bench/stack.py")
    return 0 if all(r.get("boot_pass") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
