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
question another prompt answered (withdrawn from the splash by
remote/plymouth.c with a Ctrl+C into plymouthd's VT; before it was, the
keys went to the question gone).  After switch_root the root's init
shows the pid file plymouthd was started with: it was kept for the root.

plymouth-serial-fail: the same splash, the passphrase answered wrong
three times on the serial line while plymouth asks too (the first answer
wins: each time the serial one; the splash's question is withdrawn and
asked again), then the failure path: `plymouth quit` before the report,
and a screendump then shows the text console again: at most 5% of it
the theme's blue.

plymouth-many (the issue's "ten unlocks in a row through sendkey, none
lost"): one disk of eleven LUKS2 partitions (builder/luks2-many.sh), a
passphrase and a UUID each, all named with rd.luks.uuid=, the root in
the last; `console=tty1 console=ttyS0`, so the init would read tty1 too
were plymouthd not up.  Each question is answered once the serial line
shows its prompt and a screendump shows the splash asking it in words
of its own: the light pixels of the rows under the entry field (where
spinfinity writes the prompt) differ from the previous question's, and
no two questions show the same; that is what the check can see, not
what the words say (the PNGs show them).  The first is answered on the
serial line, so the splash's dialog for it must be withdrawn for the
second to show its own words (before remote/plymouth.c withdrew it, the
second question showed the first one's); the other ten are typed with
`sendkey`, each a different passphrase, so a key lost or read by the
init shows as a wrong passphrase.  The root's init shows each mapping's
dm UUID (testinit.show=/sys/block/dm-N/dm/uuid): all eleven open, each
under its own LUKS UUID.  The init tries every passphrase typed earlier
on each further volume before it asks (docs/unlock.md, "One passphrase,
several volumes"): 55 cryptsetup runs in all, which with the typing
make this boot the longest of the three (timeout_scale); their time
counts against rd.timeout (the time at a prompt does not), so the boot
has rd.timeout=300: a loaded host ran past the default 30 (and its
3 x 30 more while devices appear) in the last unlock.

`plymouth.nolog` (plymouthd's own word) keeps plymouthd from taking
/dev/console's output into its boot log: testinit, standing in for the
root's systemd and its plymouth-quit, writes its marker there, and the
serial line must show it.
"""

import os
import re
import struct
import time
import zlib

import builder
import scenarios_stack

THEME = "spinfinity"

# plymouth-many: eleven LUKS2 volumes on one disk, a passphrase each, the
# root in the last
MANY = 11
MANY_UUIDS = tuple("5f0c1a4e-1b2d-4c3e-9f10-0000000003%02x" % n for n in range(1, MANY + 1))
MANY_PASSES = ("amber-fox-1", "bison-lake-22", "cedar-moth-3", "delta-reef-44", "ember-owl-5",
               "fjord-yak-66", "glade-wren-7", "heron-zinc-88", "iris-quay-9", "jade-vole-10",
               "kelp-wasp-11")
LUKS2_MANY = builder.Layout("luks2-many", "luks2-many", "ext4",
                            "5f0c1a4e-1b2d-4c3e-9f10-000000000300", "manyroot",
                            params=(("UUIDS", " ".join(MANY_UUIDS)),
                                    ("PASSES", " ".join(MANY_PASSES)),
                                    ("ROOT_PART", str(MANY))))
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


SAMPLE = 5   # shares() looks at every 5th pixel: a share, at a fifth of the cost


def shares(rgb):
    """(share of pixels in spinfinity's blue, share of light ones)."""
    blue = light = n = 0
    for i in range(0, len(rgb) - 2, 3 * SAMPLE):
        r, g, b = rgb[i], rgb[i + 1], rgb[i + 2]
        n += 1
        if r < 0x20 and b >= 0x60 and b > g:
            blue += 1
        elif r >= 0xd0 and g >= 0xd0 and b >= 0xd0:
            light += 1
    return (blue / n, light / n) if n else (0.0, 0.0)


TEXT_BLUE_MAX = 0.05  # the text console: at most this much blue


def _monitor(c):
    """The boot's QEMU monitor (its socket), connected once."""
    import socket
    if c.monitor is None:
        m = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        m.connect(c.monitor_path)
        c.monitor = m
    return c.monitor


def shoot(c, name, judge):
    """Screendumps through console c's monitor, one a second, until
    judge(w, h, rgb) says nothing is wrong (None) or SHOT_TRIES were
    taken; the last is kept as LOG-NAME.png beside the log.  What judge
    said of the last one (None: it passed)."""
    base = os.path.splitext(c.log)[0] + "-" + name
    ppm, png = base + ".ppm", base + ".png"
    problem = "screendump wrote no whole PPM at " + ppm
    for _ in range(SHOT_TRIES):
        if os.path.exists(ppm):
            os.unlink(ppm)
        _monitor(c).sendall(("screendump %s\n" % ppm).encode())
        pix = None
        for _ in range(50):     # the file is whole once its pixels are all there
            time.sleep(0.1)
            try:
                pix = ppm_read(ppm)
                break
            except (OSError, ValueError, IndexError):
                continue
        if pix is None:
            continue
        png_write(png, *pix)
        problem = judge(*pix)
        if problem is None:
            return None
        time.sleep(1)
    return "%s (%s)" % (problem, png)


def splash_asking(w, h, rgb):
    """None if the screen is the splash with its password dialog."""
    share, light = shares(rgb)
    if share >= BLUE_SHARE and light >= LIGHT_SHARE:
        return None
    return ("the screen is not the splash asking: %.1f%% of it is the theme's blue "
            "(at least %.0f%% expected), %.1f%% the dialog's white (at least %.1f%%)"
            % (share * 100, BLUE_SHARE * 100, light * 100, LIGHT_SHARE * 100))


def text_console(w, h, rgb):
    """None if the splash is gone: the text console."""
    share = shares(rgb)[0]
    if share <= TEXT_BLUE_MAX:
        return None
    return ("the splash is still on the screen after the failure: %.1f%% of it "
            "is the theme's blue (at most %.0f%%)" % (share * 100, TEXT_BLUE_MAX * 100))


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
        self.problem = shoot(self.console, self.name,
                             splash_asking if self.splash else text_console)

    def missed(self):
        return self.problem


ENTRY_RUN = 150   # the dialog's entry field: a row with this many light pixels on end
WORDS_ROWS = 60   # its prompt's words: in these rows under the entry field
WORDS_MIN = 100   # light pixels there, at least


def light_mask(rgb):
    """One byte a pixel: 1 where each of R, G, B is at least 0xd0."""
    table = bytes(v >= 0xd0 for v in range(256))
    r, g, b = (int.from_bytes(rgb[i::3].translate(table), "big") for i in range(3))
    return (r & g & b).to_bytes(len(rgb) // 3, "big")


def dialog_words(w, h, rgb):
    """The light pixels of the WORDS_ROWS rows under the password
    dialog's entry field (its lowest row with ENTRY_RUN light pixels on
    end), where spinfinity writes the question's words; None without an
    entry field."""
    mask = light_mask(rgb)
    run = b"\1" * ENTRY_RUN
    bottom = None
    for y in range(h):
        if run in mask[y * w:(y + 1) * w]:
            bottom = y
    if bottom is None:
        return None
    return mask[(bottom + 1) * w:min(h, bottom + 1 + WORDS_ROWS) * w]


PROMPT_ANY = r"Passphrase for (/dev/vda\d+) \(([0-9a-f-]+)\): "


class Questions:
    """The interact action for a boot's passphrase questions in a row,
    called once for each as its prompt shows on the serial line: a
    screendump until the splash asks it with words of its own (under the
    entry field, not the previous question's), kept as LOG-qNN.png; then
    the passphrase of the LUKS UUID the prompt names, the first on the
    serial line (the splash's question is then withdrawn), every other
    one pressed on the keyboard with sendkey, into plymouthd.  The
    screendump sees that the words changed from one question to the next
    and that no two questions showed the same words, not what they say.
    missed() says what was wrong."""

    def __init__(self, passes, keys, count):
        self.passes, self.keys, self.count = passes, keys, count
        self.console, self.problem, self.words = None, None, []

    def attach(self, console):
        if console is not self.console:   # a boot (again): its questions from the first
            self.console, self.problem, self.words = console, None, []

    def __call__(self):
        c = self.console
        with c.lock:
            dev, uuid = list(re.compile(PROMPT_ANY).finditer(c.buf, 0, c.pos))[-1].groups()
        k = len(self.words) + 1
        prev = self.words[-1] if self.words else (None, None)
        seen = {}

        def judge(w, h, rgb):
            problem = splash_asking(w, h, rgb)
            if problem:
                return problem
            words = dialog_words(w, h, rgb)
            if words is None or words.count(1) < WORDS_MIN:
                return "the dialog shows no words under its entry field"
            if words == prev[1]:
                return "the dialog shows the previous question's words (%s's)" % prev[0]
            seen["words"] = words
            return None
        problem = shoot(c, "q%02d" % k, judge)
        if problem and not self.problem:
            self.problem = "question %d, for %s: %s" % (k, dev, problem)
            # said now: a boot that then runs out of time is reported
            # by the step it did not reach
            print("  %s: %s" % (os.path.basename(c.log), self.problem), flush=True)
        self.words.append((dev, seen.get("words")))
        pw = self.passes.get(uuid, "no-such-volume")
        # answered whatever the screen showed: a boot that goes on ends
        # sooner, and missed() reports
        if k == 1:
            c.sock.sendall((pw + "\n").encode())
        else:
            c._press(self.keys(keys_for(pw)))

    def missed(self):
        if self.problem:
            return self.problem
        if len(self.words) != self.count:
            return "%d questions asked, %d expected" % (len(self.words), self.count)
        for i, (dev, words) in enumerate(self.words):
            for dev2, words2 in self.words[:i]:
                if words == words2:
                    return "the splash asked for %s and %s in the same words" % (dev2, dev)
        return None


def keys_for(text):
    """QEMU sendkey names typing text on a US keyboard, then Enter."""
    names = {"-": "minus", " ": "spc"}
    return tuple(names.get(ch, ch) for ch in text) + ("ret",)


def scenarios(Scenario, Keys):
    luks = scenarios_stack.LUKS2
    many = Questions(dict(zip(MANY_UUIDS, MANY_PASSES)), Keys, MANY)
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
        Scenario("plymouth-many", "splash: eleven LUKS2 volumes, a passphrase each: the first "
                 "answered on the serial line (its question withdrawn from the splash), ten "
                 "typed one after another as key presses into plymouthd, each once the splash "
                 "asks it in words of its own (screendumps); the init reads tty1 too "
                 "(console=tty1) but not while plymouthd does: no key lost",
                 LUKS2_MANY, "UUID=" + LUKS2_MANY.uuid, ours_only=True,
                 # rd.timeout: the time between the prompts (55 cryptsetup
                 # runs) counts against it, and a loaded host is slow
                 cmdline=" ".join(["splash plymouth.nolog console=tty1 console=ttyS0 "
                                   "rd.timeout=300"]
                                  + ["rd.luks.uuid=" + u for u in MANY_UUIDS]
                                  + ["testinit.show=/sys/block/dm-%d/dm/uuid" % i
                                     for i in range(MANY)]),
                 build=("--plymouth", "--plymouth-theme", THEME),
                 interact=tuple((PROMPT_ANY, many) for _ in range(MANY)),
                 argv="/sbin/init splash",
                 # each volume open, under its own UUID (the mapping's dm UUID)
                 expect=tuple(r"show /sys/block/dm-\d+/dm/uuid: CRYPT-LUKS2-%s-luks-%s$"
                              % (u.replace("-", ""), u) for u in MANY_UUIDS),
                 log_expect=("uniramfs: splash: plymouthd started, on /dev/dri/card0",)
                 + tuple("uniramfs: unlocked /dev/vda%d as /dev/mapper/luks-%s" % (i, u)
                         for i, u in enumerate(MANY_UUIDS, 1)),
                 log_absent=("wrong passphrase", "splash: cannot withdraw",
                             "ended without an answer"),
                 timeout_scale=3),
    ]
