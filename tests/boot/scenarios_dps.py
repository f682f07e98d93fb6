# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios of root discovery without root= (the Discoverable
Partitions Specification, issue 26) and of systemd's mount.usr=.

booster's four TestGptRootAutodiscovery* boot its esp.sh disk (an ESP and
a partition of the x86-64 root type) through the firmware: here OVMF
boots our UKI (`uniramfs build --uki`, systemd's stub, which leaves
LoaderDevicePartUUID in efivarfs) from that disk's ESP, with booster's
command line in the UKI.  The disks are made on the host: the ESP with
mtools (tests/kernels/kernels.py's esp_image), the root with mkfs.ext4 -d,
the LUKS2 one by cryptsetup's offline encryption of a file (no
device-mapper needed), the attributes by sfdisk.  Under plain BIOS (QEMU's
-kernel, no EFI variables) the only disk with a root partition is taken,
and two such disks are refused.
"""

import contextlib
import hashlib
import os
import shutil
import sys
import tempfile

import disks
import scenarios_compat
import scenarios_early

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
_run = scenarios_early._run

ROOT_TYPE = "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709"   # x86-64 root
USR_TYPE = "8484680C-9521-48C6-9C11-B0720656F69E"    # x86-64 usr
ESP_TYPE = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"
ESP_PARTUUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000009e5"
ROOT_PARTUUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000009a2"
USR_PARTUUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000009a3"
ROOT = disks.Disk("dps-root", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000901", "dpsroot",
                  size_mb=48)
USR = disks.Disk("dps-usr", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000902", "dpsusr",
                 size_mb=16)
LUKS_UUID = "5f0c1a4e-1b2d-4c3e-9f10-000000000903"
B_PASS = "66789"          # esp.sh's LUKS_PASSWORD
LUKS_HEADER_MB = 16
# booster's kernelArgs, after run.py's own words (a UKI carries them all)
B_CMDLINE = "console=ttyS0,115200 ignore_loglevel"
UKI_CMDLINE = "console=ttyS0 panic=-1 " + B_CMDLINE
# dracut TEST-41-FULL-SYSTEMD: /usr a btrfs subvolume named on the command line
D41_ROOT = disks.Disk("dps-dracut41-root", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000941",
                      "dracut", size_mb=48)
D41_USR = disks.Disk("dps-dracut41-usr", "btrfs", "5f0c1a4e-1b2d-4c3e-9f10-000000000942",
                     "dracutusr", size_mb=128, subvol="usr")


def _kernels():
    """tests/kernels/kernels.py's OVMF paths and ESP maker (imported when
    first needed: it imports run.py itself)."""
    sys.path.insert(0, os.path.join(SRCDIR, "tests", "kernels"))
    import kernels
    return kernels


def _gpt(work, testinit, name, parts, recipe_extra=""):
    """A GPT disk of parts (MiB, type, PARTUUID, attrs or "", file to
    dd into it or None), 1 MiB aligned, cached by its recipe."""
    recipe = repr((name, [(p[0], p[1], p[2], p[3], p[4] and os.path.getsize(p[4])) for p in parts],
                   recipe_extra))

    def make(tmp, out):
        total = 2 + sum(p[0] for p in parts)
        with open(out, "wb") as f:
            f.truncate(total << 20)
        lines, start = ["label: gpt"], 2048
        for mib, ptype, puuid, attrs, _ in parts:
            lines.append("start=%d, size=%d, type=%s, uuid=%s%s" % (
                start, mib * 2048, ptype, puuid, ', attrs="%s"' % attrs if attrs else ""))
            start += mib * 2048
        _run(["sfdisk", "-q", "--no-reread", "--no-tell-kernel", out],
             input="\n".join(lines) + "\n")
        start = 2048
        for mib, _, _, _, src in parts:
            if src:
                _run(["dd", "if=" + src, "of=" + out, "bs=1M", "conv=notrunc,sparse",
                      "oflag=seek_bytes", "seek=%d" % (start * 512), "status=none"])
            start += mib * 2048
    return scenarios_early._cached(work, name, recipe, testinit, make)


def _luks_root(work, testinit):
    """The root's ext4 in LUKS2 (esp.sh's ENABLE_LUKS=1), PBKDF2 as the
    other LUKS disks here: argon2id under TCG takes minutes."""
    fs = scenarios_early._ext4(work, testinit, ROOT)

    def make(tmp, out):
        shutil.copyfile(fs, out)
        with open(out, "r+b") as f:
            f.truncate(os.path.getsize(fs) + (LUKS_HEADER_MB << 20))
        key = os.path.join(tmp, "key")
        with open(key, "w") as f:
            f.write(B_PASS)
        _run(["cryptsetup", "reencrypt", "--encrypt", "--type", "luks2", "-q",
              "--reduce-device-size", "%dM" % LUKS_HEADER_MB, "--uuid", LUKS_UUID,
              "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000", "--key-file", key, out])
    return scenarios_early._cached(work, "dps-luks", LUKS_UUID, testinit, make)


class UkiDisk:
    """booster's esp.sh disk: our UKI (its command line, and what the
    image bakes) on the ESP, the root partition with attrs; booted by OVMF
    from it (run.py: firmware=True passes no -kernel)."""
    fs = "ext4"
    firmware = True

    def __init__(self, name, attrs="", luks=False, bake=()):
        self.name, self.attrs, self.luks, self.bake = name, attrs, luks, tuple(bake)
        self.path = None

    def build(self, testinit, work, env):
        k = _kernels()
        udir = os.path.join(work, "uki")
        os.makedirs(udir, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=udir) as tmp:
            efi = os.path.join(tmp, "uki.efi")
            _run([env["uniramfs"], "build", "--config", "/dev/null", "-k", env["kver"],
                  "--generic", "--microcode", "none", "-o", os.path.join(tmp, "img"),
                  "--uki", efi, "--uki-cmdline", UKI_CMDLINE] + list(self.bake))
            with open(efi, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            esp = os.path.join(udir, "esp-%s.img" % digest[:12])
            if not os.path.exists(esp):
                k.esp_image(esp + ".tmp", efi)
                os.rename(esp + ".tmp", esp)
        root = _luks_root(work, testinit) if self.luks else scenarios_early._ext4(work, testinit, ROOT)
        rmib = (os.path.getsize(root) >> 20) + 1
        self.path = _gpt(work, testinit, self.name,
                         ((64, ESP_TYPE, ESP_PARTUUID, "", esp),
                          (rmib, ROOT_TYPE, ROOT_PARTUUID, self.attrs, root)), digest)
        return []

    @contextlib.contextmanager
    def attach(self, _dpaths):
        k = _kernels()
        with tempfile.TemporaryDirectory() as tmp:
            vars_copy = os.path.join(tmp, "vars.fd")
            shutil.copyfile(k.OVMF_VARS, vars_copy)
            yield (["-drive", "if=pflash,format=raw,readonly=on,file=" + k.OVMF_CODE,
                    "-drive", "if=pflash,format=raw,file=" + vars_copy]
                   + scenarios_compat._booster_drives([self.path]))


class BiosDisks:
    """Disks booted with QEMU's -kernel (no firmware variables): the first
    is /dev/vda, the others /dev/vdb..."""
    fs = "ext4"

    def __init__(self, name, makers):
        self.name, self.makers = name, makers

    def build(self, testinit, work, env):
        return [m(work, testinit) for m in self.makers]


def _root_usr(work, testinit):
    """A root with the read-only attribute and a usr partition beside it."""
    root = scenarios_early._ext4(work, testinit, ROOT, dirs=("usr",))
    usr = scenarios_early._ext4(work, testinit, USR, populate=False,
                                files=(("share/uniramfs-usr-disk", "the usr partition\n"),))
    return _gpt(work, testinit, "dps-root-usr",
                ((49, ROOT_TYPE, ROOT_PARTUUID, "GUID:60", root),
                 (17, USR_TYPE, USR_PARTUUID, "", usr)))


def _esp_root(work, testinit):
    """esp.sh's layout without a UKI: an empty ESP and the root partition."""
    root = scenarios_early._ext4(work, testinit, ROOT)
    return _gpt(work, testinit, "dps-esp-root",
                ((64, ESP_TYPE, ESP_PARTUUID, "", None),
                 (49, ROOT_TYPE, "5f0c1a4e-1b2d-4c3e-9f10-0000000009b2", "", root)))


