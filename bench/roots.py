#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 31's "stacks and network roots" in one run: the init time of
uniramfs against dracut and initramfs-tools (mkinitramfs) for every root
kind the other bench scripts boot, on one date, one commit, one clock.

  bench/roots.py [--builddir DIR] [--boots N] [--only KIND[:KEY],...] [--list]
                 [--timeout S] [--out DIR] [--workdir DIR] [--no-install]

The rows are the other scripts' own, imported, not copied: LVM on LUKS
(bench/stack.py), NFSv4, NFSv3, iSCSI and bonded iSCSI (bench/net.py),
btrfs RAID1 (bench/multidev.py), a live ISO and an HTTP netboot
(bench/live.py), each with the same disks, servers, build commands,
kernel command lines and judges; and three kinds no bench script had:
md RAID1, ZFS and multipath, on the boot tests' disks (tests/boot/
scenarios_stack.py's raid1, scenarios_zfs.py's zfs, scenarios_multipath.py's
two virtio-scsi paths), judged as the boot tests judge their scenario
(for another generator's image without uniramfs's own messages).  Every
boot runs under QEMU TCG with `-icount shift=0`: the init time (the root's
/sbin/init's /proc/uptime minus the kernel's "Run /init" timestamp) is
the guest's instruction clock, whatever the host's load; the TCG wall
seconds of the whole boot are kept beside it.  An image whose build
command another row already ran is built once.

ZFS in dracut: Debian's zfs-dracut (bookworm contrib) is fetched through
tests/zfs/fetch.py's private apt state and unpacked; dracut runs with
dracutbasedir= a copy of /usr/lib/dracut holding its modules, and the
DKMS module tree of the boot tests (--kmoddir); nothing under /usr or
/etc is changed.

The "before" column is each row's number in the earlier result file of
its script (bench/results/stack.json, net.json, multidev.json, live.json),
with that file's date and clock.

