#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ZFS for the boot tests: Debian 12's zfs-dkms and zfsutils-linux (contrib),
fetched with apt-get download through a sources list and state of their own
(the host's apt sources and package set are never touched), the module
built by DKMS against the boot tests' kernel, everything cached outside the
clone:

  CACHE/apt-bookworm-contrib/   sources.list, lists, downloaded .debs
  CACHE/zfs-HASH/               HASH: the zfs version, the kernel, this script
    root/                       the unpacked packages (usr/sbin/zpool, ...)
    dkms/                       DKMS's tree (--dkmstree): the build's log
    dkms.ko/                    the modules as DKMS built them (spl.ko, zfs.ko)
    modules/KVER/               the kernel's /lib/modules/KVER (hard links)
                                with the modules at updates/dkms/, depmod'ed:
                                the directory `dkms install` would leave
    build-seconds               how long the cold build took

DKMS comes from the host (apt-get install dkms linux-headers-KVER).  With
--install, the userland is copied to the host's /usr/local (sbin, bin, lib,
each ELF file with RUNPATH /usr/local/lib, see _stage; then ldconfig),
where `uniramfs build` finds zpool as it finds any program, and the
host's /usr stays dpkg's.

  tests/zfs/fetch.py [--cache DIR] [--kver KVER] [--install]

UNIRAMFS_ZFS_DIR=CACHE/zfs-HASH uses that finished build as it is.

prints `KVER ZFSVERSION CACHEDIR`.  A warm run downloads and builds nothing.
"""

import argparse
import fcntl
import glob
import hashlib
import inspect
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import privapt  # noqa: E402  tests/lib/privapt.py

CACHE = os.environ.get("UNIRAMFS_ZFS_CACHE", "/var/cache/uniramfs-tests")
SUITE = "bookworm"
# zfsutils-linux and the libraries it needs that Debian 12 main lacks
PACKAGES = ("zfs-dkms", "zfsutils-linux", "libnvpair3linux", "libuutil3linux",
            "libzfs4linux", "libzpool5linux")
PREFIX = "/usr/local"


def say(*a):
    print("zfs-fetch:", *a, flush=True)


class Apt(privapt.PrivateApt):
    """bookworm's main and contrib (zfs-dkms and zfsutils-linux are contrib)."""

    def __init__(self, cache):
        super().__init__(os.path.join(cache, "apt-%s-contrib" % SUITE), SUITE,
                         ["main", "contrib"], say=say)


def default_kver():
    """The boot tests' kernel: the newest installed Debian kernel."""
    ks = sorted(os.path.basename(p)[len("vmlinuz-"):] for p in glob.glob("/boot/vmlinuz-*-amd64"))
    if not ks:
        raise RuntimeError("no /boot/vmlinuz-*-amd64: apt-get install linux-image-amd64")
    return ks[-1]


def recipe(ver, kver):
    """What the build depends on: the packages, their version, the
    kernel, and the code that builds (not the rest of this file, so an
    edit elsewhere does not cost a rebuild)."""
    h = hashlib.sha256()
    h.update(inspect.getsource(build).encode())
    h.update(("%s\0%s\0%s" % (" ".join(PACKAGES), ver, kver)).encode())
    return h.hexdigest()[:16]


def cached(cache, kver):
    """The newest finished cache for this kernel, whatever its zfs version
    (no network: the mirror's answer is not needed)."""
    found = sorted(glob.glob(os.path.join(cache, "zfs-*", ".done")), key=os.path.getmtime)
    for d in reversed(found):
        d = os.path.dirname(d)
        if os.path.isdir(os.path.join(d, "modules", kver)):
            return d
    return None


