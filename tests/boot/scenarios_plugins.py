# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for the plugins' boot-time rows (docs/plugins.md, issue
25): a third-party layer and root handler written from the docs alone, no C.

bcache is a layer the init does not know: its backing device (blkid type
`bcache`) holds the root's ext4 8 KiB in, and nothing reads it until the
device is written to /sys/fs/bcache/register, which the plugin's layer
program (tests/boot/plugins/bcache-open, a busybox sh script) does.  The
disk is made on the host: make-bcache -B on a plain file, the ext4 image
dd'd at the data offset.  The scenario passes only when the root the
real init sees is /dev/bcache0 and the program was given the option its
row names.  plugin-root mounts the same disk through a root row instead:
root=bcache:/dev/vda, its program (tests/boot/plugins/bcache-mount-root)
registers and mounts it.
"""

import os
import shutil
import subprocess

import disks
import scenarios_early
import scratch

HERE = os.path.dirname(os.path.abspath(__file__))
TEST_PLUGINS = os.path.join(HERE, "plugins")

BCACHE_ROOT = disks.Disk("bcache-root", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000b01",
                         "bcacheroot")
BCACHE_DATA_OFFSET = 16 * 512   # make-bcache's default data offset (sectors)


def _bcache_disk(ti, work, ctx):
    if not shutil.which("make-bcache"):
        raise RuntimeError("make-bcache not found: apt-get install bcache-tools")
    fs = scenarios_early._ext4(work, ti, BCACHE_ROOT)

    def make(tmp, out):
        with open(out, "wb") as f:
            f.truncate(BCACHE_DATA_OFFSET + os.path.getsize(fs))
        # 512-byte blocks: /dev/bcache0's logical block size, which the
        # small ext4's 1 KiB blocks must not be below
        subprocess.run(["make-bcache", "-B", "--block", "512",
                        "--data-offset", str(BCACHE_DATA_OFFSET // 512), out],
                       check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["dd", "if=" + fs, "of=" + out, "bs=1M", "conv=notrunc,sparse",
                        "oflag=seek_bytes", "seek=%d" % BCACHE_DATA_OFFSET, "status=none"],
                       check=True)
    return [scenarios_early._cached(work, "bcache", BCACHE_ROOT.recipe() + " block 512", ti, make)]


def _bcache_plugin():
    """The plugin file as a package would install it; its program's path
    is the host's, so it is written here, outside the tree, on each run."""
    d = scratch.scratch_dir("plugin")
    path = os.path.join(d, "bcache.conf")
    with open(path, "w") as f:
        f.write("# the boot test's bcache plugin (tests/boot/scenarios_plugins.py)\n"
                "description = bcache backing devices, registered at boot\n"
                "layer-blkid-type = bcache\n"
                "layer-program = %s\n"
                "layer-modules = bcache\n"
                "layer-options = rd.bcachetest\n" % os.path.join(TEST_PLUGINS, "bcache-open"))
    return path


def _bcache_root_plugin():
    """A root handler: root=bcache:DEVICE, mounted by its program."""
    d = scratch.scratch_dir("plugin")
    path = os.path.join(d, "bcacheroot.conf")
    with open(path, "w") as f:
        f.write("# the boot test's bcache root plugin (tests/boot/scenarios_plugins.py)\n"
                "description = a root on a bcache backing device, root=bcache:DEVICE\n"
                "root-prefix = bcache:\n"
                "root-program = %s\n"
                "root-modules = bcache, ext4\n" % os.path.join(TEST_PLUGINS, "bcache-mount-root"))
    return path


def scenarios(Scenario):
    return [
        Scenario("plugin-layer",
                 "a plugin's layer row (no C) opens a bcache backing device; the root is on /dev/bcache0",
                 scenarios_early.Disks("bcache", "ext4", _bcache_disk), "UUID=" + BCACHE_ROOT.uuid,
                 cmdline="rd.bcachetest.note=hello rd.bcachetestx=no",
                 build=("--plugin", _bcache_plugin()), ours_only=True,
                 expect=(r"root-mount=/dev/bcache0 ext4 ",
                         r"hook-ran: layer=bcache dev=/dev/vda options=rd.bcachetest.note=hello$"),
                 log_expect=("uniramfs: /dev/vda is bcache: opening it with plugin bcache",)),
        Scenario("plugin-root",
                 "a plugin's root row (no C): root=bcache:/dev/vda is mounted by its program",
                 scenarios_early.Disks("bcache", "ext4", _bcache_disk), "bcache:/dev/vda",
                 build=("--plugin", _bcache_root_plugin()), ours_only=True,
                 expect=(r"root-mount=/dev/bcache0 ext4 ro",
                         r"hook-ran: root=bcache dev=/dev/vda at=/sysroot$"),
                 log_expect=("uniramfs: root=bcache:/dev/vda: mounting it with plugin bcacheroot",)),
    ]