Writes OUT/roots.md and OUT/roots.json.
"""

import contextlib
import dataclasses
import datetime
import functools
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys

sys.dont_write_bytecode = True
import common  # noqa: E402  bench/common.py; it puts tests/boot on sys.path
from common import boottest, log, HERE, image_stats  # noqa: E402
import live  # noqa: E402
import multidev  # noqa: E402
import net  # noqa: E402
import stack  # noqa: E402
import scenarios_http  # noqa: E402
import scenarios_multipath  # noqa: E402
import scenarios_stack  # noqa: E402
import scenarios_zfs  # noqa: E402

ICOUNT = ["-icount", "shift=0"]
VERSIONS = ("dracut-core", "dracut-network", "dracut-live", "initramfs-tools",
            "cryptsetup-initramfs", "cryptsetup-bin", "lvm2", "mdadm", "multipath-tools",
            "open-iscsi", "nfs-ganesha", "tgt", "btrfs-progs", "xorriso", "qemu-system-x86")
KINDS = ("lvm-luks", "raid1", "nfs", "nfs3", "iscsi", "btrfs-raid1", "zfs", "multipath",
         "live-iso", "live-http", "bond-iscsi")
RAID = scenarios_stack.RAID1
MD_UUID = dict(RAID.params)["MD_UUID"]
ZFS_DEB = "zfs-dracut"
# measured (bench/results/roots-notes.md): it builds, then never boots
ZFS_DRACUT_SKIP = (
    "its image builds (zfs.ko, zpool, zfs, the hooks) but cannot boot here: in a systemd "
    "image zfs-dracut's pre-mount hook waits for zfs-import.target, and that target and "
    "the zfs-import-scan/-cache and zfs-load-module services it installs from the host's "
    "/lib/systemd/system are zfsutils-linux's, which this host does not have (its ZFS "
    "userland is tests/zfs/fetch.py's copy in /usr/local, the host's /usr stays "
    "dpkg's): no unit loads the module or imports the pool, and the boot waits until "
    "it is killed (a trial boot, 400 s)")


@dataclasses.dataclass
class Row:
    kind: str
    key: str            # the generator's key in its script
    label: str
    cmd: list           # the build command; {out} is the image
    cmdline: str        # what the kernel command line adds for this root
    boots: object       # boots(img, n) -> [boot record]
    ours: bool = False
    note: str = ""
    env: dict = None    # more environment for the build
    before: tuple = ()  # (result file, its row's finder)
    skip: str = ""      # why it is not run unless --only names it

    @property
    def id(self):
        return "%s:%s" % (self.kind, self.key)


class Ctx:
    """What every row's boots share: the kernel, the test init, the work
    directory of each script (their configuration copies and logs do not
    meet)."""

    def __init__(self, builddir, uniramfs, kver, vmlinuz, work):
        self.builddir, self.uniramfs, self.kver, self.vmlinuz = builddir, uniramfs, kver, vmlinuz
        self.work = work
        self.env = {"kver": kver, "vmlinuz": vmlinuz, "uniramfs": uniramfs}
        self.testinit = boottest.find_testinit(builddir, work)

    def sub(self, name):
        d = os.path.join(self.work, name)
        for s in ("img", "logs"):
            os.makedirs(os.path.join(d, s), exist_ok=True)
        return d


def lvm_luks_rows(c):
    work = c.sub("stack")
    disk = functools.lru_cache(None)(
        lambda: stack.LAYOUT.build(c.testinit, work, c.env))
    for g in stack.generators(c.uniramfs, c.kver, work):
        # stack.boots adds root= itself: here for the report
        yield Row("lvm-luks", g.key, g.label, g.cmd,
                  " ".join(x for x in ("root=" + stack.ROOT, g.cmdline) if x),
                  lambda img, n, g=g: stack.boots(g, img, c.vmlinuz, disk(), n, work, ICOUNT,
                                                  "-icount"),
                  ours=g.ours, note=g.note, env=g.env, before=("stack", g.key))


def net_rows(c, kinds):
    work = c.sub("net")
    for g in net.generators(c.uniramfs, c.kver, work):
        if g.row not in kinds:
            continue
        yield Row(g.row, g.key, g.label, g.cmd, g.cmdline,
                  lambda img, n, g=g: net.boots(g, img, c.vmlinuz, c.testinit, n, work, c.env,
                                                "icount"),
                  ours=g.ours, note=g.note, before=("net", (g.row, g.key)),
                  skip=g.skip and g.skip + "; the bond-iscsi row's dracut boot fails on the "
                  "same iscsid (below)")


def btrfs_rows(c):
    work = c.sub("multidev")
    case = multidev.CASES[0]
    disks = functools.lru_cache(None)(
        lambda: case.layout.build(c.testinit, work, c.env))
    for key, label, cmd, ours in multidev.generators(c.uniramfs, c.kver):
        yield Row("btrfs-raid1", key, label, cmd, case.cmdline,
                  lambda img, n, key=key, ours=ours: [
                      multidev.boot(case, key, ours, img, c.vmlinuz, disks(), work, i)
                      for i in range(n)],
                  ours=ours, before=("multidev", (case.key, key)))


def live_rows(c):
    work = c.sub("live")

    @functools.lru_cache(None)
    def media():
        squash = scenarios_http.IMAGE.path(c.testinit, work)
        with open(squash, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        return live.make_iso(squash, work), squash, sha

    for g in live.generators(c.uniramfs, c.kver):
        yield Row("live-" + g.row, g.key, g.label, g.cmd, g.cmdline,
                  lambda img, n, g=g: [live.boot_one(g, img, c.vmlinuz, c.testinit, work,
                                                     *media(), True, i) for i in range(n)],
                  ours=g.key == "uniramfs", note=g.note, before=("live", (g.row, g.key)))


def disk_boots(c, work, name, sc, layout, cmdline, ours, img, n):
    """n boots of img on a boot test scenario's disk (its attach() brings
    the devices, as tests/boot/run.py's Runner does), judged as the
    scenario is, less uniramfs's own messages for another generator's."""
    dpaths = layout.build(c.testinit, work, c.env)
    if not ours:
        sc = dataclasses.replace(sc, log_expect=(), log_absent=())
    line = " ".join(x for x in (boottest.BASE_CMDLINE, "printk.time=1", cmdline) if x)
    out = []
    for i in range(n):
        logf = os.path.join(work, "logs", "%s-icount-%d.log" % (name, i))
        with layout.attach(dpaths) if hasattr(layout, "attach") else \
                contextlib.nullcontext(()) as extra:
            text, dt, timed_out, missed = boottest.boot(
                c.vmlinuz, img, dpaths, sc.bus, line, logf, interact=sc.interact,
                extra=list(extra) + ICOUNT)
        err = boottest.check(sc, text, timed_out, ours=ours, missed=missed)
        if err is not None and not ours:
            err += foreign_said(text)
        b = common.boot_record(text, dt, err, logf)
        b["clock"] = "icount"
        out.append(b)
        log("  %-28s boot %d: %s%s" % (name, i + 1, "PASS" if err is None else "FAIL (%s)" % err,
                                       "  init %.2f s" % b["init"] if "init" in b else ""))
        if err is not None:
            break
    return out


FAILED_UNIT = re.compile(r"FAILED.*?Failed to start (?:\x1b\[[\d;]*m)*([\w@.-]+)")
ROOT_MOUNT = re.compile(r"^TESTINIT: root-mount=(\S+ \S+)", re.M)


def foreign_said(text):
    """For another generator's failed boot: what / was, the units that
    failed and the last things its tools said went wrong."""
    said = []
    m = ROOT_MOUNT.search(text)
    if m:
        said.append("/ was %s" % m.group(1))
    units = sorted(set(FAILED_UNIT.findall(text)))
    if units:
        said.append("failed to start: " + ", ".join(units))
    why = net.foreign_why(text)
    if why:
        said.append("it said: " + why)
    return " — " + "; ".join(said) if said else ""


def scenario(name):
    return next(s for s in boottest.SCENARIOS if s.name == name)


def generic(c):
    return [c.uniramfs, "build", "-k", c.kver, "-o", "{out}", "--config", "/dev/null",
            "--generic"]


def dracut(c, *more):
    return ["dracut", "--no-hostonly"] + list(more) + ["--force", "--kver", c.kver, "{out}"]


def raid_rows(c):
    work = c.sub("raid")
    sc = scenario("raid1")
    root = "root=UUID=" + RAID.uuid
    # the plain MODULES=most copy bench/net.py's iscsi row builds with:
    # one image for both
    mk = next(g for g in net.generators(c.uniramfs, c.kver, c.sub("net"))
              if g.id == "iscsi:mkinitramfs").cmd
    for key, label, cmd, more, ours, note in (
            ("uniramfs-generic", "uniramfs --generic", generic(c), "", True, ""),
            ("dracut", "dracut --no-hostonly", dracut(c), "rd.md.uuid=" + MD_UUID, False,
             "dracut's mdraid module (in a --no-hostonly image since mdadm is installed); "
             "rd.md.uuid= names the array, as stack.py's rd.luks.uuid= its LUKS device"),
            ("mkinitramfs", "mkinitramfs MODULES=most + mdadm", mk, "", False,
             "CONF: a copy of /etc/initramfs-tools with MODULES=most (bench/net.py's); "
             "mdadm's initramfs hook and its local-block script assemble the array")):
        line = " ".join(x for x in (root, more) if x)
        yield Row("raid1", key, label, cmd, line,
                  lambda img, n, key=key, ours=ours, line=line: disk_boots(
                      c, work, "raid1-" + key, sc, RAID, line, ours, img, n),
                  ours=ours, note=note)


def zfs_dracut_base(c, work):
    """A copy of /usr/lib/dracut with zfs-dracut's modules (Debian 12
    contrib, through tests/zfs/fetch.py's private apt state): dracut's
    dracutbasedir for the ZFS row; the host's /usr stays dpkg's."""
    base = os.path.join(work, "dracut-base")
    fetch = scenarios_zfs.zfs_fetch
    apt = fetch.Apt(fetch.CACHE)
    # the version of the zfs-dkms the module was built from (cached: no apt-get update)
    dkms = sorted(glob.glob(os.path.join(apt.dir, "debs", "zfs-dkms_*.deb")))
    ver = subprocess.run(["dpkg-deb", "-f", dkms[-1] if dkms else apt.download(
        "zfs-dkms", apt.version("zfs-dkms")), "Version"], stdout=subprocess.PIPE, text=True,
        check=True).stdout.strip()
    deb = apt.download(ZFS_DEB, ver)
    if os.path.isdir(os.path.join(base, "modules.d", "90zfs")):
        return base, ver
    tmp = os.path.join(work, "zfs-dracut")
    shutil.rmtree(tmp, ignore_errors=True)
    subprocess.run(["dpkg-deb", "-x", deb, tmp], check=True)
    shutil.rmtree(base, ignore_errors=True)
    shutil.copytree("/usr/lib/dracut", base, symlinks=True)
    src = os.path.join(tmp, "usr/lib/dracut/modules.d")
    for m in os.listdir(src):
        shutil.copytree(os.path.join(src, m), os.path.join(base, "modules.d", m), symlinks=True)
    return base, ver


def zfs_rows(c):
    work = c.sub("zfs")
    sc = scenario("zfs")
    # the DKMS-built module tree and the userland in /usr/local (cached)
    moddir = scenarios_zfs._ensure(c.env)
    plugin = scenarios_zfs.plugin_file(c.builddir)
    line = "root=" + sc.root     # ZFS=rpool/ROOT/debian: zfs-dracut reads it too
    yield Row("zfs", "uniramfs-generic", "uniramfs --generic --plugin zfs",
              generic(c) + ["--kmoddir", moddir, "--plugin", plugin], line,
              lambda img, n: disk_boots(c, work, "zfs-uniramfs", sc, scenarios_zfs.ZFS, line,
                                        True, img, n),
              ours=True, note="--kmoddir: the boot tests' module tree with the DKMS-built zfs "
              "(tests/zfs/fetch.py); --plugin: plugins/zfs.conf.in with this build's root program")
    try:
        base, ver = zfs_dracut_base(c, work)
        # dracut looks for programs in DRACUT_PATH only (/sbin /bin /usr/sbin
        # /usr/bin by default): zpool and zfs are in /usr/local
        env = {"dracutbasedir": base,
               "DRACUT_PATH": "/usr/local/sbin /usr/local/bin /sbin /bin /usr/sbin /usr/bin"}
        note = ("zfs-dracut %s's modules (90zfs) in a copy of /usr/lib/dracut given as "
                "dracutbasedir=; --kmoddir: the same DKMS module tree; zpool and zfs from "
                "/usr/local, where tests/zfs/fetch.py puts the userland (DRACUT_PATH "
                "names it: dracut's default path does not)" % ver)
    except Exception as e:   # no zfs-dracut: the row says why
        base, env, note = None, None, "cannot get zfs-dracut: %s" % e
    # dracut wants its --kmoddir to end in lib/modules/KVER
    kroot = os.path.join(work, "kmod", "lib", "modules")
    os.makedirs(kroot, exist_ok=True)
    link = os.path.join(kroot, c.kver)
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(moddir, link)
    cmd = dracut(c, "--add", "zfs", "--kmoddir", link) if base else \
        ["sh", "-c", "echo %s >&2; exit 1" % shlex.quote(note)]
    yield Row("zfs", "dracut", "dracut --no-hostonly --add zfs (zfs-dracut)", cmd, line,
              lambda img, n: disk_boots(c, work, "zfs-dracut", sc, scenarios_zfs.ZFS, line,
                                        False, img, n),
              note=note, env=env, skip=ZFS_DRACUT_SKIP)


def multipath_rows(c):
    work = c.sub("multipath")
    sc = scenario("multipath")
    layout = sc.disk
    # the claim program the plugin names, where the image's build finds it
    # (the layout's build puts it there, but only at the boot)
    scenarios_multipath._copy_claim(c.builddir)
    line = " ".join(("root=" + sc.root, sc.cmdline))
    yield Row("multipath", "uniramfs-generic", "uniramfs --generic --plugin multipath",
              generic(c) + list(sc.build), line,
              lambda img, n: disk_boots(c, work, "multipath-uniramfs", sc, layout, line, True,
                                        img, n),
              ours=True, note="--plugin: plugins/multipath.conf.in with this build's claim "
              "program (the boot tests' multipath scenario)")
    yield Row("multipath", "dracut-generic", "dracut --no-hostonly", dracut(c), line,
              lambda img, n: disk_boots(c, work, "multipath-dracut", sc, layout, line, False,
                                        img, n),
              note="dracut's multipath module (in a --no-hostonly image since multipath-tools "
              "is installed); judged as the boot test: / must be the map (/dev/dm-N), never "
              "a path, and the paths marked for the root's udev")


def rows(c):
    """Every row, cheapest kinds first; the dracut iSCSI boots, which fail
    slowly, last."""
    out = list(lvm_luks_rows(c)) + list(raid_rows(c)) + \
        list(net_rows(c, ("nfs", "nfs3"))) + [r for r in net_rows(c, ("iscsi",))
                                              if r.key != "dracut"] + \
        list(btrfs_rows(c)) + list(zfs_rows(c)) + list(multipath_rows(c)) + \
        list(live_rows(c)) + list(net_rows(c, ("bond-iscsi",))) + \
        [r for r in net_rows(c, ("iscsi",)) if r.key == "dracut"]
    return out


# ---- the earlier numbers

def before(row, out):
    """(median init, its clock, the file's date and commit) of the row in
    its script's earlier result file, or None."""
    if not row.before:
        return None
    name, sel = row.before
    path = os.path.join(out, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        d = json.load(f)
    clock, boots, date = "tcg", None, d["date"]
    if name == "stack":
        g = next((g for g in d["generators"] if g["key"] == sel), None)
        boots = g and g.get("boots")
    elif name == "net":
        g = next((g for g in d["generators"] if (g["row"], g["key"]) == sel), None)
        if g and g.get("boots_icount"):
            boots, clock = g["boots_icount"], "icount"
        elif g:
            boots = g.get("boots")
        if g and g.get("run"):
            date = g["run"].split(",")[0]
    elif name == "multidev":
        case = next((x for x in d["cases"] if x["key"] == sel[0]), None)
        g = case and next((g for g in case["generators"] if g["key"] == sel[1]), None)
        boots, clock = g and g.get("boots"), "icount"
    elif name == "live":
        g = next((g for g in d["generators"] if (g["row"], g["key"]) == sel), None)
        boots = g and [b for b in g.get("boots", []) if b.get("clock") == "icount"]
        clock = "icount"
    ok = [b["init"] for b in boots or [] if b.get("pass") and "init" in b]
    if not ok:
        return {"file": "bench/results/%s.md" % name, "date": date, "clock": clock,
                "init": None, "verdict": "FAIL" if boots else "not booted"}
    return {"file": "bench/results/%s.md" % name, "date": date, "clock": clock,
            "init": statistics.median(ok)}


# ---- the report

# the kernel's line as it execs the root's /sbin/init (TOMOYO's policy
# loader check, at the first exec of /sbin/init after switch_root)
EXEC_RE = re.compile(r"^\[\s*([\d.]+)\] Not activating Mandatory Access Control", re.M)
POWER_OFF_RE = re.compile(r"^\[\s*[\d.]+\] reboot: Power down", re.M)


def to_exec(b):
    """Run /init to the kernel's exec of the root's /sbin/init, from the
    boot's log (the same clock as the init time, without the root's
    init's own first lines); and whether the guest then powered off,
    which the root's init does only after its report."""
    if b.get("run_init") is None or not os.path.exists(b.get("log") or ""):
        return None, False
    with open(b["log"], errors="replace") as f:
        text = f.read()
    m = EXEC_RE.search(text)
    return (round(float(m.group(1)) - b["run_init"], 3) if m else None,
            bool(POWER_OFF_RE.search(text)))

def med(r):
    ok = common.init_times(r)
    return statistics.median(ok) if ok else None


def med_exec(r):
    ex = [b["exec"] for b in r.get("boots", []) if b.get("exec") is not None]
    return statistics.median(ex) if ex else None


def verdict(r):
    if "build_error" in r:
        return "FAIL (build: %s)" % r["build_error"]
    bad = [b for b in r.get("boots", []) if not b["pass"]]
    if bad:
        return "FAIL (%s)" % bad[0]["reason"]
    return "PASS" if r.get("boots") else "not booted"


def report(res, path):
    reruns = []
    for x in res.get("rerun", []):
        reruns += ["", "Re-run %s, uniramfs %s, `bench/roots.py%s` (load %s at the start, %s at "
                   "the end), merged into this table: %s." % (
                       x["date"], x["commit"], x["args"], x["load_start"], x["load_end"],
                       ", ".join(x["ids"]))]
    L = common.report_head("Stacks and network roots in one run: uniramfs, dracut and "
                           "mkinitramfs", res) + [
        "Made by `bench/roots.py%s`. Every boot QEMU TCG with `-icount shift=0`, one at a "
        "time: **init** is the guest's uptime at the root's `/sbin/init` minus the kernel's "
        "`Run /init` timestamp on the instruction clock (10^9 instructions a second, the "
        "same whatever the host's load), median (min–max) of %d boot(s); **to exec**: "
        "`Run /init` to the kernel's exec of the root's `/sbin/init` (its `Not activating "
        "Mandatory Access Control` line), the same clock, for every boot that got there, "
        "marker or not; **×** is the "
        "other generator's init over uniramfs --generic's for the same root; **wall**: the "
        "TCG seconds of the whole boot on this host (load average %s at the start, %s at "
        "the end). **build**: one build's wall seconds (an image that an earlier row's "
        "identical command built is not built again: its row says so). **before**: the "
        "row's median in its script's earlier result file, its date and clock (TCG seconds "
        "there stretch with the host's load; only icount ones compare with this run's)."
        % (res["args"], res["boots"], res["load_start"], res["load_end"]),
    ] + reruns + [
        "", "| root | generator | image | build | init, icount | × | to exec | wall s | before | "
        "boot |",
        "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | --- | --- |"]
    for r in res["rows"]:
        for b in r.get("boots", []):
            if "exec" not in b:
                b["exec"], b["powered_off"] = to_exec(b)
    base, base_exec = {}, {}
    for r in res["rows"]:
        if r["key"] == "uniramfs-generic" or (r["kind"].startswith("live-") and
                                               r["key"] == "uniramfs"):
            base[r["kind"]], base_exec[r["kind"]] = med(r), med_exec(r)
        size = common.report_cells(r)[0]
        ok = common.init_times(r)
        t = "%.2f s%s" % (statistics.median(ok), " (%.2f–%.2f)" % (min(ok), max(ok))
                          if len(ok) > 1 else "") if ok else "-"
        m, b = med(r), base.get(r["kind"])
        ratio = "%.1f×" % (m / b) if m is not None and b and not r.get("ours") else ""
        e, be = med_exec(r), base_exec.get(r["kind"])
        if not ratio and not r.get("ours") and e is not None and be:
            ratio = "%.1f× (to exec)" % (e / be)
        walls = " ".join("%.0f" % x["wall"] for x in r.get("boots", [])) or "-"
        bt = "%.1f s" % r["build_seconds"] if "build_seconds" in r else \
            "(same as %s)" % r["built_by"] if r.get("built_by") else \
            "(an earlier run's)" if r.get("reused") else "-"
        bf = r.get("before")
        bfs = "-" if not bf else "%s, %s (%s)" % (
            "%.2f s" % bf["init"] if bf.get("init") is not None else bf.get("verdict"),
            bf["clock"], bf["date"])
        ex = med_exec(r)
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["kind"], r["label"], size, bt, t, ratio,
            "%.2f s" % ex if ex is not None else "-", walls, bfs, verdict(r).replace("|", "\\|")))
    unnamed = [n["id"] for n in res.get("not_run", []) if n["why"] == "not named by --only"]
    for n in res.get("not_run", []):
        if n["id"] not in unnamed:
            L += ["", "Not run: %s: %s." % (n["id"], n["why"])]
    if unnamed:
        L += ["", "Not run (not named by --only): %s." % ", ".join(unnamed)]
    L += ["", "Commands (KVER = %s); the kernel command line is `%s printk.time=1` and the "
          "row's words:" % (res["kernel"], boottest.BASE_CMDLINE), ""]
    for r in res["rows"]:
        L.append("- **%s, %s**: `%s%s`; `%s`%s" % (
            r["kind"], r["label"], "".join("%s=%s " % kv for kv in (r.get("env") or {}).items()),
            r.get("command", "?"), r["cmdline"], ". " + r["note"] if r.get("note") else ""))
    L.append("")
    notes = os.path.join(os.path.dirname(path), "roots-notes.md")
    if os.path.exists(notes):
        with open(notes) as f:
            L += ["## Notes on this run", "", f.read()]
    with open(path, "w") as f:
        f.write("\n".join(L))


