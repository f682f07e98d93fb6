# SPDX-License-Identifier: GPL-2.0-or-later
"""Stacked root disks (LUKS, LVM, md) for the boot tests, made in a builder VM.

The host kernel has no device-mapper and no md, so these disks are laid out
inside a short-lived QEMU VM running the same distribution kernel.  Its
initramfs is made by our own generator: `uniramfs build --init
builder/init.sh` with cryptsetup, lvm, mdadm, mkfs and busybox added.  The
VM gets the blank raw disk files plus a small ext4 "source" disk (made on
the host with mkfs.ext4 -d) holding the layout script (builder/common.sh +
builder/LAYOUT.sh), its parameters and the test root (the same tree as
disks.py's roots, testinit as /sbin/init).  The script prints what it made
(luksDump, lvs, /proc/mdstat) and "BUILDER-OK"; its console log is kept as
WORK/logs/builder-NAME.log.

Built disks are cached outside the checkout, in
$UNIRAMFS_TEST_CACHE/builder-disks/ (default /var/cache/uniramfs-tests), by
a hash of the scripts, the parameters, testinit's source and the builder's
kernel release, so only the first run on a machine pays (~10-20 s per
layout) and a fresh clone reuses them.  Boots attach them with -snapshot.
A disk not used for PRUNE_DAYS is removed.
"""

import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time

import disks
import pvh
import serialtext
import tang
import tpm

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "builder")
# seconds; a layout takes 10-30 s under TCG on a quiet machine, but a
# cold run builds some sixty disks while other boots run, and lvm-kinds
# (thin, cache and raid LVs) took over 240 s there: a disk that is not
# made fails every scenario on it, a slow one costs only its time
BUILDER_TIMEOUT = 600
CACHE = os.environ.get("UNIRAMFS_TEST_CACHE", "/var/cache/uniramfs-tests")
PRUNE_DAYS = 30

# clevis luks bind's tpm2 pin (scenarios_clevis.py) and the sss pin that
# joins it to Tang: what clevis-encrypt-tpm2 runs (mktemp, rm and tr are
# busybox's)
TPM2_BIND_BINARIES = ("clevis-encrypt-tpm2", "clevis-encrypt-sss", "tpm2_createprimary",
                      "tpm2_create", "tpm2_createpolicy", "tpm2_flushcontext", "tpm2_pcrread")
# What the builder's initramfs holds (besides busybox's sh as /init's
# interpreter): the tools every layout uses, and the modules they need.
BUILDER_BINARIES = ("busybox", "cryptsetup", "lvm", "mdadm", "mdmon", "mkfs.ext4", "mkfs.btrfs",
                    "sfdisk", "blkid") + \
    (("systemd-cryptenroll",) if shutil.which("systemd-cryptenroll") else ()) + \
    (tang.BIND_BINARIES if tang.available() else ()) + \
    (TPM2_BIND_BINARIES if shutil.which("clevis-encrypt-tpm2") else ())
BUILDER_MODULES = ("virtio_pci", "virtio_blk", "crc32c_generic", "ext4",
                   "btrfs", "dm_mod", "dm_crypt",
                   "raid1", "raid456", "xts", "ecb", "af_alg", "algif_skcipher",
                   "algif_hash")


@dataclasses.dataclass(frozen=True)
class Layout:
    """A stacked root: builder/SCRIPT.sh run on NDISKS blank disks.  Used
    as a run.py Scenario's disk: fs and name as disks.Disk has them."""
    name: str
    script: str             # builder/SCRIPT.sh
    fs: str                 # the root filesystem inside: ext4 | btrfs
    uuid: str               # its UUID
    label: str
    ndisks: int = 1
    size_mb: int = 64       # each disk
    params: tuple = ()      # (KEY, VALUE) pairs for the script
    files: tuple = ()       # (SRC under builder/, name on the source disk)
    tpm: bool = False       # the builder VM has a swtpm TPM, kept as STEM.tpm/ (tpm.py)
    tang: bool = False      # new Tang keys, kept as STEM.tang/, their advertisement as tang.adv

    def recipe(self):
        h = hashlib.sha256()
        h.update(json.dumps(dataclasses.asdict(self), sort_keys=True).encode())
        for f in ("init.sh", "common.sh", self.script + ".sh") + tuple(s for s, _ in self.files):
            with open(os.path.join(SCRIPTS, f), "rb") as fp:
                h.update(f.encode() + b"\0" + fp.read())
        return h

    def build(self, testinit, work, env):
        """run.py's hook: the disk files, in the order to attach them."""
        return ensure(self, testinit, work, env)


