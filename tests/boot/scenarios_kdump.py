# SPDX-License-Identifier: GPL-2.0-or-later
"""The kdump boot (docs/kdump.md, issue 30): a crash dump saved by a
`uniramfs build --kdump` image, and the next boot.

One crash boot per run, without -snapshot, on a private copy of its
root disk (an ext4 made on the host with mkfs -d, cached by recipe in
WORK/disks): testinit's root plus busybox-static, kexec-tools' kexec
with its libraries, the boot kernel as /boot/vmlinuz and this build's
--kdump image as /boot/kdump.img.  The guest (1 GiB, crashkernel=384M)
boots a hostonly image of the boot tests' fixture with init=/kdump-crash,
a busybox script that loads the crash kernel with `kexec -p` and panics
the kernel through sysrq.  The crash kernel boots the --kdump image in
the reserved 384 MiB: its hook finds /proc/vmcore, saves the log and
the dump below /var/crash with makedumpfile and reboots (QEMU's
-no-reboot ends the run).  Then, on the host, debugfs (no mount) finds
dump.STAMP with makedumpfile's "KDUMP   " signature and a plausible
size, and no dump-incomplete; the scenario's own boot is the next boot
of that disk (run.py, -snapshot), whose testinit prints the saved log
of the crashed kernel, ending in its sysrq panic.

The crash boot's seconds are printed (under TCG the crash kernel boots
as slowly as any other; makedumpfile reads the whole /proc/vmcore).
"""

import os
import re
import shutil
import subprocess
import threading
import time

import disks
import pvh
import scenarios_early
import scenarios_sb
import scratch
import serialtext

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(SRCDIR, "tests/unit/fixtures/hostonly/virtio")

ROOT = disks.Disk("kdump-root", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-0000000000c1", "kdumproot",
                  size_mb=512)
MEMORY = "1G"
CRASHKERNEL = "384M"
CRASH_TIMEOUT = 900   # seconds for the whole crash boot under TCG on a loaded host
# What Debian's kdump-tools appends to the crash kernel's command line
# (KDUMP_CMDLINE_APPEND), less its systemd unit: the image never hands over.
CRASH_APPEND = ("console=ttyS0 panic=-1 root=UUID=%s rd.shell=0 reset_devices nr_cpus=1 "
                "irqpoll usbcore.nousb" % ROOT.uuid)
CRASH_SCRIPT = """#!/bin/busybox sh
# init= of the crash boot (tests/boot/scenarios_kdump.py): load the crash
# kernel as kdump-tools does, then crash the running one
bb=/bin/busybox
echo "KDUMP-TEST: loading the crash kernel"
if ! /usr/sbin/kexec -p /boot/vmlinuz --initrd=/boot/kdump.img --append="%s"; then
	echo "KDUMP-TEST: kexec -p failed"
	$bb poweroff -f
fi
echo "KDUMP-TEST: crash kernel loaded: $($bb cat /sys/kernel/kexec_crash_loaded)"
echo 1 > /proc/sys/kernel/sysrq
echo c > /proc/sysrq-trigger
echo "KDUMP-TEST: still running after the panic"
$bb poweroff -f
""" % CRASH_APPEND
SAVED_RE = re.compile(r"^uniramfs-kdump: saved /var/crash/(\d{12})/dump\.\1 \((\d+) bytes\) "
                      r"in (\d+\.\d) s$", re.M)
SAID = ("uniramfs-kdump: saving the crashed kernel's log to /var/crash/",
        "uniramfs-kdump: saving the crashed kernel's memory (dump level 31) to /var/crash/",
        "uniramfs-kdump: done; rebooting")
SIGNATURE = b"KDUMP   "   # makedumpfile's kdump-compressed format (disk_dump_header)
MIN_DUMP = 1 << 20         # a 1 GiB guest's kernel pages, even at dump level 31


