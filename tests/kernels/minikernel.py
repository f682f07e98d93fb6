#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A small x86-64 kernel with no module support, built from Debian's
linux-source package: everything a boot from a virtio-blk ext4 root needs
is built in (docs/kernel-tree.md).

The build is cached outside the checkout, keyed by a hash of the config
fragment and the source package's version, so CI builds it once:

  CACHE/mini-HASH/            the build tree (make O=...)
  CACHE/mini-HASH/bzImage     the kernel without a built-in initramfs

  tests/kernels/minikernel.py [--cache DIR] [--variant nomod|modular]
                                 build (or find) it, print its tree
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys

CACHE = os.environ.get("UNIRAMFS_KERNEL_CACHE", "/var/cache/uniramfs-tests/kernels")
SOURCE_TAR = "/usr/src/linux-source-6.1.tar.xz"
SOURCE_PKG = "linux-source-6.1"

# Applied on top of allnoconfig (KCONFIG_ALLCONFIG): each line must hold
# in the final .config, or the build stops naming it.
FRAGMENT = """\
CONFIG_64BIT=y
# CONFIG_MODULES is not set
CONFIG_PRINTK=y
CONFIG_BUG=y
CONFIG_MULTIUSER=y
CONFIG_FUTEX=y
CONFIG_EPOLL=y
CONFIG_SIGNALFD=y
CONFIG_TIMERFD=y
CONFIG_EVENTFD=y
CONFIG_SHMEM=y
CONFIG_FILE_LOCKING=y
CONFIG_POSIX_TIMERS=y
CONFIG_INOTIFY_USER=y
CONFIG_BINFMT_ELF=y
CONFIG_BINFMT_SCRIPT=y
CONFIG_TTY=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_RD_ZSTD=y
CONFIG_NET=y
CONFIG_UNIX=y
CONFIG_PCI=y
CONFIG_VIRTIO_MENU=y
CONFIG_VIRTIO_PCI=y
CONFIG_BLOCK=y
CONFIG_BLK_DEV=y
CONFIG_VIRTIO_BLK=y
CONFIG_PARTITION_ADVANCED=y
CONFIG_MSDOS_PARTITION=y
CONFIG_EFI_PARTITION=y
CONFIG_EXT4_FS=y
CONFIG_PROC_FS=y
CONFIG_SYSFS=y
CONFIG_DEVTMPFS=y
CONFIG_TMPFS=y
CONFIG_ACPI=y
CONFIG_EFI=y
CONFIG_EFI_STUB=y
"""


# The same kernel with module support, its disk and filesystem drivers
# as modules: --kernel-tree's modules straight from the tree.
MODULAR = (FRAGMENT.replace("# CONFIG_MODULES is not set\n", "CONFIG_MODULES=y\n")
           .replace("CONFIG_VIRTIO_BLK=y\n", "CONFIG_VIRTIO_BLK=m\n")
           .replace("CONFIG_EXT4_FS=y\n", "CONFIG_EXT4_FS=m\n"))
FRAGMENTS = {"nomod": FRAGMENT, "modular": MODULAR}


def say(*a):
    print(*a, flush=True)


def source_version():
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", SOURCE_PKG],
                       stdout=subprocess.PIPE, text=True)
    if r.returncode != 0 or not os.path.isfile(SOURCE_TAR):
        return None
    return r.stdout.strip()


def key(version, fragment):
    return hashlib.sha256((version + "\n" + fragment).encode()).hexdigest()[:16]


def source_tree(cache, version):
    """The unpacked source, once per package version."""
    src = os.path.join(cache, "src-" + version)
    top = os.path.join(src, SOURCE_PKG)
    if os.path.isfile(os.path.join(top, "Makefile")):
        return top
    tmp = src + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    say("minikernel: unpacking %s" % SOURCE_TAR)
    subprocess.run(["tar", "-C", tmp, "-xf", SOURCE_TAR], check=True)
    shutil.rmtree(src, ignore_errors=True)
    os.rename(tmp, src)
    return top