_locks = {}
_failed = {}    # a layout that failed once in this run is not tried again
_guard = threading.Lock()


def _lock(key):
    with _guard:
        return _locks.setdefault(key, threading.Lock())


def builder_image(work, env):
    """WORK/builder.img, made by our generator (0.5 s) when it or
    builder/init.sh is newer than the last one.  env["builder"] (a
    layout's, e.g. scenarios_zfs's) may name another image with more
    programs and modules, from another module directory: name, binaries,
    modules, kmoddir."""
    more = env.get("builder", {})
    out = os.path.join(work, more.get("name", "builder.img"))
    init = os.path.join(SCRIPTS, "init.sh")
    with _lock(out):
        stamp = out + ".made"
        if os.path.exists(out) and os.path.exists(stamp) and \
                os.path.getmtime(stamp) >= max(os.path.getmtime(env["uniramfs"]),
                                               os.path.getmtime(init)):
            return out
        cmd = [env["uniramfs"], "build", "-k", env["kver"], "--generic",
               "--init", init,
               "--add-binaries", ",".join(BUILDER_BINARIES + tuple(more.get("binaries", ()))),
               "--add-modules", ",".join(BUILDER_MODULES + tuple(more.get("modules", ()))),
               "--microcode", "none", "--compress", "none", "-o", out]
        if more.get("kmoddir"):
            cmd += ["--kmoddir", more["kmoddir"]]
        disks._run(cmd)
        open(stamp, "w").close()
        return out


def _source_disk(layout, testinit, tmp, extra=()):
    """The ext4 the builder reads: root/ (the test root), layout.sh, params
    and the (name, bytes) pairs of extra."""
    top = os.path.join(tmp, "src")
    disks._populate(os.path.join(top, "root"), testinit)
    with open(os.path.join(top, "layout.sh"), "w") as out:
        for f in ("common.sh", layout.script + ".sh"):
            with open(os.path.join(SCRIPTS, f)) as fp:
                out.write(fp.read())
    params = [("LAYOUT", layout.name), ("FS_UUID", layout.uuid), ("FS_LABEL", layout.label)]
    for src, dst in layout.files:
        with open(os.path.join(SCRIPTS, src), "rb") as fp, \
                open(os.path.join(top, dst), "wb") as o:
            o.write(fp.read())
    for name, data in extra:
        with open(os.path.join(top, name), "wb") as o:
            o.write(data)
    with open(os.path.join(top, "params"), "w", encoding="utf-8") as f:
        for k, v in params + list(layout.params):
            f.write("%s='%s'\n" % (k, v))
    img = os.path.join(tmp, "src.img")
    with open(img, "wb") as f:
        f.truncate(32 * 1024 * 1024)
    disks._run(["mkfs.ext4", "-q", "-F", "-d", top, "-L", "ubsrc", "-E", "root_owner=0:0", img])
    return img


def _disk_dir(work):
    """The shared cache, or WORK/disks where it cannot be made."""
    ddir = os.path.join(CACHE, "builder-disks")
    try:
        os.makedirs(ddir, exist_ok=True)
    except OSError:
        ddir = os.path.join(work, "disks")
        os.makedirs(ddir, exist_ok=True)
    return ddir


_pruned = set()


def _prune(ddir):
    """Once a run: remove what no run has used for PRUNE_DAYS."""
    with _guard:
        if ddir in _pruned:
            return
        _pruned.add(ddir)
    old = time.time() - PRUNE_DAYS * 86400
    for name in os.listdir(ddir):
        p = os.path.join(ddir, name)
        if not name.startswith(".") and os.path.getmtime(p) < old:
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)


