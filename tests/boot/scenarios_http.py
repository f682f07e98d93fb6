# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for netbooted live roots (issue 28, dracut-ng TEST-31
"LIVENET"): root=live:http://SERVER/root.squashfs and root=http://…, the
image a squashfs of the test root (TEST-31 makes it with mksquashfs; here
gensquashfs, the generator's own dependency), downloaded by the init's own
HTTP client into /run, checked against rd.live.sha256= and booted below a
tmpfs overlay.

The server is Python's http.server on 127.0.0.1, in this process; the
guest reaches it at 10.0.2.100:8080 through QEMU user networking with
restrict=on and a guestfwd rule whose cmd: runs one socat per connection
(a tcp: rule would carry one connection for the VM's life, and a retry or
a redirect is a second one).  Each GET takes the next step of the
scenario's plan, so one boot proves several failures: a server that
stalls, one that sends more than it announced, an image whose digest is
wrong — each is the exact message, the emergency shell, `exit`, and the
next try — and then the good image, which boots."""

import contextlib
import hashlib
import http.server
import os
import ssl
import subprocess
import tempfile
import threading
import time

import disks
import netservers

SERVER = netservers.GUEST_ADDR
PORT = 8080
URL = "http://%s:%d/root.squashfs" % (SERVER, PORT)
TLS_PORT = 8443
TLS_URL = "https://%s:%d/root.squashfs" % (SERVER, TLS_PORT)
BUILD = ("--add-modules", "virtio_pci,virtio_net,squashfs,loop,overlay,algif_hash")
# rd.timeout: the longest silence the client allows, and the wait for DHCP
# (seconds under load)
STALL = 12
STALL_AFTER = 65536
_lock = threading.Lock()


class _Image:
    """A squashfs of the test root, made once per testinit."""
    name = "http-live"
    fs = "overlay"

    def path(self, testinit, work):
        with open(testinit, "rb") as f:
            h = hashlib.sha256(b"http-live-1" + f.read()).hexdigest()[:12]
        path = os.path.join(work, "disks", "http-live-%s.squashfs" % h)
        self.last = path
        with _lock:
            if os.path.exists(path):
                return path
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with tempfile.TemporaryDirectory(dir=os.path.dirname(path), prefix=".build-") as tmp:
                root = os.path.join(tmp, "root")
                disks._populate(root, testinit)
                out = os.path.join(tmp, "root.squashfs")
                subprocess.run(["gensquashfs", "-q", "-D", root, out], check=True,
                               stdout=subprocess.DEVNULL)
                os.rename(out, path)
        return path

    def words(self, dpaths):
        """The served image's size and digests, for the command line and
        the messages (run.py fills them in once the server is up)."""
        with open(IMAGE.last, "rb") as f:   # the one image, whoever serves it
            data = f.read()
        return {"size": str(len(data)), "sha256": hashlib.sha256(data).hexdigest(),
                "bad_sha256": hashlib.sha256(_bad(data)).hexdigest()}


IMAGE = _Image()


class _TlsImage(_Image):
    """The same image served over HTTPS: the image carries curl and, as
    its CA bundle, the test's own CA."""

    def net_build(self, work):
        return ("--add-binaries", "curl",
                "--add-files", _tls(work)[1] + ":/etc/ssl/certs/ca-certificates.crt")


TLS_IMAGE = _TlsImage()


def _bad(data):
    """The image with its last 4 KiB zeroed: the right size, the wrong bytes."""
    return data[:-4096] + bytes(4096)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, fmt, *args):
        self.server.log.append(fmt % args)

    def do_GET(self):
        srv = self.server
        with srv.plan_lock:
            step = srv.plan.pop(0) if srv.plan else "good"
        srv.log.append("GET %s -> %s" % (self.path, step))
        data = srv.data
        if step == "redirect":
            self.send_response(302)
            self.send_header("Location", "/images/root.squashfs")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if step == "stall":
            self.wfile.write(data[:STALL_AFTER])
            self.wfile.flush()
            srv.stop.wait(STALL * 10)   # until the boot is over
        elif step == "over":
            self.wfile.write(data + b"x" * 100)
        elif step == "bad":
            self.wfile.write(_bad(data))
        else:
            self.wfile.write(data)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


def _tls(work):
    """A CA and a certificate for 10.0.2.100 it signed, made in work (the
    CA is what the image trusts): the server's SSL context and the CA's
    file."""
    d = os.path.join(work, "tls")
    ca, key, crt = (os.path.join(d, n) for n in ("ca.crt", "server.key", "server.crt"))
    with _lock:
        if not os.path.exists(crt):
            os.makedirs(d, exist_ok=True)

            def ossl(*a):
                subprocess.run(("openssl",) + a, check=True, cwd=d,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            ossl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
                 "ca.crt", "-days", "3650", "-subj", "/CN=uniramfs test CA",
                 "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign")
            ossl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
                 "server.csr", "-subj", "/CN=%s" % SERVER)
            with open(os.path.join(d, "ext.cnf"), "w") as f:
                f.write("subjectAltName=IP:%s\nextendedKeyUsage=serverAuth\n" % SERVER)
            ossl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                 "-CAcreateserial", "-out", "server.crt.tmp", "-days", "3650",
                 "-extfile", "ext.cnf")
            os.rename(os.path.join(d, "server.crt.tmp"), crt)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(crt, key)
    return ctx, ca


