#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmark of unlocking a LUKS root: one row per way uniramfs opens it
(a typed passphrase, a TPM2 token, a key file on another disk, and the
remote ways when the boot tests have them: SSH, Clevis/Tang), and the
same disk unlocked by dracut's systemd-cryptsetup, with its TPM2 token
and by passphrase, in one run on one machine.

  bench/unlock.py [--builddir DIR] [--boots N] [--only KEY,...] [--list]
                  [--out DIR] [--workdir DIR] [--no-install]

Each row is a boot test scenario (tests/boot/run.py's Scenario, booted by
its Runner, judged as the boot tests judge it): the passphrase and TPM2
rows share one disk, the boot tests' luks2-tpm2 layout (LUKS2 with a
passphrase and a TPM2 token sealed by systemd-cryptenroll to a software
TPM, swtpm, whose state is copied for every boot); the other rows are
their own scenarios' disks, named in the report.  uniramfs boots its
generic image (`uniramfs build --generic`, as the boot tests do); dracut
its `dracut --no-hostonly --add "systemd crypt tpm2-tss"` image, which
unlocks with systemd-cryptsetup and cryptsetup's systemd-tpm2 token
plugin.

Init time as bench/run.py defines it: the root's /sbin/init prints
/proc/uptime, minus the kernel's "Run /init as init process" timestamp;
median, min and max over --boots QEMU TCG boots, one at a time.  A typed
passphrase is sent as soon as the prompt shows (the harness polls every
0.1 s), the same for both generators.

