# SPDX-License-Identifier: GPL-2.0-or-later
"""uniramfs-init and testinit for arm64: a meson cross build of this
tree with Debian's gcc-aarch64-linux-gnu (tools/cross/aarch64.ini), its
libraries from the arm64 tree of sysroot.py, in BUILD/arm64-cross.  Only
those two targets are compiled; the generator stays the host's (it
builds an arm64 image from the arm64 tree as it would for any sysroot).
The compression libraries are left out of the cross setup: the init
links none of them (the kernel decompresses the image), and the
generator of this build is never run."""

import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
CROSS_FILE = os.path.join(SRCDIR, "tools", "cross", "aarch64.ini")
TARGETS = ("uniramfs-init", "tests/boot/testinit")
OPTIONS = ("-Dzstd=disabled", "-Dxz=disabled", "-Dlz4=disabled", "-Dzlib=disabled")


def _run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError("`%s` failed (%d):\n%s" % (" ".join(cmd), r.returncode, r.stdout[-3000:]))
    return r.stdout


def build(builddir, sysroot):
    """(init, testinit): the two arm64 programs, built or brought up to
    date in BUILDDIR/arm64-cross against the tree at sysroot."""
    out = os.path.join(builddir, "arm64-cross")
    consts = "[constants]\nsysroot = '%s'\n" % sysroot
    ini = os.path.join(out + ".ini")
    old = None
    if os.path.exists(ini):
        with open(ini) as f:
            old = f.read()
    if old != consts or not os.path.exists(os.path.join(out, "build.ninja")):
        # a new tree (another recipe) is a new setup: meson keeps the
        # machine files' values from the first one
        shutil.rmtree(out, ignore_errors=True)
        with open(ini, "w") as f:
            f.write(consts)
        _run(["meson", "setup", out, SRCDIR, "--cross-file", ini, "--cross-file", CROSS_FILE]
             + list(OPTIONS))
    _run(["meson", "compile", "-C", out] + list(TARGETS))
    return os.path.join(out, "uniramfs-init"), os.path.join(out, "tests", "boot", "testinit")
