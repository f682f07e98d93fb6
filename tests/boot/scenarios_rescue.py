# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for the rescue shell (issue 24, item 9): every image
carries busybox, so a root that never appears ends in a shell on the
console where a command runs; an image built with a rescue password asks
for it first (a wrong one is refused with its message); and after a TPM2
unlock a failure gives no shell at all: the report, the refusal, the
reboot (docs/cmdline.md, "After a failure"), unless rd.shell=1 on the
command line opts in; an rd.break point after it gives no shell and the
boot goes on.  The interact regexes are
plain texts searched from where the last step matched: no lookahead, so a
search is linear in the console's length."""

import disks
import scenarios_tpm
import tpm

ROOT = disks.Disk("ext4", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000001", "testroot")
MISSING = "UUID=5f0c1a4e-1b2d-4c3e-9f10-00000000dead"
TIMEOUT = 5
# crypt("right", "$6$uniramfs$"), as tests/unit/init/stages/test_rescue.c
HASH = ("$6$uniramfs$EPRaygVlYkdjCIaKzlnqUHaVJGlVHoP9LYPUdG1GuZ/U/hd.TM8rf9RfjwJ.SHmWO."
        "UFss4DOEEr1M0jqZuI90")
SHELL_START = "uniramfs: starting /bin/sh (emergency shell); exit it to continue"
PASSWORD_PROMPT = "Password for the rescue shell: "
WRONG = "uniramfs: wrong password for the rescue shell"
NO_SHELL_AUTO = ("uniramfs: not starting a shell: a volume was unlocked with no typed secret "
                 "(TPM2, clevis, a key file or a token) and the image has no rescue password; "
                 "rd.shell=1 or rd.emergency=shell on the command line allows one")
# a command whose output is not its own echo: the shell ran it
COMMAND = ("echo RESCUE-$((6*7))\n", "RESCUE-42")


def _shell_steps():
    return ((r"starting /bin/sh \(emergency shell\); exit it to continue", ""),
            (r"[#$] ", COMMAND[0]))


def scenarios(Scenario):
    """run.py's Scenario list for the rescue shell."""
    S = lambda *a, **k: Scenario(*a, ours_only=True, **k)  # noqa: E731
    out = [
        S("rescue-shell", "a root that never appears: the default image's busybox shell on the "
          "console runs a command",
          ROOT, MISSING, cmdline="rd.timeout=%d" % TIMEOUT,
          interact=_shell_steps(),
          fail_msgs=("uniramfs: root device root=%s did not appear within %d seconds"
                     % (MISSING, TIMEOUT), SHELL_START, COMMAND[1])),
        S("rescue-password", "an image with a rescue password: a wrong one is refused with its "
          "message, the right one opens the shell",
          ROOT, MISSING, cmdline="rd.timeout=%d" % TIMEOUT,
          build=("--rescue-password-hash", HASH),
          interact=((PASSWORD_PROMPT, "wrong\n"),
                    (WRONG + r"\n[\s\S]*" + PASSWORD_PROMPT, "right\n")) + _shell_steps(),
          fail_msgs=(WRONG, SHELL_START, COMMAND[1]),
          log_absent=("no shell: 3 wrong passwords",)),
    ]
    if tpm.available():
        lay = scenarios_tpm.LAYOUT
        out.append(S(
            "rescue-tpm2-no-shell", "after a TPM2 unlock a failure (no such filesystem in the "
            "unlocked volume) gives no shell: the refusal, then the reboot",
            scenarios_tpm.WithTpm(lay), MISSING,
            cmdline="rd.luks.uuid=%s rd.luks.options=tpm2-device=auto rd.timeout=20"
            % scenarios_tpm.LUKS_UUID,
            fail_msgs=("uniramfs: /dev/vda: opened with its LUKS2 token systemd-tpm2",
                       "uniramfs: root device root=%s did not appear within 20 seconds" % MISSING,
                       NO_SHELL_AUTO, "uniramfs: rebooting now"),
            log_absent=("starting /bin/sh", PASSWORD_PROMPT)))
        out.append(S(
            "rescue-tpm2-opt-in", "the same failure with rd.shell=1 written on the command "
            "line: the owner opted in, the shell runs a command",
            scenarios_tpm.WithTpm(lay), MISSING,
            cmdline="rd.luks.uuid=%s rd.luks.options=tpm2-device=auto rd.timeout=20 rd.shell=1"
            % scenarios_tpm.LUKS_UUID,
            interact=_shell_steps(),
            fail_msgs=("uniramfs: /dev/vda: opened with its LUKS2 token systemd-tpm2",
                       SHELL_START, COMMAND[1]),
            log_absent=(NO_SHELL_AUTO,)))
        out.append(S(
            "rescue-tpm2-break", "rd.break=pre-mount after a TPM2 unlock: no shell at the break "
            "point, the boot goes on to the real root",
            scenarios_tpm.WithTpm(lay), "UUID=" + lay.uuid,
            cmdline="rd.luks.options=tpm2-device=auto rd.break=pre-mount",
            log_expect=("uniramfs: /dev/vda: opened with its LUKS2 token systemd-tpm2",
                        NO_SHELL_AUTO, "uniramfs: break point pre-mount: no shell, going on"),
            log_absent=("starting /bin/sh", PASSWORD_PROMPT)))
    return out
