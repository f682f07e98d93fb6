#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmark of roots over several devices (issue 26, "Bench"): a btrfs
RAID1 over two disks, and a btrfs RAID1 over three LUKS2 devices with
one passphrase, each booted with uniramfs --generic and dracut
--no-hostonly, side by side in the same run.

  bench/multidev.py [--builddir DIR] [--boots N] [--only KEY,...] [--list]
                    [--out DIR] [--workdir DIR] [--no-install]

The disks are made in the builder VM (tests/boot/builder.py: the boot
tests' btrfs-raid1 layout, and builder/btrfs-luks-multi.sh) and cached.  Every
boot runs under QEMU TCG with -icount shift=0 (the guest's clock counts
its own instructions, 10^9 a second), so the init time (the root's
/sbin/init's /proc/uptime minus the kernel's "Run /init" timestamp) does
not swing with the host's load; the TCG wall seconds of the whole boot
are kept beside it.  The passphrase is typed at each prompt as soon as
it shows: the table says how many prompts each generator asked.

Writes OUT/multidev.md and OUT/multidev.json.
"""

import dataclasses
import datetime
import os
import re
import sys

sys.dont_write_bytecode = True
import common  # noqa: E402  bench/common.py; it puts tests/boot on sys.path
from common import boottest, log, HERE, image_stats  # noqa: E402
import builder  # noqa: E402
import scenarios_btrfs  # noqa: E402
import scenarios_stack as st  # noqa: E402

VERSIONS = ("dracut-core", "cryptsetup-bin", "btrfs-progs", "qemu-system-x86")
ICOUNT = ["-icount", "shift=0"]
boottest.BOOT_TIMEOUT = 300   # dracut under icount, three prompts
LUKS3_UUIDS = scenarios_btrfs.LUKS3_UUIDS
LUKS3 = scenarios_btrfs.LUKS3   # the boot tests' disk: one cache between them
# either generator's prompt, each answered once
PROMPT = r"Passphrase for|Please enter passphrase|Enter passphrase"


@dataclasses.dataclass
class Case:
    key: str
    label: str
    layout: object
    cmdline: str            # both generators (dracut reads the rd.luks.uuid= words too)
    prompts: int = 0        # LUKS devices: the most prompts answered


CASES = [
    Case("btrfs-raid1", "btrfs RAID1 over two disks", scenarios_btrfs.RAID1,
         "root=UUID=" + scenarios_btrfs.RAID1.uuid),
    Case("btrfs-luks3", "btrfs RAID1 over three LUKS2 devices, one passphrase", LUKS3,
         "root=UUID=%s %s" % (LUKS3.uuid, " ".join("rd.luks.uuid=" + u for u in LUKS3_UUIDS)),
         prompts=3),
]


def generators(uniramfs, kver):
    return [
        ("uniramfs-generic", "uniramfs --generic",
         [uniramfs, "build", "-k", kver, "-o", "{out}", "--config", "/dev/null", "--generic"],
         True),
        ("dracut-generic", "dracut --no-hostonly",
         ["dracut", "--no-hostonly", "--force", "--kver", kver, "{out}"], False),
    ]


def boot(case, key, ours, img, vmlinuz, disks, work, i):
    sc = boottest.Scenario(case.key, case.label, case.layout, "")
    cmdline = " ".join((boottest.BASE_CMDLINE, "printk.time=1", case.cmdline))
    logf = os.path.join(work, "logs", "%s-%s-%d.log" % (case.key, key, i))
    interact = tuple((PROMPT, st.PASS + "\n") for _ in range(case.prompts))
    text, dt, timed_out, _missed = boottest.boot(vmlinuz, img, disks, "virtio", cmdline, logf,
                                                 interact=interact, extra=ICOUNT)
    # a generator that asks once leaves the other steps unanswered: not a failure
    err = boottest.check(sc, text, timed_out, ours=ours)
    b = common.boot_record(text, dt, err, logf)
    b["prompts"] = len(re.findall(PROMPT, text))
    b["wall"] = round(dt, 1)
    return b


def report(res, path):
    L = common.report_head("Roots over several devices: uniramfs and dracut side by side",
                           res) + [
        "Disks made in the builder VM; every boot QEMU TCG with `-icount shift=0`. Init "
        "time: guest uptime at the real init minus the kernel's `Run /init` timestamp "
        "(the guest's instruction clock), median (min–max) of %d boot(s); wall: the TCG "
        "seconds of the whole boot on this host; prompts: passphrase prompts the "
        "generator showed (each answered at once). Made by `bench/multidev.py`."
        % res["boots"], ""]
    for c in res["cases"]:
        L += ["### %s" % c["label"], "", "Kernel command line adds `%s`." % c["cmdline"], "",
              "| generator | image size | init time median (min–max) | ratio to uniramfs | "
              "wall s | prompts | boot |",
              "| --- | ---: | --- | ---: | ---: | ---: | --- |"]
        base = None
        for g in c["generators"]:
            size, _files, t, verdict = common.report_cells(g)
            inits = sorted(b["init"] for b in g.get("boots", []) if "init" in b)
            med = inits[len(inits) // 2] if inits else None
            if g["key"].startswith("uniramfs"):
                base = med
            ratio = "%.2f" % (med / base) if med and base else "–"
            walls = [b["wall"] for b in g.get("boots", [])]
            prompts = sorted({b["prompts"] for b in g.get("boots", [])})
            L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                g["label"], size, t, ratio, " ".join("%.0f" % w for w in walls) or "–",
                ",".join(str(p) for p in prompts) or "–", verdict))
        L.append("")
    L += ["Commands (KVER = %s):" % res["kernel"], ""]
    for key, label, cmd in res["commands"]:
        L.append("- **%s**: `%s`" % (label, " ".join(cmd)))
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def main():
    ap = common.rows_parser(__doc__, 1, "TCG boots per image and disk", "case keys")
    a = common.parse_args(ap, os.path.join(HERE, "work", "multidev"))
    builddir, uniramfs, kver, vmlinuz, work = common.setup(a)
    cases = CASES
    if a.list:
        for c in cases:
            print("%-14s %s: %s" % (c.key, c.label, c.cmdline))
        return 0
    cases = common.pick(cases, a.only, lambda c: c.key, "bench/multidev.py")
    started = datetime.datetime.now(datetime.timezone.utc)
    testinit = boottest.find_testinit(builddir, work)
    gens = generators(uniramfs, kver)
    images = {}
    for key, label, cmd, _ours in gens:
        img = os.path.join(work, "img", key + ".img")
        os.makedirs(os.path.dirname(img), exist_ok=True)
        if os.path.exists(img):
            os.unlink(img)
        r, dt = common.build_once([x.replace("{out}", img) for x in cmd], img,
                                  os.path.join(work, "build-%s.log" % key))
        r["build_seconds"] = round(dt, 2)
        if "build_error" not in r:
            r.update(image_stats(img, uniramfs))
        images[key] = (img, r)
        log("  %-24s built in %.1f s%s" % (label, dt, ": FAILED " + r["build_error"]
                                             if "build_error" in r else ""))
    out = []
    for c in cases:
        disks = c.layout.build(testinit, work, {"kver": kver, "vmlinuz": vmlinuz,
                                                "uniramfs": uniramfs})
        cr = {"key": c.key, "label": c.label, "cmdline": c.cmdline, "generators": []}
        for key, label, _cmd, ours in gens:
            img, built = images[key]
            g = {"key": key, "label": label}
            g.update(built)
            if "build_error" not in built:
                g["boots"] = [boot(c, key, ours, img, vmlinuz, disks, work, i)
                              for i in range(a.boots)]
                g["boot_pass"] = all(b["pass"] for b in g["boots"])
                for b in g["boots"]:
                    log("  %-14s %-24s %s init %s s, wall %.0f s, %d prompt(s)" % (
                        c.key, label, "PASS" if b["pass"] else "FAIL (%s)" % b.get("reason"),
                        b.get("init", "?"), b["wall"], b["prompts"]))
            cr["generators"].append(g)
        out.append(cr)
    res = common.results_head(started, kver, VERSIONS, boots=a.boots, cases=out,
                              commands=[(k, lab, cmd) for k, lab, cmd, _o in gens])
    common.write_results(res, a.out, "multidev", report, "bench/multidev.py")
    return 0 if all(g.get("boot_pass") for c in out for g in c["generators"]) else 1


if __name__ == "__main__":
    sys.exit(main())
