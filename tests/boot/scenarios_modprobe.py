# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for the kernel's own module requests (issue 26).

A LUKS2 root whose cipher (serpent) the init does not load in advance:
cryptsetup's AF_ALG socket and dm-crypt's table make the kernel ask for
"crypto-serpent", and the image's modprobe link (/init under the name
modprobe, set in /proc/sys/kernel/modprobe) answers from the image's
module index. The load is said in the kernel's log by the request's
name, which only that path prints; after switch_root the kernel's
modprobe path is the root's again.
"""

import builder
import scenarios_stack as st

SERPENT_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001d7"
SERPENT = builder.Layout("luks2-serpent", "luks2-serpent", "ext4", st._fs(0x27),
                         "serpentroot", params=st._luks(SERPENT_UUID))


def scenarios(Scenario):
    """run.py's Scenario list for the kernel's module requests."""
    S = lambda *a, **k: Scenario(*a, ours_only=True, **k)  # noqa: E731
    return [
        S("luks2-serpent-modprobe", "LUKS2 root in serpent-xts-plain64: the kernel asks for "
          "the cipher, the image's modprobe loads it; the root gets /sbin/modprobe back",
          SERPENT, "UUID=" + SERPENT.uuid,
          cmdline="testinit.show=/proc/sys/kernel/modprobe",
          interact=st.typed("/dev/vda", SERPENT_UUID, st.PASS),
          expect=(r"show /proc/sys/kernel/modprobe: /sbin/modprobe$",),
          log_expect=("uniramfs: modprobe crypto-serpent: loaded serpent_generic",
                      "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + SERPENT_UUID)),
    ]
