#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Debian 13 (trixie) kernels for the kernel matrix, fetched with apt-get
download through a sources list and state of their own (the host's apt
configuration and package set are never touched), unpacked with dpkg-deb -x
and given their module indexes with depmod -b.

  CACHE/apt-trixie/           sources.list, lists, downloaded .debs
  CACHE/FLAVOUR-VERSION/      the unpacked package: boot/vmlinuz-KVER,
                              usr/lib/modules/KVER (depmod'ed)

The mirror is the host's own (the first URI of its Debian sources) with
the suite trixie.

  tests/kernels/fetch.py [--cache DIR] [FLAVOUR...]   flavours: amd64 cloud-amd64 rt-amd64
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import privapt  # noqa: E402  tests/lib/privapt.py

CACHE = os.environ.get("UNIRAMFS_KERNEL_CACHE", "/var/cache/uniramfs-tests/kernels")
SUITE = "trixie"
FLAVOURS = ("amd64", "cloud-amd64", "rt-amd64")


def say(*a):
    print(*a, flush=True)


class Apt(privapt.PrivateApt):
    """trixie's main, and which kernel package a flavour's meta package
    names."""

    def __init__(self, cache):
        super().__init__(os.path.join(cache, "apt-" + SUITE), SUITE, ["main"],
                         say=lambda m: say("fetch: " + m))

    def image_package(self, flavour):
        """linux-image-FLAVOUR (the meta package) -> (package, version) of
        the kernel it depends on."""
        self.update()
        out = self.run("apt-cache", "depends", "linux-image-" + flavour)
        m = re.search(r"Depends: (linux-image-6\.\S+)", out)
        if not m:
            raise RuntimeError("linux-image-%s in %s names no kernel:\n%s" % (flavour, SUITE, out))
        pkg = m.group(1)
        show = self.run("apt-cache", "show", pkg)
        ver = re.search(r"^Version: (\S+)", show, re.M).group(1)
        return pkg, ver


def unpack(cache, flavour, deb, ver):
    """Unpack once per package version; returns (root, kver, vmlinuz, moddir)."""
    root = os.path.join(cache, "%s-%s" % (flavour, ver))
    done = os.path.join(root, ".unpacked")
    if not os.path.exists(done):
        tmp = root + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        subprocess.run(["dpkg-deb", "-x", deb, tmp], check=True)
        kvers = os.listdir(os.path.join(tmp, "usr/lib/modules"))
        if len(kvers) != 1:
            raise RuntimeError("%s: expected one module directory, found %s" % (deb, kvers))
        subprocess.run(["depmod", "-b", os.path.join(tmp, "usr"), kvers[0]], check=True)
        open(os.path.join(tmp, ".unpacked"), "w").close()
        shutil.rmtree(root, ignore_errors=True)
        os.rename(tmp, root)
    kver = os.listdir(os.path.join(root, "usr/lib/modules"))[0]
    return root, kver, os.path.join(root, "boot/vmlinuz-" + kver), \
        os.path.join(root, "usr/lib/modules", kver)


def cached(cache, flavour):
    """The newest kernel of this flavour already unpacked, or None."""
    found = []
    for d in glob.glob(os.path.join(cache, flavour + "-*", ".unpacked")):
        ver = os.path.basename(os.path.dirname(d))[len(flavour) + 1:]
        key = [int(x) if x.isdigit() else x for x in re.split(r"[.+~-]", ver)]
        found.append((key, ver))
    return max(found)[1] if found else None


def kernel(cache, flavour, apt=None):
    """Fetch (or find) the trixie kernel of one flavour; returns a dict:
    flavour, package, version, kver, vmlinuz, kmoddir.  Without the
    mirror (no network), the newest one unpacked before is used."""
    apt = apt or Apt(cache)
    try:
        pkg, ver = apt.image_package(flavour)
        deb = apt.download(pkg, ver)
    except RuntimeError as e:
        ver = cached(cache, flavour)
        if not ver:
            raise
        say("fetch: %s: the mirror failed (%s); using the cached %s"
            % (flavour, str(e).splitlines()[0], ver))
        pkg, deb = "linux-image-" + flavour, None
    root, kver, vmlinuz, moddir = unpack(cache, flavour, deb, ver)
    return {"flavour": flavour, "package": pkg, "version": ver, "kver": kver,
            "vmlinuz": vmlinuz, "kmoddir": moddir}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default=CACHE)
    ap.add_argument("flavours", nargs="*", default=list(FLAVOURS))
    a = ap.parse_args()
    apt = Apt(a.cache)
    for fl in a.flavours:
        try:
            k = kernel(a.cache, fl, apt)
        except (RuntimeError, subprocess.CalledProcessError) as e:
            sys.exit("fetch: %s: %s" % (fl, e))
        say("%s %s %s %s" % (fl, k["kver"], k["vmlinuz"], k["kmoddir"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
