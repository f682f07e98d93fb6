# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for live ISOs (issue 28): a real ISO made with xorriso in
the El Torito layout distributions use (isolinux's boot record, isohybrid
MBR, LiveOS/squashfs.img, the volume id as label, an MD5 sum implanted by
implantisomd5), attached as a CD-ROM and as a USB stick; dracut-ng
TEST-30's "iso" case (iso-scan/filename=, an ISO file on an ext4 disk)
with hostile neighbours; booster's TestISO (the root itself an ISO on
/dev/sr0); and media that are truncated, not images, larger than RAM or
damaged, each refused with what was found.

The ISOs are made once per testinit and kept in
$UNIRAMFS_TEST_CACHE/live-iso/ (default /var/cache/uniramfs-tests), keyed by
a hash of the recipe and testinit."""

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading

import disks

CACHE = os.path.join(os.environ.get("UNIRAMFS_TEST_CACHE", "/var/cache/uniramfs-tests"),
                     "live-iso")
RECIPE = b"live-iso-1"
ISOLINUX = "/usr/lib/ISOLINUX"
SYSLINUX_BIOS = "/usr/lib/syslinux/modules/bios"
VOLID = "UNIRAMFS-LIVE"
NESTED_VOLID = "Fedora-WS-Live-35"
_lock = threading.Lock()


def _run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _key(testinit, what):
    with open(testinit, "rb") as f:
        return hashlib.sha256(RECIPE + what.encode() + f.read()).hexdigest()[:16]


def _squashfs(root_tree, out):
    _run(["gensquashfs", "-q", "-D", root_tree, out])


def _live_tree(tmp, testinit):
    """The live system's root, in a squashfs: the test root."""
    root = os.path.join(tmp, "root")
    disks._populate(root, testinit)
    return root


def _make_iso(tree, out, volid, boot):
    cmd = ["xorriso", "-as", "mkisofs", "-quiet", "-o", out, "-V", volid, "-R"]
    if boot:
        # isolinux's El Torito record and the isohybrid MBR, as Fedora's
        # (before 37), Debian's and Ubuntu's live ISOs have them
        cmd += ["-b", "isolinux/isolinux.bin", "-c", "isolinux/boot.cat", "-no-emul-boot",
                "-boot-load-size", "4", "-boot-info-table",
                "-isohybrid-mbr", os.path.join(ISOLINUX, "isohdpfx.bin")]
    _run(cmd + [tree])


def _cached(name, testinit, make):
    """CACHE/name-KEY, made by make(tmpdir, out) once."""
    path = os.path.join(CACHE, "%s-%s" % (name, _key(testinit, name)))
    with _lock:
        if os.path.exists(path):
            return path
        os.makedirs(CACHE, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=CACHE, prefix=".build-") as tmp:
            out = os.path.join(tmp, "out")
            make(tmp, out)
            os.rename(out, path)
    return path


def live_iso(testinit):
    """The live ISO: isolinux/ with its boot record and a menu naming
    root=live:CDLABEL=, LiveOS/squashfs.img (Fedora's flat layout: the
    root itself), its MD5 sum implanted."""
    def make(tmp, out):
        tree = os.path.join(tmp, "iso")
        os.makedirs(os.path.join(tree, "isolinux"))
        os.makedirs(os.path.join(tree, "LiveOS"))
        shutil.copy(os.path.join(ISOLINUX, "isolinux.bin"), os.path.join(tree, "isolinux"))
        shutil.copy(os.path.join(SYSLINUX_BIOS, "ldlinux.c32"), os.path.join(tree, "isolinux"))
        with open(os.path.join(tree, "isolinux", "isolinux.cfg"), "w") as f:
            f.write("default live\nlabel live\n  kernel vmlinuz\n"
                    "  append initrd=initrd.img root=live:CDLABEL=%s rd.live.image\n" % VOLID)
        _squashfs(_live_tree(tmp, testinit), os.path.join(tree, "LiveOS", "squashfs.img"))
        _make_iso(tree, out, VOLID, boot=True)
        _run(["implantisomd5", out])
    return _cached("live.iso", testinit, make)


