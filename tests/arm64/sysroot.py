#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""An arm64 Debian 12 (bookworm) tree for the arm64 tests, made on the
amd64 host without touching its package set: the packages are fetched
with `apt-get download` through an apt state of our own
(tests/lib/privapt.py, APT::Architecture=arm64; no `dpkg
--add-architecture`) and unpacked with `dpkg-deb -x` into one directory,
then Debian's arm64 kernel is given its module indexes (`depmod -b`).

The same tree serves both ends:
  - the cross build of uniramfs-init reads its headers and static
    libraries (libblkid.a, libcrypt.a; libkmod and uuid only so that
    meson's setup finds every dependency it asks for): tools/cross/
    aarch64.ini names it through the constant `sysroot` (cross.py);
  - `uniramfs build --sysroot` packs from it the arm64 programs and
    libraries an image holds (cryptsetup, lvm, e2fsck, busybox, ld.so)
    and the kernel's modules (SYSROOT/lib/modules/KVER).

  CACHE/apt-bookworm-arm64/       the apt state and the downloaded .debs
  CACHE/arm64-sysroot-HASH/       the unpacked tree; HASH is of the package
                                  names below and this file's recipe, so a
                                  tree once made is used again with no
                                  network (remove it to refresh)

  tests/arm64/sysroot.py [--cache DIR]     prints the tree, kernel release
"""

import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import privapt  # noqa: E402  tests/lib/privapt.py

CACHE = os.environ.get("UNIRAMFS_TEST_CACHE", "/var/cache/uniramfs-tests")
SUITE = "bookworm"
ARCH = "arm64"
KERNEL_META = "linux-image-arm64"   # names the kernel package it depends on

# The packages, by hand: a missing library is loud (the generator's ELF
# walk names it), and apt's closure would add what no image needs
# (libc6-dev and its RPC stack, lsb-base, sysvinit-utils).
PACKAGES = (
    # the cross build of uniramfs-init: headers, static libraries, .pc files
    "libblkid-dev", "uuid-dev", "libcrypt-dev", "libkmod-dev",
    # ld.so and libc, and the libraries of what follows
    "libc6", "libgcc-s1", "libblkid1", "libuuid1", "libcrypt1", "libkmod2",
    # LUKS: cryptsetup and its libraries
    "cryptsetup-bin", "libcryptsetup12", "libargon2-1", "libdevmapper1.02.1", "libjson-c5",
    "libssl3", "libpopt0", "libselinux1", "libpcre2-8-0", "libudev1",
    # LVM (plugins/lvm.conf packs lvm)
    "lvm2", "dmsetup", "dmeventd", "liblvm2cmd2.03", "libdevmapper-event1.02.1", "libaio1",
    "libedit2", "libbsd0", "libmd0", "libtinfo6", "libsystemd0", "libcap2", "libgcrypt20",
    "libgpg-error0", "liblz4-1", "liblzma5", "libzstd1",
    # the rescue shell, and the root's fsck
    "busybox-static", "e2fsprogs", "libext2fs2", "libcom-err2", "libss2", "logsave",
)


def say(*a):
    print(*a, flush=True)


def recipe_hash():
    h = hashlib.sha256()
    h.update(("%s %s %s\n" % (SUITE, ARCH, KERNEL_META)).encode())
    h.update("\n".join(PACKAGES).encode())
    with open(os.path.abspath(__file__), "rb") as f:
        h.update(f.read())
    return h.hexdigest()[:12]


class Apt(privapt.PrivateApt):
    def __init__(self, cache):
        super().__init__(os.path.join(cache, "apt-%s-%s" % (SUITE, ARCH)), SUITE, ["main"],
                         say=lambda m: say("arm64 sysroot: " + m), arch=ARCH)

    def kernel_package(self):
        """linux-image-arm64 -> the linux-image-KVER-arm64 it depends on."""
        self.update()
        out = self.run("apt-cache", "depends", KERNEL_META)
        m = re.search(r"Depends: (linux-image-\d\S+)", out)
        if not m:
            raise RuntimeError("%s in %s names no kernel:\n%s" % (KERNEL_META, SUITE, out))
        return m.group(1)

    def versions(self, pkgs):
        """[(package, candidate version)] in one apt-cache run."""
        self.update()
        out = self.run("apt-cache", "show", "--no-all-versions", *pkgs)
        found = dict(re.findall(r"^Package: (\S+)\n(?:.+\n)*?Version: (\S+)", out, re.M))
        lacking = [p for p in pkgs if p not in found]
        if lacking:
            raise RuntimeError("not in %s/%s: %s" % (SUITE, ARCH, ", ".join(lacking)))
        return [(p, found[p]) for p in pkgs]


def tree(cache=CACHE):
    """The unpacked tree, made once: {"root", "kver", "vmlinuz", "kmoddir"}."""
    root = os.path.join(cache, "arm64-sysroot-" + recipe_hash())
    if not os.path.exists(os.path.join(root, ".unpacked")):
        _make(cache, root)
    kvers = os.listdir(os.path.join(root, "lib", "modules"))
    if len(kvers) != 1:
        raise RuntimeError("%s: expected one module directory, found %s" % (root, kvers))
    kver = kvers[0]
    return {"root": root, "kver": kver, "vmlinuz": os.path.join(root, "boot", "vmlinuz-" + kver),
            "kmoddir": os.path.join(root, "lib", "modules", kver)}


def _make(cache, root):
    apt = Apt(cache)
    want = apt.versions(PACKAGES + (apt.kernel_package(),))
    # one apt-get for all that is not downloaded yet (each apt run reads
    # the lists again: one a package took minutes more)
    missing = [(p, v) for p, v in want
               if not glob.glob(os.path.join(apt.dir, "debs", "%s_%s_*.deb"
                                             % (p, v.replace(":", "%3a"))))]
    if missing:
        say("arm64 sysroot: downloading %d packages" % len(missing))
        apt.run("apt-get", "download", *["%s=%s" % pv for pv in missing],
                cwd=os.path.join(apt.dir, "debs"))
    debs = [apt.download(p, v) for p, v in want]   # each found, or named as missing
    tmp = root + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    for deb in debs:
        subprocess.run(["dpkg-deb", "-x", deb, tmp], check=True)
    kvers = os.listdir(os.path.join(tmp, "lib", "modules"))
    if len(kvers) != 1:
        raise RuntimeError("expected one kernel in %s, found %s" % (tmp, kvers))
    subprocess.run(["depmod", "-b", tmp, kvers[0]], check=True)
    # Debian's ld.so.conf comes with libc-bin, whose programs an image
    # never needs: the one line it holds
    os.makedirs(os.path.join(tmp, "etc"), exist_ok=True)
    with open(os.path.join(tmp, "etc", "ld.so.conf"), "w") as f:
        f.write("include /etc/ld.so.conf.d/*.conf\n")
    open(os.path.join(tmp, ".unpacked"), "w").close()
    for old in glob.glob(os.path.join(cache, "arm64-sysroot-*")):   # an older recipe's
        if old != tmp:
            shutil.rmtree(old, ignore_errors=True)
    os.rename(tmp, root)
    say("arm64 sysroot: %d packages unpacked in %s" % (len(debs), root))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default=CACHE)
    a = ap.parse_args()
    try:
        t = tree(a.cache)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        sys.exit("arm64 sysroot: %s" % e)
    say("%s %s" % (t["root"], t["kver"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
