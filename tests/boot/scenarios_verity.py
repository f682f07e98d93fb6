# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for dm-verity roots (issue 26): systemd's roothash=
with systemd.verity_root_data= and systemd.verity_root_hash=, or roothash=
alone (the partitions whose PARTUUIDs are the hash's first and last 128
bits, as systemd-repart makes a Discoverable Partitions image).

One disk, made on the host (`veritysetup format` works on plain files,
no device-mapper needed): a GPT with the root partition (x86-64 root
type, an ext4 holding the test root) and its verity partition (the
root-verity type), their PARTUUIDs taken from the root hash; and a copy
whose file /verity-probe has one byte flipped in its first data block.
The root's init= is /sbin/verity-probe (verityprobe.c): it reads that
file through the mapping and says what the read gave, then execs
testinit, which prints the marker.  The root hash is known only once
the disk is made: the disk's words() fills {roothash} in the scenarios'
command lines and messages (run.py).
"""

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading

import disks
import scenarios_stack as st

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT_TYPE = "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709"         # root, x86-64
VERITY_TYPE = "2C7357ED-EBD2-46D9-AEC1-23D437EC2BF5"       # root verity, x86-64
SALT = "5f0c1a4e1b2d4c3e9f100000000001e0" * 2
FS_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001e1"
PROBE_BYTES = 256 * 1024
DATA_MB = 32
START = 2048                                                 # sectors


def _partuuid(h, last):
    x = h[-32:] if last else h[:32]
    return "%s-%s-%s-%s-%s" % (x[:8], x[8:12], x[12:16], x[16:20], x[20:])


class VerityDisk:
    """The GPT disk with a verity root; corrupt: the copy with one byte
    of /verity-probe flipped."""
    fs = "ext4"

    _lock = threading.Lock()

    def __init__(self, corrupt=False):
        self.corrupt = corrupt
        self.name = "verity-corrupt" if corrupt else "verity"

    def _probe(self, work):
        src = os.path.join(HERE, "verityprobe.c")
        with open(src, "rb") as f:
            h = hashlib.sha256(f.read()).hexdigest()[:12]
        out = os.path.join(work, "verityprobe-%s" % h)
        if not os.path.exists(out):
            disks._run(["cc", "-O2", "-static", "-o", out + ".tmp", src])
            os.replace(out + ".tmp", out)
        return out

    def _make(self, testinit, work, stem):
        with tempfile.TemporaryDirectory(dir=os.path.dirname(stem), prefix=".build-") as tmp:
            root = os.path.join(tmp, "root")
            disks._populate(root, testinit)
            shutil.copyfile(self._probe(work), os.path.join(root, "sbin", "verity-probe"))
            os.chmod(os.path.join(root, "sbin", "verity-probe"), 0o755)
            with open(os.path.join(root, "verity-probe"), "wb") as f:
                f.write(bytes(range(256)) * (PROBE_BYTES // 256))
            data = os.path.join(tmp, "data.img")
            with open(data, "wb") as f:
                f.truncate(DATA_MB * 1024 * 1024)
            # 4 KiB blocks: the mapping's sectors are its 4 KiB data blocks,
            # and mkfs would pick 1 KiB ones for so small a filesystem
            disks._run(["mkfs.ext4", "-q", "-F", "-b", "4096", "-d", root, "-U", FS_UUID,
                        "-L", "verityroot", "-E", "root_owner=0:0", data])
            hashimg = os.path.join(tmp, "hash.img")
            out = disks._run(["veritysetup", "format", "--salt=" + SALT,
                              "--uuid=" + FS_UUID, data, hashimg])
            roothash = [ln.split(":", 1)[1].strip() for ln in out.splitlines()
                        if ln.startswith("Root hash:")][0]
            # where the probe's first block lies inside the filesystem
            blk = int(disks._run(["debugfs", "-R", "bmap /verity-probe 0", data]).split()[-1])
            dsec = os.path.getsize(data) // 512
            hsec = (os.path.getsize(hashimg) + 511) // 512
            disk = os.path.join(tmp, "disk.img")
            with open(disk, "wb") as f:
                f.truncate((START + dsec + hsec + 2048) * 512)
            script = ("label: gpt\n"
                      "start=%d, size=%d, type=%s, uuid=%s, name=\"root-x86-64\"\n"
                      "start=%d, size=%d, type=%s, uuid=%s, name=\"root-x86-64-verity\"\n"
                      % (START, dsec, ROOT_TYPE, _partuuid(roothash, False),
                         START + dsec, hsec, VERITY_TYPE, _partuuid(roothash, True)))
            r = subprocess.run(["sfdisk", "-q", "--no-reread", "--no-tell-kernel", disk],
                               input=script, text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            if r.returncode != 0:
                raise RuntimeError("sfdisk failed:\n" + r.stdout)
            for img, sec in ((data, START), (hashimg, START + dsec)):
                disks._run(["dd", "if=" + img, "of=" + disk, "bs=1M", "conv=notrunc,sparse",
                            "oflag=seek_bytes", "seek=%d" % (sec * 512), "status=none"])
            bad = os.path.join(tmp, "corrupt.img")
            shutil.copyfile(disk, bad)
            with open(bad, "r+b") as f:
                f.seek(START * 512 + blk * 4096 + 100)
                b = f.read(1)
                f.seek(-1, 1)
                f.write(bytes([b[0] ^ 0xff]))
            with open(stem + ".json", "w") as f:
                json.dump({"roothash": roothash, "probe_block": blk}, f)
            os.replace(bad, stem + "-corrupt.img")
            os.replace(disk, stem + ".img")

    def build(self, testinit, work, env):
        h = hashlib.sha256()
        for p in (testinit, os.path.join(HERE, "verityprobe.c"), __file__):
            with open(p, "rb") as f:
                h.update(f.read())
        ddir = os.path.join(work, "disks")
        os.makedirs(ddir, exist_ok=True)
        stem = os.path.join(ddir, "verity-%s" % h.hexdigest()[:12])
        with self._lock:
            if not os.path.exists(stem + ".json"):
                self._make(testinit, work, stem)
        with open(stem + ".json") as f:
            self.meta = json.load(f)
        return [stem + ("-corrupt.img" if self.corrupt else ".img")]

    def words(self, dpaths):
        """run.py's hook: {KEY} in a scenario's command line and messages."""
        with open(dpaths[0].replace("-corrupt.img", ".img")[:-4] + ".json") as f:
            meta = json.load(f)
        return {"roothash": meta["roothash"], "probe_block": str(meta["probe_block"])}


DISK = VerityDisk()
CORRUPT = VerityDisk(corrupt=True)
NAMED = ("roothash={roothash} systemd.verity_root_data=PARTLABEL=root-x86-64 "
         "systemd.verity_root_hash=/dev/vda2")
PROBE = "init=/sbin/verity-probe"
WRONG = "0123456789abcdef" * 4


def scenarios(Scenario):
    """run.py's Scenario list for dm-verity roots."""
    S = lambda *a, **k: Scenario(*a, ours_only=True, **k)  # noqa: E731
    opened = ("uniramfs: dm-verity: /dev/mapper/root is /dev/vda1, checked against "
              "roothash={roothash}")
    return [
        S("verity", "dm-verity root from roothash= with its data and hash partitions named: "
          "/dev/mapper/root, read-only even with rw, read through",
          DISK, "", cmdline=NAMED + " rw " + PROBE,
          expect=(r"root-mount=/dev/dm-0 ext4 ro[, ]", "root-writable=no"),
          log_expect=(opened,
                      "uniramfs: /dev/dm-0 is a read-only device: mounting the root "
                      "read-only, not rw",
                      "VERITY-PROBE: read /verity-probe: %d bytes" % PROBE_BYTES)),
        S("verity-roothash-only", "roothash= alone: data and hash partitions by the PARTUUIDs "
          "of its first and last 128 bits (a systemd-repart DPS image)",
          DISK, "", cmdline="roothash={roothash} " + PROBE,
          expect=(r"root-mount=/dev/dm-0 ext4 ro[, ]",),
          log_expect=(opened,
                      "VERITY-PROBE: read /verity-probe: %d bytes" % PROBE_BYTES)),
        S("verity-wrong-hash", "a roothash= that is not the disk's: the boot fails, saying so",
          DISK, "", cmdline=NAMED.replace("{roothash}", WRONG) + " " + st.NO_SHELL,
          fail_msgs=("uniramfs: dm-verity: cannot read /dev/mapper/root (/dev/vda1, hashes on "
                     "/dev/vda2): Input/output error: roothash=%s is not their root hash, "
                     "or the first block is corrupted" % WRONG,
                     "uniramfs: rebooting now")),
        S("verity-corrupt", "a corrupted data block: the root mounts (verity checks as it "
          "reads), reading the file fails with EIO",
          CORRUPT, "", cmdline=NAMED + " " + PROBE,
          expect=(r"root-mount=/dev/dm-0 ext4 ro[, ]",),
          log_expect=(opened, "data block {probe_block} is corrupted",
                      "VERITY-PROBE: read /verity-probe: Input/output error after 0 bytes")),
    ]
