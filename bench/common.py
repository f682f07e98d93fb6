# SPDX-License-Identifier: GPL-2.0-or-later
"""What the bench scripts share: the build directory and kernel they
start from, their command line, the copies of /etc/initramfs-tools they
hand mkinitramfs, an image's size and entries, one boot's init time, and
the head of every results file (date, machine, package versions,
commit, command)."""

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRCDIR, "tests/boot"))
sys.dont_write_bytecode = True
# a benchmark times the boot a machine does: the bzImage decompressing
# itself, not the tests' PVH shortcut (tests/boot/pvh.py)
os.environ.setdefault("UNIRAMFS_TEST_BZIMAGE", "1")
import run as boottest  # noqa: E402  tests/boot/run.py: boot(), check(), SCENARIOS

DEFAULT_BUILDDIR = os.environ.get("UNIRAMFS_BUILDDIR", os.path.join(SRCDIR, "build"))
RUN_INIT_RE = re.compile(r"^\[\s*([\d.]+)\] Run /init as init process", re.M)
UPTIME_RE = re.compile(r"^TESTINIT: uptime: ([\d.]+)", re.M)
# the kernel's unpacking of the initramfs: decompressing and copying it
UNPACK_RE = re.compile(r"^\[\s*([\d.]+)\] Trying to unpack rootfs image.*?"
                       r"^\[\s*([\d.]+)\] Freeing initrd memory", re.M | re.S)
TIMINGS_RE = re.compile(r"^TESTINIT: timings: (\w+) (\d+)$", re.M)
ENTRIES_RE = re.compile(r"^\d+ segments?, (\d+) entries", re.M)


def log(*a):
    print(*a, flush=True)


def setup(a):
    """Install the dependencies (unless --no-install), build uniramfs in
    --builddir, make WORKDIR/img and WORKDIR/logs; return (builddir,
    uniramfs, kver, vmlinuz, work)."""
    if not a.no_install:
        subprocess.run([os.path.join(SRCDIR, "tools/install-deps.sh")], check=True)
    builddir = os.path.abspath(a.builddir)
    if not os.path.isfile(os.path.join(builddir, "build.ninja")):
        subprocess.run(["meson", "setup", builddir, SRCDIR], check=True,
                       stdout=subprocess.DEVNULL)
    subprocess.run(["ninja", "-C", builddir], check=True, stdout=subprocess.DEVNULL)
    kver, vmlinuz = boottest.find_kernel(a.kver)
    work = os.path.abspath(a.workdir)
    for d in ("img", "logs"):
        os.makedirs(os.path.join(work, d), exist_ok=True)
    return builddir, os.path.join(builddir, "uniramfs"), kver, vmlinuz, work


def pick(items, only, key, prog):
    """The items whose key(item) --only names (all if only is empty);
    exits naming any it does not know."""
    if not only:
        return items
    keep = only.split(",")
    bad = set(keep) - {key(i) for i in items}
    if bad:
        sys.exit("%s: unknown generator(s): %s" % (prog, ", ".join(sorted(bad))))
    return [i for i in items if key(i) in keep]


def itools_conf(work, name, **conf):
    """WORK/NAME: a copy of /etc/initramfs-tools (for mkinitramfs -d) whose
    initramfs.conf says KEY=VALUE for each of conf (MODULES=most,
    BOOT=nfs); /etc is only read."""
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree("/etc/initramfs-tools", d, symlinks=True)
    p = os.path.join(d, "initramfs.conf")
    with open(p) as f:
        text = f.read()
    for k, v in conf.items():
        text, n = re.subn(r"^%s=.*$" % k, "%s=%s" % (k, v), text, flags=re.M)
        if not n:
            text += "%s%s=%s\n" % ("" if text.endswith("\n") or not text else "\n", k, v)
    with open(p, "w") as f:
        f.write(text)
    return d


def build_once(cmd, img, blog, env=None):
    """Run cmd (its output to blog, after a `$ cmd` line); return (result
    dict with command and build_log, or build_error, seconds)."""
    res = {"command": " ".join(shlex.quote(a) for a in cmd), "build_log": blog}
    with open(blog, "w") as f:
        f.write("$ %s%s\n" % ("".join("%s=%s " % kv for kv in (env or {}).items()),
                              res["command"]))
        f.flush()
        t = time.monotonic()
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT,
                           env=dict(os.environ, **env) if env else None)
        dt = time.monotonic() - t
    if r.returncode != 0 or not os.path.isfile(img):
        with open(blog) as f:
            lines = f.read().strip().splitlines()
        res["build_error"] = "exit %d: %s" % (r.returncode, lines[-1] if lines else "")
    return res, dt


def image_stats(img, uniramfs):
    """Size, and from `uniramfs ls` the entries and regular files."""
    res = {"size": os.path.getsize(img)}
    out = subprocess.run([uniramfs, "ls", img], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True).stdout
    m = ENTRIES_RE.search(out)
    if m:
        res["entries"] = int(m.group(1))
        res["files"] = sum(1 for ln in out.splitlines() if ln.startswith("-"))
    return res