def _copy_with_libs(binary, root):
    """binary and every library ldd names, at the same paths under root."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    for path in [binary] + re.findall(r"(/\S+) \(0x", out):
        dst = root + path
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst):
            shutil.copy2(os.path.realpath(path), dst)


_run = scenarios_early._run
_sha = scenarios_sb._sha


def kdump_sysroot(builddir):
    """The fixture's virtio-blk + ext4 machine with makedumpfile and this
    build's hook program (at its build-tree path, which build/plugins/kdump.conf
    names), as a hostonly --kdump build reads a host."""
    prog = os.path.join(builddir, "src/plugins/kdump/uniramfs-kdump")
    root = os.path.join(scratch.scratch_dir("kdump"), "sysroot")
    tmp = root + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(FIXTURE, tmp, symlinks=True)
    mdf = shutil.which("makedumpfile")
    if not mdf:
        raise RuntimeError("makedumpfile not found: apt-get install makedumpfile")
    _copy_with_libs(mdf, tmp)
    _copy_with_libs(prog, tmp)
    shutil.rmtree(root, ignore_errors=True)
    os.replace(tmp, root)
    return root


def kdump_build_args():
    """The build arguments of the --kdump image beside run.py's hostonly ones."""
    return ["--kdump", "--kmoddir", "/lib/modules/{kver}"]


def build_kdump(ctx, out):
    builddir = os.path.dirname(ctx["uniramfs"])
    sysroot = kdump_sysroot(builddir)
    args = [a.replace("{kver}", ctx["kver"]) for a in kdump_build_args()]
    return _run([ctx["uniramfs"], "build", "-k", ctx["kver"], "-o", out, "--sysroot", sysroot]
                + args)


def _debugfs(disk, request):
    return _run(["debugfs", "-R", request, disk])


def check_dump(disk):
    """On the host, no mount: the one dump directory below /var/crash,
    its dump.STAMP with makedumpfile's signature and a plausible size,
    its dmesg.STAMP, no dump-incomplete. Returns (stamp, dump bytes)."""
    stamps = re.findall(r"^/\d+/040\d+/\d+/\d+/(\d{12})//$",
                        _debugfs(disk, "ls -p /var/crash"), re.M)
    if len(stamps) != 1:
        raise RuntimeError("expected one dump directory in /var/crash, found %r" % stamps)
    stamp = stamps[0]
    d = "/var/crash/" + stamp
    # debugfs ls -p: /INODE/MODE/UID/GID/NAME/SIZE/
    files = dict((n, int(s)) for n, s in re.findall(r"^/\d+/100\d+/\d+/\d+/([^/]+)/(\d+)/$",
                                                    _debugfs(disk, "ls -p " + d), re.M))
    for want in ("dump." + stamp, "dmesg." + stamp):
        if want not in files:
            raise RuntimeError("%s has no %s (it has %s)" % (d, want, sorted(files)))
    if "dump-incomplete" in files:
        raise RuntimeError("%s/dump-incomplete is left" % d)
    size = files["dump." + stamp]
    if size < MIN_DUMP:
        raise RuntimeError("%s/dump.%s is only %d bytes" % (d, stamp, size))
    # the file's first block, read from the disk image where ext4 put it
    bsize = int(re.search(r"^Block size:\s+(\d+)$", _debugfs(disk, "stats"), re.M).group(1))
    block = int(_debugfs(disk, "bmap %s/dump.%s 0" % (d, stamp)).strip().splitlines()[-1])
    with open(disk, "rb") as f:
        f.seek(block * bsize)
        head = f.read(len(SIGNATURE))
    if head != SIGNATURE:
        raise RuntimeError("%s/dump.%s starts with %r, not makedumpfile's %r"
                           % (d, stamp, head, SIGNATURE))
    return stamp, size


