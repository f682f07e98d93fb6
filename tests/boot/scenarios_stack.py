# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for encrypted, logical and RAID roots (issue 5).

Their disks are laid out in the builder VM (builder.py, builder/*.sh) and
cached; the images are plain `uniramfs build --generic` (which packs the
host's cryptsetup, lvm and mdadm), plus --add-keys for the key file.  The
passphrase is typed on the serial console by the harness (Scenario.interact).
Each boot passes only on the root's marker, or on the exact messages of
docs/messages.md and docs/cmdline.md.
"""

import hashlib
import os
import tempfile

import builder
import disks

HERE = os.path.dirname(os.path.abspath(__file__))

PASS = "test-passphrase"
KEYFILE = os.path.join(HERE, "builder", "luks1.key")   # also in the LUKS1 header
KEY_IN_IMAGE = "/etc/uniramfs/keys/root.key"

LUKS2_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001c2"
LUKS1_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001c1"
MISSING_LUKS_UUID = "0badc0de-dead-4bad-8bad-0000000001c9"
MISSING_MD_UUID = "0badc0de:dead4bad:8bad0000:000001d9"   # mdadm's spelling


def _fs(n):
    return "5f0c1a4e-1b2d-4c3e-9f10-0000000001%02x" % n


def _luks(uuid):
    return (("LUKS_UUID", uuid), ("PASS", PASS))


LUKS2 = builder.Layout("luks2", "luks2", "ext4", _fs(0x10), "luks2root", params=_luks(LUKS2_UUID))
LUKS1_KEY = builder.Layout("luks1-key", "luks1-key", "ext4", _fs(0x11), "luks1root",
                           params=(("LUKS_UUID", LUKS1_UUID), ("KEYFILE", "/src/key")),
                           files=(("luks1.key", "key"),))
LUKS2_KEY_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001cb"
LUKS2_KEY = builder.Layout("luks2-key", "luks2", "ext4", _fs(0x1b), "luks2keyroot",
                           params=(("LUKS_UUID", LUKS2_KEY_UUID), ("KEYFILE", "/src/key")),
                           files=(("luks1.key", "key"),))
LUKS2_HDR_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001cc"
LUKS2_HDR = builder.Layout("luks2-header", "luks2-header", "ext4", _fs(0x1c), "luks2hdrroot",
                           ndisks=2, size_mb=64, params=_luks(LUKS2_HDR_UUID))
LVM = builder.Layout("lvm", "lvm", "ext4", _fs(0x12), "lvmroot")
LVM_LUKS = builder.Layout("lvm-on-luks", "lvm-on-luks", "ext4", _fs(0x13), "lvmluksroot",
                          params=_luks("5f0c1a4e-1b2d-4c3e-9f10-0000000001c3"))
BTRFS_LUKS = builder.Layout("btrfs-luks", "btrfs-luks", "btrfs", _fs(0x14), "btrfsluksroot",
                            size_mb=160,  # btrfs wants ~114 MB, LUKS2 16 MB of header
                            params=_luks("5f0c1a4e-1b2d-4c3e-9f10-0000000001c4"))
RAID1 = builder.Layout("raid1", "raid1", "ext4", _fs(0x15), "raid1root", ndisks=2,
                       params=(("MD_UUID", "5f0c1a4e:1b2d4c3e:9f100000:000001d1"),))
RAID5 = builder.Layout("raid5", "raid5", "ext4", _fs(0x16), "raid5root", ndisks=3,
                       params=(("MD_UUID", "5f0c1a4e:1b2d4c3e:9f100000:000001d5"),))
# Intel firmware RAID: mdmon must run for the first write to the volume
# (IMSM_* are mdadm's switches for disks without Intel's option ROM).
IMSM = builder.Layout("imsm-raid1", "imsm-raid1", "ext4", _fs(0x1e), "imsmroot", ndisks=2)
IMSM_ENV = "IMSM_NO_PLATFORM=1 IMSM_DEVNAME_AS_SERIAL=1"
# SNIA DDF, the other firmware RAID metadata mdmon keeps (mdadm needs no
# platform for it)
DDF = builder.Layout("ddf-raid1", "ddf-raid1", "ext4", _fs(0x1f), "ddfroot", ndisks=2)
LVM_RAID1 = builder.Layout("lvm-on-raid1", "lvm-on-raid1", "ext4", _fs(0x17), "lvmraidroot",
                           ndisks=2,
                           params=(("MD_UUID", "5f0c1a4e:1b2d4c3e:9f100000:000001d2"),))
LUKS_LVM = builder.Layout("luks-on-lvm", "luks-on-lvm", "ext4", _fs(0x18), "lukslvmroot",
                          params=_luks("5f0c1a4e-1b2d-4c3e-9f10-0000000001c8"))
LUKS_RAID1 = builder.Layout("luks-on-raid1", "luks-on-raid1", "ext4", _fs(0x19),
                            "luksraidroot", ndisks=2,
                            params=(("MD_UUID", "5f0c1a4e:1b2d4c3e:9f100000:000001d3"),)
                            + _luks("5f0c1a4e-1b2d-4c3e-9f10-0000000001c9"))
MD_PART = builder.Layout("md-part", "md-part", "ext4", _fs(0x1a), "mdpartroot", ndisks=2,
                         params=(("MD_UUID", "5f0c1a4e:1b2d4c3e:9f100000:000001d4"),
                                 ("PART_UUID", "5f0c1a4e-1b2d-4c3e-9f10-0000000000a4")))


def _param(layout, key):
    return dict(layout.params)[key]


class Missing:
    """A layout with some of its disks left out (a failed RAID member)."""

    def __init__(self, layout, keep):
        self.layout, self.keep = layout, keep
        self.name, self.fs = layout.name + "-partial", layout.fs

    def build(self, testinit, work, env):
        paths = self.layout.build(testinit, work, env)
        return [paths[i] for i in self.keep]


class WithKeyDisk:
    """A layout plus a second disk: ext4 labelled LABEL holding the key
    file at /keys/root.key, made on the host (mkfs.ext4 -d)."""
    LABEL = "keydisk"
    PATH = "/keys/root.key"

    def __init__(self, layout, key):
        self.layout, self.key = layout, key
        self.name, self.fs = layout.name + "-keydisk", layout.fs

    def build(self, testinit, work, env):
        paths = self.layout.build(testinit, work, env)
        with open(self.key, "rb") as f:
            data = f.read()
        out = os.path.join(work, "disks", "keydisk-%s.img" % hashlib.sha256(
            data + self.LABEL.encode()).hexdigest()[:16])
        if not os.path.exists(out):
            with tempfile.TemporaryDirectory(dir=work) as tmp:
                os.makedirs(os.path.join(tmp, "keys"))
                with open(os.path.join(tmp, "keys", "root.key"), "wb") as f:
                    f.write(data)
                img = os.path.join(tmp, "key.img")
                with open(img, "wb") as f:
                    f.truncate(8 * 1024 * 1024)
                disks._run(["mkfs.ext4", "-q", "-F", "-d", tmp, "-L", self.LABEL, img])
                os.makedirs(os.path.dirname(out), exist_ok=True)
                os.replace(img, out)
        return paths + [out]


class DetachedHeader:
    """A layout whose second disk is the LUKS header: the boot gets only
    the data disk, the image the header (--add-keys) and a crypttab line
    naming the data disk with header= (--add-files)."""
    HEADER = "/etc/uniramfs/keys/root.hdr"

    def __init__(self, layout, crypttab):
        self.layout, self.crypttab = layout, crypttab
        self.name, self.fs = layout.name, layout.fs

    def build(self, testinit, work, env):
        return self.layout.build(testinit, work, env)

    def image_files(self, paths):
        hdr = paths[1] + ".hdr"
        if not os.path.exists(hdr):   # the header's 2 MiB of the 64 MiB disk
            with open(paths[1], "rb") as f, open(hdr + ".tmp", "wb") as o:
                o.write(f.read(2 << 20))
            os.replace(hdr + ".tmp", hdr)
        return paths[:1], ("--add-keys", "%s:%s" % (hdr, self.HEADER),
                           "--add-files", "%s:/etc/crypttab" % self.crypttab)


class KeyScript:
    """A layout opened by a crypttab keyscript=: the line (--add-files
    /etc/crypttab) and the script (a busybox sh one) in the image; a
    generic build packs no host crypttab, so neither comes by itself."""
    SCRIPT = "/usr/local/sbin/uniramfs-test-ks"

    def __init__(self, layout, crypttab, script):
        self.layout, self.crypttab, self.script = layout, crypttab, script
        self.name, self.fs = layout.name, layout.fs

    def build(self, testinit, work, env):
        return self.layout.build(testinit, work, env)

    def image_files(self, paths):
        return paths, ("--add-files", "%s:/etc/crypttab" % self.crypttab,
                       "--add-files", "%s:%s" % (self.script, self.SCRIPT))


def prompt(dev, uuid):
    """The passphrase prompt (docs/cmdline.md), as a regex."""
    return r"Passphrase for %s \(%s\): " % (dev, uuid)


def typed(dev, uuid, *words):
    """interact steps: each word typed at the next prompt for dev."""
    return tuple((prompt(dev, uuid), w + "\n") for w in words)


# Short waits: a wanted device that is not there fails in 8 s, and a RAID1
# short of a member is started degraded half way (4 s).
SHORT = "rd.timeout=8"
# The failure path, without a shell: the init reboots (panic=-1).
NO_SHELL = "rd.shell=0"
DEGRADED_MSG = "uniramfs: starting RAID array(s) degraded: some members did not appear"


def scenarios(Scenario):
    """run.py's Scenario list for the stacks."""
    u = lambda layout: "UUID=" + layout.uuid  # noqa: E731
    S = lambda *a, **k: Scenario(*a, ours_only=True, **k)  # noqa: E731
    return [
        S("luks2-passphrase", "LUKS2 root, passphrase typed on the console",
          LUKS2, u(LUKS2), interact=typed("/dev/vda", LUKS2_UUID, PASS)),
        S("luks2-wrong-then-right", "a wrong passphrase: the message, a new prompt, then boot",
          LUKS2, u(LUKS2),
          interact=typed("/dev/vda", LUKS2_UUID, "not-the-passphrase") + (
              (r"uniramfs: wrong passphrase for /dev/vda\n[\s\S]*" +
               prompt("/dev/vda", LUKS2_UUID), PASS + "\n"),),
          log_expect=("uniramfs: wrong passphrase for /dev/vda",)),
        S("luks2-give-up", "three wrong passphrases: the give-up message, the failure path",
          LUKS2, u(LUKS2), cmdline=NO_SHELL,
          interact=typed("/dev/vda", LUKS2_UUID, "wrong-1", "wrong-2", "wrong-3"),
          fail_msgs=("uniramfs: wrong passphrase for /dev/vda",
                     "uniramfs: giving up on /dev/vda after 3 wrong passphrases",
                     "uniramfs: not starting a shell: rd.shell=0",
                     "uniramfs: rebooting now")),
        S("luks1-keyfile", "LUKS1 root unlocked by a key file packed with --add-keys",
          LUKS1_KEY, u(LUKS1_KEY),
          build=("--add-keys", "%s:%s" % (KEYFILE, KEY_IN_IMAGE)),
          cmdline="rd.luks.key=%s=%s" % (LUKS1_UUID, KEY_IN_IMAGE)),
        S("luks2-keydisk", "LUKS2 root unlocked by a key file on a second disk named by LABEL "
          "(dracut's rd.luks.key=KEYPATH:KEYDEV), no prompt",
          WithKeyDisk(LUKS2_KEY, KEYFILE), u(LUKS2_KEY),
          cmdline="rd.luks.key=%s:LABEL=%s" % (WithKeyDisk.PATH, WithKeyDisk.LABEL),
          log_expect=("uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS2_KEY_UUID,),
          log_absent=("Passphrase for",)),
        S("luks2-detached-header", "LUKS2 root whose header is a file in the image (crypttab "
          "header=): the data disk has no signature, its crypttab line finds it",
          DetachedHeader(LUKS2_HDR, os.path.join(HERE, "builder", "crypttab-header")),
          u(LUKS2_HDR), interact=typed("/dev/vda", LUKS2_HDR_UUID, PASS),
          log_expect=("uniramfs: unlocked /dev/vda as /dev/mapper/cryptroot",)),
        S("luks2-keyscript", "LUKS2 root whose crypttab line has keyscript=: the script's "
          "output is the key, nobody asked",
          KeyScript(LUKS2, os.path.join(HERE, "builder", "crypttab-keyscript"),
                    os.path.join(HERE, "builder", "uniramfs-test-ks")),
          u(LUKS2),
          log_expect=("uniramfs: /dev/vda: opened with the key from keyscript " + KeyScript.SCRIPT,
                      "uniramfs: unlocked /dev/vda as /dev/mapper/cryptroot"),
          log_absent=("Passphrase for",)),
        S("lvm-path", "LVM root by root=/dev/VG/LV", LVM, "/dev/testvg/root"),
        S("lvm-uuid", "LVM root by the filesystem's UUID=", LVM, u(LVM)),
        S("lvm-mapper", "LVM root by root=/dev/mapper/VG-LV", LVM, "/dev/mapper/testvg-root"),
        S("lvm-on-luks", "the Debian installer's layout: vda1 LUKS2, PV, VG, LV root",
          LVM_LUKS, "/dev/mapper/testvg-root",
          interact=typed("/dev/vda1", LVM_LUKS.params[0][1], PASS)),
        S("btrfs-luks", "btrfs directly in LUKS2 (Fedora's layout)", BTRFS_LUKS, u(BTRFS_LUKS),
          interact=typed("/dev/vda", BTRFS_LUKS.params[0][1], PASS)),
        S("raid1", "RAID1 over two disks, ext4 on md0", RAID1, u(RAID1)),
        S("raid1-degraded", "RAID1 with its second disk gone: started degraded, a warning",
          Missing(RAID1, (0,)), u(RAID1), cmdline=SHORT, log_expect=(DEGRADED_MSG,)),
        S("raid5", "RAID5 over three disks", RAID5, u(RAID5)),
        S("imsm-raid1", "Intel firmware RAID (IMSM): a RAID1 volume in a container over two "
          "disks, assembled by mdadm -I, written through the mdmon it started (rw)",
          IMSM, u(IMSM), cmdline="rw " + IMSM_ENV,
          expect=("root-writable=yes",), log_absent=("failed to launch mdmon",)),
        S("ddf-raid1", "SNIA DDF firmware RAID: a RAID1 volume in a DDF container over two "
          "disks, assembled by mdadm -I, written through the mdmon it started (rw)",
          DDF, u(DDF), cmdline="rw", expect=("root-writable=yes",),
          log_absent=("failed to launch mdmon",)),
        S("lvm-on-raid1", "LVM on RAID1: md0 a PV of testvg", LVM_RAID1, "/dev/testvg/root"),
        # The LV holding LUKS is a dm device: the init names it by its
        # kernel node (dm-0, the first mapping made).
        S("luks-on-lvm", "LUKS on LVM: LV testvg/crypt holds LUKS2, ext4 inside",
          LUKS_LVM, u(LUKS_LVM),
          interact=typed("/dev/dm-0", _param(LUKS_LVM, "LUKS_UUID"), PASS)),
        # An array named "root" (not a number) comes up as md127, mdadm's
        # first free number from the top, and holds /dev/md/root.
        S("luks-on-raid1", "LUKS on RAID1: a RAID1 over two disks holds LUKS2, ext4 inside",
          LUKS_RAID1, u(LUKS_RAID1),
          interact=typed("/dev/md127", _param(LUKS_RAID1, "LUKS_UUID"), PASS)),
        S("md-part-devname", "partitioned md: a GPT on RAID1 md0, root=/dev/md0p1",
          MD_PART, "/dev/md0p1"),
        S("md-part-uuid", "partitioned md: root on md0p1 by the filesystem's UUID=",
          MD_PART, u(MD_PART)),
        S("luks-uuid-missing", "rd.luks.uuid= naming a device that never appears",
          disks.Disk("ext4", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000001", "testroot"),
          "/dev/mapper/luks-" + MISSING_LUKS_UUID,
          cmdline="rd.luks.uuid=%s %s %s" % (MISSING_LUKS_UUID, SHORT, NO_SHELL),
          fail_msgs=("uniramfs: waited for LUKS device UUID=%s (rd.luks.uuid) which never "
                     "appeared" % MISSING_LUKS_UUID, "uniramfs: rebooting now")),
        S("md-uuid-missing", "rd.md.uuid= naming an array that never appears",
          RAID1, "/dev/md0",
          cmdline="rd.md.uuid=%s %s %s" % (MISSING_MD_UUID, SHORT, NO_SHELL),
          fail_msgs=("uniramfs: waited for RAID array UUID=%s (rd.md.uuid) which never "
                     "appeared" % MISSING_MD_UUID, "uniramfs: rebooting now")),
    ]
