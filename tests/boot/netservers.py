# SPDX-License-Identifier: GPL-2.0-or-later
"""Real NFS, iSCSI and NBD servers for the network-root boot tests.

Each server binds 127.0.0.1 only, on a port picked free at start, and keeps
its configuration, logs and state in a private work directory.  The guest
reaches it through QEMU user networking with restrict=on and a guestfwd rule
(see guestfwd()), so no packet ever leaves the host's loopback:

    -netdev user,id=n0,restrict=on,guestfwd=tcp:10.0.2.100:2049-tcp:127.0.0.1:PORT

A guestfwd rule with a tcp: target is a character device QEMU connects once,
when it starts: each rule carries one TCP connection for the life of the VM.
Start the server before QEMU, and make the guest use one connection per rule
(an NFSv4 mount, one iSCSI session, one NBD device are each one; an iSCSI
SendTargets discovery before the login, as dracut's iscsiadm does, is a
second one, which the rule does not carry).

    NFS   nfs-ganesha with the VFS FSAL, NFSv4 only: v3 needs rpcbind for
          MOUNT and NLM, and ganesha refuses to start v3 when it cannot
          register with it.  The export is at the pseudo path "/root".
    iSCSI tgtd (tgt) with a private control port; the LUN is 1.  Several
          tgtd run at once, each on its own control port (start_iscsi).
    NBD   nbd-server, the image exported under the name "root".

Usage:
    with start_nfs(export_dir) as s: ... s.port ... s.guestfwd(2049)
Each start_* returns a Server (a context manager); stop() kills what it
started, by its pid, and removes the work directory.
"""

import fcntl
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

GUEST_ADDR = "10.0.2.100"   # where the guest finds every server
START_TIMEOUT = 20          # seconds for a server to listen

NFS_PSEUDO = "/root"
ISCSI_IQN = "iqn.2026-12.test.uniramfs:root"
ISCSI_LUN = 1
NBD_EXPORT = "root"

# Debian packages: nfs-ganesha nfs-ganesha-vfs tgt nbd-server (servers);
# nbd-client open-iscsi for the clients a guest image carries.
TOOLS = {"nfs": "ganesha.nfsd", "iscsi": "tgtd", "nbd": "nbd-server"}


class ServerError(RuntimeError):
    pass


def available(kind):
    """Is the server program for kind ("nfs", "iscsi", "nbd") installed?"""
    return shutil.which(TOOLS[kind]) is not None or \
        os.path.exists(os.path.join("/usr/sbin", TOOLS[kind]))


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port):
    """Is something listening on 127.0.0.1:port (or [::ffff:127.0.0.1])?
    Read from /proc so that checking does not itself open a connection,
    which a server might count as a client."""
    want = {"0100007F:%04X" % port, "0000000000000000FFFF00000100007F:%04X" % port}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[1] in want and fields[3] == "0A":
                        return True
        except OSError:
            pass
    return False


class Server:
    def __init__(self, kind, port, workdir, log):
        self.kind = kind
        self.port = port
        self.workdir = workdir
        self.log = log
        self.procs = []     # Popen objects we started, stopped in reverse
        self.before_stop = None  # a polite shutdown to try before SIGTERM

    def guestfwd(self, guest_port):
        """The -netdev user option that puts this server at
        10.0.2.100:guest_port inside the guest."""
        return "guestfwd=tcp:%s:%d-tcp:127.0.0.1:%d" % (GUEST_ADDR, guest_port, self.port)

    def log_text(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def _spawn(self, cmd):
        out = open(self.log, "ab")
        try:
            p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, cwd=self.workdir)
        finally:
            out.close()
        self.procs.append(p)
        return p

    def _wait_listening(self, proc):
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if _listening(self.port):
                return
            if proc.poll() is not None:
                raise ServerError("%s exited (%d) before listening on 127.0.0.1:%d:\n%s" %
                                  (self.kind, proc.returncode, self.port, self.log_text()[-3000:]))
            time.sleep(0.1)
        raise ServerError("%s did not listen on 127.0.0.1:%d in %d s:\n%s" %
                          (self.kind, self.port, START_TIMEOUT, self.log_text()[-3000:]))

    def stop(self):
        if self.before_stop and any(p.poll() is None for p in self.procs):
            try:
                self.before_stop()
            except (OSError, subprocess.SubprocessError):
                pass
            self.before_stop = None
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.procs = []
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def _workdir(kind, parent):
    return os.path.abspath(tempfile.mkdtemp(prefix="netsrv-%s-" % kind, dir=parent))


