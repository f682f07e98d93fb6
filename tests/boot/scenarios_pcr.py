# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for measured boot (issue 29, docs/measured-boot.md):
the init's own TPM2 client extends PCR 11 with systemd-pcrphase's
"enter-initrd" and "leave-initrd", read back in the root from sysfs and
compared with the value computed here from the two strings, so an
extension of other bytes (a trailing NUL, another hash, one phase
missing or twice) fails.  A direct kernel boot has no systemd-stub, so
rd.uniramfs.measure=1 asks for it.  Each boot has a fresh swtpm state:
PCR 11 starts at zero."""

import hashlib
import os
import shutil
import tempfile

import disks
import tpm

ROOT = disks.Disk("ext4", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000001", "testroot")
PCR11 = "/sys/class/tpm/tpm0/pcr-sha256/11"
MEASURE_LOG = "/run/log/systemd/tpm2-measure.log"


def extended(*strings, alg="sha256"):
    """A PCR's value after each string was measured as systemd does:
    new = H(old || H(string)), from all zeros."""
    value = bytes(hashlib.new(alg).digest_size)
    for s in strings:
        value = hashlib.new(alg, value + hashlib.new(alg, s.encode()).digest()).digest()
    return value


class FreshTpm:
    """A plain disk with a new swtpm (an empty state directory) for the
    boot: run.py calls build() for the disk and attach() for the QEMU
    arguments."""

    def __init__(self, disk):
        self.disk, self.name, self.fs = disk, disk.name, disk.fs

    def build(self, testinit, work, env):
        return [disks.ensure(self.disk, testinit, work)]

    def attach(self, paths):
        return _fresh()


class _fresh:
    def __enter__(self):
        self.tmp = tempfile.mkdtemp(prefix="tpmstate-")
        self.ctx = tpm.swtpm(os.path.join(self.tmp, "state"))
        return self.ctx.__enter__()

    def __exit__(self, *exc):
        try:
            return self.ctx.__exit__(*exc)
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


def scenarios(Scenario):
    """run.py's Scenario list for measured boot."""
    if not tpm.available():
        return []
    enter = hashlib.sha256(b"enter-initrd").hexdigest()
    leave = hashlib.sha256(b"leave-initrd").hexdigest()
    record = (r'\{"pcr":11,"digests":\[[^]]*\{"hashAlg":"sha256","digest":"%s"\}[^]]*\],'
              r'"content_type":"systemd","content":\{"string":"%s","bootId":"[0-9a-f]{32}",'
              r'"timestamp":[0-9]+,"eventType":"phase"\}\}$')
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
    ]