def nested_iso(testinit):
    """Fedora's older nested layout (Fedora up to 35, CentOS 8 and 9):
    LiveOS/squashfs.img on the ISO is a squashfs whose LiveOS/rootfs.img
    is an ext4 image (mkfs.ext4 -d) of the test root."""
    def make(tmp, out):
        inner = os.path.join(tmp, "inner")
        os.makedirs(os.path.join(inner, "LiveOS"))
        rootfs = os.path.join(inner, "LiveOS", "rootfs.img")
        with open(rootfs, "wb") as f:
            f.truncate(16 << 20)
        _run(["mkfs.ext4", "-q", "-F", "-L", "Anaconda", "-d", _live_tree(tmp, testinit),
              "-E", "root_owner=0:0", rootfs])
        tree = os.path.join(tmp, "iso")
        os.makedirs(os.path.join(tree, "LiveOS"))
        _squashfs(inner, os.path.join(tree, "LiveOS", "squashfs.img"))
        _make_iso(tree, out, NESTED_VOLID, boot=False)
    return _cached("nested.iso", testinit, make)


def damaged_iso(testinit):
    """The live ISO with bytes changed inside its squashfs, the MD5 sum
    implanted before: what a scratched disc or a bad download reads as."""
    good = live_iso(testinit)

    def make(tmp, out):
        shutil.copy(good, out)
        size = os.path.getsize(out)
        with open(out, "r+b") as f:
            f.seek(size * 2 // 3)
            f.write(b"\xde\xad\xbe\xef" * 256)
    return _cached("damaged.iso", testinit, make)


def root_iso(testinit):
    """booster's TestISO: the root itself on an ISO (Rock Ridge)."""
    def make(tmp, out):
        _make_iso(_live_tree(tmp, testinit), out, "BOOSTER-ISO", boot=False)
    return _cached("root.iso", testinit, make)


class _Iso:
    """A disk that is one of the ISOs above."""
    def __init__(self, name, fs, make):
        self.name, self.fs, self._make = name, fs, make

    def build(self, testinit, work, env):
        return [self._make(testinit)]


def _ext4(tmp, files, label, size_mb, out):
    """An ext4 image of size_mb holding files {path: source or bytes or (size,)}."""
    tree = os.path.join(tmp, "t-" + label)
    for rel, src in files.items():
        dst = os.path.join(tree, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if isinstance(src, tuple):      # a sparse file of that size
            with open(dst, "wb") as f:
                f.truncate(src[0])
        elif isinstance(src, bytes):
            with open(dst, "wb") as f:
                f.write(src)
        else:
            shutil.copy(src, dst)
    with open(out, "wb") as f:
        f.truncate(size_mb << 20)
    _run(["mkfs.ext4", "-q", "-F", "-L", label, "-d", tree, out])


class _Test30Iso:
    """dracut-ng TEST-30's disks for its "iso" case: the medium labelled
    dracut (LiveOS/rootfs.img), and an ext4 disk labelled dracut_iso
    holding linux.iso (xorriso -volid ISO -iso-level 3 of the same
    LiveOS/). Before that disk, two whose linux.iso is hostile: cut in
    half, and not an ISO at all. The scan must say so and go on."""
    name = "test30-iso"
    fs = "overlay"

    def build(self, testinit, work, env):
        def make(tmp, out):
            live = os.path.join(tmp, "live")
            os.makedirs(os.path.join(live, "LiveOS"))
            _squashfs(_live_tree(tmp, testinit), os.path.join(live, "LiveOS", "rootfs.img"))
            iso = os.path.join(tmp, "linux.iso")
            _run(["xorriso", "-as", "mkisofs", "-quiet", "-output", iso, live, "-volid", "ISO",
                  "-iso-level", "3"])
            os.makedirs(out)
            _ext4(tmp, {"LiveOS/rootfs.img": os.path.join(live, "LiveOS", "rootfs.img")},
                  "dracut", 64, os.path.join(out, "medium.img"))
            with open(iso, "rb") as f:
                data = f.read()
            with open(os.path.join(out, "truncated.bytes"), "w") as f:
                f.write("%d %d" % (len(data) // 2, len(data)))
            _ext4(tmp, {"linux.iso": data[:len(data) // 2]}, "cut", 64,
                  os.path.join(out, "cut.img"))
            _ext4(tmp, {"linux.iso": b"\x7fELF not an ISO" * 4096}, "junk", 16,
                  os.path.join(out, "junk.img"))
            _ext4(tmp, {"linux.iso": iso}, "dracut_iso", 64, os.path.join(out, "iso.img"))
        d = _cached("test30-iso", testinit, make)
        return [os.path.join(d, n) for n in ("medium.img", "cut.img", "junk.img", "iso.img")]

    def words(self, dpaths):
        with open(os.path.join(os.path.dirname(dpaths[0]), "truncated.bytes")) as f:
            have, want = f.read().split()
        return {"HAVE": have, "WANT": want}


class _HostileMedium:
    """An ext4 medium labelled "hostile" whose LiveOS/ has images no boot
    may use: big.img, 2 GiB (sparse: nothing is stored), larger than the
    guest's RAM; cut.img, a squashfs cut to half its length."""
    name = "live-hostile"
    fs = "overlay"

    def build(self, testinit, work, env):
        def make(tmp, out):
            sq = os.path.join(tmp, "root.sq")
            _squashfs(_live_tree(tmp, testinit), sq)
            with open(sq, "rb") as f:
                data = f.read()
            os.makedirs(out)
            with open(os.path.join(out, "cut.bytes"), "w") as f:
                f.write("%d %d" % (len(data) // 2, int.from_bytes(data[40:48], "little")))
            _ext4(tmp, {"LiveOS/big.img": (2 << 30,), "LiveOS/cut.img": data[:len(data) // 2]},
                  "hostile", 32, os.path.join(out, "hostile.img"))
        return [os.path.join(_cached("hostile", testinit, make), "hostile.img")]

    def words(self, dpaths):
        with open(os.path.join(os.path.dirname(dpaths[0]), "cut.bytes")) as f:
            have, want = f.read().split()
        return {"HAVE": have, "WANT": want}


LIVE = _Iso("live-iso", "overlay", live_iso)
NESTED = _Iso("nested-iso", "overlay", nested_iso)
DAMAGED = _Iso("damaged-iso", "overlay", damaged_iso)
ROOTISO = _Iso("root-iso", "iso9660", root_iso)
TEST30 = _Test30Iso()
HOSTILE = _HostileMedium()

ROOT_RO = r"mounts: /dev/loop\d+ /run/rootfsbase squashfs ro,"
OVERLAY = (r"root-mount=LiveOS_rootfs overlay rw,", "root-writable=yes", ROOT_RO)


def scenarios(Scenario):
    """run.py's Scenario list for live ISOs."""
    return [
        Scenario("live-iso-cdrom", "the live ISO on a SATA CD-ROM, root=live:CDLABEL= as "
                 "Fedora's menu says, rd.live.check (checkisomd5) and rd.live.ram=1: the image "
                 "copied to /run, the disc unmounted", LIVE, "live:CDLABEL=" + VOLID,
                 bus="cdrom", cmdline="rd.live.image rd.live.check rd.live.ram=1 "
                 "testinit.show=/sys/block/loop1/loop/backing_file", ours_only=True,
                 expect=OVERLAY + (r"show /sys/block/loop1/loop/backing_file: "
                                   r"/run/initramfs/squashed.img$",),
                 log_expect=("uniramfs: rd.live.check: checking /dev/sr0 (iso9660) against its "
                             "implanted MD5 sum",
                             "uniramfs: rd.live.check: /dev/sr0: the MD5 sum matches",
                             "uniramfs: rd.live.ram: copying /run/initramfs/live/LiveOS/"
                             "squashfs.img (",
                             "uniramfs: rd.live.ram: /dev/sr0 is no longer used: it may be "
                             "removed"),
                 log_absent=("/run/initramfs/live iso9660",)),
        Scenario("live-iso-usb", "the same ISO written to a USB stick (usb-storage on xHCI), "
                 "root=live:LABEL=", LIVE, "live:LABEL=" + VOLID, bus="usb",
                 cmdline="rd.live.image", ours_only=True,
                 expect=OVERLAY + (r"mounts: /dev/sda\d* /run/initramfs/live iso9660 ro,",),
                 log_expect=("uniramfs: root=live: mounted /run/initramfs/live/LiveOS/"
                             "squashfs.img (squashfs, ",)),
        Scenario("live-iso-nested", "Fedora's older nested layout (Fedora up to 35, CentOS "
                 "8/9): the ISO's LiveOS/squashfs.img holds LiveOS/rootfs.img, an ext4 image, "
                 "which is the root below the tmpfs", NESTED, "live:CDLABEL=" + NESTED_VOLID,
                 bus="cdrom", cmdline="rd.live.image", ours_only=True,
                 expect=(r"root-mount=LiveOS_rootfs overlay rw,", "root-writable=yes",
                         r"mounts: /dev/loop\d+ /run/rootfsbase ext4 ro,",
                         r"mounts: /dev/loop\d+ /run/initramfs/squashfs squashfs ro,",
                         r"mounts: /dev/sr0 /run/initramfs/live iso9660 ro,"),
                 log_expect=("uniramfs: root=live: mounted /run/initramfs/live/LiveOS/"
                             "squashfs.img (squashfs, ",
                             "uniramfs: root=live: mounted /run/initramfs/squashfs/LiveOS/"
                             "rootfs.img (ext4, ")),
        Scenario("live-test30-iso", "iso-scan/filename=linux.iso root=live:/dev/disk/by-label/"
                 "ISO (TEST-30 \"iso\"): the ISO file found on the fourth disk, after one whose "
                 "linux.iso is cut in half and one whose is no ISO", TEST30,
                 "live:/dev/disk/by-label/dracut",
                 cmdline="rd.overlay iso-scan/filename=linux.iso root=live:/dev/disk/by-label/ISO "
                 "rd.driver.pre=squashfs rd.driver.pre=ext4", ours_only=True,
                 expect=(r"root-mount=LiveOS_rootfs overlay rw,", "root-writable=yes",
                         r"mounts: /dev/loop\d+ /run/rootfsbase squashfs ro,",
                         r"mounts: /dev/loop\d+ /run/initramfs/live iso9660 ro,",
                         r"mounts: /dev/vdd /run/initramfs/isoscan ext4 ro,"),
                 log_expect=("uniramfs: iso-scan/filename=linux.iso: /dev/vda (ext4): no "
                             "linux.iso on it",
                             "uniramfs: iso-scan/filename=linux.iso: /dev/vdb (ext4): linux.iso "
                             "is truncated: {HAVE} bytes, but its iso9660 header says {WANT}",
                             "uniramfs: iso-scan/filename=linux.iso: /dev/vdc (ext4): linux.iso "
                             "is neither an ISO nor a squashfs image (it starts 7f 45 4c 46 20 6e "
                             "6f 74; at 32 KiB + 1: ",
                             "uniramfs: iso-scan/filename=linux.iso: found on /dev/vdd (ext4), "
                             "on /dev/loop")),
        Scenario("booster-iso", "booster's TestISO: root=/dev/sr0 ro, the root itself an ISO "
                 "(iso9660) on a SCSI CD-ROM", ROOTISO, "/dev/sr0", bus="scsi-cd", cmdline="ro",
                 expect=(r"root-mount=/dev/sr0 iso9660 ro,", "root-writable=no")),
        Scenario("live-iso-damaged", "rd.live.check on an ISO whose bytes do not match its "
                 "implanted MD5 sum: refused, naming the disc", DAMAGED,
                 "live:CDLABEL=" + VOLID, bus="cdrom", cmdline="rd.live.check rd.shell=0",
                 ours_only=True,
                 fail_msgs=("uniramfs: rd.live.check: /dev/sr0 (iso9660, LABEL=%s) does not "
                            "match the MD5 sum implanted in it: the medium is damaged; not "
                            "booting from it" % VOLID,)),
        Scenario("live-ram-too-big", "rd.live.ram=1 with an image larger than the RAM: "
                 "refused before copying, with the sizes", HOSTILE, "live:LABEL=hostile",
                 cmdline="rd.live.ram=1 rd.live.squashimg=big.img rd.shell=0", ours_only=True,
                 fail_msgs=("uniramfs: root=live:LABEL=hostile: /dev/vda (ext4): rd.live.ram: "
                            "/run/initramfs/live/LiveOS/big.img on /dev/vda is 2048 MiB, but "
                            "only ",)),
        Scenario("live-squashfs-cut", "a LiveOS image cut short: refused before the kernel "
                 "reads past its end, with both lengths", HOSTILE, "live:LABEL=hostile",
                 cmdline="rd.live.squashimg=cut.img rd.shell=0", ours_only=True,
                 fail_msgs=("uniramfs: root=live:LABEL=hostile: /dev/vda (ext4): "
                            "/run/initramfs/live/LiveOS/cut.img is truncated: {HAVE} bytes, but "
                            "its squashfs header says {WANT}",)),
    ]
