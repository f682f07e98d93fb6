# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for the Plymouth splash (issue 29; docs/cmdline.md,
"Plymouth").

The LUKS2 root of scenarios_stack.py, `splash` on the command line, an
image built with --plymouth and the spinfinity theme (plymouth-themes),
QEMU's std VGA (bochs-drm in the guest) and its monitor.  While the
passphrase is asked (the prompt on the serial line, which stays the
init's), the monitor's `screendump` takes the screen (PPM, saved as PNG
beside the boot's log) and the check is that the splash shows, not the
text console: spinfinity fills the screen with its blue gradient
(0x0073b3 to 0x00457e), so at least half of the pixels must be that blue
(red below 0x20, blue at least 0x60 and above green); the kernel's text
console (fbcon or VGA text) is black and grey and has none.  And the
question must be on it: spinfinity's password dialog has a white entry
field (entry.png, 200x30: 0.6% of a 1280x800 screen) and the prompt's
words below it in white, where the splash alone has nothing light, so at
least 0.5% of the pixels must be light (each of R, G, B at least 0xd0).
The serial line then answers first, wrong: its answer wins over the
splash's, the splash shows `wrong passphrase` and the question again (a
second screendump, the same check).  The right passphrase is pressed on
the keyboard with `sendkey`, one key per character: with the splash up
plymouthd reads the VT's keyboard and the init does not, so the unlock
proves the answer came through `plymouth ask-for-password`, after a
question another prompt answered (whose dialog plymouth cannot withdraw:
remote/plymouth.c keeps its client for the next question; before it did,
the keys went to the question gone, one boot in two).  After switch_root the root's init shows the pid file
plymouthd was started with: it was kept for the root.

plymouth-serial-fail: the same splash, the passphrase answered wrong
three times on the serial line while plymouth asks too (the first answer
wins: each time the serial one; the splash's question stays up), then
the failure path: `plymouth quit` before the report, and a screendump
then shows the text console again: at most 5% of it the theme's blue.

`plymouth.nolog` (plymouthd's own word) keeps plymouthd from taking
/dev/console's output into its boot log: testinit, standing in for the
root's systemd and its plymouth-quit, writes its marker there, and the
serial line must show it.
"""

import os
import struct
import time
import zlib

import scenarios_stack

THEME = "spinfinity"
BLUE_SHARE = 0.5      # of the screen's pixels, at least
LIGHT_SHARE = 0.005   # the password dialog's white, at least
SHOT_TRIES = 20       # screendumps, one a second, until the splash has drawn


def ppm_read(path):
    """(width, height, RGB bytes) of a binary PPM (P6, maxval 255)."""
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P6" or fields[3] != b"255":
        raise ValueError("%s: not a P6 PPM of maxval 255" % path)
    w, h = int(fields[1]), int(fields[2])
    pixels = data[pos + 1:pos + 1 + w * h * 3]
    if len(pixels) != w * h * 3:
        raise ValueError("%s: %d bytes of pixels, expected %d" % (path, len(pixels), w * h * 3))
    return w, h, pixels


def png_write(path, w, h, rgb):
    """An RGB PNG of the pixels, with nothing but zlib."""
    def chunk(kind, body):
        c = kind + body
        return struct.pack(">I", len(body)) + c + struct.pack(">I", zlib.crc32(c) & 0xffffffff)
    rows = b"".join(b"\0" + rgb[y * w * 3:(y + 1) * w * 3] for y in range(h))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))


def shares(rgb):
    """(share of pixels in spinfinity's blue, share of light ones)."""
    n = len(rgb) // 3
    blue = light = 0
    for i in range(0, n * 3, 3):
        r, g, b = rgb[i], rgb[i + 1], rgb[i + 2]
        if r < 0x20 and b >= 0x60 and b > g:
            blue += 1
        elif r >= 0xd0 and g >= 0xd0 and b >= 0xd0:
            light += 1
    return (blue / n, light / n) if n else (0.0, 0.0)


TEXT_BLUE_MAX = 0.05  # the text console: at most this much blue


class Screenshot:
    """An interact action: screendumps through the monitor until the
    splash's blue holds at least BLUE_SHARE of the screen and its dialog
    LIGHT_SHARE (splash=False: until at most TEXT_BLUE_MAX is blue, the
    text console), the last one kept as LOG-NAME.png beside the log;
    missed() says what was wrong."""

    def __init__(self, name, splash=True):
        self.name, self.splash = name, splash
        self.console, self.problem = None, "no screendump was taken"

    def attach(self, console):
        self.console = console

    def __call__(self):
        import socket
        c = self.console
        base = os.path.splitext(c.log)[0] + "-" + self.name
        ppm, png = base + ".ppm", base + ".png"
        if c.monitor is None:
            m = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            m.connect(c.monitor_path)
            c.monitor = m
        share = light = 0.0
        for _ in range(SHOT_TRIES):
            if os.path.exists(ppm):
                os.unlink(ppm)
            c.monitor.sendall(("screendump %s\n" % ppm).encode())
            pix = None
            for _ in range(50):     # the file is whole once its pixels are all there
                time.sleep(0.1)
                try:
                    pix = ppm_read(ppm)
                    break
                except (OSError, ValueError, IndexError):
                    continue
            if pix is None:
                self.problem = "screendump wrote no whole PPM at " + ppm
                continue
            w, h, rgb = pix
            png_write(png, w, h, rgb)
            share, light = shares(rgb)
            if (share >= BLUE_SHARE and light >= LIGHT_SHARE if self.splash
                    else share <= TEXT_BLUE_MAX):
                self.problem = None
                return
            time.sleep(1)
        if not self.splash:
            self.problem = ("the splash is still on the screen after the failure: %.1f%% of it "
                            "is the theme's blue (at most %.0f%%) (%s)"
                            % (share * 100, TEXT_BLUE_MAX * 100, png))
            return
        self.problem = ("the screen is not the splash asking: %.1f%% of it is the theme's blue "
                        "(at least %.0f%% expected), %.1f%% the dialog's white (at least %.1f%%) "
                        "(%s)" % (share * 100, BLUE_SHARE * 100, light * 100, LIGHT_SHARE * 100,
                                  png))

    def missed(self):
        return self.problem


def keys_for(text):
    """QEMU sendkey names typing text on a US keyboard, then Enter."""
    names = {"-": "minus", " ": "spc"}
    return tuple(names.get(ch, ch) for ch in text) + ("ret",)


def scenarios(Scenario, Keys):
    luks = scenarios_stack.LUKS2
    prompt = scenarios_stack.prompt("/dev/vda", scenarios_stack.LUKS2_UUID)
    return [
        Scenario("plymouth-luks", "splash: the LUKS2 passphrase asked with the splash on the "
                 "screen (screendump: its blue, not the text console), typed as key presses "
                 "into plymouthd; plymouthd kept for the root",
                 luks, "UUID=" + luks.uuid, ours_only=True,
                 cmdline="splash plymouth.nolog testinit.show=/run/plymouth/pid",
                 build=("--plymouth", "--plymouth-theme", THEME),
                 interact=((prompt, Screenshot("prompt")),
                           # the serial line answers first (wrong): the splash's
                           # question is withdrawn, and it asks again
                           ("", "not-the-passphrase\n"),
                           (r"uniramfs: wrong passphrase for /dev/vda\n[\s\S]*" + prompt,
                            Screenshot("again")),
                           ("", Keys(keys_for(scenarios_stack.PASS)))),
                 argv="/sbin/init splash",   # the kernel passes the bare word on
                 expect=(r"show /run/plymouth/pid: \d+",),
                 log_expect=("uniramfs: splash: plymouthd started, on /dev/dri/card0",
                             "uniramfs: wrong passphrase for /dev/vda",
                             "uniramfs: unlocked /dev/vda as /dev/mapper/luks-"
                             + scenarios_stack.LUKS2_UUID,
                             "uniramfs: splash: plymouthd stays for the root")),
        Scenario("plymouth-serial-fail", "splash: three wrong passphrases typed on the serial "
                 "line win over the splash's question; the failure quits the splash before "
                 "its report (screendump: the text console again)",
                 luks, "UUID=" + luks.uuid, ours_only=True,
                 cmdline="splash plymouth.nolog rd.shell=0 panic=0",  # stays for the screendump
                 build=("--plymouth", "--plymouth-theme", THEME),
                 interact=((prompt, "wrong-1\n"),
                           (r"uniramfs: wrong passphrase for /dev/vda\n[\s\S]*" + prompt,
                            "wrong-2\n"),
                           (r"uniramfs: wrong passphrase for /dev/vda\n[\s\S]*" + prompt,
                            "wrong-3\n"),
                           ("uniramfs: splash: quit, for the report on the console",
                            Screenshot("failed", splash=False))),
                 fail_msgs=("uniramfs: splash: plymouthd started, on /dev/dri/card0",
                            "uniramfs: wrong passphrase for /dev/vda",
                            "uniramfs: giving up on /dev/vda after 3 wrong passphrases",
                            "uniramfs: splash: quit, for the report on the console",
                            "uniramfs: not starting a shell: rd.shell=0")),
    ]
