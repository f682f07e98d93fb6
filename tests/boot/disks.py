# SPDX-License-Identifier: GPL-2.0-or-later
"""Root disks for the boot tests, built as plain files on the host.

The host has loop devices but no partition scanning, device-mapper or md, so
every disk is a filesystem image made straight into a file (mkfs -d,
--rootdir, a protofile), optionally wrapped in a GPT made with sfdisk and
dd'd into place.  Only a btrfs subvolume needs a loop mount of the whole
filesystem image.  Built disks are cached under WORK/disks/ keyed by a hash
of their recipe and of the testinit binary, so reruns cost nothing.
"""

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading

# GPT partition type "Linux filesystem data".
LINUX_FS_TYPE = "0FC63DAF-8483-4772-8E79-3D69D8477DE4"
PART_START = 2048  # sectors: the usual 1 MiB alignment

# Directories every root carries: mount points the init moves into it.
ROOT_DIRS = ("dev", "proc", "sys", "run", "tmp", "etc", "root", "mnt", "sbin")


@dataclasses.dataclass(frozen=True)
class Disk:
    name: str
    fs: str                     # ext4 | xfs | btrfs | f2fs
    uuid: str
    label: str
    size_mb: int = 64
    gpt: bool = False           # wrap the filesystem in a GPT partition 1
    disk_guid: str = ""
    partuuid: str = ""
    partlabel: str = ""
    subvol: str = ""            # btrfs: the root lives in this subvolume only

    def recipe(self):
        return json.dumps(dataclasses.asdict(self), sort_keys=True)


def _run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s" % (" ".join(cmd), r.returncode, r.stdout))
    return r.stdout


def _populate(root, testinit):
    for d in ROOT_DIRS:
        os.makedirs(os.path.join(root, d), exist_ok=True)
    for name in ("init", "other"):
        dst = os.path.join(root, "sbin", name)
        shutil.copyfile(testinit, dst)
        os.chmod(dst, 0o755)
    with open(os.path.join(root, "etc", "os-release"), "w") as f:
        f.write('NAME="uniramfs boot test root"\nID=uniramfs-test\n')


def _xfs_protofile(root, path):
    """mkfs.xfs -p: a tree description it copies files from (no mount)."""
    lines = ["/dev/null", "0 0", "d--755 0 0"]

    def walk(d, depth):
        for e in sorted(os.listdir(d)):
            p = os.path.join(d, e)
            ind = " " * depth
            if os.path.isdir(p):
                lines.append("%s%s d--755 0 0" % (ind, e))
                walk(p, depth + 1)
                lines.append("%s$" % ind)
            else:
                mode = os.stat(p).st_mode & 0o777
                lines.append("%s%s ---%03o 0 0 %s" % (ind, e, mode, p))
    walk(root, 1)
    lines.append("$")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def _make_fs(disk, root, img, tmp):
    size = disk.size_mb * 1024 * 1024
    with open(img, "wb") as f:
        f.truncate(size)
    if disk.fs == "ext4":
        _run(["mkfs.ext4", "-q", "-F", "-d", root, "-U", disk.uuid, "-L", disk.label,
              "-E", "root_owner=0:0", img])
    elif disk.fs == "xfs":
        proto = os.path.join(tmp, "proto")
        _xfs_protofile(root, proto)
        _run(["mkfs.xfs", "-q", "-f", "-m", "uuid=" + disk.uuid, "-L", disk.label,
              "-p", proto, img])
    elif disk.fs == "btrfs":
        if not disk.subvol:
            _run(["mkfs.btrfs", "-q", "-f", "-U", disk.uuid, "-L", disk.label,
                  "--rootdir", root, img])
        else:
            # btrfs-progs 6.2 has no --subvol: mount the image and make one.
            # The top level stays empty but for a note, so a boot that
            # ignored rootflags=subvol= finds no /sbin/init.
            _run(["mkfs.btrfs", "-q", "-f", "-U", disk.uuid, "-L", disk.label, img])
            mnt = os.path.join(tmp, "mnt")
            os.mkdir(mnt)
            _run(["mount", "-o", "loop", img, mnt])
            try:
                sv = os.path.join(mnt, disk.subvol)
                _run(["btrfs", "-q", "subvolume", "create", sv])
                _run(["cp", "-a", root + "/.", sv + "/"])
                with open(os.path.join(mnt, "NOT-THE-ROOT"), "w") as f:
                    f.write("the root is subvolume %s\n" % disk.subvol)
            finally:
                _run(["umount", mnt])
    elif disk.fs == "f2fs":
        # mkfs.f2fs cannot fill it: sload.f2fs copies the tree in
        _run(["mkfs.f2fs", "-q", "-f", "-U", disk.uuid, "-l", disk.label, img])
        _run(["sload.f2fs", "-P", "-f", root, img])
    else:
        raise ValueError("unknown fs " + disk.fs)


def _wrap_gpt(disk, fsimg, out):
    fs_bytes = os.path.getsize(fsimg)
    sectors = fs_bytes // 512
    total = (PART_START + sectors + 2048) * 512   # room for the backup GPT
    with open(out, "wb") as f:
        f.truncate(total)
    script = ("label: gpt\nlabel-id: %s\n"
              "start=%d, size=%d, type=%s, uuid=%s, name=\"%s\"\n"
              % (disk.disk_guid, PART_START, sectors, LINUX_FS_TYPE, disk.partuuid,
                 disk.partlabel))
    r = subprocess.run(["sfdisk", "-q", "--no-reread", "--no-tell-kernel", out],
                       input=script, text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise RuntimeError("sfdisk %s failed:\n%s" % (out, r.stdout))
    _run(["dd", "if=" + fsimg, "of=" + out, "bs=1M", "conv=notrunc,sparse",
          "oflag=seek_bytes", "seek=%d" % (PART_START * 512), "status=none"])


_locks = {}
_locks_guard = threading.Lock()


def ensure(disk, testinit, workdir):
    """Return the path of disk's image, building it unless cached."""
    h = hashlib.sha256()
    h.update(disk.recipe().encode())
    with open(testinit, "rb") as f:
        h.update(f.read())
    ddir = os.path.join(workdir, "disks")
    os.makedirs(ddir, exist_ok=True)
    path = os.path.join(ddir, "%s-%s.img" % (disk.name, h.hexdigest()[:12]))
    with _locks_guard:
        lock = _locks.setdefault(path, threading.Lock())
    with lock:
        if os.path.exists(path):
            return path
        with tempfile.TemporaryDirectory(dir=ddir, prefix=".build-") as tmp:
            root = os.path.join(tmp, "root")
            _populate(root, testinit)
            fsimg = os.path.join(tmp, "fs.img")
            _make_fs(disk, root, fsimg, tmp)
            final = fsimg
            if disk.gpt:
                final = os.path.join(tmp, "disk.img")
                _wrap_gpt(disk, fsimg, final)
            os.rename(final, path)
        return path
