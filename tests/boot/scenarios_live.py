# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for live roots (issue 28), dracut-ng TEST-30's cases
with its layout and command lines: an ext4 medium labelled "dracut" whose
LiveOS/rootfs.img is a squashfs of the test root (TEST-30 makes it with
mksquashfs; here gensquashfs, of squashfs-tools-ng, the generator's own
dependency). root=live: names the medium; the image is mounted through
a loop device and a tmpfs goes above it (rd.overlay). And Debian's own
live format (boot=live, the medium found by a look at each disk)."""

import hashlib
import os
import subprocess
import tempfile
import threading

import disks
import scenarios_http

MEDIUM_LABEL = "dracut"
_lock = threading.Lock()


class _LiveMedium:
    """The medium, made once per testinit; / is the overlay above the image."""
    name = "test30-live"
    fs = "overlay"

    def build(self, testinit, work, env):
        with open(testinit, "rb") as f:
            h = hashlib.sha256(b"test30-live-1" + f.read()).hexdigest()[:12]
        path = os.path.join(work, "disks", "test30-live-%s.img" % h)
        with _lock:
            if os.path.exists(path):
                return [path]
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with tempfile.TemporaryDirectory(dir=os.path.dirname(path), prefix=".build-") as tmp:
                root, live = os.path.join(tmp, "root"), os.path.join(tmp, "live", "LiveOS")
                disks._populate(root, testinit)
                os.makedirs(live)
                subprocess.run(["gensquashfs", "-q", "-D", root, os.path.join(live, "rootfs.img")],
                               check=True, stdout=subprocess.DEVNULL)
                img = os.path.join(tmp, "medium.img")
                with open(img, "wb") as f:
                    f.truncate(64 << 20)
                subprocess.run(["mkfs.ext4", "-q", "-F", "-L", MEDIUM_LABEL, "-d",
                                os.path.dirname(live), img], check=True)
                os.rename(img, path)
        return [path]


class _DebianMedium:
    """Debian's layout (boot=live), moved by live-media-path=: a vfat stick
    with debian/filesystem.squashfs of the test root, after a decoy ext4
    disk (live/filesystem.squashfs, the default place, holds no image) the
    init must look on and pass over: [decoy (vda), stick (vdb)]."""
    name = "debian-live"
    fs = "overlay"

    def build(self, testinit, work, env):
        with open(testinit, "rb") as f:
            h = hashlib.sha256(b"debian-live-1" + f.read()).hexdigest()[:12]
        decoy = os.path.join(work, "disks", "debian-live-decoy-%s.img" % h)
        stick = os.path.join(work, "disks", "debian-live-%s.img" % h)
        with _lock:
            if os.path.exists(stick):
                return [decoy, stick]
            os.makedirs(os.path.dirname(stick), exist_ok=True)
            with tempfile.TemporaryDirectory(dir=os.path.dirname(stick), prefix=".build-") as tmp:
                root, squash = os.path.join(tmp, "root"), os.path.join(tmp, "filesystem.squashfs")
                disks._populate(root, testinit)
                subprocess.run(["gensquashfs", "-q", "-D", root, squash], check=True,
                               stdout=subprocess.DEVNULL)
                # the default place's file, which live-media-path= moves
                # the look away from
                decoy_top = os.path.join(tmp, "decoy")
                os.makedirs(os.path.join(decoy_top, "live"))
                with open(os.path.join(decoy_top, "live", "filesystem.squashfs"), "w") as f:
                    f.write("not the image\n")
                img = os.path.join(tmp, "decoy.img")
                subprocess.run(["mkfs.ext4", "-q", "-F", "-L", "decoy", "-d", decoy_top, img, "16M"],
                               check=True)
                os.rename(img, decoy)
                img = os.path.join(tmp, "stick.img")
                subprocess.run(["mkfs.vfat", "-C", "-n", "DEBIAN_LIVE", img, str(48 << 10)],
                               check=True, stdout=subprocess.DEVNULL)
                subprocess.run(["mmd", "-i", img, "::debian"], check=True)
                subprocess.run(["mcopy", "-i", img, squash, "::debian/filesystem.squashfs"],
                               check=True)
                os.rename(img, stick)
        return [decoy, stick]


MEDIUM = _LiveMedium()
DEBIAN = _DebianMedium()
PLAIN_DISK = disks.Disk("ext4", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000001", "testroot")
ROOT = "live:/dev/disk/by-label/" + MEDIUM_LABEL
EXPECT = (r"root-mount=LiveOS_rootfs overlay rw,", "root-writable=yes",
          r"mounts: /dev/loop\d+ /run/rootfsbase squashfs ro,",
          r"mounts: /dev/vda /run/initramfs/live ext4 ro,")
SAID = ("uniramfs: root=live: the medium /dev/vda (ext4) is on /run/initramfs/live",
        "uniramfs: root=live: mounted /run/initramfs/live/LiveOS/rootfs.img (squashfs, ")


def scenarios(Scenario):
    """run.py's Scenario list for live roots."""
    return [
        Scenario("live-test30-overlayfs", "root=live:/dev/disk/by-label/dracut rd.overlay "
                 "(TEST-30 \"overlayfs\"): the medium's LiveOS/rootfs.img below a tmpfs",
                 MEDIUM, ROOT, cmdline="rd.overlay", ours_only=True, expect=EXPECT,
                 log_expect=SAID),
        Scenario("live-test30-live", "... rd.live.image (TEST-30 \"live\")", MEDIUM, ROOT,
                 cmdline="rd.overlay rd.live.image", ours_only=True, expect=EXPECT,
                 log_expect=SAID),
        # a medium with no image: what was looked for, on what
        Scenario("live-no-image", "root=live: on a disk with no LiveOS image: the failure "
                 "names the medium and the files looked for", PLAIN_DISK,
                 "live:LABEL=" + PLAIN_DISK.label, cmdline="rd.shell=0", ours_only=True,
                 fail_msgs=("uniramfs: root=live:LABEL=%s: /dev/vda (ext4) has neither "
                            "LiveOS/squashfs.img nor LiveOS/rootfs.img" % PLAIN_DISK.label,)),
        # Debian's live format (boot=live): the medium found by a look at
        # each disk, root= dropped as live-boot drops it, a live-boot word
        # uniramfs does not act on said by name; the whole Debian live
        # system with live-config is tests/distro/debianlive.py
        Scenario("live-debian-scan", "boot=live live-media-path=/debian/ toram (Debian's "
                 "live-boot): the stick with debian/filesystem.squashfs found past a decoy disk, "
                 "its image copied to RAM (rd.live.ram's copy) and the stick let go",
                 DEBIAN, "/dev/vda", cmdline="boot=live components live-media-path=/debian/ "
                 "toram hostname=live testinit.show=/sys/block/loop1/loop/backing_file",
                 ours_only=True,
                 # the kernel hands bare words it does not know to /init,
                 # which hands them on, as initramfs-tools' run-init does
                 argv="/sbin/init components toram",
                 expect=(r"root-mount=LiveOS_rootfs overlay rw,", "root-writable=yes",
                         r"mounts: /dev/loop\d+ /run/rootfsbase squashfs ro,",
                         r"show /sys/block/loop1/loop/backing_file: "
                         r"/run/initramfs/squashed.img$"),
                 log_expect=("uniramfs: boot=live: looking for debian/filesystem.squashfs on "
                             "the block devices",
                             "uniramfs: boot=live: /dev/vdb (vfat) has debian/filesystem.squashfs: "
                             "the live medium",
                             "uniramfs: boot=live toram: the live image is copied to RAM as "
                             "rd.live.ram copies it",
                             "uniramfs: rd.live.ram: copying /run/initramfs/live/debian/"
                             "filesystem.squashfs (",
                             "uniramfs: rd.live.ram: /dev/vdb is no longer used: it may be "
                             "removed"),
                 log_absent=("/run/initramfs/live vfat", "ignoring toram")),
        # Debian's netbooted live image: boot=live fetch=URL, the image
        # checked and booted as root=live:http://… is (scenarios_http's server)
        Scenario("live-debian-fetch", "boot=live fetch=http://… (Debian's live-boot over the "
                 "network): the image downloaded, checked against rd.live.sha256= and booted",
                 scenarios_http.IMAGE, "", build=scenarios_http.BUILD,
                 net=scenarios_http.http_root(()), ours_only=True,
                 cmdline="boot=live components fetch=%s rd.live.sha256={sha256}"
                 % scenarios_http.URL, argv="/sbin/init components",
                 expect=scenarios_http.EXPECT,
                 log_expect=("uniramfs: %s: SHA-256 {sha256} as rd.live.sha256= says"
                             % scenarios_http.URL,)),
        Scenario("live-test30-livedir", "... rd.live.image rd.live.dir=LiveOS (TEST-30 "
                 "\"livedir\")", MEDIUM, ROOT, cmdline="rd.overlay rd.live.image rd.live.dir=LiveOS",
                 ours_only=True, expect=EXPECT, log_expect=SAID),
    ]
