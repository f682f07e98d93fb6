# SPDX-License-Identifier: GPL-2.0-or-later
"""Packages from a Debian suite or component the host's apt does not
list, through an apt state of our own under a cache directory: its own
sources.list, lists and downloads, the host's package status never read
and its sources never touched. Used by tests/kernels/fetch.py (trixie's
kernels), tests/zfs/fetch.py (bookworm's contrib) and tests/arm64/sysroot.py
(bookworm's arm64 packages).

  PrivateApt(DIR, SUITE, COMPONENTS[, arch=ARCH])
                                      DIR/sources.list, DIR/lists,
                                      DIR/cache, DIR/debs (downloads);
                                      ARCH amd64 unless named (arm64:
                                      tests/arm64/sysroot.py)

The mirror is the host's own: the first URI of its Debian sources."""

import glob
import os
import re
import subprocess

KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


def host_mirror():
    """The host's Debian mirror: the first URI that serves a Debian suite."""
    files = ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*"))
    for fn in files:
        try:
            text = open(fn).read()
        except OSError:
            continue
        for m in re.finditer(r"^\s*(?:deb\s+(?:\[[^\]]*\]\s+)?|URIs:\s*)(\S+)", text, re.M):
            uri = m.group(1).rstrip("/")
            if re.search(r"/debian$", uri):
                return uri
    return "http://deb.debian.org/debian"


class PrivateApt:
    def __init__(self, dir, suite, components, say=print, arch="amd64"):
        self.dir = dir
        self.suite = suite
        self.say = say
        for d in ("lists/partial", "cache/archives/partial", "debs"):
            os.makedirs(os.path.join(self.dir, d), exist_ok=True)
        self.sources = os.path.join(self.dir, "sources.list")
        with open(self.sources, "w") as f:
            f.write("deb [signed-by=%s] %s %s %s\n" % (KEYRING, host_mirror(), suite,
                                                       " ".join(components)))
        self.opts = ["-o", "Dir::Etc::sourcelist=" + self.sources,
                     "-o", "Dir::Etc::sourceparts=-",
                     "-o", "Dir::State::lists=" + os.path.join(self.dir, "lists"),
                     "-o", "Dir::Cache=" + os.path.join(self.dir, "cache"),
                     "-o", "Dir::State::status=/dev/null",
                     "-o", "APT::Architecture=" + arch,
                     "-o", "APT::Architectures=" + arch, "-o", "Debug::NoLocking=1"]
        self.updated = False

    def run(self, tool, *args, cwd=None):
        r = subprocess.run([tool] + self.opts + list(args), cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s %s failed:\n%s" % (tool, " ".join(args), r.stdout[-2000:]))
        return r.stdout

    def update(self):
        if not self.updated:
            self.run("apt-get", "update")
            self.updated = True

    def version(self, pkg):
        """The candidate version of pkg in this suite."""
        self.update()
        out = self.run("apt-cache", "show", pkg)
        vers = re.findall(r"^Version: (\S+)", out, re.M)
        if not vers:
            raise RuntimeError("%s: no version in %s" % (pkg, self.suite))
        return vers[0]

    def download(self, pkg, ver):
        """DIR/debs/PKG_VER_*.deb, downloaded once."""
        debs = os.path.join(self.dir, "debs")
        pat = os.path.join(debs, "%s_%s_*.deb" % (pkg, ver.replace(":", "%3a")))
        if not glob.glob(pat):
            self.say("downloading %s %s" % (pkg, ver))
            self.run("apt-get", "download", "%s=%s" % (pkg, ver), cwd=debs)
        have = glob.glob(pat)
        if not have:
            raise RuntimeError("apt-get download %s left no .deb" % pkg)
        return have[0]
