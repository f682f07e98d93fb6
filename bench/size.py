#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Where the bytes of an image are (issue 15).

    bench/size.py [--image IMG | --builddir B --kver K] [--level N] [--top N]
                  [--codecs] [--unpack]

Without --image it builds the generic image (`uniramfs build -k KVER -o FILE
--config /dev/null --generic`). It reads the image's cpio (each segment
decompressed with the zstd/xz/gzip/lz4 command-line tools), and prints:

- the groups: each tool in usr/sbin with the libraries only it needs
  (DT_NEEDED, and for the LUKS2 token plugins what they dlopen(), as
  src/gen/features/stack_token.c lists), the libraries more than one group needs,
  the modules by kernel directory, the init, the rest. For each: entries,
  bytes in the cpio, the group compressed alone (`zstd -LEVEL -T1` of its
  cpio entries), and what leaving it out saves from the whole image
  compressed the same way (the whole minus the whole without it);
- the --top N biggest files, with each compressed alone;
- --codecs: the whole cpio through zstd 3/6/12/19, 19 with --long=27, xz 6
  with and without the x86 BCJ filter (one thread each: size and seconds);
- --unpack: each --codecs variant booted in QEMU TCG with printk.time=1:
  the kernel's span from "Trying to unpack rootfs image" to "Freeing initrd
  memory" (median of --boots N).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(HERE)
sys.dont_write_bytecode = True

# What the token plugins dlopen(): src/gen/features/stack_token.c's table.
DLOPENED = {
    "libcryptsetup-token-systemd-tpm2.so": ["libtss2-esys.so.0", "libtss2-rc.so.0",
                                           "libtss2-mu.so.0", "libtss2-tcti-device.so.0"],
    "libcryptsetup-token-systemd-fido2.so": ["libfido2.so.1"],
    "libcryptsetup-token-systemd-pkcs11.so": ["libp11-kit.so.0"],
}

MAGIC = [(b"\x28\xb5\x2f\xfd", ["zstd", "-dc"]), (b"\xfd7zXZ\0", ["xz", "-dc"]),
         (b"\x1f\x8b", ["gzip", "-dc"]), (b"\x02\x21\x4c\x18", ["lz4", "-dc"])]


def decompress(data):
    """The cpio bytes of every segment, one after another."""
    out = b""
    pos = 0
    while pos < len(data):
        if data[pos:pos + 6] in (b"070701", b"070702"):
            end = data.find(b"TRAILER!!!", pos)
            end = data.find(b"070701", end) if end >= 0 else -1
            if end < 0:
                out += data[pos:]
                break
            out += data[pos:end]
            pos = end
            continue
        if data[pos] == 0:
            pos += 1
            continue
        for m, cmd in MAGIC:
            if data.startswith(m, pos):
                # the CLI tools read concatenated frames of one format
                out += subprocess.run(cmd, input=data[pos:], stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL).stdout
                return out
        sys.exit("size.py: unknown data at offset %d" % pos)
    return out


def entries(cpio):
    """(name, mode, raw bytes of the entry, data) for each newc entry."""
    pos = 0
    res = []
    while pos + 110 <= len(cpio):
        if cpio[pos:pos + 6] not in (b"070701", b"070702"):
            pos += 1
            continue
        h = cpio[pos:pos + 110]
        mode = int(h[14:22], 16)
        size = int(h[54:62], 16)
        nlen = int(h[94:102], 16)
        name = cpio[pos + 110:pos + 110 + nlen - 1].decode(errors="replace")
        d0 = (pos + 110 + nlen + 3) & ~3
        end = (d0 + size + 3) & ~3
        if name != "TRAILER!!!":
            res.append((name, mode, cpio[pos:end], cpio[d0:d0 + size]))
        pos = end
    return res


