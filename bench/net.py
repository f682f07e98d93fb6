#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmark of network roots: an NFSv4 root, an NFSv3 root and an ext4
root on an iSCSI LUN, booted with uniramfs's image and dracut's (and
mkinitramfs's, for NFSv3 and iSCSI), in one run on one machine.

  bench/net.py [--builddir DIR] [--runs N] [--boots N] [--only ROW:KEY,...]
               [--list] [--out DIR] [--workdir DIR] [--no-install]

The servers are the boot tests' (tests/boot/netservers.py): nfs-ganesha
(NFSv4) and tgtd, on 127.0.0.1, reached by the guest at 10.0.2.100 through
QEMU user networking with restrict=on and a guestfwd rule; a fresh server
for every boot (a guestfwd rule carries one connection for the VM's life),
started before QEMU and not counted.  The NFS export holds the boot tests'
root tree; the LUN is a copy of their ext4 root disk.

The NFSv3 row (nfs3) is served by the boot tests' server VM
(tests/boot/servervm.py: kernel nfsd in a second QEMU VM exporting their
ext4 root disk, the guest's only NIC a socket netdev to it), a fresh one
for every boot, started and ready before the guest's QEMU and not
counted; the guest takes a static address (ip=...:off, as the boot
tests' nfs3-static scenario).

For each generator: build wall time (median, min, max of --runs builds,
after one untimed warm-up), image size, files and entries (`uniramfs ls`),
and over --boots QEMU TCG boots (one at a time) the init time as
bench/run.py defines it: the root's /sbin/init prints /proc/uptime, minus
the kernel's "Run /init as init process" timestamp; PASS/FAIL as
tests/boot/run.py judges any boot (the root's init ran as PID 1 from an
nfs4 or ext4 root).  The ratios are uniramfs's number over the other's.

mkinitramfs has no NFSv4 row: initramfs-tools's NFS boot (BOOT=nfs, klibc's
nfsmount) speaks NFSv2/v3 only, and ganesha cannot serve v3 here (it needs
rpcbind for MOUNT, which the guest could not reach through one guestfwd
connection anyway); its nfs3 row builds with a private copy of
/etc/initramfs-tools saying BOOT=nfs (mkinitramfs -d).  Its iSCSI boot is open-iscsi's initramfs hook and
local-top script, which every mkinitramfs image on this host carries
(the hook runs unless /etc/initramfs-tools/conf.d/open-iscsi says
NO_ISCSI_IN_INITRAMFS=yes), driven by iscsi_* kernel parameters: no file
under /etc is needed or touched.

The bonded iSCSI row (bond-iscsi) and the IPv6 NFS row (nfs6) are
served by the server VM too: bond-iscsi's target is its tgtd (the ext4
root disk as LUN 1 of IQN, sv.iscsi), the guest's two NICs bonded
active-backup (bond=bond0:eth0,eth1, DHCP on bond0 from the server VM's
udhcpd), eth0 on the server's wire and eth1 on a QEMU user network with
restrict=on that leads nowhere; nfs6's server has IPv6 on (fd00::1/64)
and the guest a static IPv6 address (dracut's bracketed ip=), the root
NFSv4 over IPv6.  Both rows are booted on two clocks (--clocks): TCG
seconds, as the other rows, and QEMU's instruction clock (-icount
shift=0: the guest's clock counts its own instructions, so the load of
the machine does not reach its numbers).

Writes OUT/net.md and OUT/net.json.
"""

import dataclasses
import datetime
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True     # no __pycache__ in bench/ or tests/boot/
import common  # noqa: E402  bench/common.py; it puts tests/boot on sys.path
from common import boottest, log, HERE, image_stats, init_times  # noqa: E402
import disks  # noqa: E402
import netservers  # noqa: E402
import scenarios_net  # noqa: E402
import serialtext  # noqa: E402
import servervm  # noqa: E402

SERVER = netservers.GUEST_ADDR
IQN = netservers.ISCSI_IQN
LUN = netservers.ISCSI_LUN
LOCAL = scenarios_net.LOCAL
INITIATOR = "iqn.2026-12.test.uniramfs:bench"
NIC = ["-device", "virtio-net-pci,netdev=n0"]
VERSIONS = ("dracut-core", "dracut-network", "initramfs-tools", "open-iscsi", "nfs-ganesha",
            "nfs-common", "tgt", "qemu-system-x86")
V3_SERVER, V3_EXPORT = servervm.SERVER_ADDR, servervm.EXPORT
V3_IP = "ip=%s::%s:%s::eth0:off" % (servervm.STATIC, V3_SERVER, servervm.NETMASK)
# udev in mkinitramfs's and dracut's images renames eth0 (ens3...); ip= names it
KEEP_ETH0 = "net.ifnames=0"
V6_SERVER = servervm.SERVER_ADDR6
V6_IP = "ip=[fd00::2]:::%d::eth0:none" % servervm.PREFIX6
BOND = "bond=bond0:eth0,eth1:mode=active-backup,miimon=100 ip=bond0:dhcp"
BOND_MAC2 = "52:54:00:64:00:0b"     # the second NIC's (the first is servervm's GUEST_MAC)
ICOUNT = ["-icount", "shift=0"]
# rows booted on both clocks by default (the others on TCG seconds only)
TWO_CLOCKS = ("bond-iscsi", "nfs6")
ROWS = ("nfs", "nfs3", "iscsi", "bond-iscsi", "nfs6")
DRACUT_ISCSI_SKIP = (
    "dracut 059's iscsiroot.sh always asks the portal for its targets (iscsiadm -m "
    "discovery -t st) before it logs in through iscsid: two TCP connections, and the "
    "guestfwd rule that reaches tgtd carries one for the VM's life; and iscsid does "
    "not start (below)")
# seen in the bond-iscsi boot's log (bench/work/net/logs/bond-iscsi-dracut-0.log)
DRACUT_ISCSID = (
    "It fails on Debian 12: Debian's iscsid.service runs ExecStartPre="
    "/lib/open-iscsi/startup-checks.sh, which dracut 059's iscsi module does not pack, so "
    "iscsid never starts and the discovery fails (\"iscsiadm: Cannot perform discovery. "
    "Initiatorname required.\"); the bond itself came up (both slaves enslaved, DHCP on "
    "bond0). Not booted on the icount clock after that")
LEGACY = ("network-legacy (dhclient): with dracut's default handler on this host, "
          "systemd-networkd, the boot stops after network.target and never mounts the "
          "NFS root (two trial boots: the second was still there after 4 minutes)")


@dataclasses.dataclass
class Gen:
    row: str            # nfs | nfs3 | iscsi
    key: str
    label: str
    cmd: list           # the build command; {out} is the image
    cmdline: str        # the kernel parameters for its root
    ours: bool = False
    note: str = ""
    skip: str = ""      # why it is not run unless --only names it

    @property
    def id(self):
        return "%s:%s" % (self.row, self.key)


def generators(uniramfs, kver, work):
    u = [uniramfs, "build", "-k", kver, "-o", "{out}", "--config", "/dev/null", "--generic"]
    nfs = "nfs4:%s:%s" % (SERVER, netservers.NFS_PSEUDO)
    bond_iscsi = "root=UUID=%s netroot=iscsi:%s::3260:1:%s rd.iscsi.initiator=%s %s %s" % (
        LOCAL.uuid, V3_SERVER, IQN, INITIATOR, BOND, KEEP_ETH0)
    nfs6 = "root=nfs4:[%s]:%s %s %s" % (V6_SERVER, V3_EXPORT, V6_IP, KEEP_ETH0)
    iscsi = "iscsi:%s::3260:%d:%s" % (SERVER, LUN, IQN)
    root = "root=UUID=" + LOCAL.uuid
    return [
        Gen("nfs", "uniramfs-generic", "uniramfs --generic", u, "root=" + nfs, ours=True),
        Gen("nfs", "dracut", "dracut --no-hostonly --add \"nfs network-legacy\"",
            ["dracut", "--no-hostonly", "--add", "nfs network-legacy", "--force", "--kver", kver,
             "{out}"],
            "root=%s ip=dhcp" % nfs,
            note="dracut-network's nfs module; ip=dhcp because dracut brings the "
                 "network up only when asked; " + LEGACY),
        Gen("nfs3", "uniramfs-generic", "uniramfs --generic", u,
            "root=/dev/nfs nfsroot=%s:%s,vers=3 %s" % (V3_SERVER, V3_EXPORT, V3_IP), ours=True),
        Gen("nfs3", "dracut", "dracut --no-hostonly --add \"nfs network-legacy\"",
            ["dracut", "--no-hostonly", "--add", "nfs network-legacy", "--force", "--kver", kver,
             "{out}"],
            "root=nfs:%s:%s:vers=3 rd.neednet=1 %s %s" % (V3_SERVER, V3_EXPORT, V3_IP, KEEP_ETH0),
            note="dracut-network's nfs module, in dracut's own root=nfs:SERVER:PATH:OPTS "
                 "syntax; %s so that ip= finds eth0; network-legacy (dhclient) as in "
                 "the nfs row" % KEEP_ETH0),
        Gen("nfs3", "mkinitramfs", "mkinitramfs MODULES=most BOOT=nfs",
            ["mkinitramfs", "-d", common.itools_conf(work, "itools-conf-nfs", MODULES="most",
                                                     BOOT="nfs"), "-o", "{out}",
             kver],
            "root=/dev/nfs nfsroot=%s:%s,vers=3 %s %s" % (V3_SERVER, V3_EXPORT, V3_IP, KEEP_ETH0),
            note="CONF: a copy of /etc/initramfs-tools with MODULES=most and BOOT=nfs: "
                 "its scripts/nfs configures the NIC with klibc's ipconfig from ip= and "
                 "mounts nfsroot= with klibc's nfsmount; %s so that ip= finds eth0" % KEEP_ETH0),
        Gen("iscsi", "uniramfs-generic", "uniramfs --generic", u,
            "%s netroot=%s rd.iscsi.initiator=%s" % (root, iscsi, INITIATOR), ours=True),
        Gen("iscsi", "dracut", "dracut --no-hostonly --add \"iscsi network-legacy\"",
            ["dracut", "--no-hostonly", "--add", "iscsi network-legacy", "--force", "--kver", kver,
             "{out}"],
            "%s netroot=%s rd.iscsi.initiator=%s ip=dhcp" % (root, iscsi, INITIATOR),
            note="dracut-network's iscsi module; " + LEGACY,
            skip=DRACUT_ISCSI_SKIP),
        Gen("iscsi", "mkinitramfs", "mkinitramfs MODULES=most + open-iscsi",
            ["mkinitramfs", "-d", common.itools_conf(work, "itools-conf", MODULES="most"), "-o",
             "{out}", kver],
            "%s ip=dhcp iscsi_target_name=%s iscsi_target_ip=%s iscsi_initiator=%s" % (
                root, IQN, SERVER, INITIATOR),
            note="CONF: a copy of /etc/initramfs-tools with MODULES=most; open-iscsi's "
                 "hook (/usr/share/initramfs-tools/hooks/iscsi) adds iscsistart and "
                 "its local-top script logs in from the iscsi_* parameters"),
        Gen("bond-iscsi", "uniramfs-generic", "uniramfs --generic", u, bond_iscsi, ours=True),
        Gen("bond-iscsi", "dracut", "dracut --no-hostonly --add \"iscsi network-legacy\"",
            ["dracut", "--no-hostonly", "--add", "iscsi network-legacy", "--force", "--kver", kver,
             "{out}"],
            bond_iscsi,
            note="dracut-network's iscsi module with its bond= (network-legacy's ifup); the "
                 "same command line as ours; %s so that bond= finds eth0 and eth1. %s"
                 % (KEEP_ETH0, DRACUT_ISCSID)),
        Gen("nfs6", "uniramfs-generic", "uniramfs --generic", u, nfs6, ours=True),
        Gen("nfs6", "dracut", "dracut --no-hostonly --add \"nfs network-legacy\"",
            ["dracut", "--no-hostonly", "--add", "nfs network-legacy", "--force", "--kver", kver,
             "{out}"],
            nfs6,
            note="dracut-network's nfs module, the same command line as ours (dracut's "
                 "bracketed IPv6 ip= and root=nfs4:[SERVER]:PATH); %s so that ip= finds "
                 "eth0" % KEEP_ETH0),
    ]


def build(g, img, work, runs):
    """One warm-up build (its output kept), then runs timed builds."""
    cmd = [a.replace("{out}", img) for a in g.cmd]
    res, warm = common.build_once(cmd, img, os.path.join(work, "build-%s-%s.log" % (g.row,
                                                                                   g.key)))
    if "build_error" in res:
        return res
    warm = round(warm, 3)
    times = [] if runs else [warm]     # --runs 0: the warm-up's time
    for _ in range(runs):
        t = time.monotonic()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(round(time.monotonic() - t, 3))
    res["build"] = {"median": statistics.median(times), "min": min(times),
                    "max": max(times), "times": times}
    return res


def start_vm(env, work, disk, name, **kw):
    """servervm.start, again when its kernel panicked in the timer check
    of a busy host (as boottest.boot does for the guest)."""
    for i in range(serialtext.BOOT_TRIES):
        try:
            return servervm.start(env, work, disk, name, **kw)
        except RuntimeError as e:
            if i == serialtext.BOOT_TRIES - 1 or not serialtext.host_too_slow(str(e)):
                raise
            log("  the server VM's timer check failed on a busy host: starting it again")


def server(row, testinit, work, tmp, env):
    """The row's server, fresh, and the guest's QEMU network arguments."""
    if row in ("nfs3", "bond-iscsi", "nfs6"):
        disk = disks.ensure(LOCAL, testinit, work)
        if row == "bond-iscsi":
            s = start_vm(env, work, disk, "bench-" + row, iscsi=IQN)
            return s, s.guest_nic() + ["-netdev", "user,id=n1,restrict=on", "-device",
                                       "virtio-net-pci,netdev=n1,mac=" + BOND_MAC2]
        s = start_vm(env, work, disk, "bench-" + row, ipv6=row == "nfs6")
        return s, s.guest_nic()
    if row == "nfs":
        export = os.path.join(tmp, "export")
        if not os.path.isdir(export):
            disks._populate(export, testinit)
        s, port = netservers.start_nfs(export, tmp), 2049
    else:
        lun = os.path.join(tmp, "lun.img")
        shutil.copyfile(disks.ensure(LOCAL, testinit, work), lun)
        s, port = netservers.start_iscsi(lun, tmp, initiator=INITIATOR), 3260
    return s, ["-netdev", "user,id=n0,restrict=on," + s.guestfwd(port)] + NIC


def judge(row):
    """The boot tests' scenario for the row, without its uniramfs-only
    log expectations: check() then asks what it asks of any image."""
    name = {"nfs": "nfs-dhcp", "nfs3": "nfs3-static", "iscsi": "iscsi-chap",
            "bond-iscsi": "ipv6-auto6-iscsi", "nfs6": "ipv6-static-nfs"}[row]
    sc = next(s for s in boottest.SCENARIOS if s.name == name)
    return dataclasses.replace(sc, log_expect=(), log_absent=(), expect=())


# dracut has given up (its emergency shell waits then): the boot is over
DRACUT_GAVE_UP = ("Entering emergency mode",)
# what dracut and its tools say when a network root does not come
DRACUT_SAYS = re.compile(r"^.*(?:dracut[-\w]*(?:\[\d+\])?: .*(?:[Ww]arning|[Ee]rror|[Ff]ail|"
                         r"[Cc]ould not|[Cc]annot)|iscsiadm: .*|dhclient.*(?:[Ee]rror|[Ff]ail).*|"
                         r"mount(?:\.nfs4?)?: .*(?:failed|denied|refused|timed out).*).*$", re.M)


def foreign_why(text):
    """The last few things dracut's boot said went wrong (its own words), for
    a row that failed: the kernel's timestamps and escapes stripped."""
    said = []
    for m in DRACUT_SAYS.finditer(text):
        line = re.sub(r"^\[\s*[\d.]+\]\s*", "", re.sub(r"\x1b\[[\d;]*m", "", m.group(0))).strip()
        if line and line not in said:
            said.append(line)
    return "; ".join(said[-3:])


def boots(g, img, vmlinuz, testinit, n, work, env, clock="tcg"):
    sc = judge(g.row)
    cmdline = " ".join((boottest.BASE_CMDLINE, "printk.time=1", g.cmdline))
    out = []
    for i in range(n):
        logf = os.path.join(work, "logs", "%s-%s-%s%d.log" % (
            g.row, g.key, "icount-" if clock == "icount" else "", i))
        tmp = tempfile.mkdtemp(prefix="srv-", dir=work)
        try:
            s, nic = server(g.row, testinit, work, tmp, env)
            with s:
                text, dt, timed_out, missed = boottest.boot(
                    vmlinuz, img, [], "virtio", cmdline, logf,
                    stop_on=() if g.ours else DRACUT_GAVE_UP,
                    extra=nic + (ICOUNT if clock == "icount" else []))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        err = boottest.check(sc, text, timed_out, ours=g.ours, missed=missed)
        if err is not None and not g.ours:
            why = foreign_why(text)
            err += " — dracut said: %s" % why if why else ""
        b = common.boot_record(text, dt, err, logf)
        b["clock"] = clock
        out.append(b)
        log("  %-6s %-40s %s boot %d: %s%s" % (g.row, g.label, clock, i + 1, "PASS" if err is None
                                                 else "FAIL (%s)" % err,
                                                 "  init %.2f s" % b["init"] if "init" in b else ""))
        if err is not None:
            break   # one failure is the result
    return out


def ratio(a, b):
    return "%.2f" % (a / b) if a is not None and b else "-"


def report(res, path):
    L = common.report_head("Network roots: uniramfs, dracut and mkinitramfs side by side",
                           res) + [
         "Servers on 127.0.0.1 (tests/boot/netservers.py), reached by the guest at %s "
         "through QEMU user networking (restrict=on, guestfwd), one fresh server per boot. "
         "**nfs**: nfs-ganesha, NFSv4, the boot tests' root tree at `%s`. **iscsi**: tgtd, "
         "a copy of the boot tests' ext4 root disk as LUN %d of `%s`, open only to the "
         "initiator `%s`. Build: median (min–max) of %d builds after a warm-up. Init: guest "
         "uptime at the real init minus the kernel's `Run /init` timestamp, median (min–max) "
         "of %d QEMU TCG boots. Ratios: uniramfs over the other. Made by `bench/net.py%s`." % (
             SERVER, netservers.NFS_PSEUDO, LUN, IQN, INITIATOR, res["runs"], res["boots"],
             res["args"]), "",
         "**nfs3**: kernel nfsd (NFSv3) in the boot tests' server VM (tests/boot/servervm.py), "
         "exporting their ext4 root disk at `%s` from %s; the guest's only NIC is a socket "
         "netdev to it, the guest's address static (`%s`); a fresh server VM per boot, ready "
         "before the guest starts, not counted." % (V3_EXPORT, V3_SERVER, V3_IP), "",
         "**bond-iscsi**: the server VM's tgtd, the same ext4 root disk as LUN 1 of `%s`; the "
         "guest's two NICs bonded (`%s`): eth0 on the server VM's wire, eth1 on a QEMU user "
         "network (restrict=on) that leads nowhere; DHCP on bond0 from the server VM. "
         "**nfs6**: the server VM with IPv6 (`%s/%d`), the root NFSv4 over IPv6, the guest's "
         "address static (`%s`). A fresh server VM per boot, not counted. These rows are "
         "booted on two clocks: TCG seconds as the others (**init time**) and QEMU's "
         "instruction clock, `-icount shift=0` (**init, icount**: guest seconds at one "
         "instruction a nanosecond, the same whatever the machine's load)." % (
             IQN, BOND, V6_SERVER, servervm.PREFIX6, V6_IP), ""]
    runs = sorted({g["run"] for g in res["generators"] if g.get("run")})
    if len(runs) > 1:
        L += ["Rows from more than one run (`--merge`; the date above is the last's):", ""]
        L += ["- %s: %s" % (r, ", ".join("%s:%s" % (g["row"], g["key"]) for g in res["generators"]
                                         if g.get("run") == r)) for r in runs]
        L.append("")
    L += [
         "| root | generator | build | image size | files | init time | init, icount | boot |",
         "| --- | --- | ---: | ---: | ---: | --- | --- | --- |"]
    for g in res["generators"]:
        b = g.get("build")
        bt = "%.2f s (%.2f–%.2f)" % (b["median"], b["min"], b["max"]) if b else "-"
        size, files, t, _ = common.report_cells(g)
        ti = common.report_cells({"boots": g.get("boots_icount", [])})[2]
        verdict = common.report_cells(dict(g, boots=g.get("boots", []) +
                                           g.get("boots_icount", [])))[3]
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            g["row"], g["label"], bt, size, files, t, ti, verdict))
    L += ["", "| root | uniramfs / | build | size | init | init, icount |",
          "| --- | --- | ---: | ---: | ---: | ---: |"]
    for row in ROWS:
        gs = [g for g in res["generators"] if g["row"] == row]
        us = next((g for g in gs if g["key"].startswith("uniramfs")), None)
        if not us:
            continue
        for o in gs:
            if o is us:
                continue
            def med(g, k):
                if k in ("init", "icount"):
                    t = init_times(g if k == "init" else {"boots": g.get("boots_icount", [])})
                    return statistics.median(t) if t else None
                if k == "build":
                    return g["build"]["median"] if "build" in g else None
                return g.get(k)
            L.append("| %s | %s | %s | %s | %s | %s |" % (
                row, o["label"], *(ratio(med(us, k), med(o, k)) for k in ("build", "size",
                                                                           "init", "icount"))))
    for g in res.get("skipped", []):
        L += ["", "Not run: %s, %s: %s." % (g["row"], g["label"], g["why"])]
    if not any(g["row"] == "nfs" and g["key"] == "mkinitramfs" for g in res["generators"]):
        L += ["", "No mkinitramfs NFSv4 row: initramfs-tools's NFS boot (`BOOT=nfs`, klibc's "
              "`nfsmount`) mounts NFSv2/v3 only, and the host's ganesha serves NFSv4 only "
              "(v3 needs rpcbind and MOUNT, which a guestfwd rule carrying one connection "
              "cannot carry either); the nfs3 row is its NFS boot, on the server VM's kernel nfsd."]
    L += ["", "Commands (KVER = %s); the kernel command line is `%s printk.time=1` and:" % (
        res["kernel"], boottest.BASE_CMDLINE), ""]
    for g in res["generators"]:
        L.append("- **%s, %s**: `%s`; `%s`%s" % (g["row"], g["label"], g["command"],
                                                 g["cmdline"],
                                                 ". " + g["note"] if g.get("note") else ""))
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


