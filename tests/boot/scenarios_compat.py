# SPDX-License-Identifier: GPL-2.0-or-later
"""Boot scenarios that replay the anchors' own storage tests (issue 26,
docs/compat.md): dracut-ng's test/TEST-* client runs and booster's
tests/*_test.go, each with the test's disk layout and its kernel command
line exactly as written there (their UUIDs, labels and names too, so the
spelling is theirs), booted by a uniramfs image.

The disks are attached as the suites attach them, not on run.py's bus:
dracut's qemu_add_drive puts each disk on its own virtio-scsi controller
as a scsi-hd with serial=NAME (so /dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_NAME
exists), booster's vmtest puts them on virtio-scsi (/dev/sda...), or on
NVMe or USB where a test says so.  build() therefore returns no disk for
run.py to attach, and attach() gives the QEMU arguments.

Where a suite bakes something into its image (booster's mount_timeout, a
crypttab, a key file), the uniramfs image gets the same through `uniramfs
build` (--cmdline, --add-files, --add-keys).  The harness's own words
(console=, panic=) stay in front.
"""

import contextlib
import hashlib
import os
import shutil

import builder
import disks
import scenarios_console
import scenarios_early
import scenarios_lvmx
import scenarios_stack
import scenarios_zfs

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
COMPAT = os.path.join(HERE, "compat")

_run = scenarios_early._run

# ------------------------------------------------------------ attaching


def _dracut_drives(named):
    """test-functions' qemu_add_drive: one virtio-scsi controller per disk."""
    args = []
    for i, (path, serial) in enumerate(named):
        args += ["-device", "virtio-scsi-pci,id=scsi%d" % i,
                 "-drive", "if=none,format=raw,file=%s,id=drive-data%d" % (path, i),
                 "-device", "scsi-hd,bus=scsi%d.0,drive=drive-data%d,id=data%d,serial=%s"
                 % (i, i, i, serial)]
    return args


def _booster_drives(paths, how="scsi", first=0):
    """vmtest's disks: virtio-scsi (sda, sdb...), or the controller a test
    names; first: the number of the first drive id (bdN)."""
    args = []
    if how == "scsi":
        args += ["-device", "virtio-scsi-pci,id=bscsi"]
    elif how == "scsi-slot4":
        # vmtest's machine has QEMU's default VGA and NIC in slots 2 and 3,
        # so its controller is 0000:00:04.0, the by-path name booster's
        # HWPATH= cases spell; -nodefaults would put it in slot 2
        args += ["-device", "virtio-scsi-pci,id=bscsi,addr=04.0"]
        how = "scsi"
    elif how == "usb":
        args += ["-device", "usb-ehci,id=ehci"]
    for i, p in enumerate(paths, first):
        args += ["-drive", "if=none,format=raw,id=bd%d,file=%s" % (i, p)]
        if how == "scsi":
            args += ["-device", "scsi-hd,bus=bscsi.0,drive=bd%d" % i]
        elif how == "scsi4k":
            if i == first:
                args += ["-device", "virtio-scsi-pci,id=bscsi"]
            args += ["-device", "scsi-hd,bus=bscsi.0,drive=bd%d,physical_block_size=4096,"
                     "logical_block_size=4096" % i]
        elif how == "nvme":
            args += ["-device", "nvme,serial=boostfoo,drive=bd%d" % i]
        elif how == "usb":
            args += ["-device", "usb-storage,bus=ehci.0,drive=bd%d" % i]
        elif how == "virtio":
            args += ["-device", "virtio-blk-pci,drive=bd%d" % i]
    return args


class Attached:
    """Disks made by makers (each (testinit, work, env) -> [paths]), attached
    by attach_fn(paths) rather than by run.py."""

    def __init__(self, name, fs, makers, attach_fn):
        self.name, self.fs = name, fs
        self.makers, self.attach_fn = makers, attach_fn
        self.paths = None

    def build(self, testinit, work, env):
        paths = []
        for m in self.makers:
            paths += m(testinit, work, env)
        self.paths = paths
        return []

    def attach(self, _dpaths):
        return contextlib.nullcontext(self.attach_fn(self.paths))


def _plain(disk):
    return lambda testinit, work, env: [disks.ensure(disk, testinit, work)]


def _layout(layout):
    return lambda testinit, work, env: layout.build(testinit, work, env)


# ------------------------------------------------------------ booster's disks
# tests/assets.go and tests/generators/*.sh at the commit docs/compat.md names
B_EXT4 = disks.Disk("booster-ext4", "ext4", "5c92fc66-7315-408b-b652-176dc554d370",
                    "atestlabel12", size_mb=40)
B_GPT_FS_UUID = "e5404205-ac6a-4e94-bb3b-14433d0af7d1"
# generators/gpt.sh: four partitions, the third the root (x86-64 root type)
B_GPT_PARTS = (  # (MiB or 0 for the rest, type, PARTUUID, name)
    (10, disks.LINUX_FS_TYPE, "78073a8b-bdf6-48cc-918e-edb926b25f64", "раздел1"),
    (15, disks.LINUX_FS_TYPE, "78112a1f-3c75-483d-b120-48492e48af35", "раздел2"),
    (11, "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709", "1b8e9701-59a6-49f4-8c31-b97c99cd52cf",
     "раздел3"),
    (0, disks.LINUX_FS_TYPE, "7ab42460-1deb-4e22-80f1-47dc0e2a7153", "раздел4"),
)
# booster's own names for the first disk on vmtest's controller, as its
# tests spell them: WWID= from the unit serial page (none here: empty) with
# the target and LUN always "0:0", HWPATH= with the kernel's SCSI host
# number (2, after the board's two PATA ports). udev names the disk
# scsi-0QEMU_QEMU_HARDDISK_bd0 and ...-scsi-0:0:0:0; the init matches both
# (src/init/dev/persistname_booster.c).
B_WWID = "scsi-QEMU_QEMU_HARDDISK_-0:0"
B_HWPATH = "pci-0000:00:04.0-scsi-2:0:0:0"
# The kernel numbers SCSI hosts as their drivers probe: in booster's VM
# ata_piix came first (hosts 0 and 1), in ours virtio_scsi may. Loading
# ata_piix first makes the number booster's line names.
ATA_FIRST = "rd.driver.pre=ata_piix"
B_GPT4K_PARTUUID = "d4699213-6e73-41d5-ad81-3daf5dfcecfb"
B_GPT4K_FS_UUID = "5f0c1a4e-1b2d-4c3e-9f10-0000000007a4"   # gpt_4ksector.sh lets mkfs pick


def _gpt_disk(work, testinit, name, total_mb, sector, parts, root_index, fs_uuid, fs_label):
    """A GPT made by sfdisk in a file with parts; an ext4 holding the test
    root (mkfs.ext4 -d) dd'd into partition root_index."""
    recipe = repr((name, total_mb, sector, parts, root_index, fs_uuid, fs_label))

    def make(tmp, out):
        with open(out, "wb") as f:
            f.truncate(total_mb << 20)
        per_mib = (1 << 20) // sector
        lines = ["label: gpt", "sector-size: %d" % sector]
        start = per_mib          # 1 MiB aligned, as gdisk and fdisk do
        spans = []
        for mib, ptype, puuid, pname in parts:
            size = mib * per_mib if mib else None
            lines.append("start=%d, %stype=%s, uuid=%s, name=\"%s\""
                         % (start, "size=%d, " % size if size else "", ptype, puuid, pname))
            # the rest: up to the last MiB, where the backup GPT is
            spans.append((start, size or ((total_mb - 1) * per_mib - start)))
            if size:
                start += size
        script = "\n".join(lines) + "\n"
        if sector == 512:
            _run(["sfdisk", "-q", "--no-reread", "--no-tell-kernel", out], input=script)
        else:
            # sfdisk takes a file's sectors as 512 bytes: a loop device
            # with the sector size makes it see the disk as QEMU shows it
            loop = _run(["losetup", "-f", "--show", "-b", str(sector), out]).strip()
            try:
                _run(["sfdisk", "-q", "--no-reread", "--no-tell-kernel", loop], input=script)
            finally:
                _run(["losetup", "-d", loop])
        pstart, psize = spans[root_index]
        root = os.path.join(tmp, "root")
        disks._populate(root, testinit)
        fsimg = os.path.join(tmp, "fs.img")
        with open(fsimg, "wb") as f:
            f.truncate(psize * sector)
        _run(["mkfs.ext4", "-q", "-F", "-b", "4096", "-d", root, "-U", fs_uuid, "-L", fs_label,
              "-E", "root_owner=0:0", fsimg])
        _run(["dd", "if=" + fsimg, "of=" + out, "bs=1M", "conv=notrunc,sparse",
              "oflag=seek_bytes", "seek=%d" % (pstart * sector), "status=none"])
    return scenarios_early._cached(work, name, recipe, testinit, make)


