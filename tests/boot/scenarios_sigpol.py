# SPDX-License-Identifier: GPL-2.0-or-later
"""Signed PCR policies (issue 29, booster's TestSystemdTPM2SignedPolicy):
a LUKS2 root whose systemd-tpm2 token the builder VM enrolled with
`systemd-cryptenroll --tpm2-public-key=PUB.pem --tpm2-public-key-pcrs=11`
(builder/luks2-tpm2-sig.sh, its swtpm state kept with the disk), booted
by OVMF from our UKI built with `--uki-pcr-key`: systemd-stub measures
the UKI's sections into PCR 11 and hands its .pcrsig to the initrd as
/.extra/tpm2-pcr-signature.json; the init extends PCR 11 with
enter-initrd, copies the signature where systemd 252's plugin reads it
(stack/luks_sig.c) and tries the token.

- sigpol-right-key: the UKI's .pcrsig signed by the key the token was
  enrolled with: unlocked by the token, no prompt, the root's marker.
- sigpol-other-key: the same disk and TPM, the UKI signed by another key:
  the token fails with the init's line naming the signature, and the
  passphrase typed at the prompt unlocks it.  (A malformed or oversized
  signature file is unit-tested: tests/unit/init/stack/test_luks_sig.c.)

The ESP is the second virtio disk, so the root is /dev/vda.  The two RSA keys are made once with openssl and cached in
$UNIRAMFS_TEST_CACHE/sigpol-HASH/ (default /var/cache/uniramfs-tests),
HASH that of RECIPE; the disk's recipe holds the public key, so new keys
make a new disk.  Secure Boot plays no part: plain OVMF, no -snapshot
needed (each boot has a copy of the variable store and of the TPM state).
"""

import contextlib
import hashlib
import os
import shutil
import tempfile
import threading

import builder
import scenarios_dps
import scenarios_early
import scenarios_stack
import tpm

CACHE = os.environ.get("UNIRAMFS_TEST_CACHE", "/var/cache/uniramfs-tests")
# bump when the keys' recipe changes: new keys are made (and a new disk)
RECIPE = "sigpol keys v1: openssl genrsa 2048 'right' and 'other', rsa -pubout"
LUKS_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001cc"
FS_UUID = "5f0c1a4e-1b2d-4c3e-9f10-000000000122"
UKI_CMDLINE = "console=ttyS0 panic=-1 root=UUID=%s rd.luks.options=tpm2-device=auto" % FS_UUID
_run = scenarios_early._run
_lock = threading.Lock()
_made = {}


def _kernels():
    return scenarios_dps._kernels()   # OVMF's paths, the ESP maker


def _keys(work):
    """The cached directory with right.key/right.pub and other.key/other.pub."""
    tag = hashlib.sha256(RECIPE.encode()).hexdigest()[:12]
    d = os.path.join(CACHE, "sigpol-" + tag)
    try:
        os.makedirs(CACHE, exist_ok=True)
    except OSError:
        d = os.path.join(work, "sigpol-" + tag)
    if os.path.exists(os.path.join(d, "done")):
        return d
    tmp = tempfile.mkdtemp(prefix=".sigpol-", dir=os.path.dirname(d))
    for name in ("right", "other"):
        _run(["openssl", "genrsa", "-out", os.path.join(tmp, name + ".key"), "2048"])
        _run(["openssl", "rsa", "-in", os.path.join(tmp, name + ".key"), "-pubout",
              "-out", os.path.join(tmp, name + ".pub")])
    open(os.path.join(tmp, "done"), "w").close()
    try:
        os.rename(tmp, d)
    except OSError:   # another run made it first
        shutil.rmtree(tmp, ignore_errors=True)
    return d


def _layout(keys):
    with open(os.path.join(keys, "right.pub")) as f:
        pub = f.read().strip()
    return builder.Layout("luks2-tpm2-sig", "luks2-tpm2-sig", "ext4", FS_UUID, "luks2sigroot",
                          params=(("LUKS_UUID", LUKS_UUID), ("PASS", scenarios_stack.PASS),
                                  ("PUB", pub)),
                          tpm=True)


