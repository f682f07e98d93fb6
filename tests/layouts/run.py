#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Other distributions' layouts: a sysroot laid out as Fedora, Arch or a
musl userland puts things, an image built from it with --sysroot, and
that image booting the plain ext4 root under QEMU.

  fedora  /usr merged with /usr/sbin apart (bin, sbin, lib, lib64 links
          into /usr), libraries in /usr/lib64, the ELF interpreter
          /lib64/ld-linux-x86-64.so.2 reached through /lib64 -> usr/lib64,
          the kernel at /lib/modules/KVER/vmlinuz (no /boot/vmlinuz-KVER)
          with its config beside it, modules recompressed .ko.xz (xz, as
          Fedora's kernel.spec does) and depmod -b run for those names
  arch    everything in /usr/bin (bin, sbin, usr/sbin links to it),
          libraries and ld.so in /usr/lib (lib, lib64, usr/lib64 links),
          the kernel at /usr/lib/modules/KVER/vmlinuz, no kernel config,
          modules .ko.zst (zstd, the kernel's own default level)
  musl    not merged (/sbin, /lib real directories), programs linked
          against musl: e2fsck and its five libraries built from
          bookworm's e2fsprogs source with musl-gcc, the libraries in
          /usr/lib/x86_64-linux-musl, which only /etc/ld-musl-x86_64.path
          names; the loader /lib/ld-musl-x86_64.so.1 -> x86_64-linux-musl/
          libc.so as Debian's musl package lays it out; the kernel at
          /boot/vmlinuz-KVER with /boot/config-KVER, modules uncompressed
          (Alpine's are .ko.gz, which Debian's kmod, built without zlib,
          can neither index nor read)

The kernel and modules are Debian's installed ones, copied; the other
programs are Debian's (glibc), copied with their libraries to where each
distribution puts them. Fedora's glibc searches /lib64 and /usr/lib64, but
the fixture's ld.so is Debian's, which does not: so the Fedora fixture
carries e2fsck.static too, and its boot runs no dynamic program (the dynamic
ones are checked by listing the image). Arch's boot runs its dynamic e2fsck
through Debian's ld.so, which searches /lib and /usr/lib; musl's boot runs
musl's e2fsck through musl's loader and its path file.

Each fixture is built once (tests/layouts/fixtures.py), cached in
/var/cache/uniramfs-tests/layout-NAME-HASH (HASH: fixtures.py, the kernel,
the host packages copied, the hostonly fixture). For each layout:
a generic image and a hostonly one (the fixture carries the virtio guest's
/proc/self/mountinfo and /sys of tests/unit/fixtures/hostonly/virtio), their
listings checked for what proves the layout was read, and each booted.

  tests/layouts/run.py [--builddir BUILD] [--workdir DIR] [--only fedora,arch/hostonly]
                       [--list] [--keep]

The last line is `N passed, N failed`.
"""

import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "boot"))
sys.dont_write_bytecode = True
import run as boottest  # noqa: E402  tests/boot/run.py: boot(), check(), the scenarios
import disks  # noqa: E402
import scenarios_sb  # noqa: E402  pe_sections()
import fixtures  # noqa: E402

LAYOUTS = ("fedora", "arch", "musl")
KINDS = ("generic", "hostonly")
# What e2fsck -a says of the clean test root: the checker ran at boot.
FSCK_CLEAN = re.compile(r"testroot: clean, \d+/\d+ files")


say = fixtures.say
run = fixtures.run


# ------------------------------------------------------------ checks
def listing(uniramfs, img):
    """`uniramfs ls IMG` as {path: (type letter, size or link target)}."""
    out = {}
    for ln in run([uniramfs, "ls", img]).splitlines():
        f = ln.split()   # MODE SIZE NAME [-> TARGET]
        if len(f) >= 3 and len(f[0]) == 10 and f[0][0] in "-dlcbp":
            out[f[2].lstrip("/")] = (f[0][0], f[4] if f[0][0] == "l" and len(f) > 4 else f[1])
    return out


def layout_checks(name, kver, ls, kind):
    """What proves the image was made from this layout; [] when all hold."""
    # stored decompressed: the host's .ko, byte count and all; at /lib or
    # /usr/lib, as the image's own links fall (lib is a directory in the
    # image unless a program's path went through a lib -> usr/lib link)
    mod = "lib/modules/%s/kernel/drivers/block/virtio_blk.ko" % kver
    if "usr/" + mod in ls:
        mod = "usr/" + mod
    host_size = str(os.path.getsize("/lib/modules/%s/kernel/drivers/block/virtio_blk.ko" % kver))
    want = {mod: ("-", host_size)}   # path: (type, size or link target, or None for any)
    if name == "fedora":
        # e2fsck.static packed as e2fsck (features/fsck_static.c); the
        # hostonly image of a plain root has no dynamic program
        want.update({"usr/sbin/e2fsck": ("-", str(os.path.getsize("/usr/sbin/e2fsck.static")))})
        if kind == "generic":
            want.update({"lib64": ("l", "usr/lib64"), "usr/lib64/ld-linux-x86-64.so.2": ("-", None),
                         "usr/sbin/cryptsetup": ("-", None), "usr/sbin/lvm": ("-", None),
                         "usr/lib64/libcryptsetup.so.12": ("-", None),
                         "usr/lib64/libdevmapper.so.1.02.1": ("-", None)})
    elif name == "arch":
        want.update({"lib64": ("l", "usr/lib"), "usr/lib/ld-linux-x86-64.so.2": ("-", None),
                     "usr/bin/e2fsck": ("-", None), "usr/lib/libext2fs.so.2": ("-", None)})
    else:
        want.update({"lib/ld-musl-x86_64.so.1": ("l", "x86_64-linux-musl/libc.so"),
                     "lib/x86_64-linux-musl/libc.so": ("-", None),
                     "etc/ld-musl-x86_64.path": ("-", None), "sbin/e2fsck": ("-", None),
                     "usr/lib/x86_64-linux-musl/libext2fs.so.2": ("l", "libext2fs.so.2.4"),
                     "usr/lib/x86_64-linux-musl/libcom_err.so.2": ("l", "libcom_err.so.2.1")})
    errs = []
    for p, (t, v) in sorted(want.items()):
        have = ls.get(p)
        if have and t == "-" and have[0] == "l" and have[1] == "/uniramfs.sqfs.d/" + p:
            continue   # in the squashfs segment: there, not listed (the hostonly image checks it)
        if not have:
            errs.append("%s is not in the image" % p)
        elif have[0] != t:
            errs.append("%s is %s, expected %s" % (p, have[0], t))
        elif v is not None and have[1] != v:
            errs.append("%s: %s, expected %s" % (p, have[1], v))
    if any(p.endswith((".ko.xz", ".ko.zst", ".ko.gz")) for p in ls):
        errs.append("a compressed module went in as it is")
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--builddir", default=os.environ.get("UNIRAMFS_BUILDDIR",
                                                         os.path.join(SRCDIR, "build")))
    ap.add_argument("--workdir", help="default: BUILDDIR/layouts-work")
    ap.add_argument("--cache", default=fixtures.CACHE)
    ap.add_argument("--only", help="comma-separated: fedora, arch/hostonly, ... (see --list)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the images")
    ap.add_argument("--timeout", type=int, default=boottest.BOOT_TIMEOUT, help="seconds per boot")
    a = ap.parse_args()
    names = ["%s/%s" % (n, k) for n in LAYOUTS for k in KINDS]
    if a.list:
        print("\n".join(names))
        return 0
    if a.only:
        want = a.only.split(",")
        bad = [w for w in want if w not in LAYOUTS and w not in names]
        if bad:
            sys.exit("layouts/run.py: unknown: " + ", ".join(bad))
        names = [n for n in names if n in want or n.split("/")[0] in want]
    a.builddir = os.path.abspath(a.builddir)
    work = os.path.abspath(a.workdir or os.path.join(a.builddir, "layouts-work"))
    os.makedirs(os.path.join(work, "logs"), exist_ok=True)
    uniramfs = os.path.join(a.builddir, "uniramfs")
    if not os.access(uniramfs, os.X_OK):
        sys.exit("layouts/run.py: %s not built" % uniramfs)
    boottest.BOOT_TIMEOUT = a.timeout
    kver, _ = boottest.find_kernel()
    sc = next(s for s in boottest.SCENARIOS if s.name == "virtio-uuid")
    testinit = boottest.find_testinit(a.builddir, work)
    disk = disks.ensure(sc.disk, testinit, work)
    cmdline = "%s root=%s" % (boottest.BASE_CMDLINE, sc.root)
    passed = failed = 0
    t0 = time.monotonic()
    fixtures_made = {}
    for full in names:
        layout, kind = full.split("/")
        t = time.monotonic()
        try:
            if layout not in fixtures_made:
                fixtures_made[layout], dt = fixtures.fixture(layout, kver, a.cache)
                if dt:
                    say("  fixture %s made in %.0f s" % (layout, dt))
            root = fixtures_made[layout]
            img = os.path.join(work, "img-%s-%s" % (layout, kind))
            vmlinuz = os.path.join(root, fixtures.KERNEL[layout].format(kver=kver))
            # Fedora has no /boot/vmlinuz-KVER: a UKI takes the module
            # directory's kernel
            uki = img + ".efi" if full == "fedora/generic" else None
            run([uniramfs, "build", "--config", "/dev/null", "--sysroot", root, "-k", kver,
                 "--microcode", "none", "-o", img, "--" + kind] + (["--uki", uki] if uki else []))
            errs = layout_checks(layout, kver, listing(uniramfs, img), kind)
            if uki:
                if scenarios_sb.pe_sections(uki).get(".linux") != open(vmlinuz, "rb").read():
                    errs.append("the UKI's .linux is not %s" % vmlinuz)
                os.unlink(uki)
            if errs:
                raise RuntimeError("; ".join(errs))
            log = os.path.join(work, "logs", "%s-%s.log" % (layout, kind))
            text, secs, timed_out, missed = boottest.boot(vmlinuz, img, [disk], sc.bus, cmdline, log)
            err = boottest.check(sc, text, timed_out, missed=missed)
            if err is None and not FSCK_CLEAN.search(text):
                err = "e2fsck's report of the clean root is not on the console"
            if err:
                tail = "\n".join("    | " + ln for ln in text.splitlines()[-25:])
                raise RuntimeError("%s\n%s\n    full log: %s" % (err, tail, log))
            if not a.keep:
                os.unlink(img)
            say("PASS %s (%.1f s, boot %.1f s)" % (full, time.monotonic() - t, secs))
            passed += 1
        except (RuntimeError, OSError, subprocess.CalledProcessError) as e:
            say("FAIL %s: %s" % (full, e))
            failed += 1
    say("(%.0f s wall)" % (time.monotonic() - t0))
    say("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
