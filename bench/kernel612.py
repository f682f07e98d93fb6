#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Bench row for Debian 13's 6.12 kernel: `uniramfs build --generic` against
mkinitramfs (initramfs-tools, MODULES=most) for the same kernel, build time
(hyperfine) and size.

The kernel is tests/kernels/fetch.py's (apt-get download of trixie's
linux-image-amd64, unpacked in the cache; nothing is installed).
uniramfs takes it with --kmoddir.  mkinitramfs has no such option: it
reads /lib/modules/KVER (and /boot/config-KVER) itself, so it runs in a
private mount namespace (unshare -m) where the unpacked /usr/lib/modules
and /boot are bind-mounted over the host's; nothing changes outside it.
Both use this host's (Debian 12) tools.

  bench/kernel612.py [--builddir BUILD] [--runs N] [--flavour amd64]

Writes bench/results/kernel612.md and .json.
"""

import argparse
import json
import os
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(SRCDIR, "tests", "kernels"))
sys.dont_write_bytecode = True
import run as bench  # noqa: E402  bench/run.py: Gen, itools_confdirs, measure_build/image
import fetch  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--builddir", default=os.path.join(SRCDIR, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--flavour", default="amd64", choices=fetch.FLAVOURS)
    ap.add_argument("--cache", default=fetch.CACHE)
    ap.add_argument("--workdir", default=os.path.join(HERE, "work", "kernel612"))
    a = ap.parse_args()
    work = os.path.abspath(a.workdir)
    os.makedirs(os.path.join(work, "img"), exist_ok=True)
    uniramfs = os.path.join(os.path.abspath(a.builddir), "uniramfs")
    k = fetch.kernel(a.cache, a.flavour)
    root = os.path.dirname(os.path.dirname(os.path.dirname(k["kmoddir"])))  # .../usr
    kver = k["kver"]
    bench.itools_confdirs(work)
    ns = ("unshare -m --propagation private sh -c %s" % shlex.quote(
        "mount --bind %s /usr/lib/modules && mount --bind %s /boot && exec mkinitramfs -d %s -o {out} %s"
        % (shlex.quote(os.path.join(root, "lib/modules")),
           shlex.quote(os.path.join(os.path.dirname(root), "boot")),
           shlex.quote(os.path.join(work, "itools-most")), kver)))
    table = [
        ("uniramfs-generic-6.12", "uniramfs --generic",
         "%s build -k %s --kmoddir %s -o {out} --config /dev/null --generic"
         % (shlex.quote(uniramfs), kver, shlex.quote(k["kmoddir"]))),
        ("mkinitramfs-most-6.12", "mkinitramfs MODULES=most", ns),
    ]
    rows = []
    for key, label, cmd in table:
        img = os.path.join(work, "img", key + ".img")
        g = bench.Gen(key, label, cmd.replace("{out}", img), "generic", img, False)
        bench.measure_build(g, a.runs, work)
        bench.measure_image(g, uniramfs)
        rows.append(g.res)
    out = os.path.join(HERE, "results", "kernel612")
    with open(out + ".json", "w") as f:
        json.dump({"kernel": kver, "package": k["package"], "version": k["version"],
                   "results": rows}, f, indent=1)
    with open(out + ".md", "w") as f:
        f.write("# Kernel %s (%s %s), generic images\n\n" % (kver, k["package"], k["version"]))
        f.write("`bench/kernel612.py --runs %d` on %s\n\n" % (a.runs, bench.machine().get("cpu", "?")))
        f.write("| generator | build median (min-max) | size | entries |\n| --- | --- | --- | --- |\n")
        for r in rows:
            b = r.get("build")
            f.write("| %s | %s | %s | %s |\n" % (
                r["label"],
                "%.2f s (%.2f-%.2f)" % (b["median"], b["min"], b["max"]) if b else
                "failed: " + r.get("build_error", "?"),
                "%.1f MB" % (r["size"] / 1e6) if "size" in r else "-",
                r.get("entries", "-")))
    print(open(out + ".md").read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