def reusable(img, blog, cmd, env):
    """--reuse: img is there and its build log says it was built by this
    command (common.build_once's first line) without an error."""
    said = "$ %s%s\n" % ("".join("%s=%s " % kv for kv in (env or {}).items()),
                         " ".join(shlex.quote(x) for x in cmd))
    if not os.path.isfile(img) or not os.path.isfile(blog):
        return False
    with open(blog) as f:
        return f.readline() == said


def merged(old, res):
    """--merge: OUT/roots.json's run (old) with this run's rows in place
    of the same ids, and this run named in its "rerun" list."""
    new = {"%s:%s" % (r["kind"], r["key"]): r for r in res["rows"]}
    out = dict(old)
    out["rows"] = [new.pop("%s:%s" % (r["kind"], r["key"]), r) for r in old["rows"]]
    out["rows"] += list(new.values())
    ids = ["%s:%s" % (r["kind"], r["key"]) for r in res["rows"]]
    out["not_run"] = [n for n in old.get("not_run", []) if n["id"] not in ids]
    out["rerun"] = old.get("rerun", []) + [{
        "ids": ids, "date": res["date"], "commit": res["commit"], "args": res["args"],
        "load_start": res["load_start"], "load_end": res.get("load_end")}]
    return out


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = common.rows_parser(__doc__, 1, "icount boots per image and root", "KIND or KIND:KEY", (
        400, "seconds per boot (400: dracut's systemd under -icount on a loaded host; a "
             "dracut that gives up ends at its emergency shell)"))
    ap.add_argument("--report", action="store_true",
                    help="re-render OUT/roots.md from OUT/roots.json")
    ap.add_argument("--reuse", action="store_true",
                    help="boot the image an earlier run built with the same command, if "
                    "there (its row has no build time)")
    ap.add_argument("--merge", action="store_true",
                    help="keep OUT/roots.json's rows this run does not make; the report "
                    "names the rows re-run and when")
    a = common.parse_args(ap, os.path.join(HERE, "work", "roots"))
    if a.report:
        with open(os.path.join(a.out, "roots.json")) as f:
            report(json.load(f), os.path.join(a.out, "roots.md"))
        return 0
    builddir, uniramfs, kver, vmlinuz, work = common.setup(a)
    boottest.BOOT_TIMEOUT = a.timeout
    net.servervm.START_TIMEOUT = max(net.servervm.START_TIMEOUT, a.timeout)
    load_start = load()
    started = datetime.datetime.now(datetime.timezone.utc)
    c = Ctx(builddir, uniramfs, kver, vmlinuz, work)
    all_rows = rows(c)
    if a.list:
        for r in all_rows:
            print("%-28s %s%s\n%28s kernel: %s" % (
                r.id, "".join("%s=%s " % kv for kv in (r.env or {}).items()),
                " ".join(shlex.quote(x) for x in r.cmd), "", r.cmdline))
        return 0
    todo = [r for r in all_rows if not r.skip]
    if a.only:
        want = a.only.split(",")
        bad = [w for w in want if not any(w in (r.kind, r.id) for r in all_rows)]
        if bad:
            sys.exit("bench/roots.py: unknown: %s" % ", ".join(bad))
        todo = [r for r in all_rows if r.kind in want or r.id in want]
    log("bench/roots.py: kernel %s, %d rows, %d icount boot(s) each" % (kver, len(todo), a.boots))
    built = {}      # the build command -> (image, result, the row that built it)
    results = []
    res = common.results_head(started, kver, VERSIONS, boots=a.boots, load_start=load_start,
                              rows=results,
                              not_run=[{"id": r.id, "why": r.skip or "not named by --only"}
                                       for r in all_rows if r not in todo])
    old = None
    if a.merge and os.path.exists(os.path.join(a.out, "roots.json")):
        with open(os.path.join(a.out, "roots.json")) as f:
            old = json.load(f)
    for r in todo:
        key = (tuple(r.cmd), tuple(sorted((r.env or {}).items())))
        out = {"kind": r.kind, "key": r.key, "label": r.label, "cmdline": r.cmdline,
               "note": r.note, "env": r.env, "ours": r.ours, "before": before(r, a.out)}
        if key not in built:
            img = os.path.join(work, "img", "%s-%s.img" % (r.kind, r.key))
            os.makedirs(os.path.dirname(img), exist_ok=True)
            cmd = [x.replace("{out}", img) for x in r.cmd]
            blog = os.path.join(work, "build-%s-%s.log" % (r.kind, r.key))
            if a.reuse and reusable(img, blog, cmd, r.env):
                b = {"command": " ".join(shlex.quote(x) for x in cmd), "build_log": blog,
                     "reused": True}
                b.update(image_stats(img, uniramfs))
                log("  %-28s the image an earlier run built (%s)" % (r.id, blog))
            else:
                if os.path.exists(img):
                    os.unlink(img)
                b, dt = common.build_once(cmd, img, blog, r.env)
                b["build_seconds"] = round(dt, 2)
                if "build_error" not in b:
                    b.update(image_stats(img, uniramfs))
                log("  %-28s built in %.1f s%s" % (r.id, dt, ": FAILED " + b["build_error"]
                                                   if "build_error" in b else ""))
            built[key] = (img, b, r.id)
            out.update(b)
        else:
            img, b, by = built[key]
            out.update({k: v for k, v in b.items() if k != "build_seconds"})
            out["built_by"] = by
        if "build_error" not in out:
            try:
                out["boots"] = r.boots(img, a.boots)
            except Exception as e:   # a disk or server that cannot be made: this row's
                out["boots"] = [{"pass": False, "reason": "cannot boot: %s" % e, "wall": 0}]
            for b in out["boots"]:   # in the json, so --report needs no logs
                b["exec"], b["powered_off"] = to_exec(b)
            log("  %-28s %s" % (r.id, verdict(out)))
        results.append(out)
        res["load_end"] = load()
        common.write_results(merged(old, res) if old else res, a.out, "roots", report,
                             "bench/roots.py")   # so far
    return 0 if all(verdict(r) == "PASS" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