def _b_gpt(testinit, work, env):
    return [_gpt_disk(work, testinit, "booster-gpt", 100, 512, B_GPT_PARTS, 2,
                      B_GPT_FS_UUID, "newpart")]


def _b_gpt4k(testinit, work, env):
    return [_gpt_disk(work, testinit, "booster-gpt4k", 100, 4096,
                      ((0, disks.LINUX_FS_TYPE, B_GPT4K_PARTUUID, ""),), 0,
                      B_GPT4K_FS_UUID, "gpt4k")]


def _b_unformatted(testinit, work, env):
    """TestNonFormattedDrive's first disk is a Go source file: text, no
    signature anywhere; this file does the same."""
    return [os.path.abspath(__file__)]


# LUKS disks of tests/assets.go, laid out in the builder VM with their UUIDs
# and passphrase (the builder's PBKDF2 at 1000 iterations: TCG)
B_PASS = "1234"
B_LUKS1_UUID = "f0c89fd5-7e1e-4ecc-b310-8cd650bd5415"
B_LUKS2_UUID = "639b8fdd-36ba-443e-be3e-e5b335935502"
B_LUKS1 = builder.Layout("booster-luks1", "luks1-key", "ext4",
                         "ec09a1ea-d43c-4262-b701-bf2577a9ab27", "atestlabel12",
                         params=(("LUKS_UUID", B_LUKS1_UUID), ("PASS", B_PASS)))
B_LUKS2 = builder.Layout("booster-luks2", "luks2", "ext4",
                         "7bbf9363-eb42-4476-8c1c-9f1f4d091385", "atestlabel12",
                         params=(("LUKS_UUID", B_LUKS2_UUID), ("PASS", B_PASS)))


def _crypttab(work, name, text):
    """A crypttab file for --add-files (the run's work dir, made once)."""
    d = os.path.join(work, "compat")
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, name)
    if not os.path.exists(p) or open(p).read() != text:
        with open(p + ".tmp", "w") as f:
            f.write(text)
        os.replace(p + ".tmp", p)
    return p


class WithImageFiles(Attached):
    """Attached disks plus files the image carries (a crypttab, a key):
    files is a function of the work dir giving `uniramfs build` arguments."""

    def __init__(self, name, fs, makers, attach_fn, files):
        super().__init__(name, fs, makers, attach_fn)
        self.files, self.work = files, None

    def build(self, testinit, work, env):
        self.work = work
        return super().build(testinit, work, env)

    def image_files(self, dpaths):
        return dpaths, self.files(self.work)


class NoModules(Attached):
    """Attached disks and an image with no modules at all (booster's
    `modules: -*`): `uniramfs build --kmoddir` a directory holding only
    the kernel's list of built-in modules and the empty indexes depmod
    makes of that."""

    def build(self, testinit, work, env):
        self.kver = env["kver"]
        self.kmoddir = os.path.join(work, "compat", "nomodules", "lib", "modules", self.kver)
        return super().build(testinit, work, env)

    def image_files(self, dpaths):
        base = self.kmoddir[:-len("/lib/modules/" + self.kver)]
        if not os.path.exists(os.path.join(self.kmoddir, "modules.dep.bin")):
            os.makedirs(self.kmoddir, exist_ok=True)
            for f in ("modules.builtin", "modules.builtin.modinfo"):
                shutil.copy(os.path.join("/lib/modules", self.kver, f), self.kmoddir)
            open(os.path.join(self.kmoddir, "modules.order"), "w").close()
            _run(["depmod", "-b", base, self.kver])
        return dpaths, ("--kmoddir", self.kmoddir)


def _ct(name, text, extra=None):
    """crypttab text as the image's /etc/crypttab; extra(work): more
    build arguments (a key file)."""
    def files(work):
        return ("--add-files", "%s:/etc/crypttab" % _crypttab(work, name, text)) + \
            (extra(work) if extra else ())
    return files


B_KEYFILE_PADDED = "PADDINGx" + B_PASS     # crypttab_test.go's key, slice 8+4


def _padded_key(work):
    return ("--add-keys", "%s:/etc/uniramfs/keys/luks2.key"
            % _crypttab(work, "luks2.key", B_KEYFILE_PADDED))


B_LVM = builder.Layout("booster-lvm", "compat-booster-lvm", "ext4",
                       "74c9e30c-506f-4106-9f61-a608466ef29c", "lvmr00t", size_mb=100)
B_RAID1 = builder.Layout("booster-raid1", "compat-booster-raid1", "ext4",
                         "98b1a905-3c72-42f0-957a-6c23b303b1fd", "boosmdraid", size_mb=60)
B_RAID5 = builder.Layout("booster-raid5", "compat-booster-raid5", "ext4",
                         "e62c7dc0-5728-4571-b475-7745de2eef1e", "boosmdraid", size_mb=60)


# crypttab_test.go's TestCrypttabKeyfileDevice: the key file on a second
# disk named by its filesystem UUID in the crypttab line's key field
B_KEYDEV_UUID = "f1e2d3c4-b5a6-4789-8abc-def123456789"
B_LUKS_KEYDEV_UUID = "7c2a39be-15d1-4b71-9f2e-5c4d1a3b8e6f"
B_LUKS_KEYDEV = builder.Layout("booster-luks2-keydev", "luks2", "ext4",
                               "a3d8e2c1-4f7b-4e9c-b2a1-6d5f3c8e1a7b", "atestlabel12",
                               params=(("LUKS_UUID", B_LUKS_KEYDEV_UUID), ("KEYFILE", "/src/key")),
                               files=(("luks1.key", "key"),))


def _b_keydev(testinit, work, env):
    """An ext4 with UUID B_KEYDEV_UUID holding /keyfile (builder/luks1.key)."""
    with open(scenarios_stack.KEYFILE, "rb") as f:
        key = f.read()

    def make(tmp, out):
        top = os.path.join(tmp, "top")
        os.makedirs(top)
        with open(os.path.join(top, "keyfile"), "wb") as f:
            f.write(key)
        with open(out, "wb") as f:
            f.truncate(8 << 20)
        _run(["mkfs.ext4", "-q", "-F", "-d", top, "-U", B_KEYDEV_UUID, out])
    return [scenarios_early._cached(work, "booster-keydev", B_KEYDEV_UUID + key.hex(),
                                    testinit, make)]


# dracut TEST-44-DRIVERS: a root with an empty /lib/modules (its init
# mounts an xfs /mnt, whose module only the initramfs has), and the xfs
# disk; TEST-44's root runs systemd and kmod's modprobe, ours mountinit in
# front of testinit, and uniramfs-init (static) as its /sbin/modprobe
D44_ROOT_UUID = "5f0c1a4e-1b2d-4c3e-9f10-000000000044"
D44_MNT = disks.Disk("dracut44-mnt", "xfs", "5f0c1a4e-1b2d-4c3e-9f10-000000000045", "mnt",
                     size_mb=300)


