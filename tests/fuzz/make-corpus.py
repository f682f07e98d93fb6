#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the committed seed corpus of crafted images for the image reader
and extract fuzzers: tests/fuzz/corpus/fuzz_image/* (an image each) and
tests/fuzz/corpus/fuzz_extract/* (a flags byte, 1 = --preserve, then the
image). Each is an attack extract must refuse or survive, or an oddity
it must keep. Reproducible: cpio is written here, gzip with mtime 0,
zstd by the zstd command (its output may change with the zstd version).

Usage: tests/fuzz/make-corpus.py [OUTDIR]   (default tests/fuzz/corpus)
"""
import gzip
import os
import subprocess
import sys

S_IFREG, S_IFDIR, S_IFLNK = 0o100000, 0o040000, 0o120000
S_IFCHR, S_IFBLK, S_IFIFO = 0o020000, 0o060000, 0o010000


def entry(name, mode, data=b"", ino=0, nlink=1, rdev=(0, 0), uid=0, gid=0):
    if isinstance(data, str):
        data = data.encode()
    if isinstance(name, str):
        name = name.encode()
    return dict(name=name, mode=mode, data=data, ino=ino, nlink=nlink, rdev=rdev,
                uid=uid, gid=gid)


def cpio(entries):
    out = bytearray()
    def pad4():
        out.extend(b"\0" * (-len(out) % 4))
    for i, e in enumerate(entries + [entry("TRAILER!!!", 0)]):
        name = e["name"] + b"\0"
        fields = [e["ino"] or i + 1, e["mode"], e["uid"], e["gid"], e["nlink"], 1000,
                  len(e["data"]), 0, 0, e["rdev"][0], e["rdev"][1], len(name), 0]
        out.extend(b"070701" + b"".join(b"%08x" % f for f in fields))
        out.extend(name)
        pad4()
        out.extend(e["data"])
        pad4()
    out.extend(b"\0" * (-len(out) % 512))
    return bytes(out)


def zstd(data):
    return subprocess.run(["zstd", "-19", "-q", "-c"], input=data, check=True,
                          capture_output=True).stdout


def gz(data):
    return gzip.compress(data, mtime=0)


def images():
    hardlink = lambda t: [entry("a", S_IFREG | 0o644, ino=5, nlink=2),
                          entry("a", t | 0o666, rdev=(1, 3)),
                          entry("b", S_IFREG | 0o644, "data", ino=5, nlink=2)]
    yield "hardlink-to-device", 1, cpio(hardlink(S_IFCHR))
    yield "hardlink-to-fifo", 0, zstd(cpio(hardlink(S_IFIFO)))
    # 256 MiB of zeros in a few KiB
    yield "zstd-bomb", 0, zstd(cpio([entry("bomb", S_IFREG | 0o644, b"\0" * (256 << 20))]))
    yield "gzip-bomb", 0, gz(cpio([entry("bomb", S_IFREG | 0o644, b"\0" * (16 << 20))]))
    yield "odd-names", 0, cpio([
        entry(" sp ", S_IFREG | 0o644, "1"), entry("a", S_IFREG | 0o644, "2"),
        entry("a ", S_IFREG | 0o644, "3"), entry("d", S_IFDIR | 0o755),
        entry("d//f", S_IFREG | 0o644, "4"), entry("./d/./g/", S_IFDIR | 0o755),
        entry("/abs", S_IFREG | 0o600, "5"), entry(b"\x01ctl\x7f", S_IFREG | 0o644, "6"),
        entry("nl\nname", S_IFREG | 0o644, "7"), entry(b"\xff\xfe", S_IFREG | 0o644, "8"),
        entry(".", S_IFDIR | 0o755), entry("", S_IFREG | 0o644, "9"),
        entry("ok/..", S_IFDIR | 0o755)])
    yield "symlink-escapes", 0, cpio([
        entry("usr", S_IFDIR | 0o755), entry("usr/lib", S_IFDIR | 0o755),
        entry("lib", S_IFLNK | 0o777, "usr/lib"),
        entry("lib/modules", S_IFDIR | 0o755), entry("lib/modules/m.ko", S_IFREG | 0o644, "ko"),
        entry("abs", S_IFLNK | 0o777, "/"), entry("abs/escaped", S_IFREG | 0o644, "x"),
        entry("up", S_IFLNK | 0o777, "../../.."), entry("up/escaped", S_IFREG | 0o644, "x"),
        entry("usr/up", S_IFLNK | 0o777, "../../usr/../.."),
        entry("usr/up/escaped2", S_IFREG | 0o644, "x"),
        entry("loop", S_IFLNK | 0o777, "loop"), entry("loop/x", S_IFREG | 0o644, "x")])
    # each refused on its own, so each is a seed of its own
    yield "file-over-symlink", 1, cpio([entry("f", S_IFLNK | 0o777, "../escaped"),
                                        entry("f", S_IFREG | 0o644, "pwned")])
    yield "dir-over-symlink", 0, cpio([entry("d", S_IFLNK | 0o777, "/escaped"),
                                       entry("d", S_IFDIR | 0o755)])
    yield "symlink-dotdot", 0, cpio([entry("dotdot", S_IFLNK | 0o777, ".."),
                                     entry("dotdot/escaped", S_IFREG | 0o644, "x")])
    yield "dotdot-name", 0, cpio([entry("../escaped", S_IFREG | 0o644, "x")])
    yield "dangling-parent", 0, cpio([entry("lib", S_IFLNK | 0o777, "usr/lib"),
                                      entry("lib/modules", S_IFDIR | 0o755)])
    yield "nodes-and-modes", 1, cpio([
        entry("dev", S_IFDIR | 0o755), entry("dev/null", S_IFCHR | 0o666, rdev=(1, 3)),
        entry("dev/sda", S_IFBLK | 0o660, rdev=(8, 0)), entry("run", S_IFDIR | 0o755),
        entry("run/fifo", S_IFIFO | 0o600), entry("suid", S_IFREG | 0o4755, "#!", uid=1234),
        entry("ro", S_IFDIR | 0o555), entry("ro/x", S_IFREG | 0o444, "x"),
        entry("none", S_IFDIR | 0o000), entry("none/y", S_IFREG | 0o000, "y"),
        entry("dev/null", S_IFREG | 0o644, "over a node")])
    early = cpio([entry("kernel", S_IFDIR | 0o755),
                  entry("kernel/x86/microcode/GenuineIntel.bin", S_IFREG | 0o644, "ucode")])
    main = zstd(cpio([entry("init", S_IFREG | 0o755, "#!/bin/sh\n"),
                      entry("bin", S_IFLNK | 0o777, "usr/bin"),
                      entry("usr/bin/sh", S_IFREG | 0o755, "BB", ino=9, nlink=2),
                      entry("bin/busybox", S_IFREG | 0o755, "", ino=9, nlink=2)]))
    extra = gz(cpio([entry("etc/x", S_IFREG | 0o644, "1")]) + b"\0" * 4 +
               cpio([entry("etc/y", S_IFREG | 0o644, "2", ino=9, nlink=2)]))
    yield "multi-segment", 0, early + b"\0" * 12 + main + b"\0" * 3 + extra


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    for target in ("fuzz_image", "fuzz_extract"):
        os.makedirs(os.path.join(outdir, target), exist_ok=True)
    for name, flags, img in images():
        with open(os.path.join(outdir, "fuzz_image", name), "wb") as f:
            f.write(img)
        with open(os.path.join(outdir, "fuzz_extract", name), "wb") as f:
            f.write(bytes([flags]) + img)
    return 0


if __name__ == "__main__":
    sys.exit(main())
