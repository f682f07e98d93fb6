# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios for the ZFS plugin (plugins/zfs.conf.in, its root
program src/plugins/zfs/zfsroot.c; docs/plugins.md "ZFS, worked").

ZFS is not in Debian's main: tests/zfs/fetch.py fetches bookworm's
contrib zfs-dkms and zfsutils-linux through an apt state of its own,
builds the module with DKMS for the boot tests' kernel and caches it all
under /var/cache/uniramfs-tests (cold: minutes, once; warm: nothing),
and puts the userland in /usr/local, where the plugin's `programs` find
zpool as on a host with ZFS.  The module directory with the DKMS-built
modules at updates/dkms/ is given to the builds with --kmoddir.

The disk is made in the builder VM (builder/zfs.sh, its own builder
image with zpool, zfs and the module): pool rpool, bootfs
rpool/ROOT/debian with mountpoint=/, exported.  A boot passes only on
the marker of the root's init after switch_root, the root mounted as
zfs from rpool/ROOT/debian.
"""

import importlib.util
import os
import re

import builder
import scenarios_ssh
import scratch

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))


def _load_zfs_fetch():
    """tests/zfs/fetch.py under its own module name: as a plain "fetch"
    it took the place of tests/kernels/fetch.py in the kernel matrix,
    which imports these scenarios first."""
    spec = importlib.util.spec_from_file_location(
        "zfs_fetch", os.path.join(SRC, "tests", "zfs", "fetch.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


zfs_fetch = _load_zfs_fetch()

PASS = "zfs-test-passphrase"
DATASET = "rpool/ROOT/debian"
_state = {}   # the fetch's result and the build tree, once per run


def _ensure(env):
    if "moddir" not in _state:
        kver, _ver, out = zfs_fetch.ensure(kver=env["kver"], do_install=True)
        _state["moddir"] = os.path.join(out, "modules", kver)
    _state["builddir"] = os.path.dirname(env["uniramfs"])
    return _state["moddir"]


def plugin_file(builddir):
    """plugins/zfs.conf.in as meson makes it, with the root program of
    this build tree (a path of the host, so of the image too)."""
    with open(os.path.join(SRC, "plugins", "zfs.conf.in")) as f:
        text = f.read()
    progdir = os.path.join(builddir, "src", "plugins", "zfs")
    d = scratch.scratch_dir("plugin")
    path = os.path.join(d, "zfs.conf")
    with open(path, "w") as f:
        f.write(text.replace("@LIBEXECDIR@", progdir))
    return path


class ZfsLayout(builder.Layout):
    """A builder layout whose builder image has ZFS, and whose boot image
    is built with the ZFS plugin and the DKMS module directory."""

    def build(self, testinit, work, env):
        moddir = _ensure(env)
        env = dict(env, builder={"name": "builder-zfs.img", "kmoddir": moddir,
                                 "binaries": ("zpool", "zfs", "zgenhostid"),
                                 "modules": ("zfs",)})
        return builder.ensure(self, testinit, work, env)

    def image_files(self, paths):
        return paths, ("--kmoddir", _state["moddir"],
                       "--plugin", plugin_file(_state["builddir"]))


class ZfsSshDisk(scenarios_ssh.SshDisk):
    """The encrypted pool in a generic image with SSH unlock (ip=dhcp,
    dropbear): the sysroot of scenarios_ssh (the guest's hardware,
    dropbear, authorized_keys) plus zpool, zfs, mount.zfs and the root
    program with their libraries, at the same paths."""

    def build(self, testinit, work, env):
        self.work = os.path.join(work, "ssh-zfs")
        return self.layout.build(testinit, work, env)

    def image_files(self, paths):
        root = self.sysroot()
        prog = os.path.join(_state["builddir"], "src", "plugins", "zfs",
                            "uniramfs-zfs-mount-root")
        with scenarios_ssh._SYSROOT_LOCK:
            self._make_sysroot(root)
            for b in ("/usr/local/sbin/zpool", "/usr/local/sbin/zfs",
                      "/usr/local/sbin/mount.zfs", prog):
                if os.path.exists(root + b):   # the program of this build, not the last
                    os.unlink(root + b)
                scenarios_ssh._copy_with_libs(b, root)
        return paths, ("--generic", "--sysroot", root, "--kmoddir", _state["moddir"],
                       "--microcode", "none", "--cmdline", "ip=dhcp", "--ssh-unlock", "yes",
                       "--plugin", plugin_file(_state["builddir"]))


def _fs(n):
    return "5f0c1a4e-1b2d-4c3e-9f10-0000000020%02x" % n


ZFS = ZfsLayout("zfs", "zfs", "zfs", _fs(1), "zfsroot", size_mb=128)
ZFS_ENC = ZfsLayout("zfs-encrypted", "zfs", "zfs", _fs(2), "zfsencroot", size_mb=128,
                    params=(("ZFS_ENCRYPT", "1"), ("PASS", PASS)))
ZFS_FOREIGN = ZfsLayout("zfs-foreign", "zfs", "zfs", _fs(3), "zfsforeignroot", size_mb=128,
                        params=(("ZFS_FOREIGN", "1"), ("ZFS_FOREIGN_HOSTID", "0badcafe")))

SSH_DISK = ZfsSshDisk(ZFS_ENC, "zfs-ssh", generic=True)

MOUNTED = r"root-mount=%s zfs ro" % re.escape(DATASET)
PROMPT = r"Passphrase for ZFS %s: " % re.escape(DATASET)


def scenarios(Scenario):
    S = lambda *a, **k: Scenario(*a, ours_only=True, **k)  # noqa: E731
    return [
        S("zfs", "root=ZFS=rpool/ROOT/debian: the plugin's root program imports the pool and "
          "mounts the dataset", ZFS, "ZFS=" + DATASET, expect=(MOUNTED,),
          log_expect=("uniramfs: root=ZFS=%s: mounting it with plugin zfs" % DATASET,
                      "zfs-mount-root: mounted %s on /sysroot (ro)" % DATASET)),
        S("zfs-auto", "root=zfs:AUTO: the dataset is the pool's bootfs", ZFS, "zfs:AUTO",
          expect=(MOUNTED,),
          log_expect=("zfs-mount-root: root=zfs:AUTO: pool rpool's bootfs is " + DATASET,)),
        S("zfs-encrypted", "an encrypted dataset: its passphrase typed at the init's own prompt",
          ZFS_ENC, "zfs:" + DATASET, expect=(MOUNTED,),
          interact=((PROMPT, PASS + "\n"),),
          log_expect=("uniramfs: plugin zfs asks for a secret",)),
        S("zfs-encrypted-ssh", "the encrypted dataset's passphrase answered over SSH (a generic "
          "image, dropbear, ip=dhcp): the init's prompt reaches the login",
          SSH_DISK, "ZFS=" + DATASET, expect=(MOUNTED,),
          interact=((scenarios_ssh.DROPBEAR_UP, scenarios_ssh.SshLogin(SSH_DISK, (
              (PROMPT, PASS + "\n"),))),),
          log_expect=("uniramfs: plugin zfs asks for a secret",)),
        S("zfs-encrypted-wrong-then-right", "a wrong passphrase: zfs load-key fails, the program "
          "asks again through the init, then boots", ZFS_ENC, "ZFS=" + DATASET, expect=(MOUNTED,),
          interact=((PROMPT, "not-the-passphrase\n"),
                    (r"zfs-mount-root: zfs load-key %s failed: wrong passphrase\?[\s\S]*%s"
                     % (re.escape(DATASET), PROMPT), PASS + "\n")),
          log_expect=("zfs-mount-root: zfs load-key %s failed: wrong passphrase?" % DATASET,)),
        S("zfs-foreign-refused", "a pool last used by another host (its host id) is not imported "
          "without rd.zfs.force: the message says so", ZFS_FOREIGN, "ZFS=" + DATASET,
          cmdline="rd.shell=0",
          fail_msgs=("zfs-mount-root: pool rpool: zpool import failed (status 1); if it was "
                     "last used by another host, boot with rd.zfs.force",)),
        S("zfs-foreign-force", "rd.zfs.force: the same pool is imported with -f and boots",
          ZFS_FOREIGN, "ZFS=" + DATASET, cmdline="rd.zfs.force", expect=(MOUNTED,)),
    ]
