# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for LUKS2 tokens (issue 14): a TPM2 token enrolled by
systemd-cryptenroll in the builder VM with a software TPM (swtpm), whose
state is cached with the disk (builder.Layout.tpm) and copied for each
boot.  The generic image packs cryptsetup's token plugins and the tss2
libraries; the root unlocks with no prompt, and with no TPM attached the
init asks for the passphrase.  A second disk's token needs a PIN
(--tpm2-with-pin=yes, issue 29): booster's three PIN cases type it at the
init's prompt, right, wrong then right, and wrong until the passphrase.

FIDO2 and PKCS#11 tokens cannot be tried here: QEMU has only u2f
passthrough and no emulated smart card reader the plugin would use; their
argument building is unit-tested (tests/unit/init/stack/test_luks_token.c).
"""


import builder
import scenarios_stack
import tpm

LUKS_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001ca"
LAYOUT = builder.Layout("luks2-tpm2", "luks2-tpm2", "ext4",
                        "5f0c1a4e-1b2d-4c3e-9f10-000000000120", "luks2tpmroot",
                        params=(("LUKS_UUID", LUKS_UUID), ("PASS", scenarios_stack.PASS)),
                        tpm=True)
# booster's TestSystemdTPM2WithPin and its PinRetry/PinExhausted: a token
# enrolled with --tpm2-with-pin=yes; each boot types the PIN at our prompt
PIN = "4711"
PIN_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001cb"
PIN_LAYOUT = builder.Layout("luks2-tpm2-pin", "luks2-tpm2-pin", "ext4",
                            "5f0c1a4e-1b2d-4c3e-9f10-000000000121", "luks2tpmpinroot",
                            params=(("LUKS_UUID", PIN_UUID), ("PASS", scenarios_stack.PASS),
                                    ("PIN", PIN)),
                            tpm=True)
PIN_PROMPT = r"Enter TPM2 PIN for /dev/vda: "
WRONG_PIN = "uniramfs: wrong TPM2 PIN for /dev/vda"


class WithTpm:
    """The layout's disk with its TPM attached: a copy of the state the
    token was sealed with, behind a swtpm for this boot (run.py calls
    attach(paths) as a context manager for the extra QEMU arguments)."""

    def __init__(self, layout):
        self.layout, self.name, self.fs = layout, layout.name, layout.fs

    def build(self, testinit, work, env):
        return self.layout.build(testinit, work, env)

    def attach(self, paths):
        state = paths[0][:-len(".0.img")] + ".tpm"
        return tpm.swtpm_scratch(state)


def scenarios(Scenario):
    """run.py's Scenario list for LUKS2 tokens."""
    if not tpm.available():
        return []
    S = lambda *a, **k: Scenario(*a, ours_only=True, **k)  # noqa: E731
    return [
        S("luks-tpm2", "LUKS2 root with a TPM2 token (swtpm): unlocked with no prompt",
          WithTpm(LAYOUT), "UUID=" + LAYOUT.uuid, cmdline="rd.luks.options=tpm2-device=auto",
          log_expect=("uniramfs: /dev/vda: opened with its LUKS2 token systemd-tpm2",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS_UUID),
          log_absent=("Passphrase for",)),
        S("luks-tpm2-absent", "the same disk with no TPM: the header's token is skipped, "
          "the passphrase asked for",
          LAYOUT, "UUID=" + LAYOUT.uuid,
          interact=scenarios_stack.typed("/dev/vda", LUKS_UUID, scenarios_stack.PASS),
          log_expect=("uniramfs: /dev/vda: no TPM2 device /dev/tpmrm0; asking for the "
                      "passphrase",)),
        S("luks-tpm2-pin", "booster TestSystemdTPM2WithPin: a TPM2 token with a PIN, the PIN "
          "typed at the init's prompt unlocks it",
          WithTpm(PIN_LAYOUT), "UUID=" + PIN_LAYOUT.uuid,
          interact=((PIN_PROMPT, PIN + "\n"),),
          log_expect=("uniramfs: /dev/vda: opened with its LUKS2 token",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + PIN_UUID),
          log_absent=("Passphrase for", WRONG_PIN)),
        S("luks-tpm2-pin-retry", "booster PinRetry: a wrong PIN is said, asked again, the "
          "right one unlocks",
          WithTpm(PIN_LAYOUT), "UUID=" + PIN_LAYOUT.uuid,
          interact=((PIN_PROMPT, "1234\n"),
                    (WRONG_PIN + r"\n[\s\S]*" + PIN_PROMPT, PIN + "\n")),
          log_expect=(WRONG_PIN, "uniramfs: /dev/vda: opened with its LUKS2 token"),
          log_absent=("Passphrase for",)),
        S("luks-tpm2-pin-exhausted", "booster PinExhausted: three wrong PINs (tries=3), then "
          "the passphrase",
          WithTpm(PIN_LAYOUT), "UUID=" + PIN_LAYOUT.uuid,
          interact=((PIN_PROMPT, "1111\n"), (WRONG_PIN + r"\n[\s\S]*" + PIN_PROMPT, "2222\n"),
                    (WRONG_PIN + r"\n[\s\S]*" + PIN_PROMPT, "3333\n")) +
          scenarios_stack.typed("/dev/vda", PIN_UUID, scenarios_stack.PASS),
          log_expect=("uniramfs: /dev/vda: no right TPM2 PIN in 3 tries; asking for the "
                      "passphrase",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + PIN_UUID)),
    ]
