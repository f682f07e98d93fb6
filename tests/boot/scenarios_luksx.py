# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for crypttab options acted on since issue 26 (not
replays: booster's own are in scenarios_compat.py).

One disk, LUKS2 with two passphrases (slot 0 and slot 1), and an image
crypttab line per case. key-slot=1 makes slot 0's passphrase a wrong
one: typed first, it is refused and the next prompt takes slot 1's, so
the boot proves cryptsetup was told the slot. tries=1 with the wrong
slot's passphrase gives up at once (the default would ask three times).
A nofail line for a device that never comes stands beside the root's,
and a nofail root given up on waits for the root instead of failing.
"""

import os

import builder
import scenarios_compat
import scenarios_stack as st

SLOTS_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001e1"
PASS2 = "second-slot-passphrase"
SLOTS = builder.Layout("luks2-slots", "luks2-slots", "ext4", st._fs(0x2e), "slotsroot",
                       params=st._luks(SLOTS_UUID) + (("PASS2", PASS2),))
NOFAIL_LINE = "cryptgone UUID=0badc0de-dead-4bad-8bad-0000000001e9 none nofail\n"


class WithCrypttab:
    """A layout and the image's /etc/crypttab (the run's work dir)."""

    def __init__(self, layout, name, text):
        self.layout, self.ct_name, self.text = layout, name, text
        self.name, self.fs = layout.name, layout.fs
        self.work = None

    def build(self, testinit, work, env):
        self.work = work
        return self.layout.build(testinit, work, env)

    def image_files(self, paths):
        ct = scenarios_compat._crypttab(self.work, self.ct_name, self.text)
        return paths, ("--add-files", "%s:/etc/crypttab" % os.path.abspath(ct))


def scenarios(Scenario):
    """run.py's Scenario list for the crypttab options."""
    S = lambda *a, **k: Scenario(*a, ours_only=True, **k)  # noqa: E731
    prompt = st.prompt("/dev/vda", SLOTS_UUID)
    return [
        S("luks2-keyslot", "crypttab key-slot=1: slot 0's passphrase is refused, slot 1's "
          "opens; a nofail line for a device that never comes does not hold the boot",
          WithCrypttab(SLOTS, "luksx-slot1", "cryptroot UUID=%s none key-slot=1\n%s"
                       % (SLOTS_UUID, NOFAIL_LINE)),
          "UUID=" + SLOTS.uuid,
          interact=((prompt, st.PASS + "\n"),
                    (r"uniramfs: wrong passphrase for /dev/vda\n[\s\S]*" + prompt,
                     PASS2 + "\n")),
          log_expect=("uniramfs: wrong passphrase for /dev/vda",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/cryptroot"),
          log_absent=("is not supported here",)),
        S("luks2-keyslot-tries", "crypttab key-slot=1,tries=1: slot 0's passphrase is the one "
          "wrong try, then the failure path", WithCrypttab(SLOTS, "luksx-tries1",
                                                           "cryptroot UUID=%s none key-slot=1,"
                                                           "tries=1\n" % SLOTS_UUID),
          "UUID=" + SLOTS.uuid, cmdline=st.NO_SHELL,
          interact=((prompt, st.PASS + "\n"),),
          fail_msgs=("uniramfs: wrong passphrase for /dev/vda",
                     "uniramfs: giving up on /dev/vda after 1 wrong passphrases",
                     "uniramfs: not starting a shell: rd.shell=0",
                     "uniramfs: rebooting now")),
        S("luks2-nofail-given-up", "crypttab nofail: the device given up on after tries=1 does "
          "not start the failure path; the boot waits on for the root, which then times out",
          WithCrypttab(SLOTS, "luksx-nofail", "cryptroot UUID=%s none key-slot=1,tries=1,"
                       "nofail\n" % SLOTS_UUID),
          "UUID=" + SLOTS.uuid, cmdline=st.SHORT + " " + st.NO_SHELL,
          interact=((prompt, st.PASS + "\n"),),
          fail_msgs=("uniramfs: giving up on /dev/vda after 1 wrong passphrases",
                     "uniramfs: /dev/vda: nofail: the boot goes on without "
                     "/dev/mapper/cryptroot",
                     "uniramfs: root device root=UUID=%s did not appear within 8 seconds"
                     % SLOTS.uuid,
                     "uniramfs: rebooting now")),
    ]
