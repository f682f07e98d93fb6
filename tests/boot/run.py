#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot tests: boot the installed distribution kernel under QEMU with an
image made by `uniramfs build` and a real root disk, and check what the
root's /sbin/init (testinit.c) reports.

A boot passes only when the marker printed by testinit (which exists only on
the root disk) shows pid=1 and the scenario's own expectation holds; a
failure scenario passes only on its exact expected message and no marker.

  tests/boot/run.py [BUILDDIR] [--only a,b] [--list] [--keep]
                    [--with-initramfs-tools | --initrd FILE] [--show]

BUILDDIR defaults to $UNIRAMFS_BUILDDIR, then ./build.  --with-initramfs-tools
boots the same disks with /boot/initrd.img-KVER (validation of the harness
itself, and the baseline bench/ compares against); --initrd boots any image.

A scenario can type on the console: Scenario.interact is a list of
(regex, text) pairs; the serial port is then a unix socket the harness
holds (no stdin needed, so it runs in CI), and each text is sent once the
output after the previous match matches its regex (e.g. a passphrase prompt,
a shell prompt).  A step that never happens fails the scenario.  A text
that is a Keys is pressed on the guest's PS/2 keyboard instead, key by key
through QEMU's monitor (sendkey), so it reaches the virtual console through
the guest's keymap as a person's typing does.  A text that is callable is
called instead (it must not block: scenarios_ssh's login runs in a
thread).  A disk
with a build() method (builder.py's stacked layouts) gives several disk
files: the first goes on the scenario's bus, the others on virtio-blk.
A disk with firmware = True boots itself through the firmware its
attach() gives (scenarios_dps: OVMF, a UKI on the disk's ESP): no
-kernel, no image of run.py's.
"""

import argparse
import concurrent.futures
import contextlib
import dataclasses
import glob
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import disks  # noqa: E402
import pvh  # noqa: E402
import serialtext  # noqa: E402
import scenarios_bond  # noqa: E402
import scenarios_btrfs  # noqa: E402
import scenarios_clevis  # noqa: E402
import scenarios_compat  # noqa: E402
import scenarios_console  # noqa: E402
import scenarios_dps  # noqa: E402
import scenarios_early  # noqa: E402
import scenarios_f2fs  # noqa: E402
import scenarios_handover  # noqa: E402
import scenarios_live  # noqa: E402
import scenarios_liveovl  # noqa: E402
import scenarios_http  # noqa: E402
import scenarios_kdump  # noqa: E402
import scenarios_overlay  # noqa: E402
import scenarios_ovlpersist  # noqa: E402
import scenarios_load  # noqa: E402
import scenarios_lvmx  # noqa: E402
import scenarios_modprobe  # noqa: E402
import scenarios_luksx  # noqa: E402
import scenarios_multipath  # noqa: E402
import scenarios_persist  # noqa: E402
import scenarios_plugins  # noqa: E402
import scenarios_plymouth  # noqa: E402
import scenarios_net  # noqa: E402
import scenarios_netvm  # noqa: E402
import scenarios_net27  # noqa: E402
import scenarios_nbd72  # noqa: E402
import scenarios_dns  # noqa: E402
import scenarios_ibft  # noqa: E402
import scenarios_iso  # noqa: E402
import scenarios_nvmf  # noqa: E402
import scenarios_ipv6  # noqa: E402
import scenarios_ssh  # noqa: E402
import scenarios_sshmulti  # noqa: E402
import scenarios_stack  # noqa: E402
import scenarios_zfs  # noqa: E402
import scenarios_tpm  # noqa: E402
import scenarios_pcr  # noqa: E402
import scenarios_verity  # noqa: E402
import scenarios_rescue  # noqa: E402
import scenarios_sb  # noqa: E402
import scenarios_sigpol  # noqa: E402

BOOT_TIMEOUT = 90          # seconds per boot; a TCG boot takes ~10 s
BASE_CMDLINE = "console=ttyS0 panic=-1"
MARKER_RE = re.compile(r"^UNIRAMFS-TEST-MARKER pid=(\d+) argc=(\d+) argv=\[(.*)\]$", re.M)
END_RE = re.compile(r"^UNIRAMFS-TEST-END pid=\d+$", re.M)

# What uniramfs-init prints when the root never shows up (docs/messages.md,
# "Failures"): what was looked for, every block device it saw, then with
# rd.shell=0 and panic=-1 no shell and an immediate reboot.  "{root}" stands
# for the scenario's root= value.
MISSING_ROOT_TIMEOUT = 5
MISSING_ROOT_LINES = (
    "uniramfs: root device root={root} did not appear within %d seconds" % MISSING_ROOT_TIMEOUT,
    "uniramfs: block devices seen:",
    "uniramfs:   /dev/vda TYPE=ext4 UUID=%s LABEL=%s" % (
        "5f0c1a4e-1b2d-4c3e-9f10-000000000001", "testroot"),
    "uniramfs: not starting a shell: rd.shell=0",
    "uniramfs: rebooting now",
)

# A hostonly image cannot be made from this host's own mounts (the guest is
# not this machine): describe the guest with a fake sysroot (its
# /proc/self/mountinfo and /sys), but take the modules from the installed
# kernel; the fixture has no /proc/cpuinfo, so no microcode.
HOSTONLY_SYSROOT = os.path.join(SRCDIR, "tests/unit/fixtures/hostonly/virtio")
HOSTONLY_ARGS = ["--hostonly", "--sysroot", HOSTONLY_SYSROOT,
                 "--kmoddir", "/lib/modules/{kver}", "--microcode", "none"]

# What every successful boot hands the real init, whichever image booted
# it: the API filesystems moved into the new root.
HANDOVER = (r"mounts: \S+ /dev devtmpfs ", r"mounts: \S+ /proc proc ",
            r"mounts: \S+ /sys sysfs ", r"mounts: \S+ /run tmpfs ")
# And what uniramfs-init promises on top (docs/cmdline.md, "Handing over"):
# /run as INITRD_INTERFACE asks, RD_TIMESTAMP, the stage timings.
HANDOVER_OURS = (r"mounts: \S+ /run tmpfs rw,nosuid,nodev,(\S+,)?mode=755[, ]",
                 r"RD_TIMESTAMP=\d+ \d+$",
                 r"env: PATH=",
                 r"timings: total \d+$")

# ---------------------------------------------------------------- disks
EXT4 = disks.Disk("ext4", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000001", "testroot")
GPT = disks.Disk("gpt-ext4", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000002", "gptroot",
                 gpt=True, disk_guid="5f0c1a4e-1b2d-4c3e-9f10-0000000000d2",
                 partuuid="5f0c1a4e-1b2d-4c3e-9f10-0000000000a2",
                 partlabel="uniramfs-root")
XFS = disks.Disk("xfs", "xfs", "5f0c1a4e-1b2d-4c3e-9f10-000000000003", "xfsroot",
                 size_mb=300)  # xfsprogs 6.x refuses filesystems under 300 MB
BTRFS = disks.Disk("btrfs-subvol", "btrfs", "5f0c1a4e-1b2d-4c3e-9f10-000000000004",
                   "btrfsroot", size_mb=128, subvol="rootvol")

# virtio-blk's block major is dynamic; on this kernel it is 254 (seen by
# booting Debian's own initramfs and printing /proc/partitions).
VIRTIO_BLK_MAJOR = 254

# QEMU device lines for each way of attaching the root disk (drive id d0).
BUSES = {
    "virtio": ["-device", "virtio-blk-pci,drive=d0"],
    # virtio without PCI: a transport of -M virt's on arm (tests/arm64)
    "virtio-mmio": ["-device", "virtio-blk-device,drive=d0"],
    "ahci": ["-device", "ahci,id=ahci", "-device", "ide-hd,drive=d0,bus=ahci.0"],
    "nvme": ["-device", "nvme,serial=uniramfs0,drive=d0"],
    "scsi": ["-device", "virtio-scsi-pci,id=scsi", "-device", "scsi-hd,drive=d0,bus=scsi.0"],
    "usb": ["-device", "qemu-xhci,id=xhci", "-device", "usb-storage,drive=d0,bus=xhci.0"],
    # a CD-ROM drive (sr_mod, cdrom): SATA ATAPI, or SCSI on virtio-scsi
    "cdrom": ["-device", "ahci,id=ahci", "-device", "ide-cd,drive=d0,bus=ahci.0"],
    "scsi-cd": ["-device", "virtio-scsi-pci,id=scsi", "-device", "scsi-cd,drive=d0,bus=scsi.0"],
}


@dataclasses.dataclass(frozen=True)
class Keys:
    """Key presses for Scenario.interact: QEMU key names (the US labels
    of the keys, e.g. "shift-z", "semicolon", "ret"), pressed in turn."""
    names: tuple


@dataclasses.dataclass
class Scenario:
    name: str
    doc: str
    disk: disks.Disk
    root: str                       # root= value
    bus: str = "virtio"
    cmdline: str = ""               # more kernel parameters
    build: tuple = ()               # more `uniramfs build` arguments
    expect: tuple = ()              # regexes some TESTINIT: line must match
    argv: str = "/sbin/init"        # the real init's argv, as testinit prints it
    fail_msgs: tuple = ()           # failure test: these exact texts, and no marker
    ours_only: bool = False         # meaningless with another generator's image
    # Typing on the serial console: (regex, text) pairs, in order.  Once
    # the console output after the previous step's match matches regex,
    # text is written to the guest's serial input (a "\n" ends a line).
    # Every step must happen, or the scenario fails.
    interact: tuple = ()
    log_expect: tuple = ()          # texts the console log must also show
    log_absent: tuple = ()          # texts the console log must not show
    # this boot may take this many times BOOT_TIMEOUT (one that types a
    # lot: scenarios_plymouth's questions in a row)
    timeout_scale: int = 1
    # The network (scenarios_net.py): a callable given (testinit, work)
    # that returns a context manager whose value is (disk paths, extra
    # QEMU arguments): the servers it started run for the boot.  One
    # with firmware_boot = True boots the guest through the NIC's
    # firmware instead of -kernel (scenarios_ibft.py's iPXE) and is also
    # given boot=(vmlinuz, image, command line).
    net: object = None


def _u(d):
    return "UUID=" + d.uuid


SCENARIOS = [
    Scenario("virtio-uuid", "ext4 on virtio-blk by UUID; read-only by default",
             EXT4, _u(EXT4), expect=("root-writable=no",)),
    # the generic image mounts its squashfs segment through loop when it
    # is first wanted (here by e2fsck): loop's parameters, fixed from then
    # on, must be the command line's (and modprobe.d's), as the root's
    # modprobe would have set them
    # rd.debug: the init says what it read of the segment, and that QEMU's
    # default CPU (qemu64: no SSE4.2) got no crc32c_intel try for ext4
    Scenario("squash-loop-params", "loop.max_part= on the command line holds for the loop "
             "the squashfs segment loaded; rd.debug says the KiB read of it, and ext4's "
             "crc32c softdep skips crc32c_intel on a CPU without SSE4.2", EXT4, _u(EXT4),
             cmdline="rd.debug loop.max_part=7 testinit.show=/sys/module/loop/parameters/max_part",
             expect=(r"show /sys/module/loop/parameters/max_part: 7$",),
             log_expect=("loop0: detected capacity change", "KiB of the squashfs segment's ",
                         "not loading crc32c_intel for crypto-crc32c: none of its cpu: aliases "
                         "matches this CPU"),
             log_absent=("failed to load crc32c_intel",), ours_only=True),
    # an ext4 root on virtio that runs no program needs nothing of the
    # squashfs segment: its modules are stored beside it, so loop and
    # squashfs never load and the segment is never mounted
    Scenario("squash-not-wanted", "a generic boot that needs nothing of the squashfs segment "
             "never mounts it (fsck.mode=skip: no program runs)", EXT4, _u(EXT4),
             cmdline="rd.debug fsck.mode=skip",
             log_expect=("loaded virtio_blk in ", "loaded ext4 in "),
             log_absent=("loop: module loaded", "mounted the squashfs segment",
                         "KiB of the squashfs segment's"), ours_only=True),
    Scenario("rw", "`rw` mounts the root writable", EXT4, _u(EXT4), cmdline="rw",
             expect=("root-writable=yes",)),
    Scenario("init-arg", "init=/sbin/other arg1 reaches the real init with its argument",
             EXT4, _u(EXT4), cmdline="init=/sbin/other arg1", argv="/sbin/other arg1"),
    Scenario("gpt-label", "ext4 on a GPT partition by LABEL", GPT, "LABEL=" + GPT.label),
    Scenario("gpt-partuuid", "by PARTUUID", GPT, "PARTUUID=" + GPT.partuuid),
    Scenario("gpt-partlabel", "by PARTLABEL", GPT, "PARTLABEL=" + GPT.partlabel),
    Scenario("gpt-devname", "by /dev/vda1", GPT, "/dev/vda1"),
    Scenario("gpt-majmin", "by MAJ:MIN", GPT, "%d:1" % VIRTIO_BLK_MAJOR),
    Scenario("xfs", "xfs by UUID", XFS, _u(XFS)),
    Scenario("btrfs-subvol", "btrfs with rootflags=subvol= (top level has no init)",
             BTRFS, _u(BTRFS), cmdline="rootflags=subvol=" + BTRFS.subvol,
             expect=(r"root-mount=\S+ btrfs \S*subvol=/%s\b" % BTRFS.subvol,)),
    Scenario("ahci", "SATA disk through AHCI", EXT4, _u(EXT4), bus="ahci"),
    Scenario("nvme", "NVMe disk", EXT4, _u(EXT4), bus="nvme"),
    Scenario("virtio-scsi", "SCSI disk on virtio-scsi", EXT4, _u(EXT4), bus="scsi"),
    Scenario("usb-xhci", "USB mass storage on xHCI", EXT4, _u(EXT4), bus="usb"),
] + [
    Scenario("compress-" + c, "image compressed with " + c, EXT4, _u(EXT4),
             build=("--compress", c), ours_only=True)
    for c in ("zstd", "xz", "lz4", "gzip", "none")
] + [
    Scenario("missing-root", "a root that never appears ends in the documented message",
             EXT4, "UUID=0badc0de-dead-4bad-8bad-00000000dead",
             cmdline="rd.timeout=%d rd.shell=0" % MISSING_ROOT_TIMEOUT,
             fail_msgs=MISSING_ROOT_LINES, ours_only=True),
    Scenario("btrfs-no-subvol", "without rootflags=subvol= the btrfs top level has no init",
             BTRFS, _u(BTRFS), cmdline="rd.shell=0", ours_only=True,
             fail_msgs=("uniramfs: no init on the root filesystem: tried /sbin/init, "
                        "/etc/init, /bin/init, /bin/sh", "uniramfs: rebooting now")),
    Scenario("init-missing", "an init= that is not on the root is an error",
             EXT4, _u(EXT4), cmdline="rd.shell=0 init=/sbin/nonexistent", ours_only=True,
             fail_msgs=("uniramfs: init=/sbin/nonexistent not found on the root filesystem "
                        "(or not executable)", "uniramfs: rebooting now")),
    Scenario("hostonly", "a --hostonly image for the guest's virtio-blk + ext4 stack",
             EXT4, _u(EXT4), build=tuple(HOSTONLY_ARGS), ours_only=True),
    Scenario("hostonly-other-hw", "a --hostonly image made for virtio-blk, booted on an AHCI disk, "
             "says so and names the generic image",
             EXT4, _u(EXT4), bus="ahci", build=tuple(HOSTONLY_ARGS),
             cmdline="rd.timeout=%d rd.shell=0" % MISSING_ROOT_TIMEOUT, ours_only=True,
             fail_msgs=("uniramfs: root device root={root} did not appear within %d seconds"
                        % MISSING_ROOT_TIMEOUT,
                        "uniramfs: this is a hostonly image, made for a machine whose root is "
                        "reached through virtio_blk,virtio_pci; this machine's hardware may differ",
                        "uniramfs: a generic image (uniramfs build --generic) boots on any hardware",
                        "uniramfs: rebooting now")),
]
SCENARIOS.extend(scenarios_stack.scenarios(Scenario))
SCENARIOS.extend(scenarios_early.scenarios(Scenario))
SCENARIOS.extend(scenarios_handover.scenarios(Scenario))
SCENARIOS.extend(scenarios_persist.scenarios(Scenario))
SCENARIOS.extend(scenarios_plugins.scenarios(Scenario))
SCENARIOS.extend(scenarios_multipath.scenarios(Scenario))
SCENARIOS.extend(scenarios_zfs.scenarios(Scenario))
SCENARIOS.extend(scenarios_load.scenarios(Scenario))
SCENARIOS.extend(scenarios_net.scenarios(Scenario))
SCENARIOS.extend(scenarios_netvm.scenarios(Scenario))
SCENARIOS.extend(scenarios_net27.scenarios(Scenario))
SCENARIOS.extend(scenarios_nbd72.scenarios(Scenario))
SCENARIOS.extend(scenarios_dns.scenarios(Scenario))
SCENARIOS.extend(scenarios_ibft.scenarios(Scenario))
SCENARIOS.extend(scenarios_nvmf.scenarios(Scenario))
SCENARIOS.extend(scenarios_ipv6.scenarios(Scenario))
SCENARIOS.extend(scenarios_bond.scenarios(Scenario))
SCENARIOS.extend(scenarios_tpm.scenarios(Scenario))
SCENARIOS.extend(scenarios_pcr.scenarios(Scenario))
SCENARIOS.extend(scenarios_clevis.scenarios(Scenario))
SCENARIOS.extend(scenarios_ssh.scenarios(Scenario))
SCENARIOS.extend(scenarios_sshmulti.scenarios(Scenario))
SCENARIOS.extend(scenarios_console.scenarios(Scenario, Keys))
SCENARIOS.extend(scenarios_plymouth.scenarios(Scenario, Keys))
SCENARIOS.extend(scenarios_rescue.scenarios(Scenario))
SCENARIOS.extend(scenarios_modprobe.scenarios(Scenario))
SCENARIOS.extend(scenarios_btrfs.scenarios(Scenario))
SCENARIOS.extend(scenarios_f2fs.scenarios(Scenario))
SCENARIOS.extend(scenarios_overlay.scenarios(Scenario))
SCENARIOS.extend(scenarios_live.scenarios(Scenario))
SCENARIOS.extend(scenarios_liveovl.scenarios(Scenario))
SCENARIOS.extend(scenarios_ovlpersist.scenarios(Scenario))
SCENARIOS.extend(scenarios_http.scenarios(Scenario))
SCENARIOS.extend(scenarios_iso.scenarios(Scenario))
SCENARIOS.extend(scenarios_lvmx.scenarios(Scenario))
SCENARIOS.extend(scenarios_verity.scenarios(Scenario))
SCENARIOS.extend(scenarios_compat.scenarios(Scenario))
SCENARIOS.extend(scenarios_luksx.scenarios(Scenario))
SCENARIOS.extend(scenarios_dps.scenarios(Scenario))
SCENARIOS.extend(scenarios_sb.scenarios(Scenario))
SCENARIOS.extend(scenarios_sigpol.scenarios(Scenario))
SCENARIOS.extend(scenarios_kdump.scenarios(Scenario))

# ---------------------------------------------------------------- helpers
_print_lock = threading.Lock()


def say(*a):
    with _print_lock:
        print(*a, flush=True)


def find_kernel(kver=None):
    if kver:
        return kver, "/boot/vmlinuz-" + kver
    found = []
    for p in glob.glob("/boot/vmlinuz-*"):
        k = p[len("/boot/vmlinuz-"):]
        if os.path.isdir("/lib/modules/" + k):
            found.append(k)
    if not found:
        sys.exit("run.py: no /boot/vmlinuz-KVER with /lib/modules/KVER installed")

    def key(k):
        return [int(x) if x.isdigit() else x for x in re.split(r"[.-]", k)]
    k = max(found, key=key)
    return k, "/boot/vmlinuz-" + k


def find_testinit(builddir, work):
    p = os.path.join(builddir, "tests/boot/testinit")
    if os.path.isfile(os.path.join(builddir, "build.ninja")):
        subprocess.run(["ninja", "-C", builddir, "tests/boot/testinit"],
                       stdout=subprocess.DEVNULL, check=False)
    if os.path.isfile(p):
        return p
    # No meson build dir (e.g. --with-initramfs-tools on a bare checkout).
    p = os.path.join(work, "testinit")
    src = os.path.join(HERE, "testinit.c")
    if not os.path.exists(p) or os.path.getmtime(p) < os.path.getmtime(src):
        subprocess.run(["cc", "-O2", "-static", "-o", p, src], check=True)
    return p


class Images:
    """`uniramfs build` once per distinct argument list, shared by scenarios."""

    def __init__(self, uniramfs, kver, work):
        self.uniramfs, self.kver, self.work = uniramfs, kver, work
        self.locks, self.done, self.guard = {}, {}, threading.Lock()

    def get(self, extra):
        extra = [a.replace("{kver}", self.kver) for a in extra]
        name = "img-generic"
        if extra:
            # readable, and unique: two crypttabs packed as /etc/crypttab
            # read alike, so the whole argument list is hashed in
            name = "img-" + "-".join(re.sub(r"[^A-Za-z0-9]+", "", os.path.basename(a))
                                     for a in extra)[:48] + "-" + hashlib.sha256(
                                         "\0".join(extra).encode()).hexdigest()[:8]
        with self.guard:
            lock = self.locks.setdefault(name, threading.Lock())
        with lock:
            if name in self.done:
                return self.done[name]
            out = os.path.join(self.work, name)
            mode = [] if "--hostonly" in extra else ["--generic"]
            cmd = [self.uniramfs, "build", "-k", self.kver, "-o", out] + mode + list(extra)
            t = time.monotonic()
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
            dt = time.monotonic() - t
            if r.returncode != 0 or not os.path.isfile(out):
                res = (None, "`%s` failed (%d):\n%s" % (" ".join(cmd), r.returncode,
                                                        r.stdout[-4000:]))
            else:
                res = (out, None)
                say("  built %s in %.1f s, %.1f MB" % (name, dt, os.path.getsize(out) / 1e6))
            self.done[name] = res
            return res


class Console:
    """The guest's serial port on a unix socket (QEMU waits for us to
    connect before it starts the guest): a thread copies everything the
    guest prints into the log file; step() answers the interact pairs."""

    def __init__(self, sock_path, log, p, interact):
        self.log, self.interact, self.pos, self.step_no = log, list(interact), 0, 0
        self.buf, self.lock = "", threading.Lock()
        self.sock = None
        self.monitor, self.monitor_path = None, sock_path + ".mon"
        while self.sock is None and p.poll() is None:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sock_path)
                self.sock = s
            except OSError:
                s.close()
                time.sleep(0.05)
        open(log, "w").close()
        for _, text in self.interact:   # an action that needs this boot's console
            if hasattr(text, "attach"):  # or monitor (scenarios_plymouth's screendump)
                text.attach(self)
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self):
        with open(self.log, "wb") as f:
            while self.sock:
                try:
                    data = self.sock.recv(65536)
                except OSError:
                    break
                if not data:
                    break
                f.write(data)
                f.flush()
                with self.lock:
                    self.buf += data.decode(errors="replace").replace("\r", "")

    def _press(self, keys):
        """Each key through the monitor's sendkey, as a person types."""
        if self.monitor is None:
            m = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            m.connect(self.monitor_path)
            self.monitor = m
        for k in keys.names:
            self.monitor.sendall(("sendkey %s\n" % k).encode())
            time.sleep(0.15)   # sendkey holds a key 100 ms

    def step(self):
        """Answer every interact step whose regex now matches."""
        while self.sock and self.step_no < len(self.interact):
            rx, text = self.interact[self.step_no]
            with self.lock:
                m = re.compile(rx).search(self.buf, self.pos)
            if not m:
                return
            self.pos = m.end()
            self.step_no += 1
            try:
                if isinstance(text, Keys):
                    self._press(text)
                elif callable(text):
                    text()   # an action of its own (scenarios_ssh's login)
                else:
                    self.sock.sendall(text.encode())
            except OSError:
                return

    def missed(self):
        """The first interact regex never seen, or None; then what an
        action of its own says it missed (scenarios_ssh's login)."""
        if self.step_no < len(self.interact):
            return self.interact[self.step_no][0]
        for _, text in self.interact:
            m = getattr(text, "missed", None)
            if callable(m) and m():
                return m()
        return None

    def close(self):
        self.thread.join(timeout=5)
        if self.sock:
            self.sock.close()
        if self.monitor:
            self.monitor.close()


# The emulator and its machine: tests/arm64 boots qemu-system-aarch64's virt.
QEMU_X86 = ("qemu-system-x86_64", "-accel", "tcg")


def boot(vmlinuz, initrd, disk_paths, bus, cmdline, log, stop_on=None, interact=(), extra=(),
         snapshot=True, qemu=QEMU_X86, timeout=None):
    """Boot once; return (serial text, seconds, timed_out, missed interact
    regex or None).  disk_paths: the first on `bus`, any others on
    virtio-blk.  stop_on: texts after which the boot is over (a failure
    test's messages).  A kernel that panicked in its timer check on a busy
    host is booted again (serialtext.host_too_slow).  snapshot=False: the
    guest's writes reach the disk files (a test reads them afterwards).
    qemu: the emulator and the arguments that choose its machine.
    timeout: seconds the boot may take (default BOOT_TIMEOUT)."""
    for _ in range(serialtext.BOOT_TRIES - 1):
        res = _boot_once(vmlinuz, initrd, disk_paths, bus, cmdline, log, stop_on, interact, extra,
                         snapshot, qemu, timeout)
        if not serialtext.host_too_slow(res[0]):
            return res
        say("  the kernel's timer check failed on a busy host (%s): booting again" % log)
    return _boot_once(vmlinuz, initrd, disk_paths, bus, cmdline, log, stop_on, interact, extra,
                      snapshot, qemu, timeout)


def _boot_once(vmlinuz, initrd, disk_paths, bus, cmdline, log, stop_on, interact, extra,
               snapshot, qemu, timeout):
    serial = ["-serial", "file:" + log]
    sock_path = None
    if interact:
        sock_path = log + ".sock"
        if os.path.exists(sock_path):
            os.unlink(sock_path)
        serial = ["-chardev", "socket,id=ser0,path=%s,server=on,wait=on" % sock_path,
                  "-serial", "chardev:ser0"]
    monitor = ["-monitor", "none"]
    if any(isinstance(text, Keys) or hasattr(text, "attach") for _, text in interact):
        # a keyboard needs a virtual console in front: a VGA card for it
        # (and a screendump, scenarios_plymouth.py, a screen)
        monitor = ["-monitor", "unix:%s.mon,server=on,wait=off" % sock_path, "-vga", "std"]
    cmd = list(qemu) + ["-m", "1G", "-smp", "1",
                        "-nodefaults", "-no-reboot", "-display", "none"] + monitor + ([] if vmlinuz is None else [
           "-kernel", vmlinuz, "-initrd", initrd, "-append", cmdline]) + serial
    if snapshot:
        cmd += ["-snapshot"]
    if disk_paths:
        cmd += ["-drive", "if=none,id=d0,format=raw,file=" + disk_paths[0]] + BUSES[bus]
    cmd += list(extra)
    for i, dp in enumerate(disk_paths[1:], 1):
        cmd += ["-drive", "if=none,id=d%d,format=raw,file=%s" % (i, dp),
                "-device", "virtio-blk-pci,drive=d%d" % i]
    t = time.monotonic()
    p = subprocess.Popen(pvh.argv(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    console = Console(sock_path, log, p, interact) if interact else None
    timed_out = False
    seen_at = None
    while p.poll() is None:
        # wait() rather than sleep(): the boot is over the moment QEMU exits
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(0.1 if console else 0.5)
        now = time.monotonic()
        if console:
            console.step()
        if stop_on and seen_at is None and os.path.exists(log):
            with open(log, errors="replace") as f:
                seen = f.read()
            if all(m in seen for m in stop_on):
                seen_at = now
        # A failure test is over once its message is out: give the guest a
        # moment to show anything else, then stop it rather than wait for
        # the init's own reboot delay.
        if seen_at is not None and now - seen_at > 3:
            p.kill()
        elif now - t > (timeout or BOOT_TIMEOUT):
            timed_out = True
            p.kill()
    qemu_out = p.communicate()[0].decode(errors="replace")
    dt = time.monotonic() - t
    missed = None
    if console:
        console.close()
        missed = console.missed()
        if os.path.exists(sock_path):   # QEMU usually removes it itself
            os.unlink(sock_path)
    text = serialtext.read(log)
    if qemu_out.strip():
        text += "\n[qemu] " + qemu_out
    return text, dt, timed_out, missed


def check(sc, text, timed_out, ours=True, missed=None, handover=True):
    """None if the scenario's expectation holds, else the reason.  ours:
    the image was made by uniramfs, so its own promises are checked too.
    missed: the interact regex the console never showed.  handover=False:
    an image that leaves no /proc, /sys, /run to the real init
    (tiny-initramfs, for bench/run.py)."""
    markers = MARKER_RE.findall(text)
    if "ACPI: Interpreter disabled" in text and "BIOS-e820:" in text:
        # a PC (its e820 map; arm64's virt machine has no ACPI here) whose
        # firmware tables QEMU covered with the initrd (pvh.py's argv())
        return "the kernel ran with ACPI off"
    if missed is not None:
        return "the console never showed %r (interact)" % missed
    for m in sc.log_expect:
        if m not in text:
            return "expected message not printed: %r" % m
    for m in sc.log_absent:
        if m in text:
            return "printed what it must not: %r" % m
    if sc.fail_msgs:
        if markers:
            return "the real init ran, but this boot had to fail"
        for m in sc.fail_msgs:
            if m not in text:
                return "expected message not printed: %r" % m
        return None
    if not markers:
        why = ""
        panic = re.search(r"Kernel panic - not syncing: (.*)", text)
        if panic:
            why = " (kernel panic: %s)" % panic.group(1).strip()
        elif timed_out:
            why = " (timed out after %d s)" % (BOOT_TIMEOUT * sc.timeout_scale)
        return "no marker from the root's init" + why
    pid, _, argv = markers[0]
    if pid != "1":
        return "the root's init ran as pid %s, not 1" % pid
    if argv != sc.argv:
        return "init argv was [%s], expected [%s]" % (argv, sc.argv)
    if not END_RE.search(text):
        return "testinit's report is incomplete (no end line)"
    m = re.search(r"^TESTINIT: root-mount=(\S+) (\S+) ", text, re.M)
    if not m:
        return "no root mount reported"
    if m.group(2) != sc.disk.fs:
        return "/ is %s (%s), expected the %s root disk" % (m.group(2), m.group(1), sc.disk.fs)
    for e in sc.expect + (HANDOVER if handover else ()) + (HANDOVER_OURS if ours else ()):
        if not re.search(r"^TESTINIT: .*" + e, text, re.M):
            return "expected %r" % e
    return None


def report_lines(text):
    """The init's own log lines and testinit's report, for --show."""
    keep = re.compile(r"uniramfs|UNIRAMFS-TEST|^TESTINIT: (cmdline|root-|uptime|RD_)")
    return [ln for ln in text.splitlines() if keep.search(ln)]


NOTIMES = {"guest_uptime": None, "init_ms": None}


def _fill(sc, words):
    """{KEY} in sc's command line and expected texts, from words."""
    def f(t):
        for k, v in words.items():
            t = t.replace("{%s}" % k, v)
        return t
    return dataclasses.replace(sc, cmdline=f(sc.cmdline),
                               log_expect=tuple(f(m) for m in sc.log_expect),
                               fail_msgs=tuple(f(m) for m in sc.fail_msgs))


# ---------------------------------------------------------------- main
class Runner:
    """One boot of a scenario, as run.py judges it: its disks (made on the
    host, in the builder VM or by its servers), its image (ours, or a
    foreign one), the devices it attaches.  bench/unlock.py boots the
    same scenarios with it."""

    def __init__(self, kver, vmlinuz, builddir, work, testinit, images, foreign=None,
                 suffix=""):
        self.kver, self.vmlinuz, self.builddir, self.work = kver, vmlinuz, builddir, work
        self.testinit, self.images, self.foreign, self.suffix = testinit, images, foreign, suffix
        self.logs = os.path.join(work, "logs")
        self.last_image, self.last_build = None, ()
        os.makedirs(self.logs, exist_ok=True)

    def log_path(self, sc):
        return os.path.join(self.logs, sc.name + self.suffix + ".log")

    def scenario(self, sc, initrd=None):
        """Boot sc once (with initrd, else the image its build arguments
        make): (sc, reason or None, seconds, times, serial text)."""
        if sc.net is not None:
            return self._net(sc, initrd)
        try:
            if hasattr(sc.disk, "build"):   # stacked: made in the builder VM (builder.py)
                dpaths = sc.disk.build(self.testinit, self.work, {
                    "kver": self.kver, "vmlinuz": self.vmlinuz,
                    "uniramfs": os.path.join(self.builddir, "uniramfs")})
            else:
                dpaths = [disks.ensure(sc.disk, self.testinit, self.work)]
        except Exception as e:  # a disk we cannot make is this scenario's failure
            return sc, "cannot build disk %s: %s" % (sc.disk.name, e), 0.0, NOTIMES, ""
        if hasattr(sc.disk, "words"):   # what only the made disk knows (a root hash)
            sc = _fill(sc, sc.disk.words(dpaths))
        if hasattr(sc.disk, "image_files"):   # files of the disk the image carries
            dpaths, extra_build = sc.disk.image_files(dpaths)
            sc = dataclasses.replace(sc, build=tuple(sc.build) + tuple(extra_build))
        img, err = (None, None) if getattr(sc.disk, "firmware", False) else self._image(sc, initrd)
        if err:
            return sc, err, 0.0, NOTIMES, ""
        msgs = [m.replace("{root}", sc.root) for m in sc.fail_msgs]
        sc = dataclasses.replace(sc, fail_msgs=tuple(msgs))
        # a disk with attach() brings a device for the boot (scenarios_tpm's TPM)
        with sc.disk.attach(dpaths) if hasattr(sc.disk, "attach") else \
                contextlib.nullcontext(()) as extra:
            return self._boot(sc, img, dpaths, extra, not (initrd or self.foreign))

    def _net(self, sc, initrd):
        if hasattr(sc.disk, "net_build"):   # what the image carries of the servers' (a CA)
            sc = dataclasses.replace(sc, build=tuple(sc.build) + tuple(sc.disk.net_build(self.work)))
        img, err = self._image(sc, initrd)
        if err:
            return sc, err, 0.0, NOTIMES, ""
        try:
            # a firmware that boots the image itself (scenarios_ibft's
            # iPXE) is given the kernel, the image and the command line
            fw = {"boot": (self.vmlinuz, img, _cmdline(sc))} if _net_boots(sc) else {}
            ctx = sc.net(self.testinit, self.work, **fw)
            dpaths, extra = ctx.__enter__()
        except Exception as e:
            return sc, "cannot start the servers: %s" % e, 0.0, NOTIMES, ""
        if hasattr(sc.disk, "words"):   # what only the served files know (a digest)
            sc = _fill(sc, sc.disk.words(dpaths))
        try:
            return self._boot(sc, img, dpaths, extra, not (initrd or self.foreign))
        finally:
            ctx.__exit__(None, None, None)

    def _image(self, sc, initrd):
        if initrd or self.foreign:
            return initrd or self.foreign, None
        return self.images.get(sc.build)

    def _boot(self, sc, img, dpaths, extra, ours):
        # for bench/unlock.py's sizes and commands (one boot at a time there)
        self.last_image, self.last_build = img, sc.build
        cmdline = _cmdline(sc)
        # the disk boots itself, or the network's firmware boots the image
        firmware = getattr(sc.disk, "firmware", False) or _net_boots(sc)
        text, dt, timed_out, missed = boot(None if firmware else self.vmlinuz, img, dpaths,
                                           sc.bus, cmdline,
                                           self.log_path(sc), stop_on=sc.fail_msgs,
                                           interact=sc.interact, extra=extra,
                                           timeout=BOOT_TIMEOUT * sc.timeout_scale)
        tot = re.search(r"^TESTINIT: timings: total (\d+)$", text, re.M)
        up = re.search(r"^TESTINIT: uptime: ([\d.]+)", text, re.M)
        times = {"guest_uptime": float(up.group(1)) if up else None,
                 "init_ms": int(tot.group(1)) if tot else None}
        return sc, check(sc, text, timed_out, ours=ours, missed=missed), dt, times, text


def _cmdline(sc):
    return " ".join(x for x in (BASE_CMDLINE, sc.root and "root=" + sc.root, sc.cmdline) if x)


def _net_boots(sc):
    """Does sc's network boot the guest through its firmware (no -kernel)?"""
    return getattr(sc.net, "firmware_boot", False)


def main():
    global BOOT_TIMEOUT
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("builddir", nargs="?",
                    default=os.environ.get("UNIRAMFS_BUILDDIR", os.path.join(SRCDIR, "build")))
    ap.add_argument("--builddir", dest="builddir_opt", metavar="BUILDDIR",
                    help="same as the BUILDDIR argument")
    ap.add_argument("--only", help="comma-separated scenario names")
    ap.add_argument("--list", action="store_true", help="list scenarios and exit")
    ap.add_argument("--keep", action="store_true", help="keep the images built for this run")
    ap.add_argument("--with-initramfs-tools", action="store_true",
                    help="boot with /boot/initrd.img-KVER instead of our images")
    ap.add_argument("--initrd", help="boot with this image instead of building ours")
    ap.add_argument("--kver", help="kernel version (default: newest installed)")
    ap.add_argument("--jobs", type=int, default=2, help="boots at a time (default 2)")
    ap.add_argument("--timeout", type=int, default=BOOT_TIMEOUT,
                    help="seconds per boot (default %d)" % BOOT_TIMEOUT)
    ap.add_argument("--workdir", default=os.path.join(HERE, "work"))
    ap.add_argument("--show", action="store_true",
                    help="print the init's log lines and testinit's report of each boot")
    a = ap.parse_args()
    BOOT_TIMEOUT = a.timeout

    if a.list:
        for sc in SCENARIOS:
            print("%-14s %s%s" % (sc.name, sc.doc, "  [ours only]" if sc.ours_only else ""))
        return 0

    kver, vmlinuz = find_kernel(a.kver)
    work = os.path.abspath(a.workdir)
    builddir = os.path.abspath(a.builddir_opt or a.builddir)
    scenarios_netvm.configure(kver, vmlinuz, os.path.join(builddir, "uniramfs"))

    foreign = None
    if a.with_initramfs_tools:
        foreign = "/boot/initrd.img-" + kver
    elif a.initrd:
        foreign = os.path.abspath(a.initrd)
    scenarios = [sc for sc in SCENARIOS if not (foreign and sc.ours_only)]
    if a.only:
        names = a.only.split(",")
        unknown = set(names) - {sc.name for sc in SCENARIOS}
        if unknown:
            sys.exit("run.py: unknown scenario(s): " + ", ".join(sorted(unknown)))
        scenarios = [sc for sc in scenarios if sc.name in names]

    testinit = find_testinit(builddir, work)
    images = None
    if not foreign:
        uniramfs = os.path.join(builddir, "uniramfs")
        if not os.access(uniramfs, os.X_OK):
            sys.exit("run.py: %s not built (meson setup %s && ninja -C %s)"
                     % (uniramfs, builddir, builddir))
        images = Images(uniramfs, kver, work)
        scenarios_net.BUILDER_ENV.update(kver=kver, vmlinuz=vmlinuz, uniramfs=uniramfs)
    say("boot tests: kernel %s, %s, %d scenario(s), %d at a time"
        % (kver, "image " + foreign if foreign else "uniramfs from " + builddir,
           len(scenarios), a.jobs))

    suffix = "-itools" if a.with_initramfs_tools else ("-initrd" if a.initrd else "")
    results = []
    runner = Runner(kver, vmlinuz, builddir, work, testinit, images, foreign, suffix)

    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        for sc, err, dt, up, text in ex.map(runner.scenario, scenarios):
            guest = ""
            if up["guest_uptime"] is not None:
                guest = ", guest uptime %.1f s" % up["guest_uptime"]
            if up["init_ms"] is not None:
                guest += ", init %.2f s" % (up["init_ms"] / 1000)
            if err is None:
                say("PASS %s (%.1f s%s)" % (sc.name, dt, guest))
            else:
                tail = "\n".join("    | " + ln for ln in text.splitlines()[-40:])
                say("FAIL %s: %s%s" % (sc.name, err, ("\n" + tail) if tail else ""))
                if text:
                    say("    full log: %s" % runner.log_path(sc))
            if a.show and text:
                say("\n".join("    " + ln for ln in report_lines(text)))
            results.append({"name": sc.name, "pass": err is None, "reason": err,
                            "seconds": round(dt, 2), **up})
    wall = time.monotonic() - t0

    npass = sum(r["pass"] for r in results)
    nfail = len(results) - npass
    with open(os.path.join(work, "results%s.json" % suffix), "w") as f:
        json.dump({"kernel": kver, "initrd": foreign or "uniramfs", "wall_seconds": round(wall, 1),
                   "results": results}, f, indent=1)
    if images and not a.keep:
        for p in glob.glob(os.path.join(work, "img-*")):
            os.unlink(p)
    say("%d passed, %d failed (%.1f s wall)" % (npass, nfail, wall))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