def needed(data):
    """DT_NEEDED of a 64-bit little-endian ELF, [] for anything else."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return []
    import struct
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3a)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    res = []
    for s in secs:
        if s[1] != 6:  # SHT_DYNAMIC
            continue
        strtab = secs[s[6]]
        for off in range(s[4], s[4] + s[5], 16):
            tag, val = struct.unpack_from("<qQ", data, off)
            if tag == 0:
                break
            if tag == 1:
                p = strtab[4] + val
                res.append(data[p:data.index(b"\0", p)].decode())
    return res


def zsize(data, cmd):
    return len(subprocess.run(cmd, input=data, stdout=subprocess.PIPE, check=True).stdout)


def groups(ents):
    """{group: [entry index]} as the module docstring says."""
    by_base = {}
    links = {}
    for i, (name, mode, _, data) in enumerate(ents):
        base = os.path.basename(name)
        if mode & 0o170000 == 0o120000:
            links[base] = os.path.basename(data.decode(errors="replace"))
        elif mode & 0o170000 == 0o100000:
            by_base.setdefault(base, i)

    def real(lib):
        seen = 0
        while lib in links and seen < 10:
            lib, seen = links[lib], seen + 1
        return by_base.get(lib)

    def closure(i):
        todo, got = [i], set()
        while todo:
            j = todo.pop()
            if j is None or j in got:
                continue
            got.add(j)
            base = os.path.basename(ents[j][0])
            for lib in needed(ents[j][3]) + DLOPENED.get(base, []):
                todo.append(real(lib))
        return got

    roots = {}
    for i, (name, mode, _, _) in enumerate(ents):
        if mode & 0o170000 != 0o100000:
            continue
        if name.startswith("usr/sbin/") or name == "init":
            roots.setdefault(os.path.basename(name), []).append(i)
        elif "/cryptsetup/libcryptsetup-token-" in name:
            roots.setdefault("LUKS2 token plugins", []).append(i)
    reach = {}
    for r, idx in roots.items():
        for i in idx:
            for j in closure(i):
                reach.setdefault(j, set()).add(r)
    g = {}
    for i, (name, mode, _, _) in enumerate(ents):
        if i in reach:
            rs = reach[i]
            key = ("tool %s" % next(iter(rs))) if len(rs) == 1 else "libraries shared by tools"
            if rs == {"LUKS2 token plugins"}:
                key = "LUKS2 token plugins"
            if rs == {"init"}:
                key = "init"
        elif "/kernel/" in name and ".ko" in name:
            rest = name.split("/kernel/", 1)[1].split("/")
            key = "modules " + "/".join(rest[:2] if rest[0] == "drivers" else rest[:1])
        elif "/lib/modules/" in name:
            key = "modules.* indexes"
        elif mode & 0o170000 == 0o100000 and ".so" in name:
            key = "libraries nothing needs"
        else:
            key = "dirs, links, nodes, etc/"
        g.setdefault(key, []).append(i)
    return g


def build(a):
    uniramfs = os.path.join(a.builddir, "uniramfs")
    kver = a.kver or sorted(os.listdir("/lib/modules"))[-1]
    img = os.path.join(tempfile.mkdtemp(prefix="size-"), "generic.img")
    cmd = [uniramfs, "build", "-k", kver, "-o", img, "--config", "/dev/null", "--generic",
           "--init", os.path.join(a.builddir, "uniramfs-init")]
    print("$ SOURCE_DATE_EPOCH=0 " + " ".join(cmd))
    subprocess.run(cmd, check=True, env=dict(os.environ, SOURCE_DATE_EPOCH="0"))
    return img


def codecs(cpio, a):
    res = []
    for i, (label, cmd, ext) in enumerate([
            ("zstd -3", ["zstd", "-3", "-T1", "-c"], "zst"),
            ("zstd -6", ["zstd", "-6", "-T1", "-c"], "zst"),
            ("zstd -12", ["zstd", "-12", "-T1", "-c"], "zst"),
            ("zstd -19", ["zstd", "-19", "-T1", "-c"], "zst"),
            ("zstd -19 --long=27", ["zstd", "-19", "--long=27", "-T1", "-c"], "zst"),
            ("xz -6 (crc32)", ["xz", "-6", "--check=crc32", "-T1", "-c"], "xz"),
            ("xz --x86 lzma2 6 (crc32)", ["xz", "--x86", "--lzma2=preset=6", "--check=crc32",
                                         "-T1", "-c"], "xz")]):
        if a.variants and str(i + 1) not in a.variants.split(","):
            continue
        t = time.monotonic()
        out = subprocess.run(cmd, input=cpio, stdout=subprocess.PIPE, check=True).stdout
        dt = time.monotonic() - t
        res.append((label, out, dt))
        print("%-28s %10d B  %6.1f%%  %6.2f s" % (label, len(out), 100.0 * len(out) / len(cpio), dt),
              flush=True)
    return res


UNPACK_RE = re.compile(r"^\[\s*([\d.]+)\] Trying to unpack rootfs image", re.M)
FREED_RE = re.compile(r"^\[\s*([\d.]+)\] Freeing initrd memory", re.M)


def unpack_time(vmlinuz, img, log):
    """Seconds the kernel spent unpacking img, from its printk times."""
    sys.path.insert(0, os.path.join(SRCDIR, "tests/boot"))
    import run as boottest
    text, _, _, _ = boottest.boot(vmlinuz, img, [], "virtio-blk",
                                  "console=ttyS0 printk.time=1 panic=-1 rdinit=/nonexistent",
                                  log, stop_on=["Freeing initrd memory"])
    a, b = UNPACK_RE.search(text), FREED_RE.search(text)
    if not a or not b or "Initramfs unpacking failed" in text:
        # the kernel says why (a window too large, a bad checksum) and
        # boots on without the image: not a time to report
        m = re.search(r"Initramfs unpacking failed: (.*)", text)
        print("  %s: %s" % (img, m.group(1) if m else "no unpack span in the log"))
        return None
    return float(b.group(1)) - float(a.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--image")
    ap.add_argument("--builddir", default=os.path.join(SRCDIR, "build"))
    ap.add_argument("--kver")
    ap.add_argument("--level", type=int, default=6, help="zstd level of the group table")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--codecs", action="store_true")
    ap.add_argument("--unpack", action="store_true")
    ap.add_argument("--boots", type=int, default=3)
    ap.add_argument("--variants", help="--codecs rows to run, by number (1 = zstd -3 ... 7)")
    ap.add_argument("--no-groups", action="store_true", help="skip the group and file tables")
    a = ap.parse_args()
    a.builddir = os.path.abspath(a.builddir)
    img = a.image or build(a)
    with open(img, "rb") as f:
        raw = f.read()
    cpio = decompress(raw)
    ents = entries(cpio)
    zcmd = ["zstd", "-%d" % a.level, "-T1", "-c"]
    whole = zsize(cpio, zcmd)
    print("image %s: %d B, %d entries, cpio %d B; zstd -%d -T1 of the cpio: %d B"
          % (img, len(raw), len(ents), len(cpio), a.level, whole))
    if a.no_groups:
        g = {}
    else:
        g = groups(ents)
    rows = []
    for key, idx in g.items():
        s = set(idx)
        part = b"".join(ents[i][2] for i in idx)
        rest = b"".join(e[2] for i, e in enumerate(ents) if i not in s)
        rows.append((whole - zsize(rest, zcmd), key, len(idx), len(part), zsize(part, zcmd)))
    rows.sort(reverse=True)
    print("\n%-34s %7s %11s %11s %11s" % ("group", "entries", "cpio B", "alone B", "saves B"))
    for saves, key, n, size, alone in rows:
        print("%-34s %7d %11d %11d %11d" % (key, n, size, alone, saves))
    print("%-34s %7d %11d %11d" % ("sum", len(ents), sum(r[3] for r in rows), sum(r[4] for r in rows)))
    for key, idx in sorted(g.items()):
        if key.startswith("tool ") or key.startswith("LUKS2") or key.startswith("libraries"):
            print("  %s: %s" % (key, " ".join(os.path.basename(ents[i][0]) for i in idx
                                              if ents[i][1] & 0o170000 == 0o100000)))
    files = sorted((len(e[3]), e[0], e[3]) for e in ents
                   if e[1] & 0o170000 == 0o100000 and not a.no_groups)
    print("\n%-70s %10s %10s" % ("biggest files", "bytes", "alone B"))
    for size, name, data in files[::-1][:a.top]:
        print("%-70s %10d %10d" % (name, size, zsize(data, zcmd)))
    if a.codecs or a.unpack:
        print("\nthe whole cpio, one thread:")
        variants = codecs(cpio, a)
    if a.unpack:
        sys.path.insert(0, os.path.join(SRCDIR, "tests/boot"))
        import run as boottest
        _, vmlinuz = boottest.find_kernel(a.kver)
        work = tempfile.mkdtemp(prefix="size-unpack-")
        print("\nkernel unpack (Trying to unpack rootfs image .. Freeing initrd memory), QEMU TCG:")
        for label, out, _ in [("as built: " + os.path.basename(img), raw, 0)] + variants:
            p = os.path.join(work, "v.img")
            with open(p, "wb") as f:
                f.write(out)
            ts = [unpack_time(vmlinuz, p, os.path.join(work, "boot.log")) for _ in range(a.boots)]
            ok = [t for t in ts if t is not None]
            print("%-28s %10d B  unpack %s s (median of %d: %s)"
                  % (label, len(out), "%.3f" % statistics.median(ok) if ok else "?",
                     len(ok), " ".join("%.3f" % t for t in ok)), flush=True)
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
