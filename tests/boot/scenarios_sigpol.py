# SPDX-License-Identifier: GPL-2.0-or-later
"""Signed PCR policies (issue 29, booster's TestSystemdTPM2SignedPolicy):
a LUKS2 root whose systemd-tpm2 token the builder VM enrolled with
`systemd-cryptenroll --tpm2-public-key=PUB.pem --tpm2-public-key-pcrs=11`
(builder/luks2-tpm2-sig.sh, its swtpm state kept with the disk), booted
by OVMF from our UKI built with `--uki-pcr-key`: systemd-stub measures
the UKI's sections into PCR 11 and hands its .pcrsig to the initrd as
/.extra/tpm2-pcr-signature.json; the init extends PCR 11 with
enter-initrd, checks the signature's shape and copies it where systemd
252's plugin reads it (stack/luks_sig.c) and tries the token.

- sigpol-right-key: the UKI's .pcrsig signed by the key the token was
  enrolled with: unlocked by the token, no prompt, the root's marker.
- sigpol-other-key: the same disk and TPM, the UKI signed by another key:
  the token fails with the init's line naming the signature, and the
  passphrase typed at the prompt unlocks it.

`tpm2-signature=PATH` names a file elsewhere. It cannot be in the UKI's
own initrd: the stub measures that initrd into PCR 11, so a signature
inside it would sign its own hash. So it comes, as a distribution would
ship it beside an unchanged UKI, from the ESP: the stub packs the .cred
files of `\EFI\BOOT\BOOTX64.EFI.extra.d\` into /.extra/credentials/
(measured into PCR 12, which the policy does not bind). The UKI's command
line says `rd.luks.options=tpm2-device=auto,tpm2-signature=` SIG_PATH,
and the ESP's pcrsig.cred is:

- sigpol-sig-path: that UKI's own .pcrsig (the right key's), while the
  .pcrsig section the stub hands over holds another key's signature
  instead (the same length, put over it in the file; the stub does not
  measure .pcrsig, so PCR 11 is unchanged): unlocked by the token with
  no prompt, so the file named was used, not the stub's.
- sigpol-malformed: the right signature cut short at byte 100: the
  init's line saying it is not JSON and where, the token tried without
  a signature (the stub's good one is not taken instead), then the
  passphrase.
- sigpol-oversized: the right signature padded with spaces to one byte
  over LUKS_SIG_MAX (64 KiB): the init's line saying so, the token tried
  without it, then the passphrase (the plugin would have taken it).

The ESP is the second virtio disk, so the root is /dev/vda.  The two RSA keys are made once with openssl and cached in
$UNIRAMFS_TEST_CACHE/sigpol-HASH/ (default /var/cache/uniramfs-tests),
HASH that of RECIPE; the disk's recipe holds the public key, so new keys
make a new disk.  Secure Boot plays no part: plain OVMF, no -snapshot
needed (each boot has a copy of the variable store and of the TPM state).
Each UKI is built once a run (its initrd is the same generic image).
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
import scenarios_sb
import scenarios_stack
import tpm

CACHE = os.environ.get("UNIRAMFS_TEST_CACHE", "/var/cache/uniramfs-tests")
# bump when the keys' recipe changes: new keys are made (and a new disk)
RECIPE = "sigpol keys v1: openssl genrsa 2048 'right' and 'other', rsa -pubout"
LUKS_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001cc"
FS_UUID = "5f0c1a4e-1b2d-4c3e-9f10-000000000122"
UKI_CMDLINE = "console=ttyS0 panic=-1 root=UUID=%s rd.luks.options=tpm2-device=auto" % FS_UUID
# the ESP's signature for tpm2-signature=, where systemd-stub 252 puts the
# .cred files of the UKI's .extra.d directory
SIG_CRED = "pcrsig.cred"
SIG_PATH = "/.extra/credentials/" + SIG_CRED
SIG_CMDLINE = UKI_CMDLINE + ",tpm2-signature=" + SIG_PATH
SIG_MAX = 64 * 1024   # src/init/stack/luks_sig.h's LUKS_SIG_MAX
MALFORMED_AT = 100    # where sigpol-malformed's signature is cut
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


def _uki(work, env, keys, key, cmdline, name):
    """Our UKI (work/sigpol/NAME.efi), its .pcrsig/.pcrpkey from
    keys/KEY.{key,pub}."""
    udir = os.path.join(work, "sigpol")
    os.makedirs(udir, exist_ok=True)
    efi = os.path.join(udir, name + ".efi")
    with tempfile.TemporaryDirectory(dir=udir) as tmp:
        _run([env["uniramfs"], "build", "--config", "/dev/null", "-k", env["kver"],
              "--generic", "--microcode", "none", "-o", os.path.join(tmp, "img"),
              "--uki", efi, "--uki-cmdline", cmdline,
              "--uki-pcr-key", os.path.join(keys, key + ".key"),
              "--uki-pcr-public-key", os.path.join(keys, key + ".pub")])
    return efi


def _pcrsig(efi):
    return scenarios_sb.pe_sections(efi)[".pcrsig"]


def _swap_pcrsig(efi, sig, name):
    """A copy of efi whose .pcrsig holds sig instead (the same length):
    every section the stub measures unchanged."""
    with open(efi, "rb") as f:
        data = f.read()
    own = _pcrsig(efi)
    if len(own) != len(sig) or data.count(own) != 1:
        raise RuntimeError("cannot put a %d-byte .pcrsig over %s's %d bytes" %
                           (len(sig), efi, len(own)))
    out = os.path.join(os.path.dirname(efi), name + ".efi")
    with open(out, "wb") as f:
        f.write(data.replace(own, sig))
    if _pcrsig(out) != sig:
        raise RuntimeError("%s: the .pcrsig put over is not where its header says" % out)
    return out


def _esp(efi, name, cred=None):
    """An ESP (work/sigpol/esp-NAME.img) with efi as its boot path, and
    cred's bytes as SIG_CRED in the UKI's .extra.d directory."""
    esp = os.path.join(os.path.dirname(efi), "esp-%s.img" % name)
    _kernels().esp_image(esp, efi)
    if cred is not None:
        extra = "::/EFI/BOOT/BOOTX64.EFI.extra.d"
        with tempfile.NamedTemporaryFile(dir=os.path.dirname(efi)) as f:
            f.write(cred)
            f.flush()
            _run(["mmd", "-i", esp, extra])
            _run(["mcopy", "-i", esp, f.name, extra + "/" + SIG_CRED])
    return esp


def _made_once(tag, make):
    """make()'s result, made once a run (callers hold _lock)."""
    if tag not in _made:
        _made[tag] = make()
    return _made[tag]


