#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The distribution test's LUKS + LVM disk, made in the boot tests' builder VM
(tests/boot/builder.py: the host has no device-mapper).  A blank disk gets
LUKS2 (key file, fast PBKDF2), in it a PV of VG debvg, LV root over all of it,
and the Debian root's ext4 image is copied into the LV block for block, so the
filesystem (and its UUID) is the one the plain boot used.

usage: stackdisk.py UNIRAMFS KVER VMLINUZ WORK EXT4_IMAGE KEYFILE LUKS_UUID OUT
"""

import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "boot"))
import builder  # noqa: E402
import disks  # noqa: E402
import serialtext  # noqa: E402

LAYOUT = r'''
# $1: the blank disk, $2: the Debian root's ext4 image
luks_format luks2 "$1"
lvm pvcreate -q -y /dev/mapper/cr_root
lvm vgcreate -q debvg /dev/mapper/cr_root
lvm lvcreate -q -y -W y -l 100%FREE -n root debvg
lvm lvs -o vg_name,lv_name,lv_size,devices debvg
dd if="$2" of=/dev/debvg/root bs=4M conv=fsync 2>&1 | tail -1
blkid /dev/debvg/root
lvm vgchange -q -a n debvg
luks_close
'''


def main():
    uniramfs, kver, vmlinuz, work, ext4, keyfile, luks_uuid, out = sys.argv[1:9]
    env = {"uniramfs": uniramfs, "kver": kver, "vmlinuz": vmlinuz}
    os.makedirs(work, exist_ok=True)
    img = builder.builder_image(work, env)
    log = os.path.join(work, "builder-luks-lvm.log")
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        top = os.path.join(tmp, "src")
        os.makedirs(top)
        with open(os.path.join(builder.SCRIPTS, "common.sh")) as f, \
                open(os.path.join(top, "layout.sh"), "w") as o:
            o.write(f.read() + LAYOUT)
        with open(keyfile, "rb") as f, open(os.path.join(top, "root.key"), "wb") as o:
            o.write(f.read())
        with open(os.path.join(top, "params"), "w") as f:
            f.write("LAYOUT='debian-luks-lvm'\nLUKS_UUID='%s'\nKEYFILE='/src/root.key'\n" % luks_uuid)
        src = os.path.join(tmp, "src.img")
        with open(src, "wb") as f:
            f.truncate(32 * 1024 * 1024)
        disks._run(["mkfs.ext4", "-q", "-F", "-d", top, "-L", "ubsrc", "-E", "root_owner=0:0", src])
        blank = os.path.join(tmp, "disk.img")
        with open(blank, "wb") as f:
            # the LUKS2 header (16 MiB) and the LVM metadata on top of the image
            f.truncate(os.path.getsize(ext4) + 64 * 1024 * 1024)
        cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "1G", "-smp", "1",
               "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none",
               "-serial", "file:" + log, "-kernel", vmlinuz, "-initrd", img,
               "-append", "console=ttyS0 quiet panic=-1"]
        for i, d in enumerate((blank, ext4, src)):
            cmd += ["-drive", "if=none,id=b%d,format=raw,file=%s" % (i, d),
                    "-device", "virtio-blk-pci,drive=b%d" % i]
        t = time.monotonic()
        try:
            subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=600)
        except subprocess.TimeoutExpired:
            pass
        text = serialtext.read(log)
        if "\nBUILDER-OK" not in text:
            print("builder VM did not finish (%.0f s):\n%s" % (time.monotonic() - t,
                  "\n".join(text.splitlines()[-30:])))
            return 1
        os.rename(blank, out)
        print("built the LUKS + LVM disk in the builder VM in %.0f s" % (time.monotonic() - t))
    return 0


if __name__ == "__main__":
    sys.exit(main())
