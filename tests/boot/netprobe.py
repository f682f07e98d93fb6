#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Probe: do the real servers of netservers.py reach a guest through QEMU
user networking with restrict=on and guestfwd?  Not a boot test of the init
(that waits for issue 11's wiring): a busybox script init (netprobe/init.sh)
mounts NFSv4 with the mount(2) data src/init/net builds, an NBD device and
an iSCSI LUN, each holding a file "hello"; and takes a DHCP lease from
QEMU's own server with src/init/net's client (netprobe/dhcpprobe.c, built
here statically).

    python3 tests/boot/netprobe.py --builddir build [--kver KVER]

Exit 0 when every PROBE line says ok.  The console log is kept as
WORK/netprobe.log.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import netservers  # noqa: E402
import pvh  # noqa: E402

MODULES = "virtio_pci,virtio_net,af_packet,nfs,nfsv4,nbd,iscsi_tcp,sd_mod,ext4"
BINARIES = "busybox,nbd-client,iscsistart"
CHECKS = ("OURDHCP", "DHCP", "NFS", "NBD", "ISCSI")
NET_SOURCES = ("netaddr", "ipconf", "rawudp", "dhcp_msg", "dhcp_client", "netconf")
COMMON_SOURCES = ("util", "cmdline", "log", "err")


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0:
        raise SystemExit("%s failed (%d):\n%s" % (" ".join(cmd), r.returncode, r.stdout))
    return r.stdout


def ext4_with_hello(path, text, tmp):
    top = os.path.join(tmp, os.path.basename(path) + ".d")
    os.makedirs(top)
    with open(os.path.join(top, "hello"), "w") as f:
        f.write(text + "\n")
    with open(path, "wb") as f:
        f.truncate(16 * 1024 * 1024)
    run(["mkfs.ext4", "-q", "-F", "-d", top, path])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", required=True)
    ap.add_argument("--workdir")
    ap.add_argument("--kver", default=None)
    a = ap.parse_args()
    kver = a.kver or sorted(os.listdir("/lib/modules"))[-1]
    work = a.workdir or os.path.join(a.builddir, "netprobe-work")
    os.makedirs(work, exist_ok=True)
    img = os.path.join(work, "netprobe.img")
    src = os.path.dirname(os.path.dirname(HERE))
    probe = os.path.join(work, "dhcpprobe")
    run(["cc", "-static", "-O2", "-std=gnu11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror",
         "-I" + os.path.join(src, "src"), "-I" + os.path.join(src, "src", "common"),
         "-I" + a.builddir, "-o", probe, os.path.join(HERE, "netprobe", "dhcpprobe.c")] +
        [os.path.join(src, "src", "init", "net", f + ".c") for f in NET_SOURCES] +
        [os.path.join(src, "src", "common", f + ".c") for f in COMMON_SOURCES])
    run([os.path.join(a.builddir, "uniramfs"), "build", "-k", kver, "--generic",
         "--init", os.path.join(HERE, "netprobe", "init.sh"),
         "--add-binaries", BINARIES, "--add-modules", MODULES,
         "--add-files", probe + ":/usr/bin/dhcpprobe",
         "--microcode", "none", "--compress", "none", "-o", img])

    with tempfile.TemporaryDirectory(dir=work) as tmp:
        export = os.path.join(tmp, "export")
        os.makedirs(export)
        with open(os.path.join(export, "hello"), "w") as f:
            f.write("hello-nfs\n")
        nbd_img, iscsi_img = os.path.join(tmp, "nbd.img"), os.path.join(tmp, "iscsi.img")
        ext4_with_hello(nbd_img, "hello-nbd", tmp)
        ext4_with_hello(iscsi_img, "hello-iscsi", tmp)
        with netservers.start_nfs(export, tmp) as nfs, \
                netservers.start_nbd(nbd_img, tmp) as nbd, \
                netservers.start_iscsi(iscsi_img, tmp) as iscsi:
            netdev = ",".join(["user,id=n0,restrict=on", nfs.guestfwd(2049),
                               iscsi.guestfwd(3260), nbd.guestfwd(10809)])
            cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "512", "-nographic",
                   "-no-reboot", "-kernel", "/boot/vmlinuz-" + kver, "-initrd", img,
                   "-append", "console=ttyS0 panic=-1 quiet",
                   "-netdev", netdev, "-device", "virtio-net-pci,netdev=n0"]
            print(" ".join(cmd))
            log = os.path.join(work, "netprobe.log")
            with open(log, "w") as out:
                subprocess.run(pvh.argv(cmd), stdout=out, stderr=subprocess.STDOUT, timeout=600,
                               stdin=subprocess.DEVNULL)
    text = open(log, errors="replace").read()
    ok = True
    for c in CHECKS:
        m = re.search(r"PROBE-%s (ok|fail).*" % c, text)
        print(m.group(0).strip() if m else "PROBE-%s: no line" % c)
        if c == "OURDHCP":
            for line in re.findall(r"PROBE-CONF .*", text):
                print("  " + line.strip())
        ok = ok and bool(m) and m.group(1) == "ok"
    if "PROBE-DONE" not in text:
        print("no PROBE-DONE: see " + log)
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
