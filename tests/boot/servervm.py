# SPDX-License-Identifier: GPL-2.0-or-later
"""A server VM for the network-root boots the host cannot serve (issue 11).

The host's NFS server (nfs-ganesha, netservers.py) speaks v4 only: v3 needs
rpcbind, which cannot be bound to loopback alone; and QEMU's slirp DHCP
sends no root-path (option 17).  So these servers run in a second QEMU VM,
booted with the same distribution kernel, whose initramfs our generator
makes (`uniramfs build --init servervm/init.sh`, as builder.py does): busybox
(udhcpd with `opt rootpath`, ip), the kernel's nfsd, rpcbind, rpcinfo,
nbd-server, tgtd and tgtadm from the host, and rpc.nfsd, rpc.mountd and exportfs from Debian's
nfs-kernel-server, which is never installed on the host (its services would
start and listen on every address): `apt-get download` fetches it once into
CACHE/nfs-kernel-server/VERSION/ (CACHE: $UNIRAMFS_TEST_CACHE, default
/var/cache/uniramfs-tests), the version of the host's nfs-common, whose
libraries it uses.

The two VMs share one virtual wire and nothing else: the server's NIC is
`-netdev socket,listen=127.0.0.1:PORT` and the guest's is
`-netdev socket,connect=127.0.0.1:PORT` (guest_nic()), with no user
networking at all, so no packet can leave.  SERVER_ADDR and the DHCP pool
exist only on that wire.  The server exports the test root (the ext4 disk
of disks.py, attached read-only) at EXPORT over NFSv3 and v4 and prints
SERVERVM-READY on its console (WORK/logs/servervm-NAME.log) once rpcbind
lists nfs and mountd v3; only then does the guest boot.

    with start(env, work, disk, "name", rootpath="192.168.100.1:/srv/root") as s:
        boot the guest with s.guest_nic()
"""

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

import netservers
import pvh
import serialtext

HERE = os.path.dirname(os.path.abspath(__file__))
INIT = os.path.join(HERE, "servervm", "init.sh")
CACHE = os.environ.get("UNIRAMFS_TEST_CACHE", "/var/cache/uniramfs-tests")
START_TIMEOUT = 180     # seconds to SERVERVM-READY; ~15 s under TCG when idle

SERVER_ADDR = "192.168.100.1"
PREFIX = 24
NETMASK = "255.255.255.0"
POOL = "192.168.100.10"          # udhcpd's only address: the guest's lease
STATIC = "192.168.100.2"         # the guest's address for ip= scenarios
NEXT_SERVER = "192.168.100.3"    # a second address of the server, for siaddr
EXPORT = "/srv/root"
# ipv6=True (scenarios_ipv6.py): the server's IPv6 address on the wire, and
# the one address its DHCPv6 server hands out; router advertisements
# (dnsmasq) offer the /64 for SLAAC too, with the server as DNS.
SERVER_ADDR6 = "fd00::1"
PREFIX6 = 64
POOL6 = "fd00::10"
SERVER_MAC = "52:54:00:64:00:01"
GUEST_MAC = "52:54:00:64:00:0a"  # QEMU gives both VMs the same MAC otherwise

NFSD_TOOLS = ("rpc.nfsd", "rpc.mountd", "exportfs")
BINARIES = ("busybox", "rpcbind", "rpcinfo", "nbd-server", "tgtd", "tgtadm",
            "/usr/sbin/dnsmasq")   # dnsmasq-base: RAs and DHCPv6 (ipv6=True)
MODULES = ("virtio_pci", "virtio_net", "virtio_blk", "crc32c_generic", "ext4", "nfsd",
           "nvmet", "nvmet_tcp",   # nvmet=True only
           "8021q")                # vlan=ID only
NVMET_NQN = "nqn.2026-12.org.uniramfs:root"   # the subsystem nvmet=True serves
NVMET_PORT = 4420
# What libtirpc, rpcbind and glibc read; init.sh writes the rest of /etc.
ETC = ("/etc/services", "/etc/protocols", "/etc/netconfig", "/etc/rpc")

_lock = threading.Lock()


def _run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s" % (" ".join(cmd), r.returncode, r.stdout[-3000:]))
    return r.stdout


