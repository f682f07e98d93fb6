# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for the console a passphrase is typed on (issue 14).

The passphrase is pressed on the guest's keyboard through QEMU's monitor
(run.Keys), not written to the serial line, so it reaches the init through
the virtual console and its keymap, as a person's typing does.  The keys
are named by their US labels; on a German keyboard (de-latin1) the same
keys type another text, which is the LUKS passphrase:

    keys   shift-z  y  slash  semicolon  shift-7  a  b
    de     Y        z  -      ö          /        a  b    (the passphrase)
    us     Z        y  /      ;          &        a  b

console=tty1 before console=ttyS0 makes the VT a console too (the prompt
asks on every console) while /dev/console, where the root's init writes
its marker, stays the serial line.
"""

import builder
import scenarios_stack

LUKS_DE_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000001ca"
PASS_DE = "Yz-\u00f6/ab"
KEYS = ("shift-z", "y", "slash", "semicolon", "shift-7", "a", "b", "ret")
KEYMAP = "de-latin1"
FONT = "lat2-16"        # console-data's Latin-2 font
FONT_MAP = "iso02"      # its iso02.acm.gz console map and iso02.sfm.gz Unicode map

LUKS_DE = builder.Layout("luks2-de", "luks2", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-0000000001a0",
                         "luks2deroot", params=(("LUKS_UUID", LUKS_DE_UUID), ("PASS", PASS_DE)))
CONSOLES = "console=tty1 console=ttyS0"


def scenarios(Scenario, Keys):
    u = "UUID=" + LUKS_DE.uuid
    prompt_de = r"Passphrase for /dev/vda \(%s, keymap %s\): " % (LUKS_DE_UUID, KEYMAP)
    prompt_us = scenarios_stack.prompt("/dev/vda", LUKS_DE_UUID)
    return [
        Scenario("keymap-de", "a LUKS passphrase typed on a German keyboard (key presses, "
                 "not serial bytes) unlocks with the image built for de-latin1",
                 LUKS_DE, u, ours_only=True, cmdline=CONSOLES,
                 build=("--cmdline", "vconsole.keymap=" + KEYMAP),
                 interact=((prompt_de, Keys(KEYS)),),
                 log_expect=("uniramfs: console: keymap %s, font the kernel's" % KEYMAP,
                             "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS_DE_UUID)),
        Scenario("console-font-maps", "the same with a font, FONT_MAP and FONT_UNIMAP "
                 "(vconsole.font.map=, .unimap=): the packed setfont loads the maps, the "
                 "keys still unlock",
                 LUKS_DE, u, ours_only=True, cmdline=CONSOLES,
                 build=("--cmdline", "vconsole.keymap=%s vconsole.font=%s vconsole.font.map=%s "
                        "vconsole.font.unimap=%s" % (KEYMAP, FONT, FONT_MAP, FONT_MAP)),
                 interact=((prompt_de, Keys(KEYS)),),
                 log_expect=("uniramfs: console: keymap %s, font %s" % (KEYMAP, FONT),
                             "uniramfs: console: font map %s, unimap %s" % (FONT_MAP, FONT_MAP),
                             "uniramfs: unlocked /dev/vda as /dev/mapper/luks-" + LUKS_DE_UUID)),
        Scenario("keymap-missing", "the same keys on an image without the keymap (the kernel's "
                 "US layout) type another passphrase: the usual message",
                 LUKS_DE, u, ours_only=True, cmdline=CONSOLES + " rd.shell=0",
                 interact=((prompt_us, Keys(KEYS)),) * 3,
                 fail_msgs=("uniramfs: wrong passphrase for /dev/vda",
                            "uniramfs: giving up on /dev/vda after 3 wrong passphrases",
                            "uniramfs: not starting a shell: rd.shell=0")),
    ]
