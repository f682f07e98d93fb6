# SPDX-License-Identifier: GPL-2.0-or-later
"""The sysroots of tests/layouts/run.py (see its opening comment): laid out
as Fedora, Arch and a musl userland put things, from Debian's kernel,
modules and programs. Each is made once and cached in
CACHE/layout-NAME-HASH, HASH a hash of this file (not run.py: its checks
may change without a new fixture), the kernel, the host packages copied
and the hostonly fixture."""

import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "lib"))
import privapt  # noqa: E402

CACHE = "/var/cache/uniramfs-tests"
HOSTONLY_FIXTURE = os.path.join(SRCDIR, "tests/unit/fixtures/hostonly/virtio")
# The host programs the glibc layouts carry: the checker, the stack's tools
# and the rescue shell (busybox-static's, static).
PROGRAMS = ("e2fsck", "cryptsetup", "lvm", "mdadm", "busybox")
# The packages whose files a fixture holds: a new version makes a new fixture.
PACKAGES = ("e2fsprogs", "e2fsck-static", "cryptsetup-bin", "lvm2", "mdadm", "busybox-static",
            "libc6", "musl", "musl-dev")


def say(*a):
    print(*a, flush=True)


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError("`%s` failed (%d):\n%s" % (" ".join(cmd), r.returncode, r.stdout[-3000:]))
    return r.stdout


def recipe_hash(kver):
    h = hashlib.sha256()
    h.update(open(os.path.abspath(__file__), "rb").read())
    h.update(kver.encode())
    h.update(run(["dpkg-query", "-W", "-f", "${Package} ${Version}\n",
                  "linux-image-" + kver] + list(PACKAGES)).encode())
    for p in sorted(glob.glob(HOSTONLY_FIXTURE + "/**", recursive=True)):
        h.update(p[len(HOSTONLY_FIXTURE):].encode())
        if os.path.islink(p):
            h.update(os.readlink(p).encode())
        elif os.path.isfile(p):
            h.update(open(p, "rb").read())
    return h.hexdigest()[:12]


def links(root, pairs):
    for name, target in pairs:
        os.makedirs(os.path.dirname(os.path.join(root, name)), exist_ok=True)
        os.symlink(target, os.path.join(root, name))


def modules(root, kver, moddir, compress):
    """Debian's module tree copied to ROOT/MODDIR (through the layout's
    links), each .ko recompressed with compress (a command that replaces
    FILE by FILE.SUFFIX), and depmod -b run for the new names."""
    src = "/lib/modules/" + kver
    dst = os.path.join(root, moddir.lstrip("/"), kver)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    run(["cp", "-a", src, dst])
    for n in ("build", "source"):   # links to the host's headers
        if os.path.islink(os.path.join(dst, n)):
            os.unlink(os.path.join(dst, n))
    if compress:
        kos = []
        for d, _, files in os.walk(dst):
            kos += [os.path.join(d, f) for f in files if f.endswith(".ko")]
        # two at a time, niced: the machine runs CI beside us
        procs = [subprocess.Popen(["nice"] + compress + kos[i::2]) for i in range(2)]
        if any(p.wait() for p in procs):
            raise RuntimeError("%s failed on %s's modules" % (compress[0], root))
    run(["depmod", "-b", root, kver])


def ldd_libs(prog):
    """The host's libraries prog loads (ldd runs it: this is the test, not
    the generator), and its interpreter."""
    libs, interp = [], None
    for ln in run(["ldd", prog]).splitlines():
        m = re.match(r"\s*(\S+) => (/\S+)", ln)
        if m:
            libs.append((m.group(1), m.group(2)))
        elif re.match(r"\s*/\S+ \(", ln):
            interp = ln.split()[0]
    return libs, interp