def boot_record(text, dt, err, logf):
    """One boot's result: PASS or the reason, the init time (guest
    uptime at the real init minus the kernel's Run /init timestamp) and
    our init's stage timings."""
    ri, up = RUN_INIT_RE.search(text), UPTIME_RE.search(text)
    b = {"pass": err is None, "reason": err, "wall": round(dt, 2), "log": logf,
         "run_init": float(ri.group(1)) if ri else None,
         "uptime": float(up.group(1)) if up else None}
    if b["run_init"] is not None and b["uptime"] is not None:
        b["init"] = round(b["uptime"] - b["run_init"], 3)
    un = UNPACK_RE.search(text)
    if un:
        b["unpack"] = round(float(un.group(2)) - float(un.group(1)), 3)
    # uniramfs-init's own stage timings (ms), as testinit found them
    stages = {k: int(v) for k, v in TIMINGS_RE.findall(text)}
    if stages:
        b["stages"] = stages
    return b


def init_times(g):
    return [b["init"] for b in g.get("boots", []) if b["pass"] and "init" in b]


def report_cells(g):
    """A report row's image size, files, init time and verdict."""
    size = "%.1f MB" % (g["size"] / 1e6) if "size" in g else "-"
    files = "%d (%d entries)" % (g["files"], g["entries"]) if "files" in g else "-"
    ok = init_times(g)
    t = "%.2f s (%.2f–%.2f)" % (statistics.median(ok), min(ok), max(ok)) if ok else "-"
    if "build_error" in g:
        verdict = "FAIL (build: %s)" % g["build_error"]
    elif g.get("boot_pass"):
        verdict = "PASS"
    else:
        bad = [b for b in g.get("boots", []) if not b["pass"]]
        verdict = "FAIL (%s)" % (bad[0]["reason"] if bad else "no boot")
    return size, files, t, verdict


def host():
    """(CPUs, CPU model, MB of RAM, host kernel)."""
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
        if m:
            cpu = m.group(1).strip()
    with open("/proc/meminfo") as f:
        mem = int(re.search(r"MemTotal:\s+(\d+)", f.read()).group(1)) // 1024
    return os.cpu_count(), cpu, mem, platform.release()


def machine():
    return "%d CPUs, %s, %d MB RAM, host kernel %s" % host()


def versions(packages):
    """{package: installed version or "?"}."""
    def q(p):
        r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", p], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        return r.stdout.strip() or "?"
    return {p: q(p) for p in packages}


def commit():
    return subprocess.run(["git", "-C", SRCDIR, "rev-parse", "--short", "HEAD"],
                          stdout=subprocess.PIPE, text=True).stdout.strip()


def new_parser(doc):
    """The command line every script starts with: its docstring's first
    paragraph as the description, --builddir."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--builddir", default=DEFAULT_BUILDDIR)
    return ap


def rows_parser(doc, boots=None, boots_help="boots per row", only="row keys", timeout=None):
    """new_parser and the options of a script that boots rows of images:
    --boots N (boots_help, default boots; none if boots is None), --only
    (comma-separated `only`), --list, and --timeout SECONDS when timeout
    is (default, help)."""
    ap = new_parser(doc)
    if boots is not None:
        ap.add_argument("--boots", type=int, default=boots, help="%s (%d)" % (boots_help, boots))
    ap.add_argument("--only", help="comma-separated %s (see --list)" % only)
    ap.add_argument("--list", action="store_true")
    if timeout is not None:
        ap.add_argument("--timeout", type=int, default=timeout[0], help=timeout[1])
    return ap


def results_head(started, kver, packages, **more):
    """What every results json starts with: the date the run started (a
    datetime), the kernel, machine, package versions and commit, and the
    command that ran it (`command`: the script and its arguments; `args`:
    the arguments alone, with a leading space, as live.md and roots.md
    say them); more: the script's own fields."""
    args = " ".join(shlex.quote(x) for x in sys.argv[1:])
    res = {"date": started.strftime("%Y-%m-%d %H:%M UTC"), "kernel": kver,
           "machine": machine(), "versions": versions(packages), "commit": commit(),
           "command": "bench/%s%s" % (os.path.basename(sys.argv[0]), " " + args if args else ""),
           "args": " " + args if args else ""}
    res.update(more)
    return res


def parse_args(ap, workdir):
    """Add the options every script ends with (--no-install, --kver,
    --workdir, --out) and parse the command line."""
    ap.add_argument("--no-install", action="store_true", help="skip tools/install-deps.sh")
    ap.add_argument("--kver", help="kernel version (default: newest installed)")
    ap.add_argument("--workdir", default=workdir)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    return ap.parse_args()


def write_results(res, out, name, report, prog):
    """OUT/NAME.json and, by report(res, path), OUT/NAME.md."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(res, f, indent=1)
    md = os.path.join(out, name + ".md")
    report(res, md)
    log("%s: %s" % (prog, md))


def report_head(title, res):
    """A report's title, date, kernel, machine, commit and versions lines."""
    return ["# " + title, "",
            "Date: %s. Kernel: %s. Machine: %s. uniramfs %s." % (
                res["date"], res["kernel"], res["machine"], res["commit"]),
            "Versions: " + ", ".join("%s %s" % kv for kv in res["versions"].items()) + ".", ""]
