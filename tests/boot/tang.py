# SPDX-License-Identifier: GPL-2.0-or-later
"""Tang for the clevis boot tests (issue 14): keys made with tang's own
keygen in a work directory, its advertisement read by running tangd once
on a request piped in (so the builder VM binds with no network), and a
tangd per connection behind socat bound to 127.0.0.1.  The guest reaches
it at 10.0.2.100:80 through a guestfwd rule whose command connects to that
port: one connection per guest connection, and nothing listening there is
what "Tang is down" looks like to the guest (its connection closes).
"""

import contextlib
import os
import shutil
import subprocess

import netservers

TANGD = "/usr/libexec/tangd"
KEYGEN = "/usr/libexec/tangd-keygen"
URL = "http://%s" % netservers.GUEST_ADDR    # the URL the disk is bound to
GUEST_PORT = 80
# What `clevis luks bind -k - ... tang` runs in the builder VM, beyond its
# busybox (sed, grep, sort, mktemp) and cryptsetup; pwmake is a script of
# the layout (builder/luks2-clevis.sh).
BIND_BINARIES = ("bash", "clevis", "clevis-luks-bind", "clevis-luks-common-functions",
                 "clevis-encrypt-tang", "jose", "luksmeta")   # luksmeta: a LUKS1 disk's slots


def available():
    """tang, socat and clevis (the image packs the host's) installed?"""
    return all(os.access(p, os.X_OK) for p in (TANGD, KEYGEN)) and \
        shutil.which("socat") is not None and shutil.which("clevis") is not None


def keygen(db):
    """A new signing and exchange key in db (made)."""
    os.makedirs(db, exist_ok=True)
    subprocess.run([KEYGEN, db], check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def advertisement(db):
    """The signed advertisement tangd serves at /adv, as bytes (JSON)."""
    req = b"GET /adv HTTP/1.1\r\nHost: tang\r\nConnection: close\r\n\r\n"
    p = subprocess.run([TANGD, db], input=req, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=30, check=True)
    head, _, body = p.stdout.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200") or not body.startswith(b"{"):
        raise RuntimeError("tangd gave no advertisement: %r" % p.stdout[:200])
    return body


def guestfwd(port):
    """The -netdev user option that connects each guest connection to
    10.0.2.100:80 to 127.0.0.1:port (no comma: QEMU's option syntax)."""
    return "guestfwd=tcp:%s:%d-cmd:socat STDIO TCP:127.0.0.1:%d" % (
        netservers.GUEST_ADDR, GUEST_PORT, port)


@contextlib.contextmanager
def serve(db, parent):
    """tangd on db for each connection to 127.0.0.1:PORT (socat, in a
    private work directory under parent); yields PORT."""
    def setup(s):
        p = s._spawn(["socat", "TCP-LISTEN:%d,bind=127.0.0.1,reuseaddr,fork" % s.port,
                      "EXEC:%s %s" % (TANGD, db)])
        s._wait_listening(p)
    s = netservers._start("tang", parent, setup)
    try:
        yield s.port
    finally:
        s.stop()
