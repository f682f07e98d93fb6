#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Time to the first question: a LUKS root's passphrase asked on the
console, and by the Plymouth splash, uniramfs generic against dracut,
on QEMU's instruction clock, in one run (issue 31).

  bench/question.py [--builddir DIR] [--boots N] [--only KEY,...] [--list]
                    [--out DIR] [--workdir DIR] [--no-install]

Every row boots the boot tests' luks2 layout (tests/boot/scenarios_stack:
LUKS2 on /dev/vda, ext4 in it) under `-icount shift=0` (the guest's clock
counts its own instructions, 1 ns each, whatever the host's load), as a
boot test scenario (tests/boot/run.py's Runner, judged as the boot tests
judge it: the root's init ran after switch_root).

The time to the question is the guest's clock when the question shows,
minus the kernel's `Run /init as init process` timestamp.  The guest's
clock is read by the kernel itself: the harness sends SysRq+H on the
serial console as a terminal does, a break (the QEMU monitor's
chardev-send-break) and then "h" (`sysrq_always_enabled` on the command
line), and the kernel's "sysrq: HELP" line carries its printk time.  No
key reaches the keyboard, where plymouthd reads the passphrase.

- console: the harness watches the serial text every 2 ms;
  as soon as the prompt is there it presses SysRq+H.  The question
  showed at or before that line's time (the upper bound, the row's
  number) and at or after the timestamp of the last kernel line printed
  before the prompt (the lower bound).  Between the two: the harness's
  reaction (a few ms of host time, which the guest's clock follows while
  it waits idle at the prompt) and whatever the guest did, unlogged,
  after its last kernel line.
- splash (`splash` on the command line, plymouthd and the spinfinity
  theme in both images): from `Run /init` on, the harness presses SysRq+H
  and takes a screendump, again and again, until the screen is the
  splash asking (scenarios_plymouth's check: the theme's blue and its
  password dialog's white).  The question showed between the SysRq
  times of the last screendump without it (lower bound) and the first
  with it (upper bound, the row's number).

The passphrase is then answered: on the serial line at the console
prompt, as key presses into plymouthd for the splash.  Init time (Run
/init to the root's init, answer included) is shown too.  dracut's
images: `dracut --no-hostonly --add crypt --omit plymouth` (console: dracut
adds plymouth when the host has it, and its plymouthd would keep the
root's console) and `--add "crypt plymouth"` with the theme chosen through plymouth-populate-initrd's
PLYMOUTH_THEME_NAME and `plymouth.splash=` (splash), booted with
`rd.luks.uuid=`, and for the splash `plymouth.ignore-serial-consoles`
(without it plymouthd shows its details on the serial console, not the
splash; uniramfs's init passes it to plymouthd itself).

Writes OUT/question.md and OUT/question.json.
"""

import contextlib
import dataclasses
import datetime
import itertools
import os
import re
import shlex
import statistics
import sys
import time

sys.dont_write_bytecode = True     # no __pycache__ in bench/ or tests/boot/
import common  # noqa: E402  bench/common.py; it puts tests/boot on sys.path
from common import boottest, log, HERE, image_stats  # noqa: E402
import scenarios_plymouth  # noqa: E402
import scenarios_stack  # noqa: E402

VERSIONS = ("dracut-core", "systemd", "cryptsetup-bin", "plymouth", "plymouth-themes",
            "qemu-system-x86")
LAYOUT = scenarios_stack.LUKS2
LUKS_UUID = scenarios_stack.LUKS2_UUID
THEME = scenarios_plymouth.THEME
ICOUNT = ["-icount", "shift=0"]
STAMP_RE = re.compile(r"^\[\s*(\d+\.\d+)\]", re.M)
SYSRQ_RE = re.compile(r"\[\s*(\d+\.\d+)\] sysrq: ")
RUN_INIT = r"Run /init as init process"
OURS_PROMPT = scenarios_stack.prompt("/dev/vda", LUKS_UUID)
DRACUT_PROMPT = r"Please enter passphrase for disk [^\n]*: ?"
POLL = 0.002          # seconds between looks at the serial text
WAIT = 300            # seconds, at most, for the console prompt or the splash's question


MARK = itertools.count(0x51500000)   # numbers the monitor prints back


def sysrq(c):
    """SysRq+H on console c's serial line, as a terminal sends it: a
    break (the QEMU monitor's chardev-send-break on the serial port's
    chardev), then "h" on the line, which the kernel takes as the SysRq
    key and prints a timestamped "sysrq: HELP" line.  Not the keyboard:
    Alt+SysRq presses reach plymouthd's passphrase entry (issue 31: 2 of
    4 splash boots refused the passphrase typed after them).  The "h"
    is sent once the monitor has answered a `print` given after the
    break: it runs its commands in order, so the break is in the UART,
    and an "h" before it would be a typed letter."""
    m = scenarios_plymouth._monitor(c)
    n = next(MARK)
    m.sendall(b"chardev-send-break ser0\nprint %d\n" % n)
    answer, seen = re.compile(rb"\n0x%x\r?\n" % n), b""
    m.settimeout(WAIT)
    while not answer.search(seen):
        data = m.recv(4096)
        if not data:
            raise OSError("the QEMU monitor closed")
        seen = seen[-256:] + data
    c.sock.sendall(b"h")


class ConsolePrompt:
    """An interact action on `Run /init`: it watches the serial text
    (which run.py's Console copies as it comes) and presses SysRq+H as
    soon as the prompt (regex) is there, then returns; the next interact
    step types the answer."""

    def __init__(self, prompt):
        self.prompt, self.console, self.problem, self.lag = prompt, None, None, None

    def attach(self, console):
        self.console, self.problem, self.lag = console, "the prompt never showed", None

    def __call__(self):
        c, rx = self.console, re.compile(self.prompt)
        t0 = time.monotonic()
        while time.monotonic() - t0 < WAIT:
            with c.lock:
                seen = rx.search(c.buf) is not None
            if seen:
                t = time.monotonic()
                sysrq(c)
                self.lag = time.monotonic() - t
                self.problem = None
                return
            time.sleep(POLL)

    def missed(self):
        return self.problem


class SplashQuestion:
    """An interact action on `Run /init`: SysRq+H and a screendump, again
    and again, until the screen is the splash asking; then the
    passphrase pressed on the keyboard.  trace: each screendump's share
    of the theme's blue and of light pixels."""

    def __init__(self, keys, stop_after=None):
        self.keys, self.console, self.problem, self.trace = keys, None, None, []
        self.stop_after = stop_after

    def attach(self, console):
        self.console, self.problem, self.trace = console, "the splash never asked", []

    def __call__(self):
        c = self.console
        ppm = os.path.splitext(c.log)[0] + "-shot.ppm"
        last, t0 = None, time.monotonic()
        while time.monotonic() - t0 < WAIT:
            sysrq(c)
            if os.path.exists(ppm):
                os.unlink(ppm)
            scenarios_plymouth._monitor(c).sendall(("screendump %s\n" % ppm).encode())
            pix = None
            for _ in range(100):   # whole once its pixels are all there
                time.sleep(0.02)
                try:
                    pix = scenarios_plymouth.ppm_read(ppm)
                    break
                except (OSError, ValueError, IndexError):
                    continue
            shares = scenarios_plymouth.shares(pix[2]) if pix else (None, None)
            self.trace.append([round(x, 4) if x is not None else None for x in shares])
            if pix is not None and scenarios_plymouth.splash_asking(*pix) is None:
                scenarios_plymouth.png_write(os.path.splitext(ppm)[0] + ".png", *pix)
                if last:
                    scenarios_plymouth.png_write(os.path.splitext(ppm)[0] + "-before.png",
                                                 *last)
                self.problem = None
                c._press(self.keys)
                if self.stop_after:
                    self.stop()
                return
            last = pix or last

    def stop(self):
        """Once the serial text shows stop_after (or after WAIT s):
        QEMU's monitor quits the guest, which would not end by itself."""
        c, rx, t0 = self.console, re.compile(self.stop_after), time.monotonic()
        while time.monotonic() - t0 < WAIT:
            with c.lock:
                if rx.search(c.buf):
                    break
            time.sleep(0.1)
        time.sleep(2)
        scenarios_plymouth._monitor(c).sendall(b"quit\n")

    def missed(self):
        return self.problem


@dataclasses.dataclass
class Row:
    key: str
    generator: str        # "uniramfs" or "dracut"
    where: str            # "console" or "splash"
    build: tuple = ()     # uniramfs build arguments, or dracut's
    cmdline: str = ""
    prompt: str = ""
    # the splash rows: a boot that does not end by itself once the root's
    # init runs is stopped when the serial text shows this
    stop_after: str = None


class Clocked:
    """The layout's disk, booted with -icount shift=0 (run.py's Runner
    takes a disk's attach(paths) as the boot's extra QEMU arguments)."""

    def __init__(self, layout):
        self.layout, self.name, self.fs = layout, layout.name, layout.fs

    def build(self, testinit, work, env):
        return self.layout.build(testinit, work, env)

    def attach(self, paths):
        return contextlib.nullcontext(list(ICOUNT))


def rows():
    dluks = "rd.luks.uuid=" + LUKS_UUID
    splash = "splash plymouth.nolog"
    return [
        Row("uniramfs-console", "uniramfs", "console", (), "", OURS_PROMPT),
        # plymouth out: dracut adds it when the host has it, and its
        # plymouthd would keep the root's console (testinit's report)
        Row("dracut-console", "dracut", "console", ("--add", "crypt", "--omit", "plymouth"),
            dluks, DRACUT_PROMPT),
        Row("uniramfs-splash", "uniramfs", "splash", ("--plymouth", "--plymouth-theme", THEME),
            splash),
        Row("dracut-splash", "dracut", "splash", ("--add", "crypt plymouth"),
            "%s %s plymouth.ignore-serial-consoles plymouth.splash=%s" % (dluks, splash, THEME),
            # after switch_root dracut's plymouthd keeps the console (no
            # plymouth-quit in the harness's root init): testinit's report
            # never reaches the serial line, and the guest does not end
            stop_after=r"Starting .*initrd-switch-root\.service"),
    ]


def scenario(row, i):
    keys = boottest.Keys(scenarios_plymouth.keys_for(scenarios_stack.PASS))
    if row.where == "console":
        act = ConsolePrompt(row.prompt)
        interact = ((RUN_INIT, act), (row.prompt, scenarios_stack.PASS + "\n"))
    else:
        act = SplashQuestion(keys, row.stop_after)
        interact = ((RUN_INIT, act),)
    sc = boottest.Scenario("question-%s-%d" % (row.key, i), "", Clocked(LAYOUT),
                           "UUID=" + LAYOUT.uuid,
                           cmdline=" ".join(w for w in (row.cmdline, "printk.time=1",
                                                         "sysrq_always_enabled") if w),
                           build=row.build if row.generator == "uniramfs" else (),
                           interact=interact,
                           argv="/sbin/init splash" if row.where == "splash" else "/sbin/init",
                           timeout_scale=3)
    return sc, act


def question_times(text, where):
    """(Run /init, lower, upper) guest seconds of the question, from the
    serial text as it came (not serialtext's, which moves the kernel
    lines printed after an unfinished prompt line before it); None where
    it is not there."""
    ri = common.RUN_INIT_RE.search(text)
    if not ri:
        return None
    run_init = float(ri.group(1))
    rq = list(SYSRQ_RE.finditer(text, ri.end()))
    if not rq:
        return None
    if where == "console":
        p = re.search(OURS_PROMPT + "|" + DRACUT_PROMPT, text[ri.end():])
        if not p:
            return None
        before = STAMP_RE.findall(text, ri.start(), ri.end() + p.start())
        lower = float(before[-1]) if before else run_init
        after = [m for m in rq if m.start() >= ri.end() + p.start()]
        if not after:
            return None
        return run_init, lower, float(after[0].group(1))
    # splash: the last SysRq line is that of the screendump that saw it
    upper = float(rq[-1].group(1))
    lower = float(rq[-2].group(1)) if len(rq) > 1 else run_init
    return run_init, lower, upper


def dracut_image(row, kver, work):
    img = os.path.join(work, "img", "dracut-%s.img" % row.where)
    cmd = ["dracut", "--no-hostonly"] + list(row.build) + ["--force", "--kver", kver, img]
    env = {"PLYMOUTH_THEME_NAME": THEME} if row.where == "splash" else None
    blog = os.path.join(work, "build-%s.log" % row.key)
    said = "$ %s%s\n" % ("".join("%s=%s " % kv for kv in (env or {}).items()),
                         " ".join(shlex.quote(a) for a in cmd))
    if os.path.exists(img) and os.path.exists(blog) and open(blog).readline() == said:
        # a run before this one built it (dracut's image is not ours: the
        # before and after runs boot the same one)
        log("  %s: %s as built before (%s)" % (row.key, img, blog))
        return img, {"command": said[2:].strip(), "build_log": blog}
    res, dt = common.build_once(cmd, img, blog, env)
    if env:
        res["command"] = "PLYMOUTH_THEME_NAME=%s %s" % (THEME, res["command"])
    res["build_seconds"] = round(dt, 2)
    return img, res


def boot_row(runner, row, initrd, n):
    out = []
    for i in range(n):
        sc, act = scenario(row, i)
        sc, err, dt, _, text = runner.scenario(sc, initrd=initrd)
        b = common.boot_record(text, dt, err, runner.log_path(sc))
        with open(runner.log_path(sc), errors="replace") as f:
            q = question_times(f.read().replace("\r", ""), row.where)
        if q:
            b["question"] = round(q[2] - q[0], 3)
            b["question_lower"] = round(q[1] - q[0], 3)
        if isinstance(act, ConsolePrompt) and act.lag is not None:
            b["sysrq_lag_ms"] = round(act.lag * 1000, 1)
        if isinstance(act, SplashQuestion):
            # each screendump's share of the theme's blue and of light pixels
            b["shots"] = act.trace
        if err is None and q is None:
            b["pass"], b["reason"] = False, "no SysRq time for the question"
        # the question was asked; the boot after it is judged apart
        # (dracut's splash row cannot pass: see rows())
        b["asked"] = q is not None
        out.append(b)
        log("  %-18s boot %d: %s%s%s" % (
            row.key, i + 1, "PASS" if b["pass"] else "FAIL (%s)" % b["reason"],
            "  question %.3f s (≥ %.3f)" % (b["question"], b["question_lower"]) if q else "",
            "  init %.2f s" % b["init"] if "init" in b else ""))
        if not b["asked"]:
            break
    return out


def med(r, k):
    v = [b[k] for b in r.get("boots", []) if b.get("asked") and k in b]
    return statistics.median(v) if v else None


def report(res, path):
    L = common.report_head("Time to the first question: a LUKS root's passphrase, uniramfs "
                           "and dracut", res) + [
        "Command: `%s`" % res["command"], "",
        "Every boot: the boot tests' `luks2` disk, QEMU TCG with `-icount shift=0` (the guest's "
        "instruction clock: the same whatever the host's load), `-smp 1`, %d boot(s) a row, one "
        "at a time. **Question**: the guest's clock when the question shows minus the kernel's "
        "`Run /init` timestamp; the clock is read by the kernel, as the printk time of a "
        "SysRq+H the harness sends on the serial console (a break through QEMU's monitor, "
        "then `h`; nothing on the keyboard, where plymouthd reads). Console: SysRq as soon as the serial "
        "text has the prompt (the harness looks every 2 ms); the number is an upper bound, the "
        "lower one is the last kernel line before the prompt. Splash: SysRq and a screendump, "
        "again and again, until the splash asks (spinfinity's blue and its dialog's white, as "
        "tests/boot/scenarios_plymouth.py checks); the number is that screendump's SysRq time, "
        "the lower bound the one before it. **Init**: to the root's init, the answer included "
        "(typed on the serial line at the console prompt, as key presses into plymouthd for the "
        "splash). Median (min–max). Made by `bench/question.py`." % res["boots"], "",
        "| question on | generator | image size | question (s) | lower bound (s) | ×uniramfs | "
        "init (s) | boot |",
        "| --- | --- | ---: | --- | --- | ---: | --- | --- |"]

    def span(r, k):
        v = [b[k] for b in r.get("boots", []) if (b["pass"] or k != "init" and b.get("asked"))
             and k in b]
        if not v:
            return "-"
        return "%.3f (%.3f–%.3f)" % (statistics.median(v), min(v), max(v))
    ours = {r["where"]: med(r, "question") for r in res["rows"] if r["generator"] == "uniramfs"}
    for r in res["rows"]:
        size, _, _, verdict = common.report_cells(r)
        m, u = med(r, "question"), ours.get(r["where"])
        ratio = "%.1f×" % (m / u) if r["generator"] != "uniramfs" and m and u else ""
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["where"], r["generator"], size, span(r, "question"), span(r, "question_lower"),
            ratio, span(r, "init"), verdict))
    L += ["", "Each row's image and what its kernel command line adds (besides `console=ttyS0 "
          "panic=-1 printk.time=1 sysrq_always_enabled root=UUID=…`):", ""]
    for r in res["rows"]:
        L.append("- **%s**: `%s`; `%s`" % (r["key"], r.get("command", "?"),
                                          r["cmdline"] or "(nothing)"))
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def main():
    ap = common.rows_parser(__doc__, 2)
    a = common.parse_args(ap, os.path.join(HERE, "work", "question"))
    if a.list:
        for r in rows():
            print("%-18s %-9s %s" % (r.key, r.generator, r.where))
        return 0
    boottest.BOOT_TIMEOUT = 240   # a TCG boot under icount, answer included
    builddir, uniramfs, kver, vmlinuz, work = common.setup(a)
    picked = common.pick(rows(), a.only, lambda r: r.key, "bench/question.py")
    started = datetime.datetime.now(datetime.timezone.utc)
    testinit = boottest.find_testinit(builddir, work)
    images = boottest.Images(uniramfs, kver, work)
    runner = boottest.Runner(kver, vmlinuz, builddir, work, testinit, images)
    results = []
    for r in picked:
        res = {"key": r.key, "generator": r.generator, "where": r.where,
               "cmdline": " ".join(w for w in scenario(r, 0)[0].cmdline.split()
                                   if w not in ("printk.time=1", "sysrq_always_enabled"))}
        initrd = None
        if r.generator == "dracut":
            initrd, built = dracut_image(r, kver, work)
            res.update({k: v for k, v in built.items() if k in ("command", "build_error")})
            if "build_error" in res:
                log("  %s: build FAILED: %s" % (r.key, res["build_error"]))
        else:
            res["command"] = " ".join(shlex.quote(x) for x in
                                      ["uniramfs", "build", "--generic"] + list(r.build))
        if "build_error" not in res:
            res["boots"] = boot_row(runner, r, initrd, a.boots)
            res["boot_pass"] = len(res["boots"]) == a.boots and all(
                b["pass"] for b in res["boots"])
            img = initrd or runner.last_image
            if img and os.path.exists(img):
                res.update(image_stats(img, uniramfs))
        results.append(res)
    res = common.results_head(started, kver, VERSIONS, boots=a.boots, rows=results)
    common.write_results(res, a.out, "question", report, "bench/question.py")
    return 0 if all(r.get("boot_pass") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
