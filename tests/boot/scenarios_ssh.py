# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for remote unlock over SSH (issue 14).

The LUKS2 root of scenarios_stack, a hostonly image made from a sysroot
in the work dir: the virtio fixture (the guest's hardware) plus this
host's dropbear and cryptsetup with their libraries, and an
authorized_keys holding a key made in the work dir.  `uniramfs build`
makes the host keys there once and, with --ssh-hostkeys yes (the owner's
choice, issue 24), packs them; the test's ssh pins the ed25519 one
(UserKnownHostsFile, StrictHostKeyChecking=yes, BatchMode); a generic
image's are made at boot, so that scenario takes the one it is shown.  The guest
has a virtio-net NIC on QEMU user networking with restrict=on, ip=dhcp
from QEMU's DHCP server, and port 22 forwarded from 127.0.0.1 only.
"""

import os
import re
import shutil
import socket
import subprocess
import threading
import time

import scenarios_stack

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(SRCDIR, "tests/unit/fixtures/hostonly/virtio")
LUKS2 = scenarios_stack.LUKS2
LUKS_UUID = scenarios_stack.LUKS2_UUID
PASS = scenarios_stack.PASS
PROMPT = scenarios_stack.prompt("/dev/vda", LUKS_UUID)
# the root's stack beyond the fixture's virtio_blk + ext4, and the NIC
MODULES = "dm_crypt,xts,virtio_net"   # aes, sha256 and af_packet are built in
DROPBEAR_UP = r"uniramfs: SSH: dropbear on port 22"


def _copy_with_libs(binary, root):
    """binary and every library ldd names, at the same paths under root."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    for path in [binary] + re.findall(r"(/\S+) \(0x", out):
        dst = root + path
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst):
            shutil.copy2(os.path.realpath(path), dst)


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


_SYSROOT_LOCK = threading.Lock()


class SshDisk:
    """The LUKS2 layout, booted with a NIC whose port 22 is forwarded to
    a free port on 127.0.0.1; image_files() makes the sysroot and gives
    the build arguments."""

    def __init__(self, layout, tag, generic=False):
        self.layout, self.tag, self.generic = layout, tag, generic
        self.name, self.fs = layout.name, layout.fs
        self.port = None
        self.work = None

    def build(self, testinit, work, env):
        self.work = os.path.join(work, "ssh")
        return self.layout.build(testinit, work, env)

    def key(self):
        return os.path.join(self.work, "id_ed25519")

    def sysroot(self):
        return os.path.join(self.work, "sysroot")

    def image_files(self, paths):
        root = self.sysroot()
        with _SYSROOT_LOCK:
            self._make_sysroot(root)
        if self.generic:   # every module of the kernel, cryptsetup found by itself
            return paths, ("--generic", "--sysroot", root, "--kmoddir", "/lib/modules/{kver}",
                           "--microcode", "none", "--cmdline", "ip=dhcp", "--ssh-unlock", "yes")
        return paths, ("--hostonly", "--sysroot", root, "--kmoddir", "/lib/modules/{kver}",
                       "--microcode", "none", "--add-modules", MODULES,
                       "--add-binaries", "cryptsetup", "--cmdline", "ip=dhcp",
                       "--ssh-unlock", "yes", "--ssh-hostkeys", "yes")

    def _make_sysroot(self, root):
        if not os.path.exists(os.path.join(root, "etc/uniramfs/authorized_keys")):
            os.makedirs(self.work, exist_ok=True)
            if not os.path.exists(self.key()):
                subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
                                "uniramfs-boot-test", "-f", self.key()], check=True)
            tmp = root + ".tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.copytree(FIXTURE, tmp, symlinks=True)
            for b in ("/usr/sbin/dropbear", "/sbin/cryptsetup"):
                _copy_with_libs(os.path.realpath(b) if b.startswith("/sbin") else b, tmp)
            os.makedirs(os.path.join(tmp, "etc/uniramfs"), exist_ok=True)
            shutil.copy(self.key() + ".pub", os.path.join(tmp, "etc/uniramfs/authorized_keys"))
            os.replace(tmp, root)

    def attach(self, paths):
        self.port = _free_port()
        netdev = "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:%d-:22" % self.port
        return _Nic(["-netdev", netdev, "-device", "virtio-net-pci,netdev=n0"])


class _Nic:
    def __init__(self, args):
        self.args = args

    def __enter__(self):
        return self.args

    def __exit__(self, *exc):
        return False


