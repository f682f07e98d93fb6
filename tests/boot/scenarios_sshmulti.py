# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for remote unlock of several devices over SSH: booster's
tests/ssh_unlock_test.go (issue 27), on booster's disks (scenarios_compat's
layouts, made in the builder VM and cached) in scenarios_ssh's hostonly
image (dropbear, authorized_keys holding the test's key, ip=dhcp, port 22
forwarded from 127.0.0.1 only).

booster-ssh-multi: its luks2.img and luks1.img, one passphrase: one answer
over SSH opens the first, the second opens with the same passphrase
(the passphrase cache, stack/luks_try.c) and the login is told so.  The
same boot first logs in with a key that is not in authorized_keys
(TestSSHRemoteUnlockRejectsWrongClientKey): dropbear refuses it, and the
right key then unlocks.  booster-ssh-btrfs-shared and
booster-ssh-btrfs-distinct: btrfs RAID1 over two LUKS2 partitions with
booster's crypttab, one passphrase for both, then one each (the login
answers each prompt with the passphrase of the partition it names).
"""

import os
import re
import subprocess
import time

import scenarios_compat as compat
import scenarios_ssh as ssh

MODULES = ssh.MODULES + ",btrfs"
B_PASS = compat.B_PASS
B_LUKS2_UUID, B_LUKS1_UUID = compat.B_LUKS2_UUID, compat.B_LUKS1_UUID
DISTINCT = (("LUKS_UUID", "9b5d8ac8-342b-423d-b253-3d3a5403fee8"),
            ("LUKS_UUID2", "461f9179-04f9-4def-9731-ac1598824026"))
PASS1, PASS2 = "1111", "2222"     # booster's luks2.btrfs_raid1_distinct.img
B_LUKS_BTRFS_DISTINCT = compat.builder.Layout(
    "booster-luks-btrfs-distinct", "compat-booster-luks-distinct", "btrfs",
    "aef9c3f8-2fbe-476f-b732-99f31226d601", "", size_mb=450,
    params=DISTINCT + (("PASS", PASS1), ("PASS2", PASS2)))
SAME = "opened with a passphrase typed earlier in this boot"


class SshMulti(ssh.SshDisk):
    """scenarios_ssh's disk and image over several layouts' disks (each
    attached in turn: vda, vdb...), with btrfs and (crypttab) an
    /etc/crypttab in the image."""

    def __init__(self, layouts, tag, crypttab=None):
        super().__init__(layouts[0], tag)
        self.layouts, self.crypttab = layouts, crypttab
        self.name, self.fs = tag, layouts[0].fs

    def build(self, testinit, work, env):
        self.work = os.path.join(work, "ssh")
        self.top = work
        return [p for lay in self.layouts for p in lay.build(testinit, work, env)]

    def image_files(self, paths):
        paths, args = super().image_files(paths)
        args = tuple(MODULES if a == ssh.MODULES else a for a in args)
        if self.crypttab:
            args += compat._ct(self.tag, self.crypttab)(self.top)
        return paths, args


class WrongKeyFirst(ssh.SshLogin):
    """scenarios_ssh's login, after one with a key that is not in
    authorized_keys: that one must be refused (ssh's "Permission denied
    (publickey)" once dropbear answers), then the steps run with the
    right key.  missed() says when the wrong key was let in or never
    refused."""

    def __init__(self, disk, steps):
        super().__init__(disk, steps)
        self.refused = None

    def _wrong_key(self):
        path = os.path.join(self.disk.work, "id_ed25519_unlisted")
        if not os.path.exists(path):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
                            "not-in-authorized_keys", "-f", path], check=True)
        return path

    def _run(self):
        cmd = ["ssh", "-tt", "-p", str(self.disk.port), "-i", self._wrong_key(),
               "-o", "UserKnownHostsFile=" + self._known_hosts(),
               "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes",
               "-o", "IdentitiesOnly=yes", "-o", "ConnectTimeout=30", "-F", "/dev/null",
               "root@127.0.0.1", "true"]
        with open(os.path.join(self.disk.work, "ssh-%s-wrongkey.log" % self.disk.tag), "w") as log:
            for attempt in range(30):   # until dropbear answers at all
                p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                                   text=True, timeout=120)
                log.write("[attempt %d: exit %d]\n%s%s" % (attempt, p.returncode, p.stdout,
                                                             p.stderr))
                if "waiting for a passphrase prompt" in p.stdout:
                    self.refused = False
                    return
                if p.returncode == 255 and "Permission denied (publickey)" in p.stderr:
                    self.refused = True
                    break
                time.sleep(1)
        if self.refused:
            super()._run()

    def missed(self):
        if self.thread is not None:
            self.thread.join(timeout=30)
        if self.refused is None:
            return "ssh: the key not in authorized_keys was never refused"
        if not self.refused:
            return "ssh: the key not in authorized_keys was let in"
        return super().missed()


def _answer(passes):
    """A login step's answer: the passphrase of the device the prompt names."""
    return lambda m: passes[m.group(1)] + "\n"


def scenarios(Scenario):
    if not ssh.available():
        return []
    S = lambda *a, **k: Scenario(*a, ours_only=True, **k)  # noqa: E731
    multi = SshMulti([compat.B_LUKS2, compat.B_LUKS1], "booster-ssh-multi")
    shared = SshMulti([compat.B_LUKS_BTRFS_RAID1], "booster-ssh-btrfs-shared",
                      crypttab="luks-btrfs1 UUID=%s none x-initrd.attach\n"
                      "luks-btrfs2 UUID=%s none x-initrd.attach\n"
                      % tuple(u for _, u in compat.B_BTRFS_LUKS))
    distinct = SshMulti([B_LUKS_BTRFS_DISTINCT], "booster-ssh-btrfs-distinct",
                        crypttab="luks-btrfs1 UUID=%s none x-initrd.attach\n"
                        "luks-btrfs2 UUID=%s none x-initrd.attach\n"
                        % tuple(u for _, u in DISTINCT))
    prompt = r"Passphrase for (/dev/vd[a-z]\d*) \([0-9a-f-]+\): "
    told = r"(/dev/vd[a-z]\d*): %s\n" % SAME
    return [
        S("booster-ssh-multi", "booster TestSSHRemoteUnlockRejectsWrongClientKey, then "
          "TestSSHRemoteUnlockMultiDeviceSharedPassphrase: a key not in authorized_keys is "
          "refused; with the right one, one answer opens luks2.img and luks1.img",
          multi, "/dev/mapper/cryptroot",
          cmdline="rd.luks.name=%s=cryptroot rd.luks.name=%s=cryptdata" % (B_LUKS2_UUID,
                                                                            B_LUKS1_UUID),
          interact=((ssh.DROPBEAR_UP, WrongKeyFirst(multi, (
              (prompt, B_PASS + "\n"),
              (r"unlocked\n", ""),
              (told, ""),   # the second device, told on the same login
          ))),),
          log_expect=("uniramfs: unlocked /dev/vda as /dev/mapper/cryptroot",
                      "uniramfs: unlocked /dev/vdb as /dev/mapper/cryptdata"),
          log_absent=("wrong passphrase",)),
        S("booster-ssh-btrfs-shared", "booster TestSSHRemoteUnlockBtrfsRaid1SharedPassphrase: "
          "btrfs RAID1 over two LUKS2 partitions, one answer over SSH opens both",
          shared, "UUID=" + compat.B_LUKS_BTRFS_RAID1.uuid,
          interact=((ssh.DROPBEAR_UP, ssh.SshLogin(shared, (
              (prompt, B_PASS + "\n"),
              (r"unlocked\n", ""),
              (told, ""),
          ))),),
          log_expect=("uniramfs: unlocked /dev/vda1 as /dev/mapper/luks-btrfs1",
                      "uniramfs: unlocked /dev/vda2 as /dev/mapper/luks-btrfs2"),
          log_absent=("wrong passphrase",)),
        S("booster-ssh-btrfs-distinct", "booster "
          "TestSSHRemoteUnlockBtrfsRaid1DistinctPassphrase: the same with a passphrase each, "
          "both asked on one login",
          distinct, "UUID=" + B_LUKS_BTRFS_DISTINCT.uuid,
          interact=((ssh.DROPBEAR_UP, ssh.SshLogin(distinct, (
              (prompt, _answer({"/dev/vda1": PASS1, "/dev/vda2": PASS2})),
              (r"unlocked\n", ""),
              (prompt, _answer({"/dev/vda1": PASS1, "/dev/vda2": PASS2})),
              (r"unlocked\n", ""),
          ))),),
          log_expect=("uniramfs: unlocked /dev/vda1 as /dev/mapper/luks-btrfs1",
                      "uniramfs: unlocked /dev/vda2 as /dev/mapper/luks-btrfs2")),
    ]
