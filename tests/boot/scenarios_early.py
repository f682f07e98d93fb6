# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for resume from hibernation, fsck, a separate /usr, the
break points and hooks (issue 6).

Every disk here is made on the host like disks.py's (mkfs -d into a file,
mkswap, debugfs for damage) and cached the same way; the hibernated swap is
made by a real first boot: testinit.hibernate=/dev/vdb makes the root's
testinit keep a random token in memory and hibernate to the swap disk.  The
scenario's own boot (run.py, -snapshot) then starts from copies of that
machine's disks, and passes only when the same process prints the same
token (and the same kernel boot_id) after the resume.
"""

import hashlib
import os
import re
import shutil
import struct
import subprocess
import tempfile
import threading
import time
import uuid

import builder
import disks
import pvh
import scratch
import serialtext

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
DOC_HOOKS = os.path.join(SRCDIR, "docs", "hooks")
TEST_HOOKS = os.path.join(HERE, "hooks")
TEST_PLUGINS = os.path.join(HERE, "plugins")

ROOT = disks.Disk("ext4", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000001", "testroot")
SWAP_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000006a1"
USR_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000006b1"
USR_LABEL = "usr disk"                  # a space: \040 in the root's fstab
USRROOT_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000006b0"
DAMAGED_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000006c1"
HIBERNATE_TIMEOUT = 150                 # seconds for the hibernating first boot


def _run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s" % (" ".join(cmd), r.returncode, r.stdout))
    return r.stdout


_locks = {}
_guard = threading.Lock()


def _cached(work, name, recipe, testinit, make):
    """WORK/disks/NAME-HASH.img made once by make(tmpdir, path)."""
    h = hashlib.sha256(recipe.encode())
    with open(testinit, "rb") as f:
        h.update(f.read())
    ddir = os.path.join(work, "disks")
    os.makedirs(ddir, exist_ok=True)
    path = os.path.join(ddir, "%s-%s.img" % (name, h.hexdigest()[:12]))
    with _guard:
        lock = _locks.setdefault(path, threading.Lock())
    with lock:
        if not os.path.exists(path):
            with tempfile.TemporaryDirectory(dir=ddir, prefix=".build-") as tmp:
                out = os.path.join(tmp, "disk.img")
                make(tmp, out)
                os.rename(out, path)
    return path


def _ext4(work, testinit, disk, files=(), dirs=(), post=(), populate=True):
    """An ext4 disk: testinit's root layout (or empty) plus files
    (relative path, text) and dirs; post: debugfs -w requests after."""
    recipe = repr((disk.recipe(), files, dirs, post, populate))

    def make(tmp, out):
        root = os.path.join(tmp, "root")
        os.makedirs(root)
        if populate:
            disks._populate(root, testinit)
        for d in dirs:
            os.makedirs(os.path.join(root, d), exist_ok=True)
        for rel, text in files:
            p = os.path.join(root, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        disks._make_fs(disk, root, out, tmp)
        for req in post:
            _run(["debugfs", "-w", "-R", req, out])
    return _cached(work, disk.name, recipe, testinit, make)


def _swap(work, testinit):
    def make(tmp, out):
        with open(out, "wb") as f:
            f.truncate(256 * 1024 * 1024)
        _run(["mkswap", "-U", SWAP_UUID, "-L", "testswap", out])
    return _cached(work, "swap", SWAP_UUID, testinit, make)


class Disks:
    """More than one disk for a scenario (run.py calls build(); the first
    path is the root disk, the others are virtio-blk /dev/vdb...)."""

    def __init__(self, name, fs, build):
        self.name, self.fs, self._build = name, fs, build

    def build(self, testinit, work, ctx):
        return self._build(testinit, work, ctx)


# ------------------------------------------------------------ hibernation
class Hibernation:
    """One real hibernation per run, shared by the scenarios that boot
    from it (read-only: their boots run with -snapshot).  disks(testinit,
    work, ctx) gives the machine's disk files; swapdev is the swap as the
    booted root sees it; build and cmdline are what that machine needs
    (a key for its LUKS device)."""

    def __init__(self, name, disks_fn, root_uuid, swapdev, build=(), cmdline=""):
        self.name, self.disks_fn, self.swapdev = name, disks_fn, swapdev
        self.root_uuid = root_uuid
        self.build_args, self.cmdline = tuple(build), cmdline
        self.lock = threading.Lock()
        self.result = None
        self.expect = []    # filled with the RESUMED line once the token is known

    def _image(self, ctx, work):
        out = os.path.join(work, "img-early-" + self.name)
        _run([ctx["uniramfs"], "build", "-k", ctx["kver"], "-o", out, "--generic"]
             + list(self.build_args))
        return out

    def _boot1(self, testinit, work, ctx):
        hdir = os.path.join(work, self.name)
        os.makedirs(hdir, exist_ok=True)
        copies = []
        for i, p in enumerate(self.disks_fn(testinit, work, ctx)):
            c = os.path.join(hdir, "disk%d.img" % i)
            shutil.copyfile(p, c)
            copies.append(c)
        img = self._image(ctx, work)
        log = os.path.join(work, "logs", self.name + "-first-boot.log")
        os.makedirs(os.path.dirname(log), exist_ok=True)
        cmdline = ("console=ttyS0 panic=-1 root=UUID=%s testinit.hibernate=%s %s"
                   % (self.root_uuid, self.swapdev, self.cmdline))
        cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "1G", "-smp", "1",
               "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none",
               "-serial", "file:" + log, "-kernel", ctx["vmlinuz"], "-initrd", img,
               "-append", cmdline]
        for i, c in enumerate(copies):
            cmd += ["-drive", "if=none,id=d%d,format=raw,file=%s" % (i, c),
                    "-device", "virtio-blk-pci,drive=d%d" % i]
        t = time.monotonic()
        try:
            # a kernel that panicked in its timer check on a busy host
            # touched no disk: boot it again
            for _ in range(serialtext.BOOT_TRIES):
                subprocess.run(pvh.argv(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=HIBERNATE_TIMEOUT)
                text = serialtext.read(log)
                if not serialtext.host_too_slow(text):
                    break
        except subprocess.TimeoutExpired:
            raise RuntimeError("the hibernating boot did not power off within %d s (%s)"
                               % (HIBERNATE_TIMEOUT, log))
        finally:
            if os.path.exists(img):
                os.unlink(img)
        m = re.search(r"^TESTINIT: TOKEN=(\w+) pid=(\d+) boot_id=(\S+)$", text, re.M)
        if not m or "TESTINIT: hibernation failed" in text or "Image saving done" not in text:
            raise RuntimeError("the first boot did not hibernate (%s)" % log)
        self.expect.append("TESTINIT: RESUMED TOKEN=%s pid=%s boot_id=%s"
                           % (m.group(1), m.group(2), m.group(3)))
        return copies, time.monotonic() - t

    def build(self, testinit, work, ctx):
        with self.lock:
            if self.result is None:
                self.result = self._boot1(testinit, work, ctx)
            return list(self.result[0])


def _hibernated_disks(h):
    return Disks(h.name, "ext4", h.build)


# Root and swap as LVs of a VG on LUKS2, the key file in the image.
KEYFILE = os.path.join(HERE, "builder", "luks1.key")
KEY_IN_IMAGE = "/etc/uniramfs/keys/root.key"
LUKS_SWAP_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000006d2"
LVM_LUKS_SWAP = builder.Layout(
    "lvm-luks-swap", "lvm-luks-swap", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-0000000006d1",
    "lukswaproot", size_mb=256,   # the hibernation image takes ~100 MB
    params=(("LUKS_UUID", LUKS_SWAP_UUID), ("KEYFILE", "/src/key"), ("SWAP_LABEL", "lukswap")),
    files=(("luks1.key", "key"),))
LUKS_KEY_BUILD = ("--add-keys", "%s:%s" % (KEYFILE, KEY_IN_IMAGE))
LUKS_KEY_CMDLINE = "rd.luks.key=%s=%s" % (LUKS_SWAP_UUID, KEY_IN_IMAGE)


# A swap *file* on the root: resume=UUID=<the root> resume_offset=<the page
# of its header>.  Filled with 0xff and given its header by hand: mkfs -d
# leaves zeroed blocks out as holes, and swapon refuses a file with holes.
# 4 KiB blocks (mkfs would pick 1 KiB for this size): a page each, so the
# header is page aligned.  Boot 1 mounts the root rw (swapon needs it so).
SWAPFILE_ROOT = disks.Disk("ext4-swapfile", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-0000000006e1",
                           "swapfileroot", size_mb=256)
SWAPFILE_MB = 160


def _swapfile_root(work, testinit):
    d = SWAPFILE_ROOT
    recipe = repr((d.recipe(), "swapfile %d MB 0xff, header by hand, -b 4096" % SWAPFILE_MB))

    def make(tmp, out):
        root = os.path.join(tmp, "root")
        os.makedirs(root)
        disks._populate(root, testinit)
        size = SWAPFILE_MB * 1024 * 1024
        sf = os.path.join(root, "swapfile")
        with open(sf, "wb") as f:
            for _ in range(SWAPFILE_MB):
                f.write(b"\xff" * (1024 * 1024))
            # the v1 header: version, last page, no bad pages, UUID, label
            f.seek(1024)
            f.write(struct.pack("<III", 1, size // 4096 - 1, 0)
                    + uuid.UUID("5f0c1a4e-1b2d-4c3e-9f10-0000000006e2").bytes
                    + b"swapfile".ljust(16, b"\0"))
            f.seek(4096 - 10)
            f.write(b"SWAPSPACE2")
        os.chmod(sf, 0o600)
        with open(out, "wb") as f:
            f.truncate(d.size_mb * 1024 * 1024)
        _run(["mkfs.ext4", "-q", "-F", "-b", "4096", "-d", root, "-U", d.uuid, "-L", d.label,
              "-E", "root_owner=0:0", out])
    return _cached(work, d.name, recipe, testinit, make)


class OffsetDisks(Disks):
    """The hibernated swap-file machine.  Sets its scenario's
    resume_offset= from where the file's header is on this very disk
    (run.py composes the command line from sc.cmdline after build())."""

    def __init__(self, h, cmdline):
        super().__init__(h.name, "ext4", h.build)
        self.cmdline, self.scenario = cmdline, None

    def build(self, testinit, work, ctx):
        paths = super().build(testinit, work, ctx)
        out = _run(["debugfs", "-R", "bmap /swapfile 0", paths[0]])
        block = int(out.strip().splitlines()[-1])   # a 4 KiB block: a page
        self.scenario.cmdline = "%s resume_offset=%d" % (self.cmdline, block)
        return paths


def _root_and_swap():
    return Disks("root+swap", "ext4",
                 lambda ti, work, ctx: [disks.ensure(ROOT, ti, work), _swap(work, ti)])


# ------------------------------------------------------------ fsck, /usr
# A root whose superblock says "errors" and whose group 0 free-blocks count
# is wrong (checksum recomputed): e2fsck -a fixes it (exit 1), -n cannot
# (exit 4); mounted unchecked, the kernel warns about the errors.
DAMAGED = disks.Disk("ext4-damaged", "ext4", DAMAGED_UUID, "damagedroot")
DAMAGE = ("ssv state 2", "set_bg 0 free_blocks_count 0", "set_bg 0 checksum calc")


def _damaged():
    return Disks("ext4-damaged", "ext4",
                 lambda ti, work, ctx: [_ext4(work, ti, DAMAGED, post=DAMAGE)])


USRROOT = disks.Disk("ext4-usrroot", "ext4", USRROOT_UUID, "usrroot")
USR = disks.Disk("ext4-usr", "ext4", USR_UUID, USR_LABEL, size_mb=16)
FSTAB = ("# /etc/fstab of a root with a separate /usr (uniramfs boot test)\n"
         "\n"
         "UUID=%s\t/\text4\tdefaults\t0\t1\n"
         "  # the /usr disk by its label, which has a space in it\n"
         "LABEL=usr\\040disk /usr  ext4   ro,noatime,nodev  0 2\n"
         "tmpfs\t/tmp\ttmpfs\tdefaults\t0\t0\n" % USRROOT_UUID)


def _usr_disks():
    def build(ti, work, ctx):
        root = _ext4(work, ti, USRROOT, files=(("etc/fstab", FSTAB),), dirs=("usr",))
        usr = _ext4(work, ti, USR, files=(("share/uniramfs-usr-disk", "the /usr disk\n"),),
                    populate=False)
        return [root, usr]
    return Disks("usr", "ext4", build)


def _demo_plugin():
    """A third-party plugin as docs/plugins.md has a package write one (no
    C): a program and a hook that runs it. Its paths are the host's, so
    the file is written here, outside the tree, on each run."""
    d = scratch.scratch_dir("plugin")
    path = os.path.join(d, "demo.conf")
    with open(path, "w") as f:
        f.write("# the boot test's plugin (tests/boot/scenarios_early.py)\n"
                "description = a program and a hook, packed by a plugin\n"
                "programs = /usr/bin/factor\n"
                "hooks = pre-pivot:%s\n" % os.path.join(TEST_PLUGINS, "plugin-note"))
    return path


def _ldconf_program():
    """A program whose libraries only ld.so.conf finds: ZFS's zstream
    (tests/zfs/fetch.py puts it and libzfs in /usr/local, which Debian's
    /etc/ld.so.conf.d/libc.conf names), copied with its RUNPATH removed.
    Written here, outside the tree, on each run; when ZFS is not
    installed the path stays missing and the build says so."""
    d = scratch.scratch_dir("ldconf")
    path = os.path.join(d, "zstream")
    src = "/usr/local/sbin/zstream"
    if os.path.exists(src) and shutil.which("patchelf"):
        shutil.copy(src, path + ".tmp")
        subprocess.run(["patchelf", "--remove-rpath", path + ".tmp"], check=True)
        os.rename(path + ".tmp", path)
    hook = os.path.join(d, "run-zstream")
    with open(hook + ".tmp", "w") as f:
        f.write("#!/bin/sh\n# the ldconf-lib boot test's hook (tests/boot/scenarios_early.py)\n"
                "%s dump /dev/null | busybox grep 'Total records' > /run/hook-ran\n" % path)
    os.chmod(hook + ".tmp", 0o755)
    os.rename(hook + ".tmp", hook)
    return ("--add-binaries", "busybox," + path, "--add-hook", "pre-pivot:" + hook)


def scenarios(Scenario):
    u = "UUID=" + ROOT.uuid
    h = Hibernation("hibernated",
                    lambda ti, work, ctx: [disks.ensure(ROOT, ti, work), _swap(work, ti)],
                    ROOT.uuid, "/dev/vdb")
    hl = Hibernation("hibernated-lvm-luks", LVM_LUKS_SWAP.build, LVM_LUKS_SWAP.uuid,
                     "/dev/mapper/testvg-swap", build=LUKS_KEY_BUILD, cmdline=LUKS_KEY_CMDLINE)
    busybox = ("--add-binaries", "busybox")
    hooks = busybox + ("--add-hook", "pre-pivot:" + os.path.join(DOC_HOOKS, "run-note"),
                       "--add-hook", "pre-mount:" + os.path.join(DOC_HOOKS, "hello"),
                       "--add-hook", "pre-pivot:" + os.path.join(DOC_HOOKS, "check-sysroot"),
                       "--add-hook", "mount:" + os.path.join(TEST_HOOKS, "fail"))
    hf = Hibernation("hibernated-swapfile", lambda ti, work, ctx: [_swapfile_root(work, ti)],
                     SWAPFILE_ROOT.uuid, "/swapfile", cmdline="rw")
    offset_disks = OffsetDisks(hf, "resume=UUID=" + SWAPFILE_ROOT.uuid)
    swapfile = Scenario("resume-swapfile", "hibernation to a swap file: resume=<its fs> resume_offset=",
                        offset_disks, "UUID=" + SWAPFILE_ROOT.uuid, ours_only=True,
                        expect=("resumed=yes",), log_expect=hf.expect)
    offset_disks.scenario = swapfile
    return [
        # -------- resume
        swapfile,
        Scenario("resume", "a real hibernation: the same process prints its token after resume=UUID=",
                 _hibernated_disks(h), u, cmdline="resume=UUID=" + SWAP_UUID, ours_only=True,
                 expect=("resumed=yes",),
                 # the RESUMED line with the first boot's token is added
                 # to this list once that boot has printed it
                 log_expect=h.expect),
        Scenario("resume-noresume", "noresume boots normally from a swap holding an image",
                 _hibernated_disks(h), u, cmdline="resume=UUID=%s noresume" % SWAP_UUID,
                 ours_only=True, expect=("resumed=no",),
                 log_expect=("uniramfs: noresume: not resuming from resume=UUID=" + SWAP_UUID,)),
        Scenario("resume-lvm-luks", "hibernation to a swap LV on LUKS: resumed after unlock and activation",
                 _hibernated_disks(hl), "UUID=" + LVM_LUKS_SWAP.uuid, build=LUKS_KEY_BUILD,
                 cmdline=LUKS_KEY_CMDLINE + " resume=/dev/testvg/swap", ours_only=True,
                 expect=("resumed=yes",), log_expect=hl.expect),
        Scenario("resume-plain-swap", "a swap without a hibernation image boots normally",
                 _root_and_swap(), u, cmdline="resume=UUID=" + SWAP_UUID, ours_only=True,
                 expect=("resumed=no",),
                 log_expect=("uniramfs: resume=UUID=%s is /dev/vdb" % SWAP_UUID,
                             "uniramfs: no hibernation image on /dev/vdb, booting normally")),
        # a stale resume= with the default 30 s rd.timeout: the short wait
        # once the devices are quiet, not the root's (its own message)
        Scenario("resume-missing", "a stale resume= delays the boot by rd.resume.timeout (3 s), not rd.timeout",
                 ROOT, u, cmdline="resume=UUID=0badc0de-dead-4bad-8bad-0000000006a9",
                 ours_only=True,
                 log_expect=("uniramfs: resume device resume=UUID=0badc0de-dead-4bad-8bad-"
                             "0000000006a9 did not appear within 3 seconds of the last device "
                             "event (rd.resume.timeout=); booting normally",)),
        # -------- fsck
        Scenario("fsck-repair", "e2fsck -a repairs a damaged root, the boot goes on",
                 _damaged(), "UUID=" + DAMAGED_UUID, ours_only=True,
                 log_expect=("uniramfs: checking /dev/vda (ext4): e2fsck -a /dev/vda",
                             "damagedroot contains a file system with errors, check forced.",
                             "uniramfs: e2fsck corrected errors on /dev/vda, going on")),
        Scenario("fsck-skip", "fsck.mode=skip mounts the damaged root unchecked (rw: the kernel warns)",
                 _damaged(), "UUID=" + DAMAGED_UUID, cmdline="fsck.mode=skip rw", ours_only=True,
                 log_expect=("EXT4-fs (vda): warning: mounting unchecked fs, running e2fsck is "
                             "recommended",)),
        Scenario("fsck-fail", "errors the checker leaves (fsck.repair=no) reach the failure path",
                 _damaged(), "UUID=" + DAMAGED_UUID, cmdline="fsck.repair=no rd.shell=0",
                 ours_only=True,
                 fail_msgs=("uniramfs: checking /dev/vda (ext4): e2fsck -n /dev/vda",
                            "Fix? no",
                            "uniramfs: e2fsck left errors on /dev/vda (exit status 4, see its "
                            "output above); repair it by hand: e2fsck -f /dev/vda",
                            "uniramfs: not starting a shell: rd.shell=0",
                            "uniramfs: rebooting now")),
        # -------- /usr
        Scenario("usr", "the root's fstab names /usr by LABEL=usr\\040disk: mounted before switch_root",
                 _usr_disks(), "UUID=" + USRROOT_UUID, ours_only=True,
                 expect=(r"mounts: /dev/vdb /usr ext4 ro,nodev,noatime",),
                 log_expect=("uniramfs: checking /dev/vdb (ext4): e2fsck -a /dev/vdb",
                             "uniramfs: mounted /dev/vdb (ext4, ro) on /sysroot/usr")),
        # -------- break points and hooks
        Scenario("break-shell", "rd.break=pre-mount: a shell on the console, its exit continues the boot",
                 ROOT, u, cmdline="rd.break=pre-mount", build=busybox, ours_only=True,
                 interact=((r"starting /bin/sh \(pre-mount\); exit it to continue", ""),
                           (r"[#$] ", "echo BREAK-SHELL-$((40+2))\n"),
                           (r"BREAK-SHELL-42", "exit\n")),
                 log_expect=("BREAK-SHELL-42",)),
        Scenario("break-no-shell", "rd.break with rd.shell=0: no shell, the boot goes on",
                 ROOT, u, cmdline="rd.break=mount rd.shell=0", build=busybox, ours_only=True,
                 log_expect=("uniramfs: not starting a shell: rd.shell=0",
                             "uniramfs: break point mount: no shell, going on")),
        Scenario("hooks", "hooks from --add-hook run at their stages; a failing one is logged",
                 ROOT, u, build=hooks, ours_only=True,
                 expect=(r"run: hook-ran$", r"hook-ran: stage=pre-pivot$",
                         r"hook-ran: root=%s$" % u, r"hook-ran: root_dev=/dev/vda$",
                         r"hook-ran: kver=\S+$"),
                 log_expect=("hello from a uniramfs hook at stage pre-mount, root /dev/vda",
                             "check-sysroot: ID=uniramfs-test",
                             "fail hook: exiting with status 3",
                             "uniramfs: hook mount/fail failed with status 3")),
        Scenario("ldconf-lib", "a program whose libraries only ld.so.conf finds (/usr/local/lib) runs: "
                 "the image has the ld.so.cache ld.so needs",
                 ROOT, u, build=_ldconf_program(), ours_only=True,
                 expect=(r"run: hook-ran$", r"hook-ran: \s*Total records = 0$")),
        Scenario("plugin", "a plugin file (no C) packs a program and a hook; the hook runs it before switch_root",
                 ROOT, u, build=("--plugin", _demo_plugin()), ours_only=True,
                 expect=(r"run: hook-ran$", r"hook-ran: plugin=demo stage=pre-pivot$",
                         r"hook-ran: factor=4242: 2 3 7 101$")),
    ]