def _d44_root(testinit, work, env):
    src = os.path.join(COMPAT, "mountinit.c")
    init_bin = os.path.join(os.path.dirname(env["uniramfs"]), "uniramfs-init")
    h = hashlib.sha256()
    for p in (src, init_bin):
        with open(p, "rb") as f:
            h.update(f.read())

    def make(tmp, out):
        root = os.path.join(tmp, "root")
        disks._populate(root, testinit)
        os.rename(os.path.join(root, "sbin", "init"), os.path.join(root, "sbin", "testinit"))
        _run(["cc", "-O2", "-static", "-o", os.path.join(root, "sbin", "init"), src])
        shutil.copyfile(init_bin, os.path.join(root, "sbin", "modprobe"))
        os.chmod(os.path.join(root, "sbin", "modprobe"), 0o755)
        os.makedirs(os.path.join(root, "lib", "modules"))
        with open(out, "wb") as f:
            f.truncate(40 << 20)
        _run(["mkfs.ext4", "-q", "-F", "-d", root, "-U", D44_ROOT_UUID, "-L", "dracut",
              "-E", "root_owner=0:0", out])
    return [scenarios_early._cached(work, "dracut44-root", h.hexdigest(), testinit, make)]


class BoosterHeader(scenarios_stack.DetachedHeader):
    """TestCrypttabHeader: scenarios_stack's detached-header disk with
    booster's crypttab line, which names the data disk by the UUID in
    the header (the disk itself has no signature)."""

    def __init__(self):
        super().__init__(scenarios_stack.LUKS2_HDR, None)
        self.name = "booster-ct-header"

    def build(self, testinit, work, env):
        self.crypttab = _crypttab(work, "booster-ct-header", "cryptroot UUID=%s none header=%s,"
                                  "x-initrd.attach\n" % (scenarios_stack.LUKS2_HDR_UUID,
                                                         self.HEADER))
        return super().build(testinit, work, env)


B_CAMELLIA_UUID = "ad575500-a9e3-4692-b1b2-eed95a6e8ce2"
B_CAMELLIA = builder.Layout("booster-luks2-camellia", "compat-booster-camellia", "ext4",
                            "0118f2b1-3c4f-4eff-9663-b58447ad797c", "atestlabel12",
                            params=(("LUKS_UUID", B_CAMELLIA_UUID), ("PASS", B_PASS)))
# luks_test.go's detached-header volumes (assets.go), laid out by
# builder/luks2-header.sh: disk 1 the data (no signature), disk 2 the
# header in its first 2 MiB; the image carries the header file where
# booster's test names it (an absolute path of the host there)
B_HDR_UUID = "cbd49694-81de-41bd-a850-0d934aff8328"
B_HDR_FS_UUID = "781780d2-bf67-4a17-9ca8-fd22336c1b2e"
B_HDRDEV_UUID = "e2d8f1a3-7b4c-4e9d-a1b2-3c4d5e6f7a8b"
B_HDR2_UUID = "4d4d4d4d-4444-4444-8444-444444444444"
B_HDR2_KEY = "decoy-key-2"   # the decoy's passphrase, its key file's text
B_HDR = builder.Layout("booster-detached-header", "luks2-header", "ext4", B_HDR_FS_UUID,
                       "atestlabel12", ndisks=2, size_mb=64,
                       params=(("LUKS_UUID", B_HDR_UUID), ("PASS", B_PASS)))
B_HDR2 = builder.Layout("booster-detached-header2", "luks2-header", "ext4",
                        "781780d2-bf67-4a17-9ca8-fd22336c1b2f", "decoy", ndisks=2, size_mb=64,
                        params=(("LUKS_UUID", B_HDR2_UUID), ("PASS", B_HDR2_KEY)))
B_HDR_PATH = "/tests/assets/luks2.detached_header.hdr"
B_HDR2_PATH = "/tests/assets/luks2.detached_header2.hdr"
B_HDR2_KEY_PATH = "/tests/assets/luks2.detached_header2.key"


def _hdr_file(disk):
    """The header: the first 2 MiB of a layout's second disk, as a file."""
    hdr = disk + ".hdr"
    if not os.path.exists(hdr):
        with open(disk, "rb") as f, open(hdr + ".tmp", "wb") as o:
            o.write(f.read(2 << 20))
        os.replace(hdr + ".tmp", hdr)
    return hdr


def _b_hdrdev(testinit, work, env):
    """luks_detached_header_device.sh: an ext4 with UUID B_HDRDEV_UUID
    holding the header as /root.hdr."""
    hdr = _hdr_file(B_HDR.build(testinit, work, env)[1])

    def make(tmp, out):
        top = os.path.join(tmp, "top")
        os.makedirs(top)
        with open(hdr, "rb") as f, open(os.path.join(top, "root.hdr"), "wb") as o:
            o.write(f.read())
        with open(out, "wb") as f:
            f.truncate(8 << 20)
        _run(["mkfs.ext4", "-q", "-F", "-d", top, "-U", B_HDRDEV_UUID, out])
    with open(hdr, "rb") as f:
        recipe = B_HDRDEV_UUID + hashlib.sha256(f.read()).hexdigest()
    return [scenarios_early._cached(work, "booster-hdrdev", recipe, testinit, make)]


class BoosterDetached(Attached):
    """A detached-header case: makers give the disks, attach_fn(paths) the
    QEMU arguments, files(work, paths) the build's (headers, a key)."""

    def __init__(self, name, makers, attach_fn, files=None):
        super().__init__(name, "ext4", makers, attach_fn)
        self.files, self.work = files, None

    def build(self, testinit, work, env):
        self.work = work
        return super().build(testinit, work, env)

    def image_files(self, dpaths):
        return dpaths, self.files(self.work, self.paths) if self.files else ()


def _hdr_into(path, disk_index=1):
    """--add-keys for the header of the layout whose disks start at
    disk_index - 1 in paths."""
    return lambda work, paths: ("--add-keys", "%s:%s" % (_hdr_file(paths[disk_index]), path))


# btrfs_test.go, and luks_test.go's one passphrase for two volumes
B_BTRFS_RAID0 = builder.Layout("booster-btrfs-raid0", "compat-booster-btrfs-raid0", "btrfs",
                               "5eaa0c1c-e1dc-4be7-9b03-9f1ed5a87289", "", size_mb=650)
B_SHARED = (("LUKS_UUID", "a4c8e2f6-1b3d-4678-9ace-0f2468ace024"),
            ("LUKS_UUID2", "b5d9f307-2c4e-4789-ab1f-1e3579bdf135"))
B_SHARED_PASS = builder.Layout("booster-shared-pass", "compat-booster-luks-parts", "ext4",
                               "c6ea04b8-3d5f-4890-bc2e-2f468ace0246", "sharedroot", size_mb=60,
                               params=B_SHARED + (("PASS", B_PASS), ("ROOTFS", "ext4")))
B_BTRFS_LUKS = (("LUKS_UUID", "d7fb15c9-4e6a-4901-cd3f-3a579bdf1357"),
                ("LUKS_UUID2", "e8ac26da-5f7b-4012-de40-4b68ace02468"))
B_LUKS_BTRFS_RAID1 = builder.Layout("booster-luks-btrfs-raid1", "compat-booster-luks-parts",
                                    "btrfs", "f9bd37eb-607c-4123-ef51-5c79bdf13579", "",
                                    size_mb=450,
                                    params=B_BTRFS_LUKS + (("PASS", B_PASS), ("ROOTFS", "btrfs")))
# one prompt, for whichever partition comes first: a second is never
# answered, so the boot would time out
B_ONE_PROMPT = ((r"Passphrase for /dev/sda[12] \([0-9a-f-]+\): ", B_PASS + "\n"),)


