#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The distribution test's stacked roots, made in the boot tests' builder VM.

The encrypted install: the layout Debian's installer makes with "Guided -
use entire disk and set up encrypted LVM", plus a second LUKS volume in
crypttab with the same passphrase, as many machines have for a data disk.

  disk 1: LUKS2 (cr_root) -> PV of VG debvg -> LVs root, swap, home
  disk 2: LUKS2 (cr_data) -> ext4 mounted on /srv

Intel firmware RAID (IMSM), as a machine whose BIOS set up RAID1 has it:
an IMSM container over both disks, a RAID1 volume in it holding the root.
Its metadata is kept by mdmon, which the init starts and the root's
mdmon@.service takes over.

  disk 1, disk 2: IMSM container -> RAID1 volume vol0 -> the root's ext4

Made in the boot tests' builder VM (tests/boot/builder.py: the host has no
device-mapper).  The root LV gets the Debian root's ext4 image block for
block, so the filesystem (and its UUID) is the one the plain boot used;
swap, /home and /srv are small images made on the host with their UUIDs.

  stackdisk.py build UNIRAMFS KVER VMLINUZ WORK ROOT_EXT4 HOME_EXT4 SWAP DATA_EXT4 \\
                     PASS LUKS_UUID DATA_LUKS_UUID OUT1 OUT2
  stackdisk.py build-imsm UNIRAMFS KVER VMLINUZ WORK ROOT_EXT4 OUT1 OUT2
  stackdisk.py boot [--persist|--splash] VMLINUZ INITRD DISK1 DISK2 PASS LOG CMDLINE [QEMU-ARG...]

boot types PASS once at the init's prompt (the serial console, through
tests/boot/run.py's Console; PASS "-": no prompt expected) and leaves the
guest's console text in LOG; tests/distro/run.sh checks it.  It exits 1
when the prompt never came.  --persist: the guest's writes reach DISK1 and
DISK2 (otherwise QEMU's -snapshot keeps them), for a look at them after.

--splash: the Plymouth splash is up (QEMU's std VGA and its monitor).  At
the init's prompt a screendump must show the splash asking (the boot
tests' check, tests/boot/scenarios_plymouth.py: spinfinity's blue, the
dialog's white), and PASS is typed as key presses (sendkey), which only
plymouthd reads.  Then, in the root, the test's uniramfs-splash unit asks
a question through the same plymouthd before plymouth-quit (it prints
UNIRAMFS-SPLASH-ASK): a second screendump must show the splash asking
again, and SPLASH_ANSWER is typed the same way; the unit prints what
plymouth answered.  The screendumps are LOG's name with -prompt.png and
-root.png.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "boot"))
sys.dont_write_bytecode = True
import builder  # noqa: E402
import disks  # noqa: E402
import run as bootrun  # noqa: E402
import pvh  # noqa: E402
import serialtext  # noqa: E402
from scenarios_plymouth import Screenshot, keys_for  # noqa: E402

LAYOUT = r'''
# $1 $2: the blank disks; $3 root, $4 home, $5 swap, $6 data: their images
fmt() {		# DEV UUID NAME
	printf '%s' "$PASS" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
		--uuid "$2" --key-file - "$1"
	printf '%s' "$PASS" | cryptsetup open --key-file - "$1" "$3"
}
put() {		# IMAGE DEV
	dd if="$1" of="$2" bs=4M conv=fsync 2>&1 | tail -1
}
fmt "$1" "$LUKS_UUID" cr_root
lvm pvcreate -q -y /dev/mapper/cr_root
lvm vgcreate -q debvg /dev/mapper/cr_root
lvm lvcreate -q -y -W y -L "$ROOT_MB"M -n root debvg
lvm lvcreate -q -y -W y -L "$SWAP_MB"M -n swap debvg
lvm lvcreate -q -y -W y -l 100%FREE -n home debvg
lvm lvs -o vg_name,lv_name,lv_size,devices debvg
put "$3" /dev/debvg/root
put "$4" /dev/debvg/home
put "$5" /dev/debvg/swap
blkid /dev/debvg/root /dev/debvg/swap /dev/debvg/home
lvm vgchange -q -a n debvg
cryptsetup close cr_root
fmt "$2" "$DATA_LUKS_UUID" cr_data
put "$6" /dev/mapper/cr_data
blkid /dev/mapper/cr_data
cryptsetup close cr_data
'''

# IMSM on disks with no Intel option ROM and no serial IMSM can read, as
# mdadm's own tests make it (tests/boot/builder/imsm-raid1.sh).
IMSM_LAYOUT = r'''
# $1 $2: the blank disks; $3: the root's ext4 image
export IMSM_NO_PLATFORM=1 IMSM_DEVNAME_AS_SERIAL=1
mkdir -p /run/mdadm
mdadm --create /dev/md/imsm0 --run --metadata=imsm --raid-devices=2 "$1" "$2"
mdadm --create /dev/md/vol0 --run --level=1 --raid-devices=2 --assume-clean /dev/md/imsm0
dd if="$3" of=/dev/md/vol0 bs=4M conv=fsync 2>&1 | tail -1
cat /proc/mdstat
blkid /dev/md/vol0
mdadm --wait-clean /dev/md/vol0 || true
mdadm --stop /dev/md/vol0
mdadm --stop /dev/md/imsm0
'''

SPLASH_ANSWER = "splash-answer-29"   # typed into the root's question (run.sh checks it)

LUKS_HEADER_MB = 16     # cryptsetup's LUKS2 default
IMSM_SLACK_MB = 32      # IMSM's metadata at the end of each disk, and rounding
SLACK_MB = 16           # LVM metadata and rounding to 4 MiB extents


def mib(path):
    return (os.path.getsize(path) + (1 << 20) - 1) >> 20


