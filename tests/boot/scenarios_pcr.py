# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for measured boot (issue 29, docs/measured-boot.md):
the init's own TPM2 client extends PCR 11 with systemd-pcrphase's
"enter-initrd" and "leave-initrd", read back in the root from sysfs and
compared with the value computed here from the two strings, so an
extension of other bytes (a trailing NUL, another hash, one phase
missing or twice) fails.  A direct kernel boot has no systemd-stub, so
rd.uniramfs.measure=1 asks for it.  Each boot has a fresh swtpm state:
PCR 11 starts at zero.  PCR 15 (tpm2-measure-pcr=yes): the value for a
volume key the builder was given, and booster's supplantation latch, two
TPM2 tokens bound to PCR 15 of which only the first unseals."""

import hashlib
import hmac

import builder
import disks
import scenarios_stack
import scenarios_tpm
import tpm

ROOT = disks.Disk("ext4", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000001", "testroot")
PCR11 = "/sys/class/tpm/tpm0/pcr-sha256/11"
PCR15 = "/sys/class/tpm/tpm0/pcr-sha256/15"
MEASURE_LOG = "/run/log/systemd/tpm2-measure.log"

# A LUKS2 root whose volume key the builder was given: 64 printable bytes
VK = (b"uniramfs-pcr15-test-volume-key/" * 3)[:64]
VK_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001f5"
VK_LAYOUT = builder.Layout("luks2-vk", "luks2-vk", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-0000000000f5",
                           "luks2vkroot",
                           params=(("LUKS_UUID", VK_UUID), ("PASS", scenarios_stack.PASS),
                                   ("VK", VK.decode())))

# booster's supplantation latch: two LUKS2 disks whose TPM2 tokens are
# bound to PCR 15 at zero
LATCH_ROOT = "5f0c1a4e-1b2d-4c3e-9f10-0000000001f6"
LATCH_DATA = "5f0c1a4e-1b2d-4c3e-9f10-0000000001f7"
LATCH_LAYOUT = builder.Layout("luks2-tpm2-pcr15", "luks2-tpm2-pcr15", "ext4",
                              "5f0c1a4e-1b2d-4c3e-9f10-0000000000f6", "latchroot", ndisks=2,
                              params=(("LUKS_UUID", LATCH_ROOT), ("DATA_UUID", LATCH_DATA),
                                      ("PASS", scenarios_stack.PASS)),
                              tpm=True)


def extended(*strings, alg="sha256", key=None):
    """A PCR's value after each string was measured as systemd does:
    new = H(old || H(string)), from all zeros; with a key (the volume
    key), HMAC(key, string) in place of H(string)."""
    value = bytes(hashlib.new(alg).digest_size)
    for s in strings:
        d = hmac.new(key, s.encode(), alg).digest() if key else hashlib.new(alg, s.encode()).digest()
        value = hashlib.new(alg, value + d).digest()
    return value


class FreshTpm:
    """A plain disk with a new swtpm (an empty state directory) for the
    boot: run.py calls build() for the disk and attach() for the QEMU
    arguments."""

    def __init__(self, disk):
        self.disk, self.name, self.fs = disk, disk.name, disk.fs

    def build(self, testinit, work, env):
        if hasattr(self.disk, "build"):   # a builder.Layout
            return self.disk.build(testinit, work, env)
        return [disks.ensure(self.disk, testinit, work)]

    def attach(self, paths):
        return tpm.swtpm_scratch()


def scenarios(Scenario):
    """run.py's Scenario list for measured boot."""
    if not tpm.available():
        return []
    enter = hashlib.sha256(b"enter-initrd").hexdigest()
    leave = hashlib.sha256(b"leave-initrd").hexdigest()
    record = (r'\{"pcr":11,"digests":\[[^]]*\{"hashAlg":"sha256","digest":"%s"\}[^]]*\],'
              r'"content_type":"systemd","content":\{"string":"%s","bootId":"[0-9a-f]{32}",'
              r'"timestamp":[0-9]+,"eventType":"phase"\}\}$')
    vk_string = "cryptsetup:luks-%s:%s" % (VK_UUID, VK_UUID)
    return [
        Scenario("pcr11-phases", "rd.uniramfs.measure=1: PCR 11 (sha256) in the root is "
                 "enter-initrd then leave-initrd extended from zero, each logged as systemd logs it",
                 FreshTpm(ROOT), "UUID=" + ROOT.uuid,
                 cmdline="rd.uniramfs.measure=1 testinit.show=%s testinit.show=%s" % (PCR11, MEASURE_LOG),
                 expect=(r"show %s: %s$" % (PCR11, extended("enter-initrd", "leave-initrd").hex().upper()),
                         r"show %s: .*" % MEASURE_LOG + record % (enter, "enter-initrd"),
                         r"show %s: .*" % MEASURE_LOG + record % (leave, "leave-initrd")),
                 log_expect=("uniramfs: extended PCR 11 with 'enter-initrd' (banks ",
                             "uniramfs: extended PCR 11 with 'leave-initrd' (banks "),
                 ours_only=True),
        Scenario("pcr15-volume-key", "rd.luks.options=tpm2-measure-pcr=yes: PCR 15 (sha256) in the "
                 "root is HMAC(volume key, cryptsetup:NAME:UUID) extended from zero, logged as "
                 "systemd-cryptsetup logs it",
                 FreshTpm(VK_LAYOUT), "UUID=" + VK_LAYOUT.uuid,
                 cmdline="rd.luks.options=tpm2-measure-pcr=yes testinit.show=%s testinit.show=%s"
                 % (PCR15, MEASURE_LOG),
                 interact=scenarios_stack.typed("/dev/vda", VK_UUID, scenarios_stack.PASS),
                 expect=(r"show %s: %s$" % (PCR15, extended(vk_string, key=VK).hex().upper()),
                         r"show %s: .*" % MEASURE_LOG
                         + (record.replace('"pcr":11', '"pcr":15').replace('"phase"', '"volume-key"')
                            % (hmac.new(VK, vk_string.encode(), "sha256").hexdigest(), vk_string))),
                 log_expect=("uniramfs: extended PCR 15 with '%s' (banks " % vk_string,),
                 ours_only=True),
        # booster's TestSupplantationPCR15Latch: a token bound to PCR 15 at
        # zero unseals once; the measurement after it closes the TPM to a
        # second unseal in this boot (the other disk's token fails, its
        # passphrase is asked), whichever disk comes first
        Scenario("pcr15-latch", "two disks with TPM2 tokens bound to PCR 15: the first opens by "
                 "its token, its measurement makes the second's fail, the passphrase opens it",
                 scenarios_tpm.WithTpm(LATCH_LAYOUT), "UUID=" + LATCH_LAYOUT.uuid,
                 cmdline="rd.luks.uuid=%s rd.luks.uuid=%s "
                 "rd.luks.options=tpm2-device=auto,tpm2-measure-pcr=yes" % (LATCH_ROOT, LATCH_DATA),
                 interact=((r"Passphrase for /dev/vd[ab] \((%s|%s)\): " % (LATCH_ROOT, LATCH_DATA),
                            scenarios_stack.PASS + "\n"),),
                 log_expect=(": opened with its LUKS2 token systemd-tpm2",
                             ": no LUKS2 token opened it (cryptsetup exit status ",
                             "uniramfs: extended PCR 15 with 'cryptsetup:luks-%s:%s' (banks "
                             % (LATCH_ROOT, LATCH_ROOT),
                             "uniramfs: extended PCR 15 with 'cryptsetup:luks-%s:%s' (banks "
                             % (LATCH_DATA, LATCH_DATA),
                             "as /dev/mapper/luks-%s" % LATCH_DATA),
                 ours_only=True),
    ]
