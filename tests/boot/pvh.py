#!/usr/bin/env python3
"""The kernel a test boots under QEMU TCG, started through its PVH entry.

A bzImage decompresses its kernel in the guest before anything else runs:
under TCG that is the slowest part of a boot (Debian 12's xz payload takes
about 3.3 s of the 6.5 s a plain boot test lasts here, before the kernel's
first message).  A kernel built with CONFIG_PVH carries an ELF note with a
32-bit entry point, and QEMU starts such an uncompressed ELF directly
(`-kernel vmlinux`, the same -initrd and -append), so the tests decompress
each bzImage once on the host and cache the ELF by the bzImage's hash.

What the guest runs after the entry is the same kernel binary; what this
skips is the bzImage's decompressor and its KASLR choice, which no test is
about.  Boots that are about the way a kernel is loaded keep the bzImage:
firmware (OVMF, iPXE) loads it itself, the README's demo and the Debian
live stick boot it as a boot loader would, and UNIRAMFS_TEST_BZIMAGE=1
makes every boot do so.  So do boots with a screen or a TPM (argv()
says why).

  pvh.py BZIMAGE      prints the path to boot (the cached ELF, or BZIMAGE
                      when it cannot be started through PVH)
"""
import hashlib
import lzma
import os
import struct
import subprocess
import sys
import tempfile
import zlib

CACHE = os.environ.get("UNIRAMFS_TEST_CACHE", "/var/cache/uniramfs-tests") + "/pvh"

# payload magics of the compressors Python or the host can undo here
XZ = b"\xfd7zXZ\x00"
GZIP = b"\x1f\x8b\x08"
ZSTD = b"\x28\xb5\x2f\xfd"

XEN_ELFNOTE_PHYS32_ENTRY = 18


def _payload(image):
    """The compressed kernel inside a bzImage, or None: the boot protocol's
    header (Documentation/arch/x86/boot.rst) gives its offset and length."""
    if len(image) < 0x250 or image[0x202:0x206] != b"HdrS":
        return None
    version = struct.unpack_from("<H", image, 0x206)[0]
    if version < 0x208:     # payload_offset came with protocol 2.08
        return None
    setup_sects = image[0x1f1] or 4
    offset, length = struct.unpack_from("<II", image, 0x248)
    start = (setup_sects + 1) * 512 + offset
    if start + length > len(image):
        return None
    return image[start:start + length]


def _decompress(payload):
    if payload.startswith(XZ):
        # the kernel appends its size after the stream: read one stream only
        return lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(payload)
    if payload.startswith(GZIP):
        return zlib.decompressobj(wbits=31).decompress(payload)
    if payload.startswith(ZSTD):
        # python 3.11 has no zstd; the kernel's frame is followed by its
        # 4-byte size, which zstd(1) would take for a second frame
        try:
            p = subprocess.run(["zstd", "-dcq"], input=payload[:-4], capture_output=True)
        except FileNotFoundError:
            return None
        return p.stdout if p.returncode == 0 else None
    return None


def _has_pvh_note(elf):
    """True if the ELF (64-bit little-endian) has Xen's PHYS32_ENTRY note,
    which QEMU needs to start it."""
    if len(elf) < 64 or elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        return False
    phoff = struct.unpack_from("<Q", elf, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        ph = phoff + i * phentsize
        if ph + 56 > len(elf):
            return False
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", elf, ph)
        if p_type != 4:     # PT_NOTE
            continue
        pos, end = p_offset, min(p_offset + p_filesz, len(elf))
        while pos + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", elf, pos)
            name = elf[pos + 12:pos + 12 + namesz].rstrip(b"\0")
            if name == b"Xen" and ntype == XEN_ELFNOTE_PHYS32_ENTRY:
                return True
            pos += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False


def kernel(bzimage):
    """The path to boot for BZIMAGE: its uncompressed ELF from the cache
    (made on first use) if it can start through PVH, else BZIMAGE."""
    if os.environ.get("UNIRAMFS_TEST_BZIMAGE") == "1":
        return bzimage
    with open(bzimage, "rb") as f:
        image = f.read()
    path = os.path.join(CACHE, hashlib.sha256(image).hexdigest()[:20] + ".elf")
    if os.path.exists(path):
        return path
    no = path + ".no"       # remembered: this one cannot
    if os.path.exists(no):
        return bzimage
    payload = _payload(image)
    elf = _decompress(payload) if payload else None
    os.makedirs(CACHE, exist_ok=True)
    if not elf or not _has_pvh_note(elf):
        open(no, "w").close()
        return bzimage
    fd, tmp = tempfile.mkstemp(dir=CACHE, prefix=".pvh-")
    os.fchmod(fd, 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(elf)
    os.replace(tmp, path)   # two boots at once may both make it: same bytes
    return path


def argv(cmd):
    """CMD, a qemu-system-x86_64 command line, with its -kernel made the
    PVH ELF where that boots the same machine: not under firmware (-bios,
    pflash: OVMF loads the bzImage itself), not with a screen (-vga: the
    PVH entry fills no screen_info, so the kernel has no VGA text console,
    no font to load, no VT for a keyboard's keys), and not with a TPM. QEMU 7.2
    puts a PVH boot's initrd right under the top of low RAM less the
    160 KiB it keeps for ACPI, but with a TPM SeaBIOS's tables and TPM
    log reach 64 KiB further down (e820 reserved from 0x3ffcd000 rather
    than 0x3ffdd000 at -m 1G): the initrd overwrites them and the kernel
    runs with ACPI off and no TPM. A bzImage's initrd lands lower."""
    cmd = list(cmd)
    if not cmd or os.path.basename(cmd[0]) != "qemu-system-x86_64" or "-kernel" not in cmd:
        return cmd
    if any(a in ("-bios", "-vga") or "if=pflash" in a or "tpm" in a for a in cmd):
        return cmd
    i = cmd.index("-kernel") + 1
    cmd[i] = kernel(cmd[i])
    return cmd


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: pvh.py BZIMAGE")
    print(kernel(sys.argv[1]))