def run_name(date, commit, args):
    return "%s, uniramfs %s, `bench/net.py%s`" % (date, commit, args)


def merged(path, results, skipped, gens):
    """This run's rows and not-run notes with those of the earlier run at
    path that this run did not make, in the order of gens."""
    with open(path) as f:
        prev = json.load(f)
    made = {(r["row"], r["key"]) for r in results} | {(g["row"], g["key"]) for g in skipped}
    for g in prev["generators"]:
        if (g["row"], g["key"]) not in made:
            g.setdefault("run", run_name(prev["date"], prev["commit"], prev["args"]))
            results = results + [g]
    skipped = skipped + [g for g in prev.get("skipped", []) if (g["row"], g["key"]) not in made]
    order = {(g.row, g.key): i for i, g in enumerate(gens)}
    def key(g):
        return order.get((g["row"], g["key"]), len(order))
    return sorted(results, key=key), sorted(skipped, key=key)


def main():
    ap = common.new_parser(__doc__)
    ap.add_argument("--runs", type=int, default=3, help="timed builds per generator (3; 0: time the warm-up)")
    ap.add_argument("--boots", type=int, default=3, help="TCG boots per image (3)")
    ap.add_argument("--only", help="comma-separated ROW:KEY (see --list)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--clocks", help="tcg, icount or tcg,icount: the clocks every row is booted "
                    "on (default: tcg, and both for %s)" % ", ".join(TWO_CLOCKS))
    ap.add_argument("--timeout", type=int, default=600,
                    help="seconds per boot (600: dracut's systemd boot takes 1-4 minutes "
                         "under TCG on a loaded machine; a dracut that gives up ends the "
                         "boot at its emergency shell)")
    ap.add_argument("--reuse", action="store_true",
                    help="boot the images of the last run, without building (no build times)")
    ap.add_argument("--merge", action="store_true",
                    help="keep the rows of OUT/net.json that this run does not make (with "
                         "their run's date and arguments)")
    a = common.parse_args(ap, os.path.join(HERE, "work", "net"))

    builddir, uniramfs, kver, vmlinuz, work = common.setup(a)

    gens = all_gens = generators(uniramfs, kver, work)
    skipped = []
    if a.list:
        for g in gens:
            print("%-22s %s\n%22s kernel: %s" % (g.id, " ".join(shlex.quote(x) for x in g.cmd),
                                                 "", g.cmdline))
        return 0
    if a.only:
        gens = common.pick(gens, a.only, lambda g: g.id, "bench/net.py")
    else:
        for g in gens:
            if g.skip:
                log("bench/net.py: not running %s: %s" % (g.id, g.skip))
        skipped = [g for g in gens if g.skip]
        gens = [g for g in gens if not g.skip]
    # nfs3, bond-iscsi, nfs6: the server VM's own
    for kind in sorted({g.row for g in gens} - {"nfs3", "bond-iscsi", "nfs6"}):
        if not netservers.available(kind):
            sys.exit("bench/net.py: no %s server (%s) installed" % (kind,
                                                                  netservers.TOOLS[kind]))

    boottest.BOOT_TIMEOUT = a.timeout
    # a loaded machine took more than servervm's 180 s to start the server VM
    servervm.START_TIMEOUT = max(servervm.START_TIMEOUT, a.timeout)
    started = datetime.datetime.now(datetime.timezone.utc)
    testinit = boottest.find_testinit(builddir, work)
    env = {"kver": kver, "vmlinuz": vmlinuz, "uniramfs": uniramfs}    # servervm.start's
    log("bench/net.py: kernel %s, %d builds and %d boots per image" % (kver, a.runs, a.boots))
    results = []
    for g in gens:
        img = os.path.join(work, "img", "%s-%s.img" % (g.row, g.key))
        r = {"row": g.row, "key": g.key, "label": g.label, "cmdline": g.cmdline,
             "note": g.note}
        if a.reuse and os.path.isfile(img):
            r["command"] = " ".join(shlex.quote(x.replace("{out}", img)) for x in g.cmd)
        else:
            if os.path.exists(img):
                os.unlink(img)
            r.update(build(g, img, work, a.runs))
        if "build_error" in r:
            log("  %-6s %-40s build FAILED: %s" % (g.row, g.label, r["build_error"]))
        else:
            r.update(image_stats(img, uniramfs))
            log("  %-6s %-40s build %s: %.1f MB, %s files" % (
                g.row, g.label, "%.1f s (median of %d)" % (r["build"]["median"], a.runs)
                if "build" in r else "reused", r["size"] / 1e6, r.get("files", "?")))
            clocks = a.clocks.split(",") if a.clocks else \
                ["tcg", "icount"] if g.row in TWO_CLOCKS else ["tcg"]
            r["boot_pass"] = True
            for clock in clocks:
                key = "boots" if clock == "tcg" else "boots_icount"
                r[key] = boots(g, img, vmlinuz, testinit, a.boots, work, env, clock)
                r["boot_pass"] &= len(r[key]) == a.boots and all(b["pass"] for b in r[key])
                if not r["boot_pass"]:
                    break   # one failure is the result
        results.append(r)

    res = common.results_head(started, kver, VERSIONS, runs=a.runs, boots=a.boots)
    for r in results:
        r["run"] = run_name(res["date"], res["commit"], res["args"])
    skipped = [{"row": g.row, "key": g.key, "label": g.label, "why": g.skip} for g in skipped]
    old = os.path.join(a.out, "net.json")
    if a.merge and os.path.exists(old):
        results, skipped = merged(old, results, skipped, all_gens)
    res.update(generators=results, skipped=skipped)
    common.write_results(res, a.out, "net", report, "bench/net.py")
    return 0 if all(r.get("boot_pass") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