def _d41(work, testinit):
    return scenarios_early._ext4(work, testinit, D41_ROOT, dirs=("usr",))


def _d41_usr(work, testinit):
    return disks.ensure(D41_USR, testinit, work)


GPT_AUTO = "uniramfs: gpt-auto: the root partition is "


def scenarios(Scenario):
    b_prompt = ((r"Passphrase for /dev/sda2 \(%s\): " % LUKS_UUID, B_PASS + "\n"),)
    return [
        Scenario("booster-gpt-autodiscovery-ext4", "booster TestGptRootAutodiscoveryExt4: no "
                 "root=, OVMF boots our UKI from the ESP; the root partition by its type on "
                 "the disk LoaderDevicePartUUID names", UkiDisk("dps-uki-ext4"), "",
                 cmdline=B_CMDLINE, ours_only=True,
                 log_expect=("uniramfs: gpt-auto: LoaderDevicePartUUID is " + ESP_PARTUUID,
                             "uniramfs: gpt-auto: the firmware booted from /dev/sda1 "
                             "(LoaderDevicePartUUID): the root is looked for on /dev/sda",
                             GPT_AUTO + "/dev/sda2: root=PARTUUID=" + ROOT_PARTUUID)),
        Scenario("booster-gpt-autodiscovery-luks", "booster TestGptRootAutodiscoveryLUKS: the "
                 "root partition is LUKS2, unlocked as /dev/mapper/root", 
                 UkiDisk("dps-uki-luks", luks=True), "", cmdline=B_CMDLINE, ours_only=True,
                 interact=b_prompt,
                 log_expect=(GPT_AUTO + "/dev/sda2: root=/dev/mapper/root",)),
        Scenario("booster-gpt-autodiscovery-noauto", "booster TestGptRootAutodiscoveryNoAuto: "
                 "the no-auto attribute (GPT bit 63): not mounted, and the failure says so",
                 UkiDisk("dps-uki-noauto", attrs="GUID:63", bake=("--cmdline", "rd.timeout=1")),
                 "", cmdline=B_CMDLINE + " (image: rd.timeout=1)", ours_only=True,
                 fail_msgs=("uniramfs: gpt-auto: /dev/sda2 has the x86-64 root partition type "
                            "but the no-auto attribute (GPT bit 63): not using it",
                            "uniramfs: no root=, and no partition of the x86-64 root type "
                            "4f68bce3-e8cd-4db1-96e7-fbcaf984b709 on the boot disk /dev/sda: /dev/sda2 "
                            "has it, but with the no-auto attribute (GPT bit 63)")),
        Scenario("booster-gpt-autodiscovery-readonly", "booster TestGptRootAutodiscoveryReadOnly: "
                 "the read-only attribute (GPT bit 60): mounted read-only",
                 UkiDisk("dps-uki-ro", attrs="GUID:60"), "", cmdline=B_CMDLINE, ours_only=True,
                 expect=("root-writable=no",),
                 log_expect=("uniramfs: gpt-auto: /dev/sda2 has the read-only attribute (GPT "
                             "bit 60): mounting it read-only",)),
        Scenario("dps-bios", "no root=, plain BIOS (no LoaderDevicePartUUID): the only disk with a "
                 "root partition; its read-only attribute beats `rw`; /usr from the usr "
                 "partition beside it", BiosDisks("dps-bios", (_root_usr,)), "", cmdline="rw",
                 ours_only=True,
                 expect=("root-writable=no", r"mounts: /dev/vda2 /usr ext4 ro[, ]"),
                 log_expect=(GPT_AUTO + "/dev/vda1: root=PARTUUID=" + ROOT_PARTUUID,
                             "uniramfs: gpt-auto: the usr partition is /dev/vda2")),
        Scenario("dps-two-disks", "no root= and a root partition on two disks: refused, both named",
                 BiosDisks("dps-two", (_root_usr, _esp_root)), "", cmdline="rd.shell=0",
                 ours_only=True,
                 fail_msgs=("x86-64 root partitions on several disks: ", "/dev/vda1 on /dev/vda",
                            "/dev/vdb2 on /dev/vdb",
                            "nothing says which one the firmware booted from "
                            "(LoaderDevicePartUUID): name it with root=",
                            "uniramfs: not starting a shell: rd.shell=0")),
        Scenario("mount-usr", "dracut TEST-41's mount.usr=LABEL= mount.usrflags=subvol=usr: /usr "
                 "a btrfs subvolume named on the command line", BiosDisks("dps-d41", (_d41, _d41_usr)),
                 "LABEL=dracut", cmdline="systemd.default_device_timeout_sec=0 quiet "
                 "mount.usr=LABEL=dracutusr mount.usrflags=subvol=usr", ours_only=True,
                 expect=(r"mounts: /dev/vdb /usr btrfs ro,\S*subvol=/usr",)),
    ]