@contextlib.contextmanager
def _serve(data, plan, tls=None):
    srv = _Server(("127.0.0.1", 0), _Handler)
    if tls:
        srv.socket = tls.wrap_socket(srv.socket, server_side=True)
    srv.data, srv.plan, srv.plan_lock = data, list(plan), threading.Lock()
    srv.stop, srv.log = threading.Event(), []
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield srv
    finally:
        srv.stop.set()
        srv.shutdown()
        srv.server_close()


def http_root(plan, tls=False, rtc=None):
    """The net= of a scenario: the server with its plan (tls: HTTPS with a
    CA of the test's), the NIC with the guestfwd rule; rtc: the guest's
    clock starts then."""
    def net(testinit, work):
        @contextlib.contextmanager
        def ctx():
            with open(IMAGE.path(testinit, work), "rb") as f:
                data = f.read()
            with _serve(data, plan, _tls(work)[0] if tls else None) as srv:
                fwd = "guestfwd=tcp:%s:%d-cmd:socat - TCP:127.0.0.1:%d" % (
                    SERVER, TLS_PORT if tls else PORT, srv.server_address[1])
                try:
                    yield [], ["-netdev", "user,id=n0,restrict=on," + fwd,
                               "-device", "virtio-net-pci,netdev=n0"] + \
                        (["-rtc", "base=" + rtc] if rtc else [])
                finally:
                    with open(os.path.join(work, "logs", "http-server-last.log"), "w") as f:
                        f.write("\n".join(srv.log) + "\n")
        return ctx()
    return net


EXPECT = (r"root-mount=\S+ overlay rw,", "root-writable=yes",
          r"mounts: /dev/loop\d+ /run/rootfsbase squashfs ro,")
# the build year is the host's (the image is made now); the shell sets the
# guest's clock (NOW, below)
YEAR = time.gmtime().tm_year
# The clock the emergency shell sets: a day ahead, since the test CA is
# made when the scenario runs, after this module is read (a certificate
# is "not yet valid" before it was made), and it is valid for ten years.
NOW = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time() + 86400))
SHELL = ((r"starting /bin/sh \(emergency shell\); exit it to continue", ""), (r"[#$] ", "exit\n"))


def scenarios(Scenario):
    """run.py's Scenario list for netbooted live roots."""
    return [
        Scenario("live-http-test31", "root=live:http://… (TEST-31 \"root=live:http://server/"
                 "root.squashfs\") with rd.live.sha256=: a stalling server, one that sends more "
                 "than it announced and a wrong image each fail with their message, then the "
                 "image boots",
                 IMAGE, "live:" + URL, build=BUILD, net=http_root(("stall", "over", "bad")),
                 cmdline="rd.live.sha256={sha256} rd.timeout=%d" % STALL, ours_only=True,
                 interact=SHELL * 3, expect=EXPECT,
                 log_expect=(
                     "uniramfs: %s: the server sent nothing for %d seconds (%d of {size} bytes "
                     "received)" % (URL, STALL, STALL_AFTER),
                     "uniramfs: %s: the server sent more than the {size} bytes it announced" % URL,
                     "uniramfs: %s: the image's SHA-256 is {bad_sha256}, not {sha256} "
                     "(rd.live.sha256=): not mounting it" % URL,
                     "uniramfs: %s: SHA-256 {sha256} as rd.live.sha256= says" % URL)),
        Scenario("live-http-test31-plain", "root=http://… (TEST-31 \"root=http://server/"
                 "root.squashfs\"), redirected once, no digest: it boots, and says nothing "
                 "checked the image",
                 IMAGE, URL, build=BUILD, net=http_root(("redirect",)), ours_only=True,
                 expect=EXPECT,
                 log_expect=("uniramfs: %s: redirected (302) to /images/root.squashfs" % URL,
                             "uniramfs: %s: no rd.live.sha256= on the command line: nothing "
                             "checked the image" % URL)),
        Scenario("live-https", "root=live:https://… with rd.live.sha256=, the guest's clock "
                 "starting in 2001: refused with the clock's message; the clock set in the "
                 "emergency shell, the image's curl fetches it, checked against the test's CA, "
                 "and it boots",
                 TLS_IMAGE, "live:" + TLS_URL, build=BUILD,
                 net=http_root((), tls=True, rtc="2001-01-01"),
                 cmdline="rd.live.sha256={sha256} rd.timeout=%d" % STALL, ours_only=True,
                 interact=(SHELL[0], (r"[#$] ", "date -s '%s' && exit\n" % NOW)), expect=EXPECT,
                 log_expect=(
                     "uniramfs: %s: the clock says 2001-01-01, before this init was built "
                     "(%d): no certificate can be checked against it; set the machine's clock "
                     "(its RTC), or use http:// with rd.live.sha256=" % (TLS_URL, YEAR),
                     "uniramfs: %s: fetching with /usr/bin/curl" % TLS_URL,
                     # curl is silent: the init says what it wrote
                     "uniramfs: %s: {size} bytes in " % TLS_URL,
                     "uniramfs: %s: SHA-256 {sha256} as rd.live.sha256= says" % TLS_URL)),
    ]