def glibc_programs(root, bindir, libdir, extra=()):
    """PROGRAMS (and extra) copied to ROOT/BINDIR, every library they load
    and the interpreter to ROOT/LIBDIR, under the names they are needed by."""
    for name in PROGRAMS + tuple(extra):
        host = shutil.which(name, path="/usr/sbin:/usr/bin:/sbin:/bin")
        if not host:
            raise RuntimeError("the host has no %s (tools/install-deps.sh)" % name)
        shutil.copy2(host, os.path.join(root, bindir.lstrip("/"), name))
        if name == "busybox" or name.endswith(".static"):
            continue
        libs, interp = ldd_libs(host)
        for soname, path in libs + [(os.path.basename(interp), interp)]:
            dst = os.path.join(root, libdir.lstrip("/"), soname)
            if not os.path.exists(dst):
                shutil.copy2(os.path.realpath(path), dst)


def e2fsprogs_musl(cache, out):
    """e2fsck and its shared libraries built with musl-gcc from bookworm's
    e2fsprogs source (apt-get source through a private apt state), under
    out/ as make install-libs and install would, cached by source version."""
    apt = privapt.PrivateApt(os.path.join(cache, "apt-bookworm-src"), "bookworm", ["main"], say=say)
    with open(apt.sources, "w") as f:   # the source lists, not the binary ones
        f.write("deb-src [signed-by=%s] %s bookworm main\n" % (privapt.KEYRING, privapt.host_mirror()))
    apt.update()
    ver = re.findall(r"^Version: (\S+)", apt.run("apt-cache", "showsrc", "e2fsprogs"), re.M)[0]
    work = os.path.join(cache, "e2fsprogs-musl-" + ver)
    done = os.path.join(work, "done")
    if not os.path.exists(done):
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        say("building e2fsprogs %s with musl-gcc (once)" % ver)
        apt.run("apt-get", "source", "--download-only", "e2fsprogs=" + ver, cwd=work)
        dsc = glob.glob(os.path.join(work, "e2fsprogs_*.dsc"))[0]
        run(["dpkg-source", "--no-check", "-x", dsc, "src"], cwd=work)
        # musl-gcc's headers are musl's alone; e2fsprogs wants the
        # kernel's (linux/fs.h), which are the C library's business not
        kh = os.path.join(work, "kh")
        os.makedirs(kh)
        for n, t in (("linux", "/usr/include/linux"), ("asm-generic", "/usr/include/asm-generic"),
                     ("asm", "/usr/include/x86_64-linux-gnu/asm")):
            os.symlink(t, os.path.join(kh, n))
        b = os.path.join(work, "src", "b")
        os.makedirs(b)
        run(["../configure", "CC=musl-gcc -isystem " + kh, "--enable-elf-shlibs", "--disable-nls",
             "--disable-fuse2fs", "--disable-uuidd", "--enable-libblkid", "--enable-libuuid",
             "--disable-defrag", "--disable-e2initrd-helper", "--without-libarchive",
             "--prefix=/usr", "--libdir=/usr/lib/x86_64-linux-musl", "--sbindir=/sbin"], cwd=b)
        run(["nice", "make", "-j2", "libs"], cwd=b)
        run(["nice", "make", "-j2", "-C", "e2fsck", "e2fsck"], cwd=b)
        open(done, "w").close()
    b = os.path.join(work, "src", "b")
    libdir = os.path.join(out, "usr/lib/x86_64-linux-musl")
    os.makedirs(libdir, exist_ok=True)
    for lib in ("libext2fs.so.2", "libcom_err.so.2", "libblkid.so.1", "libuuid.so.1", "libe2p.so.2"):
        # the build leaves each name as a hard link: the full version's is
        # the file, the soname a link to it, as make install lays them
        real = max(glob.glob(os.path.join(b, "lib", lib + ".*")), key=len)
        shutil.copy2(real, os.path.join(libdir, os.path.basename(real)))
        os.symlink(os.path.basename(real), os.path.join(libdir, lib))
    os.makedirs(os.path.join(out, "sbin"), exist_ok=True)
    shutil.copy2(os.path.join(b, "e2fsck", "e2fsck"), os.path.join(out, "sbin", "e2fsck"))