def _start(kind, parent, setup):
    """Make the Server, run setup(server) to spawn and configure it; on any
    failure stop what was started before raising."""
    wd = _workdir(kind, parent)
    s = Server(kind, free_port(), wd, os.path.join(wd, kind + ".log"))
    try:
        setup(s)
    except BaseException:
        s.stop()
        raise
    return s


GANESHA_CONF = """\
NFS_CORE_PARAM {{
    Bind_addr = 127.0.0.1;
    NFS_Port = {port};
    Protocols = 4;
    Enable_NLM = false;
    Enable_RQUOTA = false;
    Enable_UDP = false;
}}
NFSV4 {{
    Graceless = true;
    RecoveryBackend = fs;
    RecoveryRoot = "{workdir}/recovery";
}}
EXPORT {{
    Export_Id = 1;
    Path = "{export}";
    Pseudo = "{pseudo}";
    Protocols = 4;
    Transports = TCP;
    Access_Type = RW;
    Squash = No_Root_Squash;
    SecType = sys;
    FSAL {{ Name = VFS; }}
}}
LOG {{ Default_Log_Level = EVENT; }}
"""


def start_nfs(export_dir, parent=None):
    """nfs-ganesha exporting export_dir (NFSv4, pseudo path NFS_PSEUDO).
    The guest mounts 10.0.2.100:/root with vers=4.x,addr=10.0.2.100,
    clientaddr=10.0.2.15 through guestfwd(2049)."""
    export_dir = os.path.abspath(export_dir)
    if not os.path.isdir(export_dir):
        raise ServerError("nfs: %s is not a directory" % export_dir)

    def setup(s):
        os.makedirs(os.path.join(s.workdir, "recovery"))
        conf = os.path.join(s.workdir, "ganesha.conf")
        with open(conf, "w") as f:
            f.write(GANESHA_CONF.format(port=s.port, workdir=s.workdir, export=export_dir,
                                        pseudo=NFS_PSEUDO))
        p = s._spawn(["ganesha.nfsd", "-F", "-f", conf, "-L", s.log,
                      "-p", os.path.join(s.workdir, "ganesha.pid")])
        s._wait_listening(p)

    return _start("nfs", parent, setup)


TGT_RUN = "/run/tgtd"
_tgt_guard = threading.Lock()


def _tgt_lock_free(n):
    """Does no tgtd hold control port n?  tgtd takes a lockf() lock on
    /run/tgtd/socket.N.lock for its life and refuses to start ("another
    tgtd is using ...") when it cannot; a socket file without a live lock
    is a leftover that tgtd replaces, as it never removes its own."""
    path = os.path.join(TGT_RUN, "socket.%d.lock" % n)
    try:
        fd = os.open(path, os.O_WRONLY)
    except FileNotFoundError:
        return True
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)    # drops the lock, for tgtd to take


def _tgt_control_port(skip=()):
    """A control port N (/run/tgtd/socket.N) whose lock no tgtd holds."""
    for n in range(4000, 5000):
        if n not in skip and _tgt_lock_free(n):
            return n
    raise ServerError("iscsi: no free tgtd control port")


def _tgt_forget(n):
    """Remove the socket and lock files our tgtd leaves behind, holding
    its lock meanwhile, so that a tgtd that took port n since is left
    alone."""
    lock = os.path.join(TGT_RUN, "socket.%d.lock" % n)
    try:
        fd = os.open(lock, os.O_WRONLY)
    except OSError:
        return
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1)
        for f in (os.path.join(TGT_RUN, "socket.%d" % n), lock):
            try:
                os.unlink(f)
            except OSError:
                pass
    except OSError:
        pass
    finally:
        os.close(fd)