def _esp(work, env, keys, key):
    """An ESP with our UKI, its .pcrsig/.pcrpkey from keys/KEY.{key,pub}
    (built once per run)."""
    udir = os.path.join(work, "sigpol")
    os.makedirs(udir, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=udir) as tmp:
        efi = os.path.join(tmp, "uki.efi")
        _run([env["uniramfs"], "build", "--config", "/dev/null", "-k", env["kver"],
              "--generic", "--microcode", "none", "-o", os.path.join(tmp, "img"),
              "--uki", efi, "--uki-cmdline", UKI_CMDLINE,
              "--uki-pcr-key", os.path.join(keys, key + ".key"),
              "--uki-pcr-public-key", os.path.join(keys, key + ".pub")])
        esp = os.path.join(udir, "esp-%s.img" % key)
        _kernels().esp_image(esp, efi)
    return esp


class SigDisk:
    """The enrolled disk (the first virtio disk), an ESP with the UKI whose
    .pcrsig key signed, booted by OVMF (run.py: firmware=True, no -kernel),
    with a copy of the TPM state the token was sealed with."""
    fs = "ext4"
    firmware = True

    def __init__(self, name, key):
        self.name, self.key = name, key
        self.esp = self.state = None

    def build(self, testinit, work, env):
        with _lock:
            if "keys" not in _made:
                _made["keys"] = _keys(work)
            keys = _made["keys"]
            if self.key not in _made:
                _made[self.key] = _esp(work, env, keys, self.key)
            self.esp = _made[self.key]
        paths = _layout(keys).build(testinit, work, env)
        self.state = paths[0][:-len(".0.img")] + ".tpm"
        return paths

    @contextlib.contextmanager
    def attach(self, _dpaths):
        k = _kernels()
        with tempfile.TemporaryDirectory() as tmp:
            vars_copy = os.path.join(tmp, "vars.fd")
            shutil.copyfile(k.OVMF_VARS, vars_copy)
            with tpm.swtpm_scratch(self.state) as tpm_args:
                yield (["-drive", "if=pflash,format=raw,readonly=on,file=" + k.OVMF_CODE,
                        "-drive", "if=pflash,format=raw,file=" + vars_copy,
                        "-drive", "if=none,id=esp,format=raw,file=" + self.esp,
                        "-device", "virtio-blk-pci,drive=esp,bootindex=1"] + tpm_args)


def scenarios(Scenario):
    """run.py's Scenario list for signed PCR policies."""
    if not tpm.available():
        return []
    S = lambda *a, **k: Scenario(*a, ours_only=True, **k)  # noqa: E731
    return [
        S("sigpol-right-key", "booster TestSystemdTPM2SignedPolicy: a TPM2 token enrolled with "
          "--tpm2-public-key (PCR 11), our UKI's .pcrsig signed by that key (--uki-pcr-key): "
          "unlocked by the token with no prompt",
          SigDisk("sigpol-right", "right"), "",
          log_expect=("uniramfs: extended PCR 11 with 'enter-initrd' (banks ",
                      "uniramfs: /dev/vda: opened with its LUKS2 token systemd-tpm2",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS_UUID),
          log_absent=("Passphrase for", "no LUKS2 token opened it")),
        S("sigpol-other-key", "the same disk and TPM, the UKI's .pcrsig signed by another key: "
          "the token fails, said with the signature's path, the passphrase unlocks",
          SigDisk("sigpol-other", "other"), "",
          interact=scenarios_stack.typed("/dev/vda", LUKS_UUID, scenarios_stack.PASS),
          log_expect=("uniramfs: /dev/vda: no LUKS2 token opened it (cryptsetup exit status 1), "
                      "with the PCR signature /.extra/tpm2-pcr-signature.json; asking for the "
                      "passphrase",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS_UUID),
          log_absent=("opened with its LUKS2 token",)),
    ]