def check_config(out, fragment):
    have = {}
    with open(os.path.join(out, ".config")) as f:
        for ln in f:
            ln = ln.strip()
            if ln.startswith("CONFIG_"):
                k, v = ln.split("=", 1)
                have[k] = v
            elif ln.startswith("# CONFIG_") and ln.endswith(" is not set"):
                have[ln[2:-len(" is not set")]] = "n"
    bad = []
    for ln in fragment.splitlines():
        if ln.startswith("CONFIG_"):
            k, v = ln.split("=", 1)
        else:
            k, v = ln[2:-len(" is not set")], "n"
        if have.get(k, "n") != v:
            bad.append("%s=%s (wanted %s)" % (k, have.get(k, "n"), v))
    return bad


def make(src, out, *targets):
    cmd = ["nice", "-n", "10", "make", "-s", "-C", src, "O=" + out, "-j2"] + list(targets)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def ensure(cache=CACHE, variant="nomod"):
    """Build (or find) the kernel; returns (build tree, source tree, bzImage)
    or raises RuntimeError saying why it cannot.  variant: nomod (no module
    support) or modular (make modules too, nothing installed)."""
    fragment = FRAGMENTS[variant]
    version = source_version()
    if version is None:
        raise RuntimeError("%s not installed (apt-get install %s)" % (SOURCE_TAR, SOURCE_PKG))
    out = os.path.join(cache, "mini-" + key(version, fragment))
    bz = os.path.join(out, "bzImage")
    src = source_tree(cache, version)
    if os.path.isfile(bz):
        return out, src, bz
    os.makedirs(out, exist_ok=True)
    frag = os.path.join(out, "fragment.config")
    with open(frag, "w") as f:
        f.write(fragment)
    say("minikernel: configuring %s in %s" % (version, out))
    make(src, out, "KCONFIG_ALLCONFIG=" + frag, "allnoconfig")
    bad = check_config(out, fragment)
    if bad:
        raise RuntimeError("minikernel: config did not take: " + ", ".join(bad))
    say("minikernel: building bzImage (a few minutes on two cores)")
    make(src, out, "bzImage", *(("modules",) if variant == "modular" else ()))
    shutil.copyfile(os.path.join(out, "arch/x86/boot/bzImage"), bz + ".tmp")
    os.rename(bz + ".tmp", bz)
    return out, src, bz


def with_builtin_initramfs(tree, src, source, dest):
    """The same kernel with SOURCE (a gen_init_cpio list, a directory or
    a cpio) as its built-in initramfs, copied to dest.  The cached tree's
    config is put back afterwards, so the key stays true."""
    cfg = os.path.join(tree, ".config")
    with open(cfg) as f:
        orig = f.read()
    lines = [ln for ln in orig.splitlines()
             if not ln.startswith(("CONFIG_INITRAMFS_SOURCE=", "CONFIG_INITRAMFS_ROOT_",
                                   "CONFIG_INITRAMFS_COMPRESSION"))]
    lines.append('CONFIG_INITRAMFS_SOURCE="%s"' % source)
    lines += ["CONFIG_INITRAMFS_ROOT_UID=0", "CONFIG_INITRAMFS_ROOT_GID=0"]
    try:
        with open(cfg, "w") as f:
            f.write("\n".join(lines) + "\n")
        make(src, tree, "olddefconfig")
        make(src, tree, "bzImage")
        shutil.copyfile(os.path.join(tree, "arch/x86/boot/bzImage"), dest)
    finally:
        with open(cfg, "w") as f:
            f.write(orig)
    return dest


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default=CACHE)
    ap.add_argument("--variant", default="nomod", choices=sorted(FRAGMENTS))
    a = ap.parse_args()
    try:
        out, _, bz = ensure(a.cache, a.variant)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        sys.exit(str(e))
    print(out)
    print(bz)
    return 0


if __name__ == "__main__":
    sys.exit(main())