class KdumpDisk:
    """The root disk after the crash boot; build() runs that boot once."""
    name, fs = ROOT.name, ROOT.fs

    def __init__(self):
        self.lock = threading.Lock()
        self.result = None

    def _root(self, work, testinit, ctx, kdump_img):
        busybox = "/bin/busybox"
        kexec = shutil.which("kexec") or "/usr/sbin/kexec"
        if not os.path.exists(kexec):
            raise RuntimeError("kexec not found: apt-get install kexec-tools")
        recipe = repr((ROOT.recipe(), CRASH_SCRIPT, ctx["vmlinuz"], _sha(kdump_img), _sha(kexec),
                       _sha(busybox)))

        def make(tmp, out):
            root = os.path.join(tmp, "root")
            disks._populate(root, testinit)
            os.makedirs(os.path.join(root, "bin"))
            shutil.copy2(busybox, os.path.join(root, "bin/busybox"))
            _copy_with_libs(kexec, root)
            os.makedirs(os.path.join(root, "boot"))
            shutil.copyfile(ctx["vmlinuz"], os.path.join(root, "boot/vmlinuz"))
            shutil.copyfile(kdump_img, os.path.join(root, "boot/kdump.img"))
            os.makedirs(os.path.join(root, "var/crash"))
            script = os.path.join(root, "kdump-crash")
            with open(script, "w") as f:
                f.write(CRASH_SCRIPT)
            os.chmod(script, 0o755)
            with open(out, "wb") as f:
                f.truncate(ROOT.size_mb << 20)
            _run(["mkfs.ext4", "-q", "-F", "-d", root, "-U", ROOT.uuid, "-L", ROOT.label,
                  "-E", "root_owner=0:0", out])
        return scenarios_early._cached(work, ROOT.name, recipe, testinit, make)

    def _crash(self, testinit, work, ctx):
        d = os.path.join(work, "kdump")
        os.makedirs(d, exist_ok=True)
        kdump_img = os.path.join(d, "kdump.img")
        said = build_kdump(ctx, kdump_img)
        print("  kdump image: %d bytes (%s)" % (os.path.getsize(kdump_img),
                                                said.strip().splitlines()[-1]), flush=True)
        src = self._root(work, testinit, ctx, kdump_img)
        disk = os.path.join(d, "root.img")
        _run(["cp", "--sparse=always", src, disk])
        boot_img = os.path.join(d, "boot.img")
        _run([ctx["uniramfs"], "build", "-k", ctx["kver"], "-o", boot_img, "--hostonly",
              "--sysroot", FIXTURE, "--kmoddir", "/lib/modules/" + ctx["kver"],
              "--microcode", "none"])
        log = os.path.join(work, "logs", "kdump-crash-boot.log")
        os.makedirs(os.path.dirname(log), exist_ok=True)
        cmdline = "console=ttyS0 panic=-1 root=UUID=%s crashkernel=%s init=/kdump-crash" % (
            ROOT.uuid, CRASHKERNEL)
        cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", MEMORY, "-smp", "1",
               "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none",
               "-serial", "file:" + log, "-kernel", ctx["vmlinuz"], "-initrd", boot_img,
               "-append", cmdline, "-drive", "if=none,id=d0,format=raw,file=" + disk,
               "-device", "virtio-blk-pci,drive=d0"]
        t = time.monotonic()
        for _ in range(serialtext.BOOT_TRIES):
            try:
                subprocess.run(pvh.argv(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.STDOUT, timeout=CRASH_TIMEOUT)
            except subprocess.TimeoutExpired:
                raise RuntimeError("the crash boot did not end within %d s (%s)"
                                   % (CRASH_TIMEOUT, log))
            text = serialtext.read(log)
            if not serialtext.host_too_slow(text):
                break
            _run(["cp", "--sparse=always", src, disk])
        else:
            raise RuntimeError("the kernel's timer check failed on a busy host in each of %d "
                               "crash boots (%s)" % (serialtext.BOOT_TRIES, log))
        dt = time.monotonic() - t
        os.unlink(boot_img)
        for m in ("KDUMP-TEST: crash kernel loaded: 1", "sysrq: Trigger a crash") + SAID:
            if m not in text:
                raise RuntimeError("the crash boot did not print %r (%s)" % (m, log))
        saved = SAVED_RE.search(text)
        if not saved:
            raise RuntimeError("the crash kernel saved no dump (%s)" % log)
        stamp, size = check_dump(disk)
        if stamp != saved.group(1) or size != int(saved.group(2)):
            raise RuntimeError("the disk has dump.%s of %d bytes; the crash kernel said %s, %s"
                               % (stamp, size, saved.group(1), saved.group(2)))
        print("  kdump: crash boot %.0f s (makedumpfile %s s), dump.%s %d bytes (%s)"
              % (dt, saved.group(3), stamp, size, log), flush=True)
        return disk, stamp

    def build(self, testinit, work, ctx):
        with self.lock:
            if self.result is None:
                self.result = self._crash(testinit, work, ctx)
            return [self.result[0]]

    def words(self, _dpaths):
        stamp = self.result[1]
        return {"dmesg": "/var/crash/%s/dmesg.%s" % (stamp, stamp)}


KDUMP = KdumpDisk()


def scenarios(Scenario):
    return [
        Scenario("kdump", "a --kdump image in a crash kernel (kexec -p, crashkernel=%s, sysrq "
                 "panic) saves the dump below /var/crash and reboots; the next boot finds "
                 "the crashed kernel's log there" % CRASHKERNEL, KDUMP, "UUID=" + ROOT.uuid,
                 cmdline="testinit.show={dmesg}", ours_only=True,
                 expect=(r"show /var/crash/\d{12}/dmesg\.\d{12}: ",),
                 log_expect=("Kernel panic - not syncing: sysrq triggered crash",)),
    ]
