# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for rd.overlay (issue 28), dracut-ng TEST-21's cases
with its layout and command lines: the root is an ext4 disk labelled
"dracut", and a 32 MiB ext4 disk labelled OVERLAY sits on a SCSI bus with
the serial "overlay" (TEST-21's /dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_overlay).
What TEST-21's assertion.sh checks, testinit's lines show: the root an
overlay or not, writable, the device's filesystem at /run/overlayfs-backing
or the sized tmpfs at /run/initramfs/overlay, and no mount point twice."""

import contextlib

import disks
import netservers
import scenarios_net as net

ROOT = disks.Disk("test21-root", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000210", "dracut")
UPPER = disks.Disk("test21-overlay", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000211", "OVERLAY",
                   size_mb=32)
BY_ID = "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_overlay"


class _Layout:
    """The root on virtio, the OVERLAY disk on virtio-scsi with a serial;
    fs: what / is once the init is done (run.py checks it)."""
    name = "test21"

    def __init__(self, fs):
        self.fs = fs

    def build(self, testinit, work, env):
        self.upper = disks.ensure(UPPER, testinit, work)
        return [disks.ensure(ROOT, testinit, work)]

    def attach(self, paths):
        return contextlib.nullcontext((
            "-drive", "if=none,id=ovl,format=raw,file=" + self.upper,
            "-device", "virtio-scsi-pci,id=scsi9",
            "-device", "scsi-hd,bus=scsi9.0,drive=ovl,serial=overlay"))


class _CryptLayout(_Layout):
    """TEST-21's third disk too: a 100 MiB ext4 labelled CRYPT on SCSI with
    the serial crypt, which rd.overlay.crypt= formats as a new LUKS device
    (-snapshot: each boot finds the ext4 again, as TEST-21's
    setup_crypt_disk makes it anew)."""
    name = "test21-crypt"

    def build(self, testinit, work, env):
        self.crypt = disks.ensure(CRYPT, testinit, work)
        return super().build(testinit, work, env)

    def attach(self, paths):
        return contextlib.nullcontext(super().attach(paths).__enter__() + (
            "-drive", "if=none,id=crypt,format=raw,file=" + self.crypt,
            "-device", "scsi-hd,bus=scsi9.0,drive=crypt,serial=crypt"))


CRYPT = disks.Disk("test21-crypt", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000212", "CRYPT",
                   size_mb=100)
OVERLAID, PLAIN, CRYPTED = _Layout("overlay"), _Layout("ext4"), _CryptLayout("overlay")
OVERLAY_ROOT = r"root-mount=LiveOS_rootfs overlay rw,"
NO_OVERLAY = r"root-mount=/dev/vda ext4 ro,"
DEVICE_UPPER = r"mounts: /dev/sda /run/overlayfs-backing ext4 "
WRITABLE = "root-writable=yes"


def _case(name, doc, words, expect, log_expect=(), log_absent=()):
    return name, doc, words, expect, log_expect, log_absent


CASES = (
    _case("overlay-test21-off", "rd.overlay=0 (TEST-21 \"overlay disabled\"): the root as it is",
          "rd.overlay=0", (NO_OVERLAY, "root-writable=no"), log_absent=("rd.overlay:",)),
    _case("overlay-test21-bare", "rd.overlay (TEST-21 \"tmpfs overlay\"): a tmpfs above",
          "rd.overlay", (OVERLAY_ROOT, WRITABLE, r"mounts: /dev/vda /run/rootfsbase ext4 ro,"),
          log_expect=("uniramfs: rd.overlay: the upper layer is a tmpfs (changes will not "
                      "persist)",)),
    _case("overlay-test21-one", "rd.overlay=1 (TEST-21): a tmpfs above", "rd.overlay=1",
          (OVERLAY_ROOT, WRITABLE)),
    # rootovl=1, not the bare word: the kernel hands a bare word it does
    # not know to the real init's argv, which run.py checks is bare
    _case("overlay-rootovl", "rootovl=1 (dracut 059's overlay-root, not in TEST-21): the same "
          "tmpfs above as rd.overlay=1", "rootovl=1", (OVERLAY_ROOT, WRITABLE),
          log_expect=("uniramfs: rd.overlay: the upper layer is a tmpfs (changes will not "
                      "persist)",)),
    _case("overlay-test21-label", "rd.overlay=LABEL=OVERLAY (TEST-21 \"persistent device "
          "overlay\"): the device's filesystem above", "rd.overlay=LABEL=OVERLAY",
          (OVERLAY_ROOT, WRITABLE, DEVICE_UPPER),
          log_expect=("uniramfs: rd.overlay: the upper layer is /dev/sda (ext4) on "
                      "/run/overlayfs-backing",)),
    _case("overlay-test21-uuid", "rd.overlay=UUID= (TEST-21)", "rd.overlay=UUID=" + UPPER.uuid,
          (OVERLAY_ROOT, WRITABLE, DEVICE_UPPER)),
    _case("overlay-test21-byid", "rd.overlay=/dev/disk/by-id/... (TEST-21 \"device path\")",
          "rd.overlay=" + BY_ID, (OVERLAY_ROOT, WRITABLE, DEVICE_UPPER)),
    _case("overlay-test21-fallback", "rd.overlay=LABEL=NONEXISTENT (TEST-21 \"fallback to "
          "tmpfs\"): said, and a tmpfs above", "rd.overlay=LABEL=NONEXISTENT",
          (OVERLAY_ROOT, WRITABLE),
          log_expect=("uniramfs: rd.overlay=LABEL=NONEXISTENT: no such device; the upper layer "
                      "is a tmpfs (changes will not persist)",)),
    _case("overlay-test21-tmpfs-sized", "rd.overlay=tmpfs:size=32M,nr_inodes=100000 (TEST-21): "
          "a tmpfs of that size above", "rd.overlay=tmpfs:size=32M,nr_inodes=100000",
          (OVERLAY_ROOT, WRITABLE,
           r"mounts: tmpfs /run/initramfs/overlay tmpfs \S*size=32768k,nr_inodes=100000")),
)


# TEST-60 "NFSv4 Overlayfs": the NFS root (read-only) below, a tmpfs above
NFS_OVERLAID = disks.Disk("nfs4-overlay", "overlay", "", "")     # only .fs is looked at


def scenarios(Scenario):
    """run.py's Scenario list for rd.overlay."""
    return [Scenario(name, doc, PLAIN if name.endswith("-off") else OVERLAID, "LABEL=dracut",
                     cmdline=words, ours_only=True,
                     expect=expect, log_expect=log_expect, log_absent=log_absent)
            for name, doc, words, expect, log_expect, log_absent in CASES] + [
        # TEST-21 "encrypted overlay (new device, random password)": what its
        # assertion.sh checks but the password file, which uniramfs never
        # writes; the image packs cryptsetup and mkfs.ext4 as the config
        # key overlay-tools asks
        Scenario("overlay-test21-crypt", "rd.overlay.crypt=LABEL=CRYPT (TEST-21 \"encrypted "
                 "overlay\"): the CRYPT disk formatted as a new LUKS device with a random key, "
                 "an ext4 on it above the root", CRYPTED, "LABEL=dracut",
                 cmdline="rd.overlay.crypt=LABEL=CRYPT testinit.show=/sys/block/dm-0/dm/name "
                 "testinit.show=/sys/block/dm-0/dm/uuid",
                 build=["--overlay-tools"], ours_only=True,
                 expect=(OVERLAY_ROOT, WRITABLE,
                         r"mounts: /dev/mapper/overlay-crypt /run/overlayfs-backing ext4 ",
                         r"show /sys/block/dm-0/dm/name: overlay-crypt$",
                         r"show /sys/block/dm-0/dm/uuid: CRYPT-LUKS2-"),
                 log_expect=("uniramfs: rd.overlay.crypt=LABEL=CRYPT: formatting /dev/sdb as a "
                             "new LUKS device with a random key kept nowhere: what it held is "
                             "lost, and what is written above the root is lost at power-off",
                             "uniramfs: rd.overlay: the upper layer is "
                             "/dev/mapper/overlay-crypt (ext4) on /run/overlayfs-backing"),
                 log_absent=("overlayfs.passwd",)),
    ] + [
        Scenario("overlay-test60-nfs4", "root=nfs4:... rd.overlay (TEST-60 \"NFSv4 Overlayfs\"): "
                 "the NFS root below, a tmpfs above", NFS_OVERLAID,
                 "nfs4:%s:%s" % (net.SERVER, netservers.NFS_PSEUDO),
                 build=["--add-modules", "virtio_pci,virtio_net,nfs,nfsv4,overlay"],
                 net=net.nfs_root, cmdline="rd.overlay", ours_only=True,
                 expect=(OVERLAY_ROOT, WRITABLE, r"mounts: \S+ /run/rootfsbase nfs4 ro,")),
        # TEST-60 "NFSv4 Live Overlayfs": rd.live.image names no medium here
        # (the root is NFS, not root=live:), so it is the case above again
        Scenario("overlay-test60-nfs4-live", "root=nfs4:... rd.live.image rd.overlay (TEST-60 "
                 "\"NFSv4 Live Overlayfs\"): the NFS root below, a tmpfs above", NFS_OVERLAID,
                 "nfs4:%s:%s" % (net.SERVER, netservers.NFS_PSEUDO),
                 build=["--add-modules", "virtio_pci,virtio_net,nfs,nfsv4,overlay"],
                 net=net.nfs_root, cmdline="rd.live.image rd.overlay", ours_only=True,
                 expect=(OVERLAY_ROOT, WRITABLE, r"mounts: \S+ /run/rootfsbase nfs4 ro,"))]