Writes OUT/unlock.md and OUT/unlock.json.
"""

import dataclasses
import datetime
import os
import shlex
import statistics
import sys

sys.dont_write_bytecode = True     # no __pycache__ in bench/ or tests/boot/
import common  # noqa: E402  bench/common.py; it puts tests/boot on sys.path
from common import boottest, log, HERE, image_stats, init_times  # noqa: E402
import scenarios_stack  # noqa: E402
import scenarios_tpm  # noqa: E402

VERSIONS = ("dracut-core", "systemd", "cryptsetup-bin", "swtpm", "qemu-system-x86")
LAYOUT = scenarios_tpm.LAYOUT
LUKS_UUID = dict(LAYOUT.params)["LUKS_UUID"]
TPM = "rd.luks.options=tpm2-device=auto"
DRACUT_ADD = "systemd crypt tpm2-tss"
# The remote ways, when the boot tests have them: (key, label, scenario).
REMOTE = (("uniramfs-keydisk", "key file on a second disk (LABEL=)", "luks2-keydisk"),
          ("uniramfs-ssh", "passphrase over SSH (dropbear; a wrong one first, as the boot test types)", "luks-ssh"),
          ("uniramfs-clevis", "Clevis/Tang", "luks-clevis-tang"))


@dataclasses.dataclass
class Row:
    key: str
    generator: str       # "uniramfs" or "dracut"
    method: str
    sc: object           # the boot test Scenario it boots


def scenario(name, doc, disk, cmdline, **kw):
    S = boottest.Scenario
    return S(name, doc, disk, "UUID=" + LAYOUT.uuid, cmdline=cmdline + " printk.time=1", **kw)


def rows():
    typed = scenarios_stack.typed("/dev/vda", LUKS_UUID, scenarios_stack.PASS)
    dracut_typed = ((r"Please enter passphrase for disk", scenarios_stack.PASS + "\n"),)
    dracut_luks = "rd.luks.uuid=" + LUKS_UUID
    R = [Row("uniramfs-passphrase", "uniramfs", "passphrase typed",
             scenario("unlock-passphrase", "", LAYOUT, "rd.luks.tokens=0", interact=typed)),
         Row("uniramfs-tpm2", "uniramfs", "TPM2 token",
             scenario("unlock-tpm2", "", scenarios_tpm.WithTpm(LAYOUT), TPM,
                      log_absent=("Passphrase for",))),
         Row("dracut-passphrase", "dracut", "passphrase typed",
             scenario("unlock-dracut-passphrase", "", LAYOUT, dracut_luks,
                      interact=dracut_typed)),
         Row("dracut-tpm2", "dracut", "TPM2 token",
             scenario("unlock-dracut-tpm2", "", scenarios_tpm.WithTpm(LAYOUT),
                      dracut_luks + " " + TPM))]
    known = {sc.name: sc for sc in boottest.SCENARIOS}
    for key, label, name in REMOTE:
        if name in known:
            sc = known[name]
            R.append(Row(key, "uniramfs", label, dataclasses.replace(
                sc, cmdline=(sc.cmdline + " printk.time=1").strip())))
    return R


def dracut_image(kver, work):
    img = os.path.join(work, "img", "dracut-systemd-tpm2.img")
    cmd = ["dracut", "--no-hostonly", "--add", DRACUT_ADD, "--force", "--kver", kver, img]
    res, dt = common.build_once(cmd, img, os.path.join(work, "build-dracut.log"))
    res["build_seconds"] = round(dt, 2)
    return img, res


def boots(runner, row, initrd, n):
    out = []
    for i in range(n):
        sc = dataclasses.replace(row.sc, name="%s-%d" % (row.key, i))
        sc, err, dt, _, text = runner.scenario(sc, initrd=initrd)
        b = common.boot_record(text, dt, err, runner.log_path(sc))
        out.append(b)
        log("  %-22s boot %d: %s%s" % (row.key, i + 1, "PASS" if err is None else
                                        "FAIL (%s)" % err,
                                        "  init %.2f s" % b["init"] if "init" in b else ""))
        if err is not None:
            break
    return out


def median(g):
    ok = init_times(g)
    return statistics.median(ok) if ok else None


def report(res, path):
    L = common.report_head("Unlocking a LUKS root: one row per way, uniramfs and dracut", res) + [
        "Each row boots a boot test scenario (QEMU TCG, `-smp 1`, %d boots each, "
        "one at a time). Init time: the guest's uptime at the real init minus the "
        "kernel's `Run /init` timestamp, median (min–max). The passphrase and TPM2 "
        "rows share one disk: the boot tests' `luks2-tpm2` layout (LUKS2, PBKDF2 with "
        "few iterations, a TPM2 token sealed by systemd-cryptenroll to swtpm). "
        "dracut boots `%s`; each row's build command is listed below. Made by "
        "`bench/unlock.py`." % (res["boots"], res["dracut"].get("command", "dracut")), "",
        "| method | generator | disk | image size | init time median (min–max) | "
        "×uniramfs | boot |",
        "| --- | --- | --- | ---: | --- | ---: | --- |"]
    ours = {r["method"]: median(r) for r in res["rows"] if r["generator"] == "uniramfs"}
    for r in res["rows"]:
        size, _, t, verdict = common.report_cells(r)
        m, u = median(r), ours.get(r["method"])
        ratio = "%.1f×" % (m / u) if r["generator"] != "uniramfs" and m and u else ""
        L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            r["method"], r["generator"], r["disk"], size, t, ratio, verdict))
    L += ["", "Each row's image and what its kernel command line adds (besides "
          "`console=ttyS0 panic=-1 printk.time=1 root=…`):", ""]
    for r in res["rows"]:
        L.append("- **%s**: `%s`; `%s`%s" % (r["key"], r.get("command", "?"),
                                            r["cmdline"] or "(nothing)",
                                            ". " + r["note"] if r.get("note") else ""))
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def main():
    ap = common.rows_parser(__doc__, 3, "TCG boots per row")
    a = common.parse_args(ap, os.path.join(HERE, "work", "unlock"))
    if a.list:
        for r in rows():
            print("%-22s %-9s %s  (scenario %s)" % (r.key, r.generator, r.method, r.sc.name))
        return 0
    builddir, uniramfs, kver, vmlinuz, work = common.setup(a)
    picked = common.pick(rows(), a.only, lambda r: r.key, "bench/unlock.py")

    started = datetime.datetime.now(datetime.timezone.utc)
    testinit = boottest.find_testinit(builddir, work)
    images = boottest.Images(uniramfs, kver, work)
    runner = boottest.Runner(kver, vmlinuz, builddir, work, testinit, images)
    dracut = {}
    if any(r.generator == "dracut" for r in picked):
        dimg, dracut = dracut_image(kver, work)
        if "build_error" in dracut:
            log("  dracut build FAILED: %s" % dracut["build_error"])
    results = []
    for r in picked:
        res = {"key": r.key, "generator": r.generator, "method": r.method,
               "disk": getattr(r.sc.disk, "name", "?"),
               "cmdline": " ".join(w for w in r.sc.cmdline.split() if w != "printk.time=1")}
        if r.generator == "dracut":
            initrd = dimg
            res.update({k: v for k, v in dracut.items() if k in ("command", "build_error")})
        else:
            # the scenario's own image: its disk may add build arguments
            # (the SSH scenario's sysroot), so the Runner builds it
            initrd = None
            mode = [] if "--hostonly" in r.sc.build else ["--generic"]
            res["command"] = " ".join(shlex.quote(x) for x in
                                      ["uniramfs", "build"] + mode + list(r.sc.build))
        if "build_error" not in res:
            res["boots"] = boots(runner, r, initrd, a.boots)
            res["boot_pass"] = len(res["boots"]) == a.boots and all(
                b["pass"] for b in res["boots"])
            if runner.last_image and os.path.exists(runner.last_image):
                res.update(image_stats(runner.last_image, uniramfs))
            if r.generator == "uniramfs":
                build = [x.replace("{kver}", kver) for x in runner.last_build]
                mode = [] if "--hostonly" in build or "--generic" in build else ["--generic"]
                res["command"] = " ".join(shlex.quote(x) for x in
                                          ["uniramfs", "build"] + mode + build)
        results.append(res)

    res = common.results_head(started, kver, VERSIONS, boots=a.boots, dracut=dracut,
                              rows=results)
    common.write_results(res, a.out, "unlock", report, "bench/unlock.py")
    return 0 if all(r.get("boot_pass") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