def run_builder(uniramfs, kver, vmlinuz, work, name, script, params, blanks, images):
    """Lay out SCRIPT in the builder VM on blank disks of BLANKS (MiB each,
    in order), with IMAGES attached after them; return the blank disks'
    paths (kept), or None after saying why."""
    env = {"uniramfs": uniramfs, "kver": kver, "vmlinuz": vmlinuz}
    os.makedirs(work, exist_ok=True)
    img = builder.builder_image(work, env)
    log = os.path.join(work, "builder-%s.log" % name)
    tmp = tempfile.mkdtemp(dir=work)
    top = os.path.join(tmp, "src")
    os.makedirs(top)
    with open(os.path.join(builder.SCRIPTS, "common.sh")) as f, \
            open(os.path.join(top, "layout.sh"), "w") as o:
        o.write(f.read() + script)
    with open(os.path.join(top, "params"), "w") as f:
        f.write("LAYOUT='%s'\n" % name + "".join("%s='%s'\n" % kv for kv in params))
    src = os.path.join(tmp, "src.img")
    with open(src, "wb") as f:
        f.truncate(32 * 1024 * 1024)
    disks._run(["mkfs.ext4", "-q", "-F", "-d", top, "-L", "ubsrc", "-E", "root_owner=0:0", src])
    paths = []
    for i, size in enumerate(blanks):
        paths.append(os.path.join(tmp, "disk%d.img" % (i + 1)))
        with open(paths[-1], "wb") as f:
            f.truncate(size << 20)
    # -cpu max: AES-NI, which TCG runs far faster than aes-generic
    cmd = ["qemu-system-x86_64", "-accel", "tcg", "-cpu", "max", "-m", "1G", "-smp", "1",
           "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none",
           "-serial", "file:" + log, "-kernel", vmlinuz, "-initrd", img,
           "-append", "console=ttyS0 quiet panic=-1"]
    for i, d in enumerate(paths + list(images) + [src]):
        cmd += ["-drive", "if=none,id=b%d,format=raw,file=%s" % (i, d),
                "-device", "virtio-blk-pci,drive=b%d" % i]
    t = time.monotonic()
    try:
        subprocess.run(pvh.argv(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=900)
    except subprocess.TimeoutExpired:
        pass
    text = serialtext.read(log)
    if "\nBUILDER-OK" not in text:
        shutil.rmtree(tmp)
        print("builder VM did not finish (%.0f s):\n%s" % (time.monotonic() - t,
              "\n".join(text.splitlines()[-30:])))
        return None
    print("built the %s disks in the builder VM in %.0f s" % (name, time.monotonic() - t))
    return paths


def place(paths, outs):
    """Move the made disks to OUTS; the builder's scratch goes."""
    if paths is None:
        return 1
    for p, o in zip(paths, outs):
        os.rename(p, o)
    shutil.rmtree(os.path.dirname(paths[0]))
    return 0


def build(uniramfs, kver, vmlinuz, work, root, home, swap, data, passphrase, luks_uuid,
          data_luks_uuid, out1, out2):
    params = (("PASS", passphrase), ("LUKS_UUID", luks_uuid), ("DATA_LUKS_UUID", data_luks_uuid),
              ("ROOT_MB", mib(root)), ("SWAP_MB", mib(swap)))
    blanks = (LUKS_HEADER_MB + SLACK_MB + mib(root) + mib(swap) + mib(home),
              LUKS_HEADER_MB + mib(data))
    paths = run_builder(uniramfs, kver, vmlinuz, work, "debian-encrypted-lvm", LAYOUT, params,
                        blanks, (root, home, swap, data))
    return place(paths, (out1, out2))


def build_imsm(uniramfs, kver, vmlinuz, work, root, out1, out2):
    size = mib(root) + IMSM_SLACK_MB
    paths = run_builder(uniramfs, kver, vmlinuz, work, "imsm-raid1", IMSM_LAYOUT, (),
                        (size, size), (root,))
    return place(paths, (out1, out2))


def boot(vmlinuz, initrd, disk1, disk2, passphrase, log, cmdline, *qemu_args, persist=False,
         splash=False):
    # systemd's whole startup under TCG: minutes, not the init's seconds
    bootrun.BOOT_TIMEOUT = 900
    prompt = r"Passphrase for /dev/vda \("
    interact = [] if passphrase == "-" else [(prompt, passphrase + "\n")]
    if splash:
        interact = [(prompt, Screenshot("prompt")), ("", bootrun.Keys(keys_for(passphrase))),
                    ("UNIRAMFS-SPLASH-ASK", Screenshot("root")),
                    ("", bootrun.Keys(keys_for(SPLASH_ANSWER)))]
    text, dt, timed_out, missed = bootrun.boot(
        vmlinuz, initrd, [disk1, disk2], "virtio", cmdline, log, interact=interact,
        extra=qemu_args, snapshot=not persist)
    with open(log, "w") as f:
        f.write(text)
    print("booted in %.0f s%s" % (dt, ", timed out" if timed_out else ""))
    if missed:
        print("the console never showed %r" % missed)
        return 1
    return 0


def main():
    if len(sys.argv) == 15 and sys.argv[1] == "build":
        return build(*sys.argv[2:])
    if len(sys.argv) == 9 and sys.argv[1] == "build-imsm":
        return build_imsm(*sys.argv[2:])
    if len(sys.argv) >= 10 and sys.argv[1:3] == ["boot", "--persist"]:
        return boot(*sys.argv[3:], persist=True)
    if len(sys.argv) >= 10 and sys.argv[1:3] == ["boot", "--splash"]:
        return boot(*sys.argv[3:], splash=True)
    if len(sys.argv) >= 9 and sys.argv[1] == "boot":
        return boot(*sys.argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
