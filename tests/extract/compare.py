#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Extract real images with `uniramfs extract` and compare each tree with
what GNU `cpio -idm` makes of the same archives: file types, modes (minus
the set-id bits extract drops by default), sizes, contents (sha256),
hard-link counts and link targets; device nodes, which extract skips by
default, must be absent then and present with --preserve.

Images: our generic one (rebuilt when the binary is newer), one from
mkinitramfs and one from dracut (cached outside the checkout by a hash
of their command and the packages' versions: they take 30-45 s each), all
for the newest kernel in /lib/modules. Each image is extracted three
ways: default, --preserve, and default with the openat2-less walk
(UNIRAMFS_NO_OPENAT2=1). Prints `IMAGE: N passed, N failed` per image
and `N passed, N failed` last; exit status 1 on any failure.

The reference is made by cpio as root from images built on this machine,
so it is only as safe as those images; the segments are split by the
offsets `uniramfs ls` prints and each archive inside a decompressed
stream is cut at its trailer here, so cpio sees one archive at a time.

Usage: tests/extract/compare.py --builddir BUILD [--only NAME,..]
"""
import argparse
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

DECOMPRESS = {
    "zstd": ["zstd", "-dcq"],
    "xz": ["xz", "-dc"],
    "gzip": ["gzip", "-dc"],
    "lz4": ["lz4", "-dcq"],
}


def newest_kver():
    kvers = os.listdir("/lib/modules")
    def key(v):
        return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", v)]
    return sorted(kvers, key=key)[-1]


# the other generators' images outlive the checkout (CI starts from a
# fresh clone): they take 30-45 s each and change only with the tools
FOREIGN_CACHE = os.environ.get("UNIRAMFS_TEST_CACHE", "/var/cache/uniramfs-tests") + "/extract-images"


def foreign_key(cmd, kver):
    """A hash of what another generator's image is made from: its command,
    the kernel, and the versions of the packages that make it."""
    pkgs = ["dracut-core", "initramfs-tools", "initramfs-tools-core", "linux-image-" + kver]
    q = subprocess.run(["dpkg-query", "-W", "-f", "${Package}=${Version}\\n"] + pkgs,
                       capture_output=True, text=True)
    return hashlib.sha256(repr((cmd, kver, q.stdout)).encode()).hexdigest()[:16]


def make_images(builddir, uniramfs, only):
    cache = os.path.join(builddir, "extract-images")
    os.makedirs(cache, exist_ok=True)
    kver = newest_kver()
    recipes = {
        "uniramfs-generic": [uniramfs, "build", "-k", kver, "-o", "{out}",
                             "--config", "/dev/null", "--generic"],
        "initramfs-tools": ["mkinitramfs", "-o", "{out}", kver],
        "dracut": ["dracut", "--quiet", "--no-hostonly", "--force", "{out}", kver],
    }
    images = []
    for name, cmd in recipes.items():
        if only and name not in only:
            continue
        out = os.path.join(cache, f"{name}-{kver}.img")
        if name != "uniramfs-generic":
            out = os.path.join(FOREIGN_CACHE, f"{name}-{kver}-{foreign_key(cmd, kver)}.img")
            os.makedirs(FOREIGN_CACHE, exist_ok=True)
        if shutil.which(cmd[0]) is None and not os.path.exists(cmd[0]):
            print(f"{name}: SKIP ({cmd[0]} not installed)")
            continue
        fresh = os.path.exists(out) and os.path.getsize(out) > 0
        if fresh and name == "uniramfs-generic":
            fresh = os.path.getmtime(out) >= os.path.getmtime(uniramfs)
        if not fresh:
            tmp = out + ".tmp"
            argv = [a.replace("{out}", tmp) for a in cmd]
            r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if r.returncode != 0 or not os.path.exists(tmp):
                print(f"{name}: SKIP (building it failed: {r.stderr.decode()[-300:]})")
                continue
            os.rename(tmp, out)
        images.append((name, out))
    return images


def segments(uniramfs, image):
    ls = subprocess.run([uniramfs, "ls", image], check=True, capture_output=True).stdout
    for m in re.finditer(rb"^segment \d+: (\w+), \d+ entries, (\d+) bytes at offset (\d+)",
                         ls, re.M):
        yield m.group(1).decode(), int(m.group(3)), int(m.group(2))


def archives(data):
    """Cut a decompressed stream into its cpio archives (NUL padding
    between them), each up to and including its trailer."""
    off = 0
    while off < len(data):
        while off < len(data) and data[off] == 0:
            off += 1
        if off >= len(data):
            break
        start = off
        while True:
            hdr = data[off:off + 110]
            if len(hdr) < 110 or hdr[:5] != b"07070":
                raise ValueError(f"no cpio header at {off}")
            namesize = int(hdr[94:102], 16)
            filesize = int(hdr[54:62], 16)
            name = data[off + 110:off + 110 + namesize - 1]
            off = (off + 110 + namesize + 3) & ~3
            off = (off + filesize + 3) & ~3
            if name == b"TRAILER!!!":
                break
        yield data[start:off]


def reference(uniramfs, image, ref):
    os.makedirs(ref)
    with open(image, "rb") as f:
        img = f.read()
    for comp, off, size in segments(uniramfs, image):
        seg = img[off:off + size]
        if comp != "none":
            seg = subprocess.run(DECOMPRESS[comp], input=seg, check=True,
                                 capture_output=True).stdout
        for a in archives(seg):
            subprocess.run(["cpio", "-idm", "--quiet", "--no-absolute-filenames"],
                           input=a, cwd=ref, check=True, stderr=subprocess.DEVNULL)


def describe(path):
    st = os.lstat(path)
    d = {"type": stat.S_IFMT(st.st_mode), "mode": stat.S_IMODE(st.st_mode),
         "uid": st.st_uid, "gid": st.st_gid}
    if stat.S_ISREG(st.st_mode):
        with open(path, "rb") as f:
            d["sha256"] = hashlib.sha256(f.read()).hexdigest()
        d["size"] = st.st_size
        d["nlink"] = st.st_nlink
        d["mtime"] = int(st.st_mtime)
    elif stat.S_ISLNK(st.st_mode):
        d["target"] = os.readlink(path)
    elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        d["rdev"] = (os.major(st.st_rdev), os.minor(st.st_rdev))
    return d


def tree(root):
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            out[os.path.relpath(p, root)] = describe(p)
    return out


def compare(ref, got, preserve):
    passed, failed = 0, []
    for path, want in sorted(ref.items()):
        have = got.get(path)
        is_node = want["type"] in (stat.S_IFCHR, stat.S_IFBLK)
        if is_node and not preserve:
            if have is None:
                passed += 1
            else:
                failed.append(f"{path}: device node made without --preserve")
            continue
        if have is None:
            failed.append(f"{path}: missing")
            continue
        want = dict(want)
        if not preserve:
            # no set-id bits, and owned by who extracted it
            want["mode"] &= ~0o6000
            want["uid"], want["gid"] = os.geteuid(), os.getegid()
        diffs = [f"{k} {want[k]!r} != {have.get(k)!r}" for k in want if want[k] != have.get(k)]
        if diffs:
            failed.append(f"{path}: " + ", ".join(diffs))
        else:
            passed += 1
    for path in sorted(set(got) - set(ref)):
        failed.append(f"{path}: not in cpio's tree")
    return passed, failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--keep", action="store_true", help="keep the extracted trees")
    args = ap.parse_args()
    builddir = os.path.abspath(args.builddir)
    uniramfs = os.path.join(builddir, "uniramfs")
    only = set(filter(None, args.only.split(",")))
    if os.geteuid() != 0:
        print("SKIP: needs root (cpio -idm and --preserve make device nodes)")
        print("0 passed, 0 failed")
        return 0
    total_pass = total_fail = 0
    work = tempfile.mkdtemp(prefix="uniramfs-extract-compare.", dir=builddir)
    try:
        for name, image in make_images(builddir, uniramfs, only):
            ref = os.path.join(work, name + ".cpio")
            reference(uniramfs, image, ref)
            reft = tree(ref)
            passed = failed = 0
            for variant, flags, env in (("default", [], {}),
                                        ("--preserve", ["--preserve"], {}),
                                        ("walk", [], {"UNIRAMFS_NO_OPENAT2": "1"})):
                out = os.path.join(work, f"{name}.{variant.strip('-')}")
                r = subprocess.run([uniramfs, "extract"] + flags + [image, out],
                                   env=dict(os.environ, **env), capture_output=True)
                if r.returncode != 0:
                    print(f"  {name} ({variant}): extract failed: {r.stderr.decode().strip()}")
                    failed += 1
                    continue
                p, f = compare(reft, tree(out), variant == "--preserve")
                for line in f[:20]:
                    print(f"  {name} ({variant}): {line}")
                if len(f) > 20:
                    print(f"  {name} ({variant}): ... {len(f) - 20} more")
                passed += p
                failed += len(f)
            print(f"{name}: {passed} passed, {failed} failed ({len(reft)} paths, 3 ways)")
            total_pass += passed
            total_fail += failed
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{total_pass} passed, {total_fail} failed")
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
