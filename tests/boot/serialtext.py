# SPDX-License-Identifier: GPL-2.0-or-later
"""What a guest's serial console printed, as lines a test can match.

The kernel writes its messages to the UART itself while a program's write
to the console tty drains through it, so a kernel line can land inside a
program's line: "TESTINIT: TOKEN=... boot_id=3975[    4.910657] random:
crng init done\\n6ed4-...\\n" (seen in a hibernation test on the rt
kernel).  untangle() moves every kernel line that starts inside another
line out of it, to its own line just before.

  python3 serialtext.py --tap    checks itself (meson test serialtext)
"""

import re
import sys

# The kernel's timestamp ("[%5lu.%06lu] ") on a message that does not
# start a line, up to its newline.  rd.debug's relative "[0.013624]" in
# the init's own lines has neither the padding nor the width.
_INSIDE = re.compile(r"(?<=[^\n])(\[[ \d]{4,}\d\.\d{6}\] [^\n]*)\n")


# A kernel whose timer check failed because the host was too busy for
# TCG to deliver the PIT's interrupts in time: it panics before any code
# of ours runs, so the boot says nothing about the image.  Harnesses boot
# again (BOOT_TRIES in all) rather than report it as the test's failure.
TIMER_PANIC = "Kernel panic - not syncing: IO-APIC + timer doesn't work!"
BOOT_TRIES = 3


def host_too_slow(text):
    return TIMER_PANIC in text


def untangle(text):
    # Each turn puts one such message at the start of the line it was
    # in, and what it cut in two is one line again: no turn makes another.
    while True:
        m = _INSIDE.search(text)
        if not m:
            return text
        line = text.rfind("\n", 0, m.start()) + 1
        text = (text[:line] + m.group(1) + "\n" + text[line:m.start()] + text[m.end():])

def read(path):
    """A guest's serial log file, without carriage returns, untangled."""
    with open(path, errors="replace") as f:
        return untangle(f.read().replace("\r", ""))


CASES = [
    ("a kernel line inside a program's line",
     "TESTINIT: TOKEN=ab boot_id=3975[    4.910657] random: crng init done\n6ed4\n",
     "[    4.910657] random: crng init done\nTESTINIT: TOKEN=ab boot_id=39756ed4\n"),
    ("two, and the lines after stay",
     "x[    1.000001] one\ny[    1.000002] two\nz\n[    2.000000] k\n",
     "[    1.000001] one\n[    1.000002] two\nxyz\n[    2.000000] k\n"),
    ("inside the last, unfinished line",
     "ab[    1.000000] x\n", "[    1.000000] x\nab"),
    ("kernel lines at the start of a line are left alone",
     "[    1.000000] x\n[12345.000000] y\n", "[    1.000000] x\n[12345.000000] y\n"),
    ("the init's rd.debug times are not the kernel's",
     "[    1.7] uniramfs: [0.013624] uniramfs 0.1.0 starting\n",
     "[    1.7] uniramfs: [0.013624] uniramfs 0.1.0 starting\n"),
]


# host_too_slow: the panic as a busy host's TCG boot printed it (the rt
# kernel, a CI run with other QEMU guests beside it), and a boot that only
# mentions the IO-APIC.
SLOW_CASES = [
    ("the timer check's panic is the host's, not the test's",
     "[    0.016000] ..MP-BIOS bug: 8254 timer not connected to IO-APIC\n"
     "[    0.036000] Kernel panic - not syncing: IO-APIC + timer doesn't work!  Boot with "
     "apic=debug and send a report.  Then try booting with the 'noapic' option.\n", True),
    ("a boot that went on is not",
     "[    0.000000] IOAPIC[0]: apic_id 0, version 32\nTESTINIT: pid=1\n", False),
]


def main():
    print("1..%d" % (len(CASES) + len(SLOW_CASES)))
    bad = 0
    for i, (name, text, want) in enumerate(CASES, 1):
        got = untangle(text)
        print("%s %d - %s" % ("ok" if got == want else "not ok", i, name))
        if got != want:
            bad += 1
            print("#   got  %r\n#   want %r" % (got, want))
    for i, (name, text, want) in enumerate(SLOW_CASES, len(CASES) + 1):
        ok = host_too_slow(text) == want
        print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
