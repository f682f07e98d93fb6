#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A DKMS module reaches the image (issue 25): with zfs-dkms built for a
kernel (tests/zfs/fetch.py), `uniramfs build` for that kernel packs the
zfs.ko DKMS built, byte for byte, from /lib/modules/KVER/updates/dkms;
and our kernel hook runs after DKMS's.

  1. dkms-module-packed: the image built with the module tree fetch.py
     left (updates/dkms/, depmod'ed) holds lib/modules/KVER/updates/dkms/
     zfs.ko equal to DKMS's output;
  2. dkms-updates-first: a zfs.ko at kernel/extra/ beside it (other
     bytes) does not win: depmod's order, updates/ before kernel/, is
     the generator's too;
  3. hook-after-dkms: /etc/kernel/postinst.d runs in name order
     (run-parts): ours, as data/meson.build installs it, comes after
     dkms's, so the image of a new kernel is made once its DKMS modules
     are built.

  tests/zfs/dkms.py --builddir build
Ends with "N passed, N failed".
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import fetch  # noqa: E402

results = []


def check(name, ok, why=""):
    results.append(ok)
    print("%s %s%s" % ("PASS" if ok else "FAIL", name, "" if ok else ": " + why), flush=True)


def image_module(uniramfs, kver, moddir, work, name):
    img = os.path.join(work, name + ".img")
    out = os.path.join(work, name)
    r = subprocess.run([uniramfs, "build", "-k", kver, "--generic", "--kmoddir", moddir,
                        "--add-modules", "zfs", "--microcode", "none", "--compress", "none",
                        "-o", img], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError("uniramfs build failed:\n" + r.stdout[-2000:])
    subprocess.run([uniramfs, "extract", img, out], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    found = []
    for d, _, files in os.walk(out):
        found += [os.path.join(d, f) for f in files if f.startswith("zfs.ko")]
    return out, found


def module_tests(a, kver, cache):
    moddir = os.path.join(cache, "modules", kver)
    with open(os.path.join(cache, "dkms.ko", "zfs.ko"), "rb") as f:
        dkms_ko = f.read()
    with tempfile.TemporaryDirectory(prefix="uniramfs-dkms-") as work:
        out, found = image_module(a.uniramfs, kver, moddir, work, "plain")
        want = os.path.join(out, "usr/lib/modules", kver, "updates/dkms/zfs.ko")
        alt = os.path.join(out, "lib/modules", kver, "updates/dkms/zfs.ko")
        got = [p for p in (want, alt) if os.path.isfile(p)]
        check("dkms-module-packed", len(found) == 1 and got and open(got[0], "rb").read() == dkms_ko,
              "zfs.ko in the image: %s" % [os.path.relpath(p, out) for p in found])

        # the same tree with a second zfs.ko at kernel/extra/ (hard links
        # but for the files depmod rewrites and the decoy)
        tree = os.path.join(work, "modules", kver)
        os.makedirs(os.path.dirname(tree))
        subprocess.run(["cp", "-al", moddir, tree], check=True)
        for f in os.listdir(tree):
            if f.startswith("modules."):
                p = os.path.join(tree, f)
                data = open(p, "rb").read()
                os.unlink(p)
                open(p, "wb").write(data)
        os.makedirs(os.path.join(tree, "kernel", "extra"))
        with open(os.path.join(tree, "kernel", "extra", "zfs.ko"), "wb") as f:
            f.write(dkms_ko + b"\0not the dkms one")
        base = os.path.join(work, "base")
        os.makedirs(os.path.join(base, "lib", "modules"))
        os.symlink(tree, os.path.join(base, "lib", "modules", kver))
        subprocess.run(["depmod", "-b", base, kver], check=True)
        out, found = image_module(a.uniramfs, kver, tree, work, "decoy")
        datas = [open(p, "rb").read() for p in found]
        check("dkms-updates-first", datas == [dkms_ko],
              "zfs.ko in the image: %s" % [os.path.relpath(p, out) for p in found])


def hook_order_test():
    """The names our kernel hooks are installed under, from data/meson.build."""
    text = open(os.path.join(SRC, "data", "meson.build")).read()
    m = re.search(r"install_data\('kernel/postinst\.d', rename : '([^']+)', "
                  r"install_dir : sysconfdir / 'kernel/postinst\.d'", text)
    if not m:
        check("hook-after-dkms", False, "data/meson.build installs no kernel/postinst.d hook")
        return
    ours = m.group(1)
    # dkms's name: the host's hook if dkms is installed, else Debian 12's
    theirs = "dkms"
    with tempfile.TemporaryDirectory(prefix="uniramfs-hooks-") as d:
        for n in (ours, theirs, "initramfs-tools", "zz-update-grub"):
            p = os.path.join(d, n)
            with open(p, "w") as f:
                f.write("#!/bin/sh\n")
            os.chmod(p, 0o755)
        r = subprocess.run(["run-parts", "--test", d], stdout=subprocess.PIPE, text=True,
                           check=True)
        order = [os.path.basename(x) for x in r.stdout.split()]
    check("hook-after-dkms", theirs in order and ours in order and
          order.index(theirs) < order.index(ours),
          "run-parts order: %s" % order)
    host = "/etc/kernel/postinst.d/dkms"
    if os.path.exists(host):
        check("hook-after-dkms-host-name", os.path.basename(host) < ours,
              "the host's %s does not sort before %s" % (host, ours))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--builddir", default="build")
    a = ap.parse_args()
    a.uniramfs = os.path.abspath(os.path.join(a.builddir, "uniramfs"))
    try:
        kver, _ver, cache = fetch.ensure()
    except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
        check("dkms-module-packed", False, "no ZFS: %s" % e)
    else:
        try:
            module_tests(a, kver, cache)
        except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
            check("dkms-module-packed", False, str(e))
    hook_order_test()
    p = sum(results)
    print("%d passed, %d failed" % (p, len(results) - p))
    return 0 if p == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
