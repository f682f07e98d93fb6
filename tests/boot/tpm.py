# SPDX-License-Identifier: GPL-2.0-or-later
"""A software TPM (swtpm) for a QEMU VM: the builder's, which enrols a
LUKS2 TPM2 token, and a boot test's, which unlocks with it."""

import contextlib
import os
import shutil
import subprocess
import tempfile
import time


def available():
    return shutil.which("swtpm") is not None


@contextlib.contextmanager
def swtpm(state):
    """swtpm on state (a directory, made if missing) for one QEMU run:
    yields the QEMU arguments for a tpm-tis device backed by it."""
    os.makedirs(state, exist_ok=True)
    # a short path: unix socket names are at most 107 bytes
    sockdir = tempfile.mkdtemp(prefix="swtpm-")
    sock = os.path.join(sockdir, "ctrl")
    p = subprocess.Popen(["swtpm", "socket", "--tpm2", "--tpmstate", "dir=" + state,
                          "--ctrl", "type=unixio,path=" + sock],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            if os.path.exists(sock) or p.poll() is not None:
                break
            time.sleep(0.05)
        if not os.path.exists(sock):
            out = p.communicate(timeout=5)[0].decode(errors="replace") if p.poll() is not None else ""
            raise RuntimeError("swtpm did not start: %s" % out.strip())
        yield ["-chardev", "socket,id=chrtpm,path=" + sock,
               "-tpmdev", "emulator,id=tpm0,chardev=chrtpm",
               "-device", "tpm-tis,tpmdev=tpm0"]
    finally:
        if p.poll() is None:
            p.terminate()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        shutil.rmtree(sockdir, ignore_errors=True)


@contextlib.contextmanager
def swtpm_scratch(seed=None):
    """swtpm on a state of its own for one boot, removed after: a copy of
    seed (the state a token was sealed with) or, with none, a new TPM.
    Yields the QEMU arguments as swtpm() does."""
    tmp = tempfile.mkdtemp(prefix="tpmstate-")
    try:
        state = os.path.join(tmp, "state")
        if seed:
            shutil.copytree(seed, state)
        with swtpm(state) as args:
            yield args
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