def start_iscsi(image, parent=None, iqn=ISCSI_IQN, chap=None, initiator=None):
    """tgtd serving image as LUN ISCSI_LUN of target iqn, open to any
    initiator (initiator: only to that initiator name); chap=(user,
    password): only with that CHAP account.  The guest logs in to
    10.0.2.100:3260 through guestfwd(3260).

    Several may run at once: each has its own control port, picked
    under a lock (in this process) so that two starts do not pick the
    same one, and picked again when another process's tgtd took it
    first."""
    image = os.path.abspath(image)
    if not os.path.isfile(image):
        raise ServerError("iscsi: %s is not a file" % image)

    def spawn(s):
        tried = []
        with _tgt_guard:
            for _ in range(5):
                s.control = _tgt_control_port(tried)
                tried.append(s.control)
                p = s._spawn(["tgtd", "-f", "-C", str(s.control),
                              "--iscsi", "portal=127.0.0.1:%d" % s.port])
                try:
                    s._wait_listening(p)
                    return p
                except ServerError:
                    if p.poll() is None or "another tgtd is using" not in s.log_text():
                        raise
                    s.procs.remove(p)
            raise ServerError("iscsi: tgtd found control ports %s taken" % tried)

    def setup(s):
        p = spawn(s)
        sysadm = ["tgtadm", "-C", str(s.control), "--mode", "sys"]
        adm = ["tgtadm", "-C", str(s.control), "--lld", "iscsi"]

        # tgtd ignores SIGTERM; it leaves when taken offline and deleted,
        # which it refuses ("invalid request") while it has a target.
        def shutdown():
            for cmd in (sysadm + ["--op", "update", "--name", "State", "-v", "offline"],
                        adm + ["--op", "delete", "--mode", "target", "--tid", "1", "--force"],
                        sysadm + ["--op", "delete"]):
                subprocess.run(cmd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=10)
            p.wait(timeout=10)
            _tgt_forget(s.control)
        s.before_stop = shutdown
        bind = ["--initiator-name", initiator] if initiator else ["-I", "ALL"]
        for args in (["--op", "new", "--mode", "target", "--tid", "1", "-T", iqn],
                     ["--op", "new", "--mode", "logicalunit", "--tid", "1",
                      "--lun", str(ISCSI_LUN), "-b", image],
                     ["--op", "bind", "--mode", "target", "--tid", "1"] + bind) + ((
                     ["--op", "new", "--mode", "account", "--user", chap[0],
                      "--password", chap[1]],
                     ["--op", "bind", "--mode", "account", "--tid", "1", "--user", chap[0]])
                     if chap else ()):
            r = subprocess.run(adm + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                raise ServerError("iscsi: %s failed: %s" % (" ".join(adm + args), r.stdout))

    s = _start("iscsi", parent, setup)
    s.iqn = iqn
    return s


NBD_CONF = """\
[generic]
    listenaddr = 127.0.0.1
    port = {port}
    allowlist = false
[{name}]
    exportname = {image}
    readonly = {ro}
"""


def start_nbd(image, parent=None, readonly=False):
    """nbd-server exporting image under the name NBD_EXPORT. The guest
    connects to 10.0.2.100:10809 through guestfwd(10809)."""
    image = os.path.abspath(image)
    if not os.path.isfile(image):
        raise ServerError("nbd: %s is not a file" % image)

    def setup(s):
        conf = os.path.join(s.workdir, "nbd.conf")
        with open(conf, "w") as f:
            f.write(NBD_CONF.format(port=s.port, name=NBD_EXPORT, image=image,
                                    ro="true" if readonly else "false"))
        # -d: stay in the foreground, so the pid we hold is the server's.
        p = s._spawn(["nbd-server", "-d", "-C", conf])
        s._wait_listening(p)

    return _start("nbd", parent, setup)