class SshLogin:
    """An interact action: in a thread, log in with ssh (retrying while
    dropbear starts) and answer the login's output as steps say:
    (regex, text) pairs in turn.  A step never seen fails the scenario
    (missed()).  The transcript goes to ssh/ssh-NAME.log in the work dir."""

    def __init__(self, disk, steps):
        self.disk, self.steps = disk, steps
        self.thread, self.seen = None, 0

    def __call__(self):
        self.seen = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def missed(self):
        """After the boot: the first step the login never showed, or None
        (run.py's Console.missed asks)."""
        if self.thread is None:
            return None
        self.thread.join(timeout=30)   # the guest is gone: ssh ends
        if self.seen < len(self.steps):
            return "ssh: " + self.steps[self.seen][0]
        return None

    def _known_hosts(self):
        if self.disk.generic:
            # its host keys are made at boot (dropbear -R): none to pin;
            # a fresh file takes the one it shows
            path = os.path.join(self.disk.work, "known_hosts-generic-%d" % self.disk.port)
            open(path, "w").close()
            return path
        key = os.path.join(self.disk.sysroot(), "etc/uniramfs/dropbear/dropbear_ed25519_host_key")
        out = subprocess.run(["dropbearkey", "-y", "-f", key], capture_output=True, text=True,
                             check=True).stdout
        line = next(ln for ln in out.splitlines() if ln.startswith("ssh-ed25519 "))
        path = os.path.join(self.disk.work, "known_hosts-%d" % self.disk.port)
        with open(path, "w") as f:
            f.write("[127.0.0.1]:%d %s\n" % (self.disk.port, " ".join(line.split()[:2])))
        return path

    def _run(self):
        kh = self._known_hosts()
        log = open(os.path.join(self.disk.work, "ssh-%s.log" % self.disk.tag), "w")
        cmd = ["ssh", "-tt", "-p", str(self.disk.port), "-i", self.disk.key(),
               "-o", "UserKnownHostsFile=" + kh,
               "-o", "StrictHostKeyChecking=" + ("accept-new" if self.disk.generic else "yes"),
               "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes", "-o", "ConnectTimeout=30",
               "-F", "/dev/null", "root@127.0.0.1"]
        for attempt in range(30):   # dropbear binds its port just after the log line
            text = self._session(cmd, log)
            if text is not None:
                break
            time.sleep(1)
        log.close()

    def _session(self, cmd, log):
        """One login; None when it never got in (to try again)."""
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
        buf, pos, step = "", 0, 0
        while True:
            data = p.stdout.read1(4096) if hasattr(p.stdout, "read1") else p.stdout.read(1)
            if not data:
                break
            s = data.decode(errors="replace").replace("\r", "")
            log.write(s)
            log.flush()
            buf += s
            while step < len(self.steps):
                m = re.compile(self.steps[step][0]).search(buf, pos)
                if not m:
                    break
                pos = m.end()
                answer = self.steps[step][1]   # text, or a function of the match
                p.stdin.write((answer(m) if callable(answer) else answer).encode())
                p.stdin.flush()
                step += 1
                self.seen = max(self.seen, step)
        p.wait()
        log.write("\n[ssh exited %d]\n" % p.returncode)
        return None if "waiting for a passphrase prompt" not in buf else buf


def available():
    """dropbear (packed), dropbearkey (the host keys) and ssh (the test's
    client) on this host: tools/install-deps.sh installs them."""
    return all(shutil.which(t) for t in ("dropbear", "dropbearkey", "ssh", "ssh-keygen"))


def scenarios(Scenario):
    """run.py's Scenario list for SSH unlock."""
    if not available():
        return []
    S = lambda *a, **k: Scenario(*a, ours_only=True, **k)  # noqa: E731
    ssh_disk = SshDisk(LUKS2, "luks-ssh")
    console_disk = SshDisk(LUKS2, "luks-ssh-console")
    generic_disk = SshDisk(LUKS2, "luks-ssh-generic", generic=True)
    return [
        S("luks-ssh", "LUKS2 root unlocked over SSH (dropbear, ip=dhcp): a wrong passphrase "
          "is said to the remote user, then the right one boots",
          ssh_disk, "UUID=" + LUKS2.uuid,
          interact=((DROPBEAR_UP, SshLogin(ssh_disk, (
              (re.escape("Passphrase for /dev/vda (%s): " % LUKS_UUID), "not-the-passphrase\n"),
              (r"wrong passphrase\n[\s\S]*" + re.escape("Passphrase for /dev/vda"), PASS + "\n"),
              (r"unlocked\n", ""),   # told on the login, before it is closed
          ))),),
          log_expect=("uniramfs: wrong passphrase for /dev/vda",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS_UUID)),
        S("luks-ssh-console", "the same image: with SSH up, the console's prompt still answers",
          console_disk, "UUID=" + LUKS2.uuid,
          # both texts anywhere in the output: anchored at its start (the
          # first step's search begins there), else each search tries the
          # lookaheads at every position, quadratic in the console's
          # length, and holds the GIL while QEMU's serial port waits for
          # the reader and drops bytes
          interact=((r"^(?=[\s\S]*%s)(?=[\s\S]*%s)" % (DROPBEAR_UP, PROMPT), PASS + "\n"),),
          log_expect=("uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS_UUID,)),
        S("luks-ssh-generic", "a generic image with ssh_unlock = yes: no host keys packed, "
          "dropbear -R makes them at the first login, which unlocks",
          generic_disk, "UUID=" + LUKS2.uuid,
          interact=((DROPBEAR_UP, SshLogin(generic_disk, (
              (re.escape("Passphrase for /dev/vda (%s): " % LUKS_UUID), PASS + "\n"),))),),
          log_expect=("uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS_UUID,)),
    ]