def build(cache, apt, ver, kver, out):
    t0 = time.monotonic()
    if not os.path.isdir("/lib/modules/%s/build" % kver):
        raise RuntimeError("no headers for %s: apt-get install linux-headers-%s" % (kver, kver))
    if not shutil.which("dkms"):
        raise RuntimeError("no dkms: apt-get install dkms")
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    root = os.path.join(tmp, "root")
    os.makedirs(root)
    for p in PACKAGES:
        subprocess.run(["dpkg-deb", "-x", apt.download(p, ver), root], check=True)
    upstream = ver.split(":")[-1].split("-")[0]
    src = os.path.join(root, "usr/src")
    if not os.path.isfile(os.path.join(src, "zfs-%s" % upstream, "dkms.conf")):
        raise RuntimeError("zfs-dkms %s has no usr/src/zfs-%s/dkms.conf" % (ver, upstream))
    dtree = os.path.join(tmp, "dkms")
    os.makedirs(dtree)
    say("building zfs %s for %s with DKMS (minutes)" % (upstream, kver))
    r = subprocess.run(["nice", "dkms", "build", "-m", "zfs", "-v", upstream, "-k", kver,
                        "--sourcetree", src, "--dkmstree", dtree, "-j", "2"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError("dkms build failed:\n%s" % r.stdout[-3000:])
    built = glob.glob(os.path.join(dtree, "zfs", upstream, kver, "*", "module", "*.ko*"))
    if not any(os.path.basename(k).startswith("zfs.ko") for k in built):
        raise RuntimeError("dkms built no zfs.ko:\n%s" % r.stdout[-3000:])
    kos = os.path.join(tmp, "dkms.ko")
    os.makedirs(kos)
    for k in built:
        shutil.copy2(k, kos)
    # the kernel's module tree as `dkms install` leaves it, without
    # touching the host's: hard links (one file system), the modules at
    # updates/dkms/, where depmod's search order puts them first
    mods = os.path.join(tmp, "modules", kver)
    os.makedirs(os.path.dirname(mods))
    subprocess.run(["cp", "-al", "/lib/modules/%s" % kver, mods], check=True)
    for f in ("build", "source"):
        if os.path.islink(os.path.join(mods, f)):
            os.unlink(os.path.join(mods, f))
    upd = os.path.join(mods, "updates", "dkms")
    os.makedirs(upd, exist_ok=True)
    for k in os.listdir(kos):
        shutil.copy2(os.path.join(kos, k), upd)
    # depmod rewrites modules.* files: they must not be the host's (links)
    for f in glob.glob(os.path.join(mods, "modules.*")):
        data = open(f, "rb").read()
        os.unlink(f)
        open(f, "wb").write(data)
    base = os.path.join(tmp, "depmod")
    os.makedirs(os.path.join(base, "lib", "modules"))
    os.symlink(mods, os.path.join(base, "lib", "modules", kver))
    subprocess.run(["depmod", "-b", base, kver], check=True)
    os.unlink(os.path.join(base, "lib", "modules", kver))
    shutil.rmtree(base)
    secs = time.monotonic() - t0
    with open(os.path.join(tmp, "build-seconds"), "w") as f:
        f.write("%.0f\n" % secs)
    open(os.path.join(tmp, ".done"), "w").close()
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    say("built in %.0f s: %s" % (secs, out))


def _stage(out):
    """CACHE/zfs-HASH/local/{sbin,bin,lib}: the userland as a build for
    /usr/local would leave it.  Each ELF file gets RUNPATH /usr/local/lib:
    ld.so finds the libraries there through the host's ld.so.cache, but an
    image has no cache, so a program packed from /usr/local would not find
    them at boot without it."""
    stage = os.path.join(out, "local")
    if os.path.exists(os.path.join(stage, ".done")):
        return stage
    if not shutil.which("patchelf"):
        raise RuntimeError("no patchelf: apt-get install patchelf")
    tmp = stage + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    root = os.path.join(out, "root")
    for d, dest in (("sbin", "sbin"), ("usr/sbin", "sbin"), ("usr/bin", "bin"),
                    ("lib/x86_64-linux-gnu", "lib"), ("usr/lib/x86_64-linux-gnu", "lib")):
        sd = os.path.join(root, d)
        if not os.path.isdir(sd):
            continue
        os.makedirs(os.path.join(tmp, dest), exist_ok=True)
        for name in sorted(os.listdir(sd)):
            s, t = os.path.join(sd, name), os.path.join(tmp, dest, name)
            if os.path.islink(s):
                os.symlink(os.readlink(s), t)
            elif os.path.isfile(s):
                shutil.copy2(s, t)
                with open(t, "rb") as f:
                    elf = f.read(4) == b"\x7fELF"
                if elf:
                    subprocess.run(["patchelf", "--set-rpath", PREFIX + "/lib", t], check=True)
    open(os.path.join(tmp, ".done"), "w").close()
    os.rename(tmp, stage)
    return stage


def install(out):
    """The userland into /usr/local: programs to sbin and bin, libraries to lib."""
    stage = _stage(out)
    n = 0
    for dest in ("sbin", "bin", "lib"):
        sd = os.path.join(stage, dest)
        if not os.path.isdir(sd):
            continue
        os.makedirs(os.path.join(PREFIX, dest), exist_ok=True)
        for name in sorted(os.listdir(sd)):
            s, t = os.path.join(sd, name), os.path.join(PREFIX, dest, name)
            if os.path.lexists(t):
                if os.path.islink(s) and os.path.islink(t) and os.readlink(s) == os.readlink(t):
                    continue
                if not os.path.islink(s) and not os.path.islink(t) and \
                        open(s, "rb").read() == open(t, "rb").read():
                    continue
                os.unlink(t)
            if os.path.islink(s):
                os.symlink(os.readlink(s), t)
            else:
                shutil.copy2(s, t)
            n += 1
    if n:
        subprocess.run(["ldconfig"], check=True)
        say("installed %d files under %s" % (n, PREFIX))


def ensure(cache=CACHE, kver=None, do_install=False):
    """Fetch and build (or find) ZFS for kver: returns (kver, version, dir).
    One at a time (a lock in the cache): the boot tests' threads, and
    install-deps beside them, wait for the one build."""
    kver = kver or default_kver()
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, "zfs.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _ensure(cache, kver, do_install)


def _ensure(cache, kver, do_install):
    forced = os.environ.get("UNIRAMFS_ZFS_DIR")
    if forced:   # a finished cache named by hand (no network, or a bisect)
        if not os.path.exists(os.path.join(forced, ".done")):
            raise RuntimeError("UNIRAMFS_ZFS_DIR=%s is no finished build" % forced)
        if do_install:
            install(forced)
        return kver, "given", forced
    apt = Apt(cache)
    try:
        ver = apt.version("zfs-dkms")
    except RuntimeError as e:
        out = cached(cache, kver)
        if not out:
            raise
        say("the mirror failed (%s); using %s" % (str(e).splitlines()[0], out))
        ver = "cached"
    else:
        out = os.path.join(cache, "zfs-" + recipe(ver, kver))
        if not os.path.exists(os.path.join(out, ".done")):
            build(cache, apt, ver, kver, out)
    if do_install:
        install(out)
    return kver, ver, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default=CACHE)
    ap.add_argument("--kver")
    ap.add_argument("--install", action="store_true")
    a = ap.parse_args()
    try:
        kver, ver, out = ensure(a.cache, a.kver, a.install)
    except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
        sys.exit("zfs-fetch: %s" % e)
    print(kver, ver, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