def make_fedora(root, kver, cache):
    for d in ("usr/bin", "usr/sbin", "usr/lib", "usr/lib64", "etc", "boot"):
        os.makedirs(os.path.join(root, d))
    links(root, (("bin", "usr/bin"), ("sbin", "usr/sbin"), ("lib", "usr/lib"), ("lib64", "usr/lib64")))
    glibc_programs(root, "/usr/sbin", "/usr/lib64", extra=("e2fsck.static",))
    modules(root, kver, "/usr/lib/modules", ["xz"])
    kdir = os.path.join(root, "usr/lib/modules", kver)
    shutil.copy2("/boot/vmlinuz-" + kver, os.path.join(kdir, "vmlinuz"))
    shutil.copy2("/boot/config-" + kver, os.path.join(kdir, "config"))


def make_arch(root, kver, cache):
    for d in ("usr/bin", "usr/lib", "etc", "boot"):
        os.makedirs(os.path.join(root, d))
    links(root, (("bin", "usr/bin"), ("sbin", "usr/bin"), ("usr/sbin", "bin"), ("lib", "usr/lib"),
                 ("lib64", "usr/lib"), ("usr/lib64", "lib")))
    glibc_programs(root, "/usr/bin", "/usr/lib")
    modules(root, kver, "/usr/lib/modules", ["zstd", "-q", "--rm"])
    kdir = os.path.join(root, "usr/lib/modules", kver)
    shutil.copy2("/boot/vmlinuz-" + kver, os.path.join(kdir, "vmlinuz"))
    with open(os.path.join(kdir, "pkgbase"), "w") as f:
        f.write("linux\n")


def make_musl(root, kver, cache):
    for d in ("bin", "sbin", "lib/x86_64-linux-musl", "usr/bin", "usr/sbin", "etc", "boot"):
        os.makedirs(os.path.join(root, d))
    shutil.copy2("/usr/lib/x86_64-linux-musl/libc.so", os.path.join(root, "lib/x86_64-linux-musl"))
    links(root, (("lib/ld-musl-x86_64.so.1", "x86_64-linux-musl/libc.so"),))
    shutil.copy2("/etc/ld-musl-x86_64.path", os.path.join(root, "etc"))
    e2fsprogs_musl(cache, root)
    modules(root, kver, "/lib/modules", None)
    shutil.copy2("/boot/vmlinuz-" + kver, os.path.join(root, "boot", "vmlinuz-" + kver))
    shutil.copy2("/boot/config-" + kver, os.path.join(root, "boot", "config-" + kver))


MAKERS = {"fedora": make_fedora, "arch": make_arch, "musl": make_musl}
KERNEL = {"fedora": "usr/lib/modules/{kver}/vmlinuz", "arch": "usr/lib/modules/{kver}/vmlinuz",
          "musl": "boot/vmlinuz-{kver}"}


def fixture(name, kver, cache):
    """The cached fixture's path, built first when missing (into a
    temporary directory renamed into place: a killed build leaves none)."""
    path = os.path.join(cache, "layout-%s-%s" % (name, recipe_hash(kver)))
    if os.path.isdir(path):
        return path, 0.0
    t = time.monotonic()
    tmp = path + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    MAKERS[name](tmp, kver, cache)
    # the virtio guest as hostonly sees it (tests/boot/run.py's HOSTONLY_SYSROOT)
    for d in ("proc", "sys"):
        shutil.copytree(os.path.join(HOSTONLY_FIXTURE, d), os.path.join(tmp, d), symlinks=True)
    for old in glob.glob(os.path.join(cache, "layout-%s-*" % name)):
        if old != tmp:   # an older recipe's
            shutil.rmtree(old, ignore_errors=True)
    os.rename(tmp, path)
    return path, time.monotonic() - t