# ------------------------------------------------------------ dracut's disks
D_EXT4 = disks.Disk("dracut-ext4", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-000000000710", "dracut")
D_USR_UUID = "5f0c1a4e-1b2d-4c3e-9f10-000000000711"
# TEST-11's make_test_rootfs appends this to the root's fstab
D_USR_FSTAB = "/dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_root /usr btrfs subvol=usr,rw 0 2\n"


def _d_usr(testinit, work, env):
    """TEST-11's create-root.sh on the host: btrfs labelled dracut, the root
    at the top level with /usr a subvolume of it, then a read-only snapshot
    of the top level called snapshot-root (loop mount: no mkfs --subvol in
    btrfs-progs 6.2)."""
    def make(tmp, out):
        with open(out, "wb") as f:
            f.truncate(128 << 20)
        _run(["mkfs.btrfs", "-q", "-f", "-U", D_USR_UUID, "-L", "dracut", out])
        mnt = os.path.join(tmp, "mnt")
        os.mkdir(mnt)
        _run(["mount", "-o", "loop", out, mnt])
        try:
            _run(["btrfs", "-q", "subvolume", "create", os.path.join(mnt, "usr")])
            src = os.path.join(tmp, "src")
            disks._populate(src, testinit)
            os.makedirs(os.path.join(src, "usr", "lib"))
            with open(os.path.join(src, "usr", "lib", "usr-subvolume"), "w") as f:
                f.write("this file is in the usr subvolume\n")
            with open(os.path.join(src, "etc", "fstab"), "w") as f:
                f.write(D_USR_FSTAB)
            _run(["cp", "-a", src + "/.", mnt + "/"])
            _run(["btrfs", "filesystem", "sync", mnt])
            _run(["btrfs", "-q", "subvolume", "snapshot", "-r", mnt,
                  os.path.join(mnt, "snapshot-root")])
        finally:
            _run(["umount", mnt])
    return [scenarios_early._cached(work, "dracut-usr", D_USR_UUID + D_USR_FSTAB, testinit,
                                    make)]


# TEST-20-STORAGE and TEST-26-ENC-RAID-LVM: two disks, disk1 and disk2; the
# LUKS passphrase is the text of the key file the image carries as /etc/key
D_KEY = "verySecurePassword"
D20_MD_UUID = "5f0c1a4e:1b2d4c3e:9f100000:00000720"
D20_LUKS_UUID = "5f0c1a4e-1b2d-4c3e-9f10-000000000721"
D26_MD_UUID = "5f0c1a4e:1b2d4c3e:9f100000:00000726"
D26_LUKS1 = "5f0c1a4e-1b2d-4c3e-9f10-000000000727"
D26_LUKS2 = "5f0c1a4e-1b2d-4c3e-9f10-000000000728"
D20_LVM = builder.Layout("dracut20-disk", "compat-dracut-lvm", "ext4",
                         "5f0c1a4e-1b2d-4c3e-9f10-000000000722", "dracut", ndisks=2)
D20_RAID = builder.Layout("dracut20-raid", "compat-dracut-raid", "ext4",
                          "5f0c1a4e-1b2d-4c3e-9f10-000000000723", "dracut", ndisks=2,
                          params=(("MD_UUID", D20_MD_UUID),))
D20_RAID_CRYPT = builder.Layout("dracut20-raid-crypt", "compat-dracut-raid", "ext4",
                                "5f0c1a4e-1b2d-4c3e-9f10-000000000724", "dracut", ndisks=2,
                                params=(("MD_UUID", D20_MD_UUID), ("LUKS_UUID", D20_LUKS_UUID),
                                        ("PASS", D_KEY)))
D26 = builder.Layout("dracut26", "compat-dracut-enc-raid-lvm", "ext4",
                     "5f0c1a4e-1b2d-4c3e-9f10-000000000729", "dracut26", ndisks=2,
                     params=(("MD_UUID", D26_MD_UUID), ("LUKS_UUID", D26_LUKS1),
                             ("LUKS_UUID2", D26_LUKS2), ("PASS", D_KEY)))
D20_BTRFS = builder.Layout("dracut20-btrfs", "btrfs-multi", "btrfs",
                           "5f0c1a4e-1b2d-4c3e-9f10-00000000072b", "dracut", ndisks=2, size_mb=160,
                           params=(("PROFILE", "raid1"),))
# TEST_FSTYPE=zfs: pool dracut mirrored over both disks, made with the
# ZFS plugin's builder image; booted by the shipped ZFS plugin
D20_ZFS = scenarios_zfs.ZfsLayout("dracut20-zfs", "compat-dracut-zfs", "zfs",
                                  "5f0c1a4e-1b2d-4c3e-9f10-00000000072c", "dracut", ndisks=2,
                                  size_mb=128)


class ZfsAttached(Attached):
    """dracut's two disks holding a ZFS pool: the image gets the ZFS
    plugin and the DKMS module directory, as scenarios_zfs's do."""

    def __init__(self, name, layout, serials):
        super().__init__(name, "zfs", [_layout(layout)],
                         lambda paths: _dracut_drives(list(zip(paths, serials))))
        self.layout = layout

    def image_files(self, dpaths):
        return self.layout.image_files(dpaths)


# test_setup's /tmp/crypttab of each
D20_CRYPTTAB = "testluks UUID=%s /etc/key\n" % D20_LUKS_UUID
D26_CRYPTTAB = "".join("luks-%s /dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_disk%d /etc/key "
                       "timeout=0\n" % (u, i) for i, u in ((1, D26_LUKS1), (2, D26_LUKS2)))


def _dracut_key(work):
    return ("--add-keys", "%s:/etc/key" % _crypttab(work, "dracut.key", D_KEY))


def _first(maker):
    """A degraded case: disk1 only."""
    return lambda testinit, work, env: maker(testinit, work, env)[:1]


def _dracut(name, fs, makers, serials):
    return Attached(name, fs, makers, lambda paths: _dracut_drives(list(zip(paths, serials))))


def _booster(name, fs, makers, how="scsi"):
    return Attached(name, fs, makers, lambda paths: _booster_drives(paths, how))


HOSTONLY_SYSROOT = os.path.join(SRCDIR, "tests/unit/fixtures/hostonly/virtio")
HOSTONLY_ARGS = ("--hostonly", "--sysroot", HOSTONLY_SYSROOT,
                 "--kmoddir", "/lib/modules/{kver}", "--microcode", "none")


def _prompt(dev, uuid):
    return scenarios_stack.prompt(dev, uuid)


def scenarios(Scenario):
    """run.py's Scenario list: dracut-* and booster-* replays."""
    S = lambda *a, **k: Scenario(*a, ours_only=True, **k)  # noqa: E731

    d_root = _dracut("dracut-ext4", "ext4", [_plain(D_EXT4)], ["root"])
    d_usr = _dracut("dracut-usr", "btrfs", [_d_usr], ["root"])
    usr_rw = r"mounts: \S+ /usr btrfs rw,\S*subvol=/usr\b"
    top = r"root-mount=\S+ btrfs \S*subvolid=5,subvol=/( |$)"

    b_ext4 = _booster("booster-ext4", "ext4", [_plain(B_EXT4)])
    b_gpt = _booster("booster-gpt", "ext4", [_b_gpt])
    b_gpt_slot4 = _booster("booster-gpt-slot4", "ext4", [_b_gpt], "scsi-slot4")
    b_ext4_slot4 = _booster("booster-ext4-slot4", "ext4", [_plain(B_EXT4)], "scsi-slot4")
    b_luks1 = _booster("booster-luks1", "ext4", [_layout(B_LUKS1)])
    b_luks2 = _booster("booster-luks2", "ext4", [_layout(B_LUKS2)])
    luks1_prompt = ((_prompt("/dev/sda", B_LUKS1_UUID), B_PASS + "\n"),)
    luks2_prompt = ((_prompt("/dev/sda", B_LUKS2_UUID), B_PASS + "\n"),)
    ct_root = "cryptroot UUID=%s none x-initrd.attach\n" % B_LUKS2_UUID

    def d2(name, layout, files=None, degraded=False):
        """TEST-20/26's two disks, disk1 and disk2; degraded: disk1 only."""
        m = _layout(layout)
        m = _first(m) if degraded else m
        att = lambda paths: _dracut_drives(list(zip(paths, ["disk1", "disk2"])))  # noqa: E731
        if files:
            return WithImageFiles(name, "ext4", [m], att, files)
        return Attached(name, "ext4", [m], att)

    d20_ct = _ct("dracut20-crypttab", D20_CRYPTTAB, _dracut_key)
    d26_ct = _ct("dracut26-crypttab", D26_CRYPTTAB, _dracut_key)
    d20_rc = d2("dracut20-raid-crypt", D20_RAID_CRYPT, d20_ct)
    d20_rc_deg = d2("dracut20-raid-crypt-1", D20_RAID_CRYPT, d20_ct, degraded=True)
    degraded = (scenarios_stack.DEGRADED_MSG,)
    by_key = (" as /dev/mapper/testluks",)   # md0 or md127: mdadm -I picks
    d20_ids = "rd.luks.uuid=%s rd.md.uuid=%s" % (D20_LUKS_UUID, D20_MD_UUID)
    d26 = d2("dracut26", D26, d26_ct)

    def b_ct(name, text, extra=None):
        return WithImageFiles(name, "ext4", [_layout(B_LUKS2)],
                              lambda paths: _booster_drives(paths), _ct(name, text, extra))

    return [
        # ---- dracut-ng test/TEST-10-BASIC
        S("dracut-basic", "dracut TEST-10-BASIC: ext4 labelled dracut on a virtio-scsi disk, "
          "root=LABEL=dracut", d_root, "LABEL=dracut", cmdline="quiet"),
        # ---- dracut-ng test/TEST-11-USR-MOUNT: /usr a subvolume of the root's btrfs
        S("dracut-usr-default", "dracut TEST-11 \"no option specified\": /usr from the root's "
          "fstab (subvol=usr, by-id), read-write as fstab says", d_usr, "LABEL=dracut",
          cmdline="quiet", expect=("root-writable=no", usr_rw)),
        S("dracut-usr-ro", "dracut TEST-11 \"readonly root and writeable /usr\": ro",
          d_usr, "LABEL=dracut", cmdline="quiet ro", expect=("root-writable=no", usr_rw)),
        S("dracut-usr-rw", "dracut TEST-11 \"writeable root and /usr\": rw",
          d_usr, "LABEL=dracut", cmdline="quiet rw", expect=("root-writable=yes", usr_rw)),
        S("dracut-usr-nofstab", "dracut TEST-11 \"readonly root and /usr\": ro rd.fstab=0, /usr "
          "is the nested subvolume, not mounted", d_usr, "LABEL=dracut",
          cmdline="quiet ro rd.fstab=0", expect=("root-writable=no",),
          log_absent=(" /usr btrfs ",)),
        S("dracut-usr-snapshot", "dracut TEST-11 \"readonly root snapshot\": rd.fstab=0 "
          "subvol=snapshot-root (no option of dracut's or ours: the top level is the root)",
          d_usr, "LABEL=dracut", cmdline="quiet rd.fstab=0 subvol=snapshot-root",
          expect=(top,), log_absent=(" /usr btrfs ",)),
        # ---- dracut-ng test/TEST-20-STORAGE, TEST_FSTYPE=ext4 (its default)
        S("dracut20-lvm", "dracut TEST-20 \"ext4\" disk: VG dracut over two disks, "
          "rd.auto=1 rd.luks.crypttab=0 rd.md=0", d2("dracut20-disk", D20_LVM),
          "LABEL=dracut", cmdline="quiet ro rd.auto=1 rd.luks.crypttab=0 rd.md=0"),
        S("dracut20-raid", "dracut TEST-20 \"raid\": LVM on a RAID1 (0.90 metadata), "
          "rd.auto=1 rd.luks.crypttab=0", d2("dracut20-raid", D20_RAID), "LABEL=dracut",
          cmdline="quiet ro rd.auto=1 rd.luks.crypttab=0"),
        S("dracut20-raid-degraded", "dracut TEST-20 \"degraded raid\": the same with disk2 "
          "gone", d2("dracut20-raid-1", D20_RAID, degraded=True), "LABEL=dracut",
          cmdline="ro rd.auto=1 rd.luks.crypttab=0", log_expect=degraded),
        S("dracut20-raid-crypt", "dracut TEST-20 \"raid crypt\": LVM in LUKS on RAID1, the "
          "key from the image's crypttab, rd.auto=1", d20_rc, "LABEL=dracut",
          cmdline="ro rd.auto=1", log_expect=by_key, log_absent=("Passphrase for",)),
        S("dracut20-raid-crypt-degraded", "dracut TEST-20 \"degraded raid crypt\" rd.auto=1",
          d20_rc_deg, "LABEL=dracut", cmdline="ro rd.auto=1",
          log_expect=degraded + by_key, log_absent=("Passphrase for",)),
        S("dracut20-raid-crypt-mdconf", "dracut TEST-20 \"degraded raid crypt\" rd.luks.uuid= "
          "rd.md.uuid= rd.md.conf=0 rd.lvm.vg=dracut", d20_rc_deg, "LABEL=dracut",
          cmdline="ro %s rd.md.conf=0 rd.lvm.vg=dracut" % d20_ids,
          log_expect=degraded + by_key, log_absent=("Passphrase for",)),
        S("dracut20-raid-crypt-vg", "dracut TEST-20 \"degraded raid crypt\" rd.luks.uuid= "
          "rd.md.uuid= rd.lvm.vg=dracut", d20_rc_deg, "LABEL=dracut",
          cmdline="ro %s rd.lvm.vg=dracut" % d20_ids,
          log_expect=degraded + by_key, log_absent=("Passphrase for",)),
        S("dracut20-raid-crypt-lv", "dracut TEST-20 \"degraded raid crypt\" rd.luks.uuid= "
          "rd.md.uuid= rd.lvm.lv=dracut/root", d20_rc_deg, "LABEL=dracut",
          cmdline="ro %s rd.lvm.lv=dracut/root" % d20_ids,
          log_expect=degraded + by_key, log_absent=("Passphrase for",)),
        S("dracut20-btrfs", "dracut TEST-20 with TEST_FSTYPE=btrfs: btrfs raid1 over both "
          "disks", _dracut("dracut20-btrfs", "btrfs", [_layout(D20_BTRFS)], ["disk1", "disk2"]),
          "LABEL=dracut", cmdline="quiet ro rd.auto=1 rd.luks.crypttab=0 rd.md=0"),
        # ---- dracut-ng test/TEST-26-ENC-RAID-LVM: LUKS on each disk, RAID1 over both
        S("dracut26-luks-uuids", "dracut TEST-26 (the rd.luks.uuid=luks-U case): LVM on a "
          "RAID1 of two LUKS disks, keys from the image's crypttab", d26, "/dev/dracut/root",
          cmdline="quiet ro rd.auto rootwait  rd.luks.uuid=luks-%s  rd.luks.uuid=luks-%s "
          % (D26_LUKS1, D26_LUKS2), log_absent=("Passphrase for",)),
        S("dracut26-any-luks", "dracut TEST-26 \"Any LUKS\": rd.auto", d26, "/dev/dracut/root",
          cmdline="quiet rd.auto", log_absent=("Passphrase for",)),
        # ---- dracut-ng test/TEST-44-DRIVERS: the root has no modules; the image's
        # are exported to it, and its init mounts an xfs /mnt with them
        S("dracut44-driver-export", "dracut TEST-44-DRIVERS: rd.driver.export, the root's "
          "own modprobe loads xfs from the modules the image handed over",
          _dracut("dracut44", "ext4", [_d44_root, _plain(D44_MNT)], ["root", "mnt"]),
          "LABEL=dracut", cmdline="rd.driver.export mountinit.mount=/dev/disk/by-id/"
          "scsi-0QEMU_QEMU_HARDDISK_mnt:/mnt:xfs testinit.show=/mnt/etc/os-release",
          expect=(r"mounts: driver_export /lib/modules tmpfs ",
                  r"show /mnt/etc/os-release: NAME="),
          log_expect=("uniramfs: rd.driver.export: the image's /lib/modules/",
                      "uniramfs: modprobe fs-xfs: loaded xfs",
                      "MOUNTINIT: mount /dev/disk/by-id/scsi-0QEMU_QEMU_HARDDISK_mnt on /mnt "
                      "(xfs): ok")),
        # ---- dracut-ng test/TEST-13-SYSROOT: a hostonly image made from a sysroot
        S("dracut-sysroot", "dracut TEST-13-SYSROOT: a --hostonly --sysroot image, "
          "root=LABEL=dracut", D_EXT4, "LABEL=dracut", cmdline="quiet", build=HOSTONLY_ARGS),

        # ---- booster tests/gpt_test.go: generators/gpt.sh's disk on virtio-scsi
        S("booster-gpt-path", "booster TestGptPath", b_gpt, "/dev/sda3"),
        S("booster-gpt-uuid", "booster TestGptUUID", b_gpt, "UUID=" + B_GPT_FS_UUID),
        S("booster-gpt-label", "booster TestGptLABEL", b_gpt, "LABEL=newpart"),
        S("booster-gpt-partuuid", "booster TestGptPARTUUID", b_gpt,
          "PARTUUID=1b8e9701-59a6-49f4-8c31-b97c99cd52cf"),
        S("booster-gpt-partlabel", "booster TestGptPARTLABEL (a Cyrillic name)", b_gpt,
          "PARTLABEL=раздел3"),
        S("booster-gpt-by-uuid", "booster TestGptByUUID", b_gpt,
          "/dev/disk/by-uuid/" + B_GPT_FS_UUID),
        S("booster-gpt-by-label", "booster TestGptByLABEL", b_gpt, "/dev/disk/by-label/newpart"),
        S("booster-gpt-by-partuuid", "booster TestGptByPARTUUID", b_gpt,
          "/dev/disk/by-partuuid/1b8e9701-59a6-49f4-8c31-b97c99cd52cf"),
        S("booster-gpt-by-partlabel", "booster TestGptByPARTLABEL", b_gpt,
          "/dev/disk/by-partlabel/раздел3"),
        S("booster-gpt-4k", "booster TestGpt4kSector: GPT on a disk of 4096-byte sectors",
          _booster("booster-gpt4k", "ext4", [_b_gpt4k], "scsi4k"),
          "PARTUUID=" + B_GPT4K_PARTUUID),
        # ---- booster tests/integration_test.go
        S("booster-ext4-uuid", "booster TestExt4UUID: rootflags=user_xattr,nobarrier, zstd",
          b_ext4, "UUID=" + B_EXT4.uuid, cmdline="rootflags=user_xattr,nobarrier",
          build=("--compress", "zstd"),
          expect=(r"root-mount=\S+ ext4 ro,\S*nobarrier",)),
        S("booster-ext4-mountflags", "booster TestExt4MountFlags: every flag, the last of "
          "rw/ro in rootflags and then rw", b_ext4, "UUID=" + B_EXT4.uuid,
          cmdline="rootflags=user_xattr,noatime,nobarrier,nodev,dirsync,lazytime,nolazytime,"
          "dev,rw,ro rw", build=("--compress", "none"),
          expect=(r"root-mount=\S+ ext4 rw,dirsync,noatime,nobarrier",
                  "root-writable=yes")),
        S("booster-ext4-label", "booster TestExt4Label (gzip)", b_ext4, "LABEL=atestlabel12",
          build=("--compress", "gzip")),
        S("booster-invalid-init", "booster TestInvalidInitBinary: init=/foo/bar is not on the "
          "root", b_ext4, "/dev/sda", cmdline="init=/foo/bar rw rd.shell=0",
          fail_msgs=("uniramfs: init=/foo/bar not found on the root filesystem "
                     "(or not executable)", "uniramfs: rebooting now")),
        S("booster-nonformatted", "booster TestNonFormattedDrive: a disk with no filesystem "
          "first, then the root",
          _booster("booster-nonformatted", "ext4", [_b_unformatted, _plain(B_EXT4)]),
          "UUID=" + B_EXT4.uuid, build=("--compress", "none")),
        S("booster-mount-timeout", "booster TestMountTimeout: root=/dev/nonexistent with the "
          "image's timeout 1 s (booster's mount_timeout, our baked rd.timeout=1)",
          _booster("booster-nodisk", "ext4", []), "/dev/nonexistent",
          build=("--compress", "xz", "--cmdline", "rd.timeout=1 rd.shell=0"),
          fail_msgs=("uniramfs: root device root=/dev/nonexistent did not appear within "
                     "1 seconds", "uniramfs: rebooting now")),
        S("booster-fsck", "booster TestFsck: the image's fsck.ext4 checks the root",
          b_ext4, "LABEL=atestlabel12", build=("--compress", "none"),
          log_expect=("uniramfs: checking /dev/sda (ext4): e2fsck -a /dev/sda",)),
        S("booster-vconsole", "booster TestVirtualConsole: an image with a keymap and a "
          "console font (booster packs the host's vconsole.conf); a VGA card, as vmtest's "
          "QEMU has", Attached("booster-ext4-vga", "ext4", [_plain(B_EXT4)],
                               lambda paths: _booster_drives(paths) + ["-vga", "std"]),
          "LABEL=atestlabel12", build=("--compress", "none", "--cmdline",
                                       "vconsole.keymap=%s vconsole.font=%s"
                                       % (scenarios_console.KEYMAP, scenarios_console.FONT)),
          log_expect=("uniramfs: console: keymap %s, font %s"
                      % (scenarios_console.KEYMAP, scenarios_console.FONT),)),
        S("booster-nvme", "booster TestNvme: gpt.sh's disk on NVMe",
          _booster("booster-gpt-nvme", "ext4", [_b_gpt], "nvme"), "/dev/nvme0n1p3"),
        S("booster-usb", "booster TestUsb: gpt.sh's disk on USB storage behind EHCI",
          _booster("booster-gpt-usb", "ext4", [_b_gpt], "usb"), "/dev/sda3"),
        S("booster-crypttab-keyfile-device", "booster TestCrypttabKeyfileDevice: "
          "/keyfile:UUID=KEYDEV in the key field, no prompt",
          WithImageFiles("booster-ct-keydev", "ext4", [_layout(B_LUKS_KEYDEV), _b_keydev],
                         lambda paths: _booster_drives(paths[:1]) +
                         _booster_drives(paths[1:], "virtio", 1),
                         _ct("booster-ct-keydev", "cryptroot UUID=%s /keyfile:UUID=%s "
                             "x-initrd.attach\n" % (B_LUKS_KEYDEV_UUID, B_KEYDEV_UUID))),
          "UUID=" + B_LUKS_KEYDEV.uuid, log_absent=("Passphrase for",)),
        # ---- booster tests/lvm_test.go, tests/mdraid_test.go
        S("booster-lvm-path", "booster TestLVMPath: VG over three partitions of one disk",
          _booster("booster-lvm", "ext4", [_layout(B_LVM)]),
          "/dev/booster_test_vg/booster_test_lv"),
        S("booster-lvm-uuid", "booster TestLVMUUID", _booster("booster-lvm", "ext4",
                                                            [_layout(B_LVM)]),
          "UUID=" + B_LVM.uuid),
        S("booster-raid1-path", "booster TestMdRaid1Path: RAID1 of five partitions of one disk",
          _booster("booster-raid1", "ext4", [_layout(B_RAID1)]), "/dev/md/BoosterTestArray1"),
        S("booster-raid1-uuid", "booster TestMdRaid1UUID",
          _booster("booster-raid1", "ext4", [_layout(B_RAID1)]), "UUID=" + B_RAID1.uuid),
        S("booster-raid5-path", "booster TestMdRaid5Path: RAID5 of four partitions and a spare",
          _booster("booster-raid5", "ext4", [_layout(B_RAID5)]), "/dev/md/BoosterTestArray5"),
        S("booster-raid5-uuid", "booster TestMdRaid5UUID",
          _booster("booster-raid5", "ext4", [_layout(B_RAID5)]), "UUID=" + B_RAID5.uuid),
        S("booster-btrfs-raid0", "booster TestBtrfsRaid0: btrfs raid0 over two partitions",
          _booster("booster-btrfs-raid0", "btrfs", [_layout(B_BTRFS_RAID0)]),
          "UUID=" + B_BTRFS_RAID0.uuid),
        # ---- booster tests/compression_test.go
    ] + [
        S("booster-compress-" + c, "booster Test%sImageCompression" % t, b_ext4,
          "UUID=" + B_EXT4.uuid, build=("--compress", c))
        for c, t in (("xz", "XZ"), ("gzip", "Gzip"), ("lz4", "Lz4"))
    ] + [
        S("booster-compress-lz4-large", "booster TestLargeLz4ImageCompression: lz4 with a "
          "large module (amdgpu; nvidia is not in Debian's kernel)", b_ext4,
          "UUID=" + B_EXT4.uuid, build=("--compress", "lz4", "--add-modules", "amdgpu")),
    ] + [
        # ---- booster tests/luks_test.go: passphrase 1234 on the console
        S("booster-luks1-name", "booster TestLUKS1WithName", b_luks1, "/dev/mapper/cryptroot",
          cmdline="rd.luks.name=%s=cryptroot rd.luks.options=discard" % B_LUKS1_UUID,
          interact=luks1_prompt,
          log_expect=("uniramfs: unlocked /dev/sda as /dev/mapper/cryptroot",)),
        S("booster-luks1-uuid", "booster TestLUKS1WithUUID", b_luks1,
          "UUID=" + B_LUKS1.uuid, cmdline="rd.luks.uuid=" + B_LUKS1_UUID,
          interact=luks1_prompt),
        S("booster-luks2-name", "booster TestLUKS2WithName", b_luks2, "/dev/mapper/cryptroot",
          cmdline="rd.luks.name=%s=cryptroot" % B_LUKS2_UUID, interact=luks2_prompt),
        S("booster-luks2-uuid", "booster TestLUKS2WithUUID", b_luks2,
          "UUID=" + B_LUKS2.uuid, cmdline="rd.luks.uuid=" + B_LUKS2_UUID,
          interact=luks2_prompt,
          log_expect=("uniramfs: unlocked /dev/sda as /dev/mapper/luks-" + B_LUKS2_UUID,)),
        S("booster-luks2-quotes", "booster TestLUKS2WithQuotesOverUUID", b_luks2,
          "UUID=\"%s\"" % B_LUKS2.uuid,
          cmdline="rd.luks.uuid=\"%s\"" % B_LUKS2_UUID, interact=luks2_prompt),
        S("booster-passphrase-cache", "booster TestPassphraseCache: two LUKS2 partitions in "
          "crypttab, one passphrase typed once",
          WithImageFiles("booster-shared-pass", "ext4", [_layout(B_SHARED_PASS)],
                         lambda paths: _booster_drives(paths),
                         _ct("booster-ct-shared", "cryptextra UUID=%s none x-initrd.attach\n"
                             "cryptroot  UUID=%s none x-initrd.attach\n"
                             % tuple(u for _, u in B_SHARED))),
          "UUID=" + B_SHARED_PASS.uuid, interact=B_ONE_PROMPT),
        S("booster-luks-btrfs-raid1", "booster TestLuksBtrfsRaid1: btrfs raid1 over two LUKS2 "
          "partitions, one passphrase typed once",
          WithImageFiles("booster-luks-btrfs-raid1", "btrfs", [_layout(B_LUKS_BTRFS_RAID1)],
                         lambda paths: _booster_drives(paths),
                         _ct("booster-ct-btrfs", "luks-btrfs1 UUID=%s none x-initrd.attach\n"
                             "luks-btrfs2 UUID=%s none x-initrd.attach\n"
                             % tuple(u for _, u in B_BTRFS_LUKS))),
          "UUID=" + B_LUKS_BTRFS_RAID1.uuid, interact=B_ONE_PROMPT),
        # ---- booster tests/crypttab_test.go: its crypttab packed as /etc/crypttab
        S("booster-crypttab-passphrase", "booster TestCrypttabPassphrase",
          b_ct("booster-ct-pass", ct_root), "/dev/mapper/cryptroot", interact=luks2_prompt),
        S("booster-crypttab-nofail", "booster TestCrypttabNofail: a nofail line for a device "
          "that never comes",
          WithImageFiles("booster-ct-nofail", "ext4", [_plain(B_EXT4)],
                         lambda paths: _booster_drives(paths),
                         _ct("booster-ct-nofail", "cryptfake UUID=aaaaaaaa-bbbb-cccc-dddd-"
                             "eeeeeeeeeeee none nofail,x-initrd.attach\n")),
          "UUID=" + B_EXT4.uuid),
        S("booster-crypttab-keyfile-offset", "booster TestCrypttabKeyfileOffsetSize: "
          "keyfile-offset=8,keyfile-size=4",
          b_ct("booster-ct-offset", "cryptroot UUID=%s /etc/uniramfs/keys/luks2.key "
               "keyfile-offset=8,keyfile-size=4,x-initrd.attach\n" % B_LUKS2_UUID,
               _padded_key),
          "/dev/mapper/cryptroot", log_absent=("Passphrase for",)),
        S("booster-crypttab-tries", "booster TestCrypttabTries: tries=2, wrong then right",
          b_ct("booster-ct-tries", "cryptroot UUID=%s none tries=2,x-initrd.attach\n"
               % B_LUKS2_UUID), "/dev/mapper/cryptroot",
          interact=((_prompt("/dev/sda", B_LUKS2_UUID), "wrong\n"),
                    (r"uniramfs: wrong passphrase for /dev/sda\n[\s\S]*" +
                     _prompt("/dev/sda", B_LUKS2_UUID), B_PASS + "\n"))),
        S("booster-crypttab-keyslot", "booster TestCrypttabKeySlot: key-slot=0",
          b_ct("booster-ct-slot", "cryptroot UUID=%s none key-slot=0,x-initrd.attach\n"
               % B_LUKS2_UUID), "/dev/mapper/cryptroot", interact=luks2_prompt),
        S("booster-crypttab-precedence", "booster TestCrypttabCmdlinePrecedence: rd.luks.name= "
          "renames what crypttab names", b_ct("booster-ct-prec", ct_root), "/dev/mapper/cmdroot",
          cmdline="rd.luks.name=%s=cmdroot" % B_LUKS2_UUID, interact=luks2_prompt,
          log_expect=("uniramfs: unlocked /dev/sda as /dev/mapper/cmdroot",)),
        # ---- booster's other root spellings (gpt_test.go, integration_test.go)
        S("booster-gpt-partnroff", "booster TestGptPARTNROFF: the partition two after "
          "раздел1's on the same disk", b_gpt,
          "PARTUUID=78073a8b-bdf6-48cc-918e-edb926b25f64/PARTNROFF=2",
          log_expect=("uniramfs: root=PARTUUID=78073a8b-bdf6-48cc-918e-edb926b25f64/PARTNROFF=2 "
                      "is /dev/sda3",)),
        S("booster-gpt-wwid", "booster TestGptWwid: booster's own WWID= of a partition",
          b_gpt_slot4, "WWID=" + B_WWID + "-part3"),
        S("booster-gpt-hwpath", "booster TestGptHwpath: booster's HWPATH=, the kernel's host number",
          b_gpt_slot4, "HWPATH=" + B_HWPATH + "-part3", cmdline=ATA_FIRST),
        S("booster-ext4-wwid", "booster TestExt4Wwid: a whole disk by WWID=", b_ext4_slot4,
          "WWID=" + B_WWID),
        S("booster-ext4-hwpath", "booster TestExt4Hwpath: a whole disk by HWPATH=",
          b_ext4_slot4, "HWPATH=" + B_HWPATH, cmdline=ATA_FIRST),
        S("booster-load-extra-modules", "booster TestLoadExtraModules: rd.modules_force_load= "
          "is rd.driver.pre=: foo is not there, xfs is loaded before coldplug", b_ext4,
          "LABEL=atestlabel12", cmdline="rd.modules_force_load=foo,xfs "
          "testinit.show=/sys/module/xfs/initstate",
          expect=(r"show /sys/module/xfs/initstate: live$",),
          log_expect=("uniramfs: rd.driver.pre=foo: module foo not found in /lib/modules/",)),
        S("booster-mount-timeout-nomodules", "booster TestMountTimeoutWithAllModaliases: an "
          "image with no modules, timeout 1 s: the root's controller is named as a device "
          "with no driver in the image",
          NoModules("booster-ext4-nomodules", "ext4", [_plain(B_EXT4)],
                    lambda paths: _booster_drives(paths)), "/dev/sda",
          build=("--cmdline", "rd.timeout=1 rd.shell=0"),
          fail_msgs=("uniramfs: root device root=/dev/sda did not appear within 1 seconds",
                     "uniramfs: devices with no driver in this image:",
                     "uniramfs:   pci:v00001AF4d00001004",
                     "uniramfs: rebooting now"),
          # no loop to mount a squashfs segment with: the image has none
          log_absent=("the squashfs segment:",)),
        S("booster-vfio", "booster TestVfio: vfio_pci, vfio, vfio_iommu_type1 forced in (our "
          "baked rd.driver.pre=), vfio-pci.ids= from the command line reaches vfio_pci",
          b_ext4, "/dev/sda", cmdline="rw vfio-pci.ids=1002:67df,1002:aaf0",
          build=("--add-modules", "vfio_pci,vfio,vfio_iommu_type1", "--cmdline",
                 "rd.driver.pre=vfio_pci,vfio,vfio_iommu_type1"),
          log_expect=("vfio_pci: add [1002:67df[ffffffff:ffffffff]] class 0x000000/00000000",
                      "vfio_pci: add [1002:aaf0[ffffffff:ffffffff]] class 0x000000/00000000")),
        # ---- dracut-ng TEST-20 disk-thin: scenarios_lvmx's disks (VG dracut,
        # thin LV root labelled dracut, beside a RAID1 and a cached LV)
        S("dracut20-thin", "dracut TEST-20 \"ext4\" disk-thin: a thin LV in VG dracut's thin "
          "pool, rd.auto=1 rd.luks.crypttab=0 rd.md=0", d2("dracut20-thin", scenarios_lvmx.KINDS),
          "LABEL=dracut", cmdline="quiet ro rd.auto=1 rd.luks.crypttab=0 rd.md=0"),
        # ---- dracut-ng TEST-20 with TEST_FSTYPE=zfs (daily-zfs.yml)
        S("dracut20-zfs", "dracut TEST-20 with TEST_FSTYPE=zfs: pool dracut mirrored over both "
          "disks, root=ZFS=dracut/root, by the shipped ZFS plugin",
          ZfsAttached("dracut20-zfs", D20_ZFS, ["disk1", "disk2"]), "ZFS=dracut/root",
          cmdline="quiet ro rd.auto=1 rd.luks.crypttab=0 rd.md=0",
          expect=(r"root-mount=dracut/root zfs ro",),
          log_expect=("zfs-mount-root: mounted dracut/root on /sysroot (ro)",)),
    ] + _detached(S)


def _detached(S):
    """luks_test.go's TestLUKS2DetachedHeader* and crypttab_test.go's
    TestCrypttabHeader; TestLoadableCryptoModule."""
    hdr_name = "rd.luks.name=%s=cryptroot" % B_HDR_UUID
    in_image = "rd.luks.header=%s=%s" % (B_HDR_UUID, B_HDR_PATH)
    prompt_sda = ((_prompt("/dev/sda", B_HDR_UUID), B_PASS + "\n"),)
    unlocked = lambda dev: ("uniramfs: unlocked %s as /dev/mapper/cryptroot" % dev,)  # noqa: E731
    data_only = BoosterDetached("booster-hdr-image", [_layout(B_HDR)],
                                lambda paths: _booster_drives(paths[:1]), _hdr_into(B_HDR_PATH))
    return [
        S("booster-luks2-detached-cmdline", "booster TestLUKS2DetachedHeaderCmdline: the header "
          "a file in the image, the data the disk with no signature", data_only,
          "/dev/mapper/cryptroot", cmdline="%s %s" % (hdr_name, in_image),
          interact=prompt_sda, log_expect=unlocked("/dev/sda")),
        S("booster-luks2-detached-datapin", "booster TestLUKS2DetachedHeaderCmdlineDataPin: "
          "rd.luks.data= names the data disk", data_only, "/dev/mapper/cryptroot",
          cmdline="%s %s rd.luks.data=%s=/dev/sda" % (hdr_name, in_image, B_HDR_UUID),
          interact=prompt_sda, log_expect=unlocked("/dev/sda")),
        S("booster-luks2-detached-multi", "booster TestLUKS2DetachedHeaderMultiDeviceCmdline: "
          "two headerless disks on virtio, the decoy first and opened by its key file, each "
          "pinned to its header by rd.luks.data=",
          BoosterDetached("booster-hdr-multi", [_layout(B_HDR2), _layout(B_HDR)],
                          lambda paths: _booster_drives([paths[0], paths[2]], "virtio"),
                          lambda work, paths: _hdr_into(B_HDR2_PATH, 1)(work, paths) +
                          _hdr_into(B_HDR_PATH, 3)(work, paths) +
                          ("--add-keys", "%s:%s" % (_crypttab(work, "hdr2.key", B_HDR2_KEY),
                                                    B_HDR2_KEY_PATH))),
          "/dev/mapper/cryptroot",
          cmdline="rd.luks.name=%s=cryptdecoy rd.luks.header=%s=%s rd.luks.data=%s=/dev/vda "
          "rd.luks.key=%s=%s rd.luks.name=%s=cryptroot rd.luks.header=%s=%s "
          "rd.luks.data=%s=/dev/vdb" % (B_HDR2_UUID, B_HDR2_UUID, B_HDR2_PATH, B_HDR2_UUID,
                                        B_HDR2_UUID, B_HDR2_KEY_PATH, B_HDR_UUID, B_HDR_UUID,
                                        B_HDR_PATH, B_HDR_UUID),
          interact=((_prompt("/dev/vdb", B_HDR_UUID), B_PASS + "\n"),),
          log_expect=("uniramfs: unlocked /dev/vda as /dev/mapper/cryptdecoy",) +
          unlocked("/dev/vdb")),
        S("booster-luks2-detached-rawdev", "booster TestLUKS2DetachedHeaderCmdlineRawDevice: the "
          "header is a whole disk (virtio), the data on virtio-scsi",
          BoosterDetached("booster-hdr-raw", [_layout(B_HDR)],
                          lambda paths: _booster_drives(paths[:1]) +
                          _booster_drives(paths[1:], "virtio", 1)),
          "UUID=" + B_HDR_FS_UUID,
          cmdline="%s rd.luks.header=%s=/dev/vda" % (hdr_name, B_HDR_UUID),
          interact=prompt_sda,
          log_expect=("uniramfs: /dev/vda: LUKS UUID=%s is a detached header, not opened by "
                      "itself" % B_HDR_UUID,) + unlocked("/dev/sda")),
        S("booster-luks2-detached-ondev", "booster TestLUKS2DetachedHeaderCmdlineOnDevice: the "
          "header a file on another disk's ext4, mounted read-only while it is copied",
          BoosterDetached("booster-hdr-ondev", [_layout(B_HDR), _b_hdrdev],
                          lambda paths: _booster_drives(paths[:1]) +
                          _booster_drives(paths[2:], "virtio", 1)),
          "UUID=" + B_HDR_FS_UUID,
          cmdline="%s rd.luks.header=%s=/root.hdr:UUID=%s" % (hdr_name, B_HDR_UUID,
                                                            B_HDRDEV_UUID),
          interact=prompt_sda, log_expect=unlocked("/dev/sda")),
        # was pending(): the data disk is found by the header's UUID now
        S("booster-crypttab-header", "booster TestCrypttabHeader: header= in crypttab, the "
          "data disk named by the header's UUID", BoosterHeader(),
          "UUID=" + scenarios_stack.LUKS2_HDR.uuid,
          interact=scenarios_stack.typed("/dev/vda", scenarios_stack.LUKS2_HDR_UUID,
                                         scenarios_stack.PASS),
          log_expect=("uniramfs: unlocked /dev/vda as /dev/mapper/cryptroot",)),
        # was pending(): camellia's modules are in the generic set now
        S("booster-luks2-camellia", "booster TestLoadableCryptoModule: LUKS2 in camellia-xts, "
          "the cipher's module loaded on the kernel's request",
          _booster("booster-luks2-camellia", "ext4", [_layout(B_CAMELLIA)]),
          "/dev/mapper/cryptroot", cmdline="rd.luks.name=%s=cryptroot" % B_CAMELLIA_UUID,
          interact=((_prompt("/dev/sda", B_CAMELLIA_UUID), B_PASS + "\n"),),
          log_expect=("uniramfs: modprobe crypto-camellia",)),
    ]


def pending(Scenario):
    """Replays written and booted here that fail today (docs/compat.md says
    why): not in run.py's list, so the suite stays green; the work that
    makes one pass moves it into scenarios()."""
    return [
    ]