def _nfs_utils_version():
    """The version to fetch: the host's nfs-common (its libnfsidmap and
    the rest match), else apt's candidate."""
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "nfs-common"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if r.returncode == 0 and r.stdout.strip():
        return r.stdout.strip()
    m = re.search(r"^\s*Candidate:\s*(\S+)", _run(["apt-cache", "policy", "nfs-kernel-server"]), re.M)
    if not m or m.group(1) == "(none)":
        raise RuntimeError("apt knows no nfs-kernel-server (apt-get update?)")
    return m.group(1)


def nfsd_tools():
    """The directory holding rpc.nfsd, rpc.mountd and exportfs: the host's
    own if nfs-kernel-server is installed, else the cached download."""
    if all(os.access(os.path.join("/usr/sbin", t), os.X_OK) for t in NFSD_TOOLS):
        return "/usr/sbin"
    ver = _nfs_utils_version()
    top = os.path.join(CACHE, "nfs-kernel-server")
    final = os.path.join(top, re.sub(r"[^A-Za-z0-9.+~-]", "_", ver))
    sbin = os.path.join(final, "root", "usr", "sbin")
    with _lock:
        if all(os.access(os.path.join(sbin, t), os.X_OK) for t in NFSD_TOOLS):
            return sbin
        os.makedirs(top, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".fetch-", dir=top)
        try:
            _run(["apt-get", "download", "-q", "nfs-kernel-server=" + ver], cwd=tmp)
            debs = [f for f in os.listdir(tmp) if f.endswith(".deb")]
            if len(debs) != 1:
                raise RuntimeError("apt-get download nfs-kernel-server=%s left %s" % (ver, debs))
            _run(["dpkg-deb", "-x", os.path.join(tmp, debs[0]), os.path.join(tmp, "root")])
            os.rename(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            if not all(os.access(os.path.join(sbin, t), os.X_OK) for t in NFSD_TOOLS):
                raise
            return sbin     # another run's fetch got there first
        print("  fetched nfs-kernel-server %s into %s" % (ver, final), flush=True)
    return sbin


def image(env, work):
    """WORK/servervm.img, made again when its inputs change (a hash of
    init.sh, the generator binary, the kernel and the tools' directory)."""
    sbin = nfsd_tools()
    out = os.path.join(work, "servervm.img")
    h = hashlib.sha256()
    for f in (INIT, env["uniramfs"]):
        with open(f, "rb") as fp:
            h.update(fp.read())
    h.update(("%s\0%s" % (env["kver"], sbin)).encode())
    stamp = out + ".made"
    with _lock:
        try:
            with open(stamp) as f:
                if f.read() == h.hexdigest() and os.path.exists(out):
                    return out, sbin
        except OSError:
            pass
        t = time.monotonic()
        _run([env["uniramfs"], "build", "-k", env["kver"], "--generic", "--init", INIT,
              "--add-binaries", ",".join(BINARIES + tuple(os.path.join(sbin, tool) for tool in NFSD_TOOLS)),
              "--add-modules", ",".join(MODULES),
              "--add-files", ",".join(e for e in ETC if os.path.exists(e)),
              "--microcode", "none", "--compress", "none", "-o", out])
        with open(stamp, "w") as f:
            f.write(h.hexdigest())
        print("  built servervm.img in %.1f s, %.1f MB" % (time.monotonic() - t,
                                                         os.path.getsize(out) / 1e6), flush=True)
    return out, sbin


class ServerVM:
    def __init__(self, proc, port, log):
        self.proc, self.port, self.log = proc, port, log

    def guest_nic(self):
        """The guest's QEMU arguments: one NIC on this server's wire."""
        return ["-netdev", "socket,id=n0,connect=127.0.0.1:%d" % self.port,
                "-device", "virtio-net-pci,netdev=n0,mac=" + GUEST_MAC]

    def text(self):
        try:
            return serialtext.read(self.log)
        except OSError:
            return ""

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def start(env, work, disk, name, rootpath="", siaddr="", v4=True, nbd="", iscsi="", nvmet=False,
          nvmet_host="", ipv6=False, vlan=0, dns=""):
    """Boot the server VM serving disk (an ext4 test root) at EXPORT and
    DHCP with rootpath as option 17 (none if empty) and siaddr as the
    next server (an address the VM also takes), over NFSv3 and (v4) v4,
    and (nbd: the export's name) the disk itself over NBD, read-only,
    (iscsi: a target's IQN) as that target's LUN 1, read-only,
    (nvmet) over NVMe/TCP with the kernel's nvmet as namespace 1 of
    NVMET_NQN on SERVER_ADDR:NVMET_PORT, open to any host or (nvmet_host:
    a host NQN) to that host alone; nvmet opens its disk for writing, so
    the disk is then QEMU's snapshot=on instead of read-only (writes go
    to a temporary overlay, never to the file);
    (ipv6) over IPv6 too: SERVER_ADDR6/PREFIX6 on the wire, router
    advertisements for SLAAC and DHCPv6 handing out POOL6 (dnsmasq), NFS
    exported to the /64; (vlan: an 802.1Q id) with its IPv4 addresses and
    DHCP on a VLAN of that id only, so that only tagged frames reach
    them; (dns: a host name NAME.DOMAIN) a DNS server (dnsmasq) knowing
    only that name, as SERVER_ADDR, which DHCP names (options 6, 15:
    DOMAIN, and 119: lab.DOMAIN DOMAIN); return the ServerVM once it is
    ready."""
    img, sbin = image(env, work)
    logs = os.path.join(work, "logs")
    os.makedirs(logs, exist_ok=True)
    log = os.path.join(logs, "servervm-%s.log" % name)
    if os.path.exists(log):   # an old READY line must not count
        os.unlink(log)
    port = netservers.free_port()
    params = ["sv.addr=%s/%d" % (SERVER_ADDR, PREFIX), "sv.export=" + EXPORT, "sv.pool=" + POOL,
              "sv.nfsbin=" + sbin]
    if rootpath:
        params.append("sv.rootpath=" + rootpath)
    if siaddr:
        params.append("sv.siaddr=" + siaddr)
    if not v4:
        params.append("sv.nov4=1")
    if nbd:
        params.append("sv.nbd=" + nbd)
    if iscsi:
        params.append("sv.iscsi=" + iscsi)
    if nvmet:
        params.append("sv.nvmet=" + NVMET_NQN)
        if nvmet_host:
            params.append("sv.nvmethost=" + nvmet_host)
    if ipv6:
        params.append("sv.ipv6=%s/%d,%s" % (SERVER_ADDR6, PREFIX6, POOL6))
    if vlan:
        params.append("sv.vlan=%d" % vlan)
    if dns:
        params.append("sv.dns=" + dns)
    for p in params:
        if re.search(r"\s", p):
            raise ValueError("server VM parameter %r has a space" % p)
    cmd = ["qemu-system-x86_64", "-accel", "tcg", "-m", "512", "-smp", "1",
           "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none",
           "-serial", "file:" + log, "-kernel", env["vmlinuz"], "-initrd", img,
           "-append", " ".join(["console=ttyS0", "loglevel=4", "panic=-1"] + params),
           "-drive", "if=none,id=d0,format=raw,%s,file=%s" % (
               "snapshot=on" if nvmet else "readonly=on", disk),
           "-device", "virtio-blk-pci,drive=d0",
           "-netdev", "socket,id=s0,listen=127.0.0.1:%d" % port,
           "-device", "virtio-net-pci,netdev=s0,mac=" + SERVER_MAC]
    t = time.monotonic()
    p = subprocess.Popen(pvh.argv(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    s = ServerVM(p, port, log)
    try:
        while True:
            text = s.text()
            if "\nSERVERVM-READY" in text:
                break
            bad = re.search(r"^SERVERVM-FAIL: .*", text, re.M)
            why = bad.group(0) if bad else None
            if not why and p.poll() is not None:
                why = "QEMU exited (%d): %s" % (p.returncode, p.stdout.read().decode(errors="replace"))
            if not why and time.monotonic() - t > START_TIMEOUT:
                why = "no SERVERVM-READY within %d s" % START_TIMEOUT
            if why:
                tail = "\n".join(text.splitlines()[-30:])
                raise RuntimeError("server VM %s: %s (log %s):\n%s" % (name, why, log, tail))
            time.sleep(0.2)
    except BaseException:
        s.stop()
        raise
    print("  server VM for %s ready in %.1f s" % (name, time.monotonic() - t), flush=True)
    return s
