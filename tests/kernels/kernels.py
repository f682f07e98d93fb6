#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Kernel tests: uniramfs images for kernels other than the host's.

  mini-*     a kernel with no module support, built from Debian's
             linux-source with everything built in (minikernel.py):
             mini-list   our --format gen_init_cpio list fed to the
                         kernel's own usr/gen_init_cpio unpacks to the same
                         tree as our image
             mini-initrd the image made with --kernel-tree boots it
             mini-builtin the list as its CONFIG_INITRAMFS_SOURCE: it
                         boots with no external initrd
             mini-modules the same kernel with virtio_blk and ext4 as
                         modules, which --kernel-tree takes from the tree
                         after `make modules` (not installed): it boots
  FLAVOUR/*  Debian 13's 6.12 kernels (fetch.py: amd64, cloud-amd64,
             rt-amd64) on a core set of tests/boot's scenarios; what a
             kernel lacks is a skip with its reason, never a silent drop
  uki        `uniramfs build --uki`: the UKI (systemd's stub, the host's
             kernel, our image) on an EFI system partition made with
             mtools (no mount), booted by OVMF; built twice, the same bytes

Boots and checks are tests/boot/run.py's (imported, not copied).  The
last line is `N passed, N failed, N skipped`; exit status 1 on a failure.

  tests/kernels/kernels.py [--builddir BUILD] [--workdir DIR] [--only a,b]
                       [--cache DIR] [--list]
"""

import argparse
import dataclasses
import os
import re
import shutil
import stat
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "boot"))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True
import run as boottest  # noqa: E402  tests/boot/run.py: boot(), check(), Images
import builder  # noqa: E402
import disks  # noqa: E402
import pvh  # noqa: E402
import scenarios_early  # noqa: E402
import serialtext  # noqa: E402
import fetch  # noqa: E402
import minikernel  # noqa: E402

# The core subset every kernel runs, and what each needs of the kernel
# (a module or a built-in driver, or a config symbol).
CORE = ("virtio-uuid", "gpt-partuuid", "nvme", "ahci", "lvm-on-luks", "raid1", "resume",
        "missing-root")
NEEDS = {
    "nvme": ("mod:nvme",),
    "ahci": ("mod:ahci", "mod:sd_mod"),
    "lvm-on-luks": ("mod:dm_crypt", "mod:dm_mod"),
    "raid1": ("mod:raid1", "mod:md_mod"),
    "resume": ("config:CONFIG_HIBERNATION",),
}


def say(*a):
    print(*a, flush=True)


class Result:
    def __init__(self):
        self.rows = []

    def add(self, name, err, skip=None, secs=0.0):
        if skip:
            say("SKIP %s: %s" % (name, skip))
        elif err is None:
            say("PASS %s (%.1f s)" % (name, secs))
        else:
            say("FAIL %s: %s" % (name, err))
        self.rows.append((name, err, skip))

    def counts(self):
        p = sum(1 for _, e, s in self.rows if not s and e is None)
        s = sum(1 for _, _, sk in self.rows if sk)
        return p, len(self.rows) - p - s, s


def tail(text, n=30):
    return "\n".join("    | " + ln for ln in text.splitlines()[-n:])


def run_cmd(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError("`%s` failed (%d):\n%s" % (" ".join(cmd), r.returncode, r.stdout[-3000:]))
    return r.stdout


# ------------------------------------------------------------ cpio trees
def read_cpio(path):
    """A plain newc archive as {name: (type+mode, uid, gid, rdev, data)}."""
    data = open(path, "rb").read()
    off, out = 0, {}
    while off + 110 <= len(data):
        h = data[off:off + 110]
        if h[:6] not in (b"070701", b"070702"):
            raise RuntimeError("%s: bad cpio magic at %d" % (path, off))
        f = [int(h[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        mode, uid, gid, size, rmaj, rmin, nsize = f[1], f[2], f[3], f[6], f[9], f[10], f[11]
        name = data[off + 110:off + 110 + nsize - 1].decode()
        off = (off + 110 + nsize + 3) & ~3
        body = data[off:off + size]
        off = (off + size + 3) & ~3
        if name == "TRAILER!!!":
            break
        name = name.lstrip("/")
        if name in ("", "."):
            continue
        if stat.S_ISLNK(mode) and body.endswith(b"\0"):
            body = body[:-1]   # gen_init_cpio stores a link's target with its NUL
        out[name] = (mode, uid, gid, (rmaj, rmin) if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else None,
                     body)
    return out


def diff_trees(a, b):
    """The first few differences between two read_cpio() results."""
    msgs = []
    for n in sorted(set(a) | set(b)):
        if n not in a or n not in b:
            msgs.append("%s only in %s" % (n, "ours" if n in a else "gen_init_cpio's"))
        elif a[n] != b[n]:
            x, y = a[n], b[n]
            what = "mode %o vs %o" % (x[0], y[0]) if x[0] != y[0] else \
                "owner" if x[1:3] != y[1:3] else "device" if x[3] != y[3] else "contents"
            msgs.append("%s differs: %s" % (n, what))
        if len(msgs) >= 8:
            break
    return msgs


# ------------------------------------------------------------ minimal kernel
def boot_plain(kernel, initrd, disk, cmdline, log, timeout):
    """A boot with or without an external initrd: run.py's boot() always
    passes one, so this one runs QEMU itself, the same way."""
    cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "512M", "-smp", "1",
           "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none",
           "-snapshot", "-kernel", kernel, "-append", cmdline, "-serial", "file:" + log,
           "-drive", "if=none,id=d0,format=raw,file=" + disk,
           "-device", "virtio-blk-pci,drive=d0"]
    if initrd:
        cmd += ["-initrd", initrd]
    for _ in range(serialtext.BOOT_TRIES):
        t = time.monotonic()
        timed_out = False
        try:
            subprocess.run(pvh.argv(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.STDOUT, timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        text = serialtext.read(log)
        if not serialtext.host_too_slow(text):
            break
    return text, time.monotonic() - t, timed_out


def mini_tests(a, res, only):
    names = [n for n in ("mini-list", "mini-initrd", "mini-builtin") if not only or n in only]
    if not names:
        return
    try:
        tree, src, bz = minikernel.ensure(a.cache)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        for n in names:
            res.add(n, "cannot build the minimal kernel: %s" % e)
        return
    work = os.path.join(a.work, "mini")
    os.makedirs(os.path.join(work, "logs"), exist_ok=True)
    sc = next(s for s in boottest.SCENARIOS if s.name == "virtio-uuid")
    testinit = boottest.find_testinit(a.builddir, a.work)
    disk = disks.ensure(sc.disk, testinit, a.work)
    cmdline = "%s root=%s" % (boottest.BASE_CMDLINE, sc.root)
    base = [a.uniramfs, "build", "--config", "/dev/null", "--kernel-tree", tree,
            "--microcode", "none"]

    # Our list and the kernel's own gen_init_cpio: the same tree as our image.
    lst = os.path.join(work, "initramfs.list")
    if "mini-list" in names or "mini-builtin" in names:
        try:
            run_cmd(base + ["--format", "gen_init_cpio", "-o", lst])
        except RuntimeError as e:
            for n in ("mini-list", "mini-builtin"):
                if n in names:
                    res.add(n, str(e))
            names = [n for n in names if n not in ("mini-list", "mini-builtin")]
    if "mini-list" in names:
        t = time.monotonic()
        try:
            gic = os.path.join(work, "gen_init_cpio")
            run_cmd(["cc", "-O2", "-o", gic, os.path.join(src, "usr/gen_init_cpio.c")])
            theirs = os.path.join(work, "theirs.cpio")
            with open(theirs, "wb") as f:
                r = subprocess.run([gic, "-t", "0", lst], stdout=f, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                raise RuntimeError("gen_init_cpio failed: %s" % r.stderr[-2000:])
            ours = os.path.join(work, "ours.cpio")
            run_cmd(base + ["--compress", "none", "-o", ours])
            d = diff_trees(read_cpio(ours), read_cpio(theirs))
            res.add("mini-list", "; ".join(d) if d else None, secs=time.monotonic() - t)
        except RuntimeError as e:
            res.add("mini-list", str(e))
    if "mini-initrd" in names:
        img = os.path.join(work, "initrd.img")
        try:
            run_cmd(base + ["-o", img])
            log = os.path.join(work, "logs", "mini-initrd.log")
            text, dt, to = boot_plain(bz, img, disk, cmdline, log, a.timeout)
            err = boottest.check(sc, text, to)
            res.add("mini-initrd", err and "%s\n%s\n    full log: %s" % (err, tail(text), log), secs=dt)
        except RuntimeError as e:
            res.add("mini-initrd", str(e))
    if "mini-builtin" in names:
        try:
            kb = minikernel.with_builtin_initramfs(tree, src, lst, os.path.join(work, "bzImage-builtin"))
            log = os.path.join(work, "logs", "mini-builtin.log")
            text, dt, to = boot_plain(kb, None, disk, cmdline, log, a.timeout)
            err = boottest.check(sc, text, to)
            res.add("mini-builtin", err and "%s\n%s\n    full log: %s" % (err, tail(text), log), secs=dt)
        except (RuntimeError, subprocess.CalledProcessError) as e:
            res.add("mini-builtin", str(e))


def mini_modules_test(a, res, only):
    if only and "mini-modules" not in only:
        return
    try:
        tree, src, bz = minikernel.ensure(a.cache, "modular")
    except (RuntimeError, subprocess.CalledProcessError) as e:
        res.add("mini-modules", "cannot build the modular minimal kernel: %s" % e)
        return
    work = os.path.join(a.work, "mini")
    os.makedirs(os.path.join(work, "logs"), exist_ok=True)
    sc = next(s for s in boottest.SCENARIOS if s.name == "virtio-uuid")
    try:
        testinit = boottest.find_testinit(a.builddir, a.work)
        disk = disks.ensure(sc.disk, testinit, a.work)
        img = os.path.join(work, "initrd-modular.img")
        run_cmd([a.uniramfs, "build", "--config", "/dev/null", "--kernel-tree", tree,
                 "--microcode", "none", "--generic", "-o", img])
        listing = run_cmd([a.uniramfs, "ls", img])
        missing = [m for m in ("kernel/drivers/block/virtio_blk.ko", "kernel/fs/ext4/ext4.ko")
                   if m not in listing]
        if missing:
            res.add("mini-modules", "the image lacks the tree's " + ", ".join(missing))
            return
        log = os.path.join(work, "logs", "mini-modules.log")
        text, dt, to = boot_plain(bz, img, disk, "%s root=%s" % (boottest.BASE_CMDLINE, sc.root),
                                  log, a.timeout)
        err = boottest.check(sc, text, to)
        res.add("mini-modules", err and "%s\n%s\n    full log: %s" % (err, tail(text), log), secs=dt)
    except RuntimeError as e:
        res.add("mini-modules", str(e))


# ------------------------------------------------------------ trixie matrix
def kernel_has(k, need):
    kind, name = need.split(":", 1)
    if kind == "config":
        cfg = os.path.join(os.path.dirname(k["vmlinuz"]), "config-" + k["kver"])
        try:
            return re.search(r"^%s=y$" % name, open(cfg).read(), re.M) is not None
        except OSError:
            return False
    want = name.replace("-", "_")
    for fn in ("modules.dep", "modules.builtin"):
        with open(os.path.join(k["kmoddir"], fn)) as f:
            for ln in f:
                base = os.path.basename(ln.split(":")[0].strip())
                if base.split(".ko")[0].replace("-", "_") == want:
                    return True
    return False


def wrapper(work, uniramfs, k):
    """A uniramfs that builds for this kernel's unpacked modules: run.py's
    Images, the builder and the hibernation boot call `uniramfs build -k
    KVER`, and this adds the --kmoddir they do not know of."""
    p = os.path.join(work, "uniramfs")
    with open(p, "w") as f:
        f.write('#!/bin/sh\n[ "$1" = build ] && exec "%s" "$@" --kmoddir "%s"\nexec "%s" "$@"\n'
                % (uniramfs, k["kmoddir"], uniramfs))
    os.chmod(p, 0o755)
    return p


def matrix_tests(a, res, only):
    flavours = [f for f in fetch.FLAVOURS
                if not only or any(n.startswith(f + "/") for n in only)]
    if not flavours:
        return
    testinit = boottest.find_testinit(a.builddir, a.work)
    host_kver, host_vmlinuz = boottest.find_kernel()
    host_ctx = {"kver": host_kver, "vmlinuz": host_vmlinuz, "uniramfs": a.uniramfs}
    apt = None
    for fl in flavours:
        names = [n for n in CORE if not only or "%s/%s" % (fl, n) in only]
        try:
            apt = apt or fetch.Apt(a.cache)
            k = fetch.kernel(a.cache, fl, apt)
        except (RuntimeError, subprocess.CalledProcessError) as e:
            for n in names:
                res.add("%s/%s" % (fl, n), "cannot fetch the %s kernel: %s" % (fl, e))
            continue
        say("kernel %s (%s %s)" % (k["kver"], k["package"], k["version"]))
        kwork = os.path.join(a.work, fl)
        os.makedirs(os.path.join(kwork, "logs"), exist_ok=True)
        uni = wrapper(kwork, a.uniramfs, k)
        images = boottest.Images(uni, k["kver"], kwork)
        ctx = {"kver": k["kver"], "vmlinuz": k["vmlinuz"], "uniramfs": uni}
        # fresh scenario objects: a hibernation belongs to one kernel
        scs = {s.name: s for s in boottest.SCENARIOS}
        scs.update({s.name: s for s in scenarios_early.scenarios(boottest.Scenario)})
        for n in names:
            sc = scs[n]
            full = "%s/%s" % (fl, n)
            lacking = [x.split(":", 1)[1] for x in NEEDS.get(n, ()) if not kernel_has(k, x)]
            if lacking:
                res.add(full, None, skip="kernel %s has no %s" % (k["kver"], ", ".join(lacking)))
                continue
            try:
                if isinstance(sc.disk, builder.Layout):
                    # the stacked layouts do not depend on the kernel
                    # booting them: made once, by the host's
                    dpaths = sc.disk.build(testinit, a.work, host_ctx)
                elif hasattr(sc.disk, "build"):
                    dpaths = sc.disk.build(testinit, kwork, ctx)
                else:
                    dpaths = [disks.ensure(sc.disk, testinit, a.work)]
            except Exception as e:  # noqa: BLE001 - a disk we cannot make fails the test
                res.add(full, "cannot build disk %s: %s" % (sc.disk.name, e))
                continue
            img, err = images.get(sc.build)
            if err:
                res.add(full, err)
                continue
            cmdline = " ".join(x for x in (boottest.BASE_CMDLINE, "root=" + sc.root, sc.cmdline) if x)
            log = os.path.join(kwork, "logs", n + ".log")
            msgs = tuple(m.replace("{root}", sc.root) for m in sc.fail_msgs)
            sc = dataclasses.replace(sc, fail_msgs=msgs)
            text, dt, to, missed = boottest.boot(k["vmlinuz"], img, dpaths, sc.bus, cmdline, log,
                                                 stop_on=sc.fail_msgs, interact=sc.interact)
            err = boottest.check(sc, text, to, missed=missed)
            res.add(full, err and "%s\n%s\n    full log: %s" % (err, tail(text), log), secs=dt)
        if not a.keep:
            for p in os.listdir(kwork):
                if p.startswith("img-"):
                    os.unlink(os.path.join(kwork, p))


# ------------------------------------------------------------ UKI
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
STUB = "/usr/lib/systemd/boot/efi/linuxx64.efi.stub"


def esp_image(path, efi):
    """A FAT ESP holding efi as the removable-media boot path, written
    with mtools: nothing is mounted."""
    if os.path.exists(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.truncate(64 << 20)
    run_cmd(["mformat", "-i", path, "-F", "-N", "0", "-v", "ESP", "::"])
    run_cmd(["mmd", "-i", path, "::/EFI", "::/EFI/BOOT"])
    run_cmd(["mcopy", "-i", path, efi, "::/EFI/BOOT/BOOTX64.EFI"])


def uki_test(a, res, only):
    if only and "uki" not in only:
        return
    missing = [p for p in (OVMF_CODE, OVMF_VARS, STUB, shutil.which("mformat") or "mtools")
               if not os.path.exists(p)]
    if missing:
        res.add("uki", None, skip="not installed: " + ", ".join(missing))
        return
    t = time.monotonic()
    work = os.path.join(a.work, "uki")
    os.makedirs(os.path.join(work, "logs"), exist_ok=True)
    sc = next(s for s in boottest.SCENARIOS if s.name == "virtio-uuid")
    kver, _ = boottest.find_kernel()
    try:
        testinit = boottest.find_testinit(a.builddir, a.work)
        disk = disks.ensure(sc.disk, testinit, a.work)
        cmdline = "%s root=%s" % (boottest.BASE_CMDLINE, sc.root)
        effs = []
        for i in (1, 2):
            efi = os.path.join(work, "uki%d.efi" % i)
            run_cmd([a.uniramfs, "build", "--config", "/dev/null", "-k", kver, "--generic",
                     "--microcode", "none", "--uki", efi, "--uki-cmdline", cmdline])
            effs.append(open(efi, "rb").read())
        if effs[0] != effs[1]:
            res.add("uki", "two builds of the same UKI differ")
            return
        esp = os.path.join(work, "esp.img")
        esp_image(esp, os.path.join(work, "uki1.efi"))
        vars_copy = os.path.join(work, "vars.fd")
        shutil.copyfile(OVMF_VARS, vars_copy)
        log = os.path.join(work, "logs", "uki.log")
        cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "1G", "-smp", "1", "-machine", "q35",
               "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none", "-snapshot",
               "-drive", "if=pflash,format=raw,readonly=on,file=" + OVMF_CODE,
               "-drive", "if=pflash,format=raw,file=" + vars_copy,
               "-drive", "if=none,id=d0,format=raw,file=" + disk,
               "-device", "virtio-blk-pci,drive=d0",
               "-drive", "if=none,id=d1,format=raw,file=" + esp,
               "-device", "virtio-blk-pci,drive=d1,bootindex=1",
               "-serial", "file:" + log]
        timed_out = False
        try:
            subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.STDOUT, timeout=a.timeout + 60)
        except subprocess.TimeoutExpired:
            timed_out = True
        text = serialtext.read(log)
        err = boottest.check(sc, text, timed_out)
        if err is None and "EFI stub: Loaded initrd" not in text:
            err = "the kernel did not say it took the initrd from the stub"
        res.add("uki", err and "%s\n%s\n    full log: %s" % (err, tail(text), log),
                secs=time.monotonic() - t)
    except RuntimeError as e:
        res.add("uki", str(e))


def all_names():
    return ["mini-list", "mini-initrd", "mini-builtin", "mini-modules", "uki"] + \
        ["%s/%s" % (f, n) for f in fetch.FLAVOURS for n in CORE]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--builddir", default=os.environ.get("UNIRAMFS_BUILDDIR",
                                                         os.path.join(SRCDIR, "build")))
    ap.add_argument("--workdir", help="default: BUILDDIR/kernels-work")
    ap.add_argument("--cache", default=fetch.CACHE,
                    help="kernels and their builds (default %s)" % fetch.CACHE)
    ap.add_argument("--only", help="comma-separated test names (see --list)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the images")
    ap.add_argument("--timeout", type=int, default=boottest.BOOT_TIMEOUT)
    a = ap.parse_args()
    if a.list:
        print("\n".join(all_names()))
        return 0
    only = set(a.only.split(",")) if a.only else None
    if only and only - set(all_names()):
        sys.exit("kernels.py: unknown test(s): " + ", ".join(sorted(only - set(all_names()))))
    a.builddir = os.path.abspath(a.builddir)
    a.work = os.path.abspath(a.workdir or os.path.join(a.builddir, "kernels-work"))
    os.makedirs(os.path.join(a.work, "logs"), exist_ok=True)
    a.uniramfs = os.path.join(a.builddir, "uniramfs")
    if not os.access(a.uniramfs, os.X_OK):
        sys.exit("kernels.py: %s not built" % a.uniramfs)
    boottest.BOOT_TIMEOUT = a.timeout
    res = Result()
    t0 = time.monotonic()
    mini_tests(a, res, only)
    mini_modules_test(a, res, only)
    uki_test(a, res, only)
    matrix_tests(a, res, only)
    p, f, s = res.counts()
    say("%d passed, %d failed, %d skipped (%.1f s wall)" % (p, f, s, time.monotonic() - t0))
    return 1 if f else 0


if __name__ == "__main__":
    sys.exit(main())