def _esp_for(work, env, keys, kind):
    """The ESP of scenario kind: "right"/"other" (the UKI's own .pcrsig),
    "path" (the right one on the ESP, another key's in the UKI),
    "malformed", "oversized"."""
    def uki(key, cmdline, name):
        return _made_once("uki-" + name, lambda: _uki(work, env, keys, key, cmdline, name))
    if kind in ("right", "other"):
        return _esp(uki(kind, UKI_CMDLINE, kind), kind)
    efi = uki("right", SIG_CMDLINE, "sigpath")
    sig = _pcrsig(efi)
    if kind == "path":
        other = _pcrsig(uki("other", UKI_CMDLINE, "other"))
        return _esp(_swap_pcrsig(efi, other, "sigpath-other-stub"), kind, sig)
    if kind == "malformed":
        return _esp(efi, kind, sig[:MALFORMED_AT])
    return _esp(efi, kind, sig + b" " * (SIG_MAX + 1 - len(sig)))


class SigDisk:
    """The enrolled disk (the first virtio disk), an ESP with the UKI and
    the signature of kind (_esp_for), booted by OVMF (run.py: firmware=True, no -kernel),
    with a copy of the TPM state the token was sealed with."""
    fs = "ext4"
    firmware = True

    def __init__(self, name, kind):
        self.name, self.kind = name, kind
        self.esp = self.state = None

    def build(self, testinit, work, env):
        with _lock:
            keys = _made_once("keys", lambda: _keys(work))
            self.esp = _made_once("esp-" + self.kind, lambda: _esp_for(work, env, keys, self.kind))
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
        S("sigpol-sig-path", "tpm2-signature=PATH naming the right key's signature on the ESP "
          "(a stub credential), the UKI's own .pcrsig another key's: unlocked by the token with "
          "no prompt",
          SigDisk("sigpol-path", "path"), "",
          log_expect=("uniramfs: /dev/vda: opened with its LUKS2 token systemd-tpm2",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS_UUID),
          log_absent=("Passphrase for", "no LUKS2 token opened it",
                      "not used as a PCR signature")),
        S("sigpol-malformed", "tpm2-signature=PATH naming a signature cut short: the init says "
          "it is not JSON, the token fails without it, the passphrase unlocks",
          SigDisk("sigpol-malformed", "malformed"), "",
          interact=scenarios_stack.typed("/dev/vda", LUKS_UUID, scenarios_stack.PASS),
          log_expect=("uniramfs: /dev/vda: %s is not JSON (at byte %d): not used as a PCR "
                      "signature" % (SIG_PATH, MALFORMED_AT),
                      "uniramfs: /dev/vda: no LUKS2 token opened it (cryptsetup exit status 1); "
                      "asking for the passphrase",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS_UUID),
          log_absent=("opened with its LUKS2 token", "with the PCR signature")),
        S("sigpol-oversized", "tpm2-signature=PATH naming the right signature padded past 64 KiB: "
          "the init says so, the token fails without it, the passphrase unlocks",
          SigDisk("sigpol-oversized", "oversized"), "",
          interact=scenarios_stack.typed("/dev/vda", LUKS_UUID, scenarios_stack.PASS),
          log_expect=("uniramfs: /dev/vda: %s is larger than %d bytes: not used as a PCR "
                      "signature" % (SIG_PATH, SIG_MAX),
                      "uniramfs: /dev/vda: no LUKS2 token opened it (cryptsetup exit status 1); "
                      "asking for the passphrase",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS_UUID),
          log_absent=("opened with its LUKS2 token", "with the PCR signature")),
    ]