def ensure(layout, testinit, work, env):
    """The paths of layout's disks, running the builder VM unless cached.
    The key holds testinit's source, not the binary: a build in another
    checkout differs in its debug paths, not in what it does."""
    h = layout.recipe()
    with open(os.path.join(HERE, "testinit.c"), "rb") as f:
        h.update(f.read())
    h.update(env["kver"].encode())
    ddir = _disk_dir(work)
    _prune(ddir)
    stem = os.path.join(ddir, "%s-%s" % (layout.name, h.hexdigest()[:12]))
    paths = ["%s.%d.img" % (stem, i) for i in range(layout.ndisks)]
    with _lock(stem):
        if all(os.path.exists(p) for p in paths) and \
                (not layout.tpm or os.path.isdir(stem + ".tpm")) and \
                (not layout.tang or os.path.isdir(stem + ".tang")):
            for p in paths:   # used: kept from _prune
                os.utime(p)
            return paths
        if stem in _failed:
            raise RuntimeError(_failed[stem])
        try:
            return _build(layout, testinit, work, env, stem, paths, ddir)
        except Exception as e:
            _failed[stem] = str(e)
            raise


def _build(layout, testinit, work, env, stem, paths, ddir):
    """Run the builder VM for layout; move its disks to paths."""
    img = builder_image(work, env)
    logdir = os.path.join(work, "logs")
    os.makedirs(logdir, exist_ok=True)
    log = os.path.join(logdir, "builder-%s.log" % layout.name)
    with tempfile.TemporaryDirectory(dir=ddir, prefix=".build-") as tmp:
        extra = ()
        if layout.tang:   # the disk is bound to these keys: they go with it
            tang.keygen(os.path.join(tmp, "tang"))
            extra = (("tang.adv", tang.advertisement(os.path.join(tmp, "tang"))),)
        src = _source_disk(layout, testinit, tmp, extra)
        blanks = []
        for i in range(layout.ndisks):
            b = os.path.join(tmp, "disk%d.img" % i)
            with open(b, "wb") as f:
                f.truncate(layout.size_mb * 1024 * 1024)
            blanks.append(b)
        cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "1G", "-smp", "1",
               "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none",
               "-serial", "file:" + log,
               "-kernel", env["vmlinuz"], "-initrd", img,
               "-append", "console=ttyS0 quiet panic=-1"]
        for i, b in enumerate(blanks + [src]):
            cmd += ["-drive", "if=none,id=b%d,format=raw,file=%s" % (i, b),
                    "-device", "virtio-blk-pci,drive=b%d" % i]
        t = time.monotonic()
        tpmstate = os.path.join(tmp, "tpm")
        with tpm.swtpm(tpmstate) if layout.tpm else contextlib.nullcontext([]) as tpmargs:
            # a kernel that panicked in its timer check on a busy host ran
            # nothing of the layout: its disks are still blank, boot again
            for _ in range(serialtext.BOOT_TRIES):
                try:
                    subprocess.run(pvh.argv(cmd + tpmargs), stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   timeout=BUILDER_TIMEOUT)
                except subprocess.TimeoutExpired:
                    pass
                if not serialtext.host_too_slow(serialtext.read(log)):
                    break
                print("  the builder's kernel failed its timer check on a busy host: "
                      "booting again", flush=True)
        dt = time.monotonic() - t
        text = serialtext.read(log)
        if "\nBUILDER-OK" not in text:
            tail = "\n".join(text.splitlines()[-30:])
            raise RuntimeError("builder VM for %s did not finish (%.0f s, log %s):\n%s"
                               % (layout.name, dt, log, tail))
        if layout.tpm:   # the token is sealed by this TPM: it goes with the disk
            shutil.rmtree(stem + ".tpm", ignore_errors=True)
            os.rename(tpmstate, stem + ".tpm")
        if layout.tang:
            shutil.rmtree(stem + ".tang", ignore_errors=True)
            os.rename(os.path.join(tmp, "tang"), stem + ".tang")
        for b, p in zip(blanks, paths):
            os.rename(b, p)
        print("  built disk %s in the builder VM in %.1f s" % (layout.name, dt),
              flush=True)
    return paths
