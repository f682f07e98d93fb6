# SPDX-License-Identifier: GPL-2.0-or-later
"""Secure Boot (issue 29): OVMF with Secure Boot enforcing and our own
test keys enrolled boots the UKI `uniramfs build --uki --uki-sign-key
--uki-sign-cert` signed, through to the root's marker, and refuses the
same UKI unsigned.

The firmware is Debian's ovmf: OVMF_CODE_4M.secboot.fd (SMM, so q35 with
smm=on and the secure pflash), and a variable store made from the blank
OVMF_VARS_4M.fd (setup mode) with efitools, Debian 12's own tools: the
keys and their signed lists (cert-to-efi-sig-list, sign-efi-sig-list) are
made on the host, and one builder boot under that firmware, a kernel
and a cpio of busybox, efi-updatevar and the lists, writes db, then KEK,
then PK through efivarfs (writing PK ends setup mode). The keys and the
store are cached in $UNIRAMFS_TEST_CACHE/secureboot-HASH/ (default
/var/cache/uniramfs-tests), HASH that of this recipe and the firmware
files; each boot gets its own copy of the store (and -snapshot).

The signed boot passes on the marker after switch_root, with the stub
and the kernel both saying Secure Boot is on.  It has a fresh swtpm too
(when swtpm is installed): the UKI is also built with --uki-pcr-key, the
stub measures its sections into PCR 11 and the init the two phases
(unasked: the stub left StubPcrKernelImage), and the root's PCR 11 must
be `systemd-measure calculate --phase=enter-initrd:leave-initrd` over the
sections read back from the UKI, whose PolicyPCR digest must be the one
the UKI's .pcrsig signed for that phase. The refused boot's text is
the firmware's boot manager's, on the serial console: "BdsDxe: failed to
load Boot0001 ... Access Denied" for the ESP (EFI_SECURITY_VIOLATION);
it then tries its built-in shell, refused as well ("Security
Violation"), and waits in its menu until the harness stops it.  One
`uniramfs build` serves both: the unsigned UKI is the signed one with
its signature removed (sbattach --remove), byte for byte what was
signed.
"""

import contextlib
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading

import disks
import scenarios_early
import tpm

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(os.path.dirname(HERE))
CACHE = os.environ.get("UNIRAMFS_TEST_CACHE", "/var/cache/uniramfs-tests")
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.secboot.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
OWNER_GUID = "5f0c1a4e-1b2d-4c3e-9f10-00000000005b"
# bump when the recipe below changes: the cached store is remade
RECIPE = "secureboot-vars v1: RSA-2048 PK, KEK, db; efitools efi-updatevar db, KEK, PK"
ROOT = disks.Disk("sb-root", "ext4", "5f0c1a4e-1b2d-4c3e-9f10-0000000005b1", "sbroot", size_mb=48)
MACHINE = ["-machine", "q35,smm=on", "-global", "driver=cfi.pflash01,property=secure,value=on"]
ENROLLED = "UNIRAMFS-SB-ENROLLED"
MEASURE = "/usr/lib/systemd/systemd-measure"
PCR11 = "/sys/class/tpm/tpm0/pcr-sha256/11"
_run = scenarios_early._run
_lock = threading.Lock()


def _kernels():
    sys.path.insert(0, os.path.join(SRCDIR, "tests", "kernels"))
    import kernels
    return kernels


def _sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _keys(d):
    """PK, KEK and db: self-signed certificates, and the signed lists
    efi-updatevar writes (PK and KEK signed by PK, db by KEK)."""
    for n in ("PK", "KEK", "db"):
        _run(["openssl", "req", "-new", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256",
              "-days", "3650", "-subj", "/CN=uniramfs test %s/" % n,
              "-keyout", os.path.join(d, n + ".key"), "-out", os.path.join(d, n + ".crt")])
        _run(["cert-to-efi-sig-list", "-g", OWNER_GUID, os.path.join(d, n + ".crt"),
              os.path.join(d, n + ".esl")])
    for var, signer in (("PK", "PK"), ("KEK", "PK"), ("db", "KEK")):
        _run(["sign-efi-sig-list", "-g", OWNER_GUID, "-k", os.path.join(d, signer + ".key"),
              "-c", os.path.join(d, signer + ".crt"), var, os.path.join(d, var + ".esl"),
              os.path.join(d, var + ".auth")])


def _builder_cpio(d, kver, out):
    """busybox, efi-updatevar with its libraries, efivarfs.ko, the lists
    and an /init that writes them and says ENROLLED with SetupMode."""
    root = os.path.join(d, "cpio")
    os.makedirs(os.path.join(root, "bin"))
    shutil.copy("/bin/busybox", os.path.join(root, "bin", "busybox"))
    for prog in ("/usr/bin/efi-updatevar",):
        libs = subprocess.run(["ldd", prog], capture_output=True, text=True, check=True).stdout
        files = [prog] + [w for w in libs.split() if w.startswith("/")]
        for f in files:
            dst = os.path.join(root, f.lstrip("/"))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(f, dst)
    ko = "/lib/modules/%s/kernel/fs/efivarfs/efivarfs.ko" % kver
    if os.path.exists(ko):
        shutil.copy(ko, os.path.join(root, "efivarfs.ko"))
    for n in ("PK", "KEK", "db"):
        shutil.copy(os.path.join(d, n + ".auth"), os.path.join(root, n + ".auth"))
    # efi-updatevar finds efivarfs with system("mount -l > FILE"), which
    # busybox's mount lacks (its plain list is the same lines), and
    # busybox's sh would run its own applet whatever PATH says: dash is
    # /bin/sh, and finds this mount first
    shutil.copy("/bin/dash", os.path.join(root, "bin", "sh"))
    with open(os.path.join(root, "usr", "bin", "mount"), "w") as f:
        f.write('#!/bin/sh\n[ "$1" = -l ] && { /bin/busybox mount | /bin/busybox grep " type efivarfs "; exit 0; }\n'
                'exec /bin/busybox mount "$@"\n')
    os.chmod(os.path.join(root, "usr", "bin", "mount"), 0o755)
    with open(os.path.join(root, "init"), "w") as f:
        f.write("""#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/usr/bin:/bin
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sys /sys
[ -e /efivarfs.ko ] && insmod /efivarfs.ko
mount -t efivarfs efivarfs /sys/firmware/efi/efivars
efi-updatevar -f /db.auth db && efi-updatevar -f /KEK.auth KEK && efi-updatevar -f /PK.auth PK &&
  echo "%s SetupMode=$(tail -c 1 /sys/firmware/efi/efivars/SetupMode-8be4df61-93ca-11d2-aa0d-00e098032b8c | od -An -tu1 | tr -d ' ')"
poweroff -f
""" % ENROLLED)
    os.chmod(os.path.join(root, "init"), 0o755)
    _run(["sh", "-c", "cd %s && find . | cpio -o -H newc --quiet > %s" % (root, out)])


def enrolled(env):
    """(directory with PK/KEK/db .key/.crt, the enrolled vars.fd), made
    once per recipe and firmware."""
    h = hashlib.sha256(RECIPE.encode())
    for p in (OVMF_CODE, OVMF_VARS):
        h.update(_sha(p).encode())
    d = os.path.join(CACHE, "secureboot-" + h.hexdigest()[:16])
    with _lock:
        if os.path.exists(os.path.join(d, "vars.fd")):
            return d, os.path.join(d, "vars.fd")
        os.makedirs(CACHE, exist_ok=True)
        tmp = tempfile.mkdtemp(dir=CACHE, prefix=".secureboot-")
        try:
            _keys(tmp)
            cpio = os.path.join(tmp, "builder.cpio")
            _builder_cpio(tmp, env["kver"], cpio)
            vars_fd = os.path.join(tmp, "vars.fd")
            shutil.copyfile(OVMF_VARS, vars_fd)
            log = os.path.join(tmp, "builder.log")
            subprocess.run(["qemu-system-x86_64", "-accel", "tcg", "-m", "512M", "-smp", "1",
                            "-nodefaults", "-no-reboot", "-display", "none", "-monitor", "none"]
                           + MACHINE +
                           ["-drive", "if=pflash,format=raw,unit=0,readonly=on,file=" + OVMF_CODE,
                            "-drive", "if=pflash,format=raw,unit=1,file=" + vars_fd,
                            "-kernel", env["vmlinuz"], "-initrd", cpio,
                            "-append", "console=ttyS0 panic=-1",
                            "-serial", "file:" + log],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.STDOUT, timeout=600, check=False)
            with open(log, errors="replace") as f:
                text = f.read()
            if ENROLLED + " SetupMode=0" not in text:
                raise RuntimeError("the builder boot did not enrol the keys; the end of its "
                                   "console:\n" + text[-1500:])
            os.rename(tmp, d)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return d, os.path.join(d, "vars.fd")


_built = {}


def pe_sections(path):
    """{name: bytes} of a PE file's sections, each VirtualSize bytes (what
    the stub measures), read here apart from the generator's writer."""
    with open(path, "rb") as f:
        d = f.read()
    pe = struct.unpack_from("<I", d, 0x3c)[0]
    nsec, = struct.unpack_from("<H", d, pe + 6)
    optlen, = struct.unpack_from("<H", d, pe + 20)
    out = {}
    for i in range(nsec):
        sh = pe + 24 + optlen + 40 * i
        name = d[sh:sh + 8].rstrip(b"\0").decode()
        vsize, _, _, raw = struct.unpack_from("<IIII", d, sh + 8)
        out[name] = d[raw:raw + vsize]
    return out


def policy_pcr11(value):
    """TPM2_PolicyPCR's digest for PCR 11 of the sha256 bank holding value,
    from a zero policy (what a .pcrsig entry's "pol" is)."""
    sel = struct.pack(">IHB3B", 1, 0x000B, 3, 0, 1 << 3, 0)
    return hashlib.sha256(bytes(32) + struct.pack(">I", 0x17F) + sel
                          + hashlib.sha256(value).digest()).digest()


def _predict(efi, tmp):
    """systemd-measure's PCR 11 for the phase the root sees
    (enter-initrd:leave-initrd) over the sections systemd-stub 252
    measures, read back from the UKI; and that it is what the UKI's
    .pcrsig signed for that phase."""
    secs = pe_sections(efi)
    args = []
    for name in ("linux", "osrel", "cmdline", "initrd", "pcrpkey"):
        if "." + name in secs:
            p = os.path.join(tmp, name)
            with open(p, "wb") as f:
                f.write(secs["." + name])
            args.append("--%s=%s" % (name, p))
    out = _run([MEASURE, "calculate", "--bank=sha256", "--phase=enter-initrd:leave-initrd"] + args)
    line = [x for x in out.splitlines() if x.startswith("11:sha256=")]
    if len(line) != 1:
        raise RuntimeError("systemd-measure calculate said: " + out)
    value = bytes.fromhex(line[0][len("11:sha256="):])
    sig = json.loads(secs[".pcrsig"])["sha256"]
    if [e["pol"] for e in sig][1] != policy_pcr11(value).hex():
        raise RuntimeError("the UKI's .pcrsig did not sign %s for enter-initrd:leave-initrd: %s"
                           % (value.hex(), secs[".pcrsig"]))
    return value.hex().upper()


def _esp(work, env, keys, signed):
    """The ESP with the UKI signed by --uki-sign-key, its PCR 11 policies
    by --uki-pcr-key (built once per run), or with that very UKI's Secure
    Boot signature removed (sbattach --remove); and the PCR 11 value
    predicted for the root."""
    with _lock:
        if "signed" not in _built:
            udir = os.path.join(work, "sb")
            os.makedirs(udir, exist_ok=True)
            efi = os.path.join(udir, "uki-signed.efi")
            with tempfile.TemporaryDirectory(dir=udir) as tmp:
                pcrkey, pcrpub = os.path.join(tmp, "pcr.key"), os.path.join(tmp, "pcr.pub")
                _run(["openssl", "genrsa", "-out", pcrkey, "2048"])
                _run(["openssl", "rsa", "-in", pcrkey, "-pubout", "-out", pcrpub])
                _run([env["uniramfs"], "build", "--config", "/dev/null", "-k", env["kver"],
                      "--generic", "--microcode", "none", "-o", os.path.join(tmp, "img"),
                      "--uki", efi, "--uki-cmdline", "console=ttyS0 panic=-1 root=UUID=%s "
                      "testinit.show=%s" % (ROOT.uuid, PCR11),
                      "--uki-pcr-key", pcrkey, "--uki-pcr-public-key", pcrpub,
                      "--uki-sign-key", os.path.join(keys, "db.key"),
                      "--uki-sign-cert", os.path.join(keys, "db.crt")])
                _built["pcr11"] = _predict(efi, tmp)
            _run(["sbverify", "--cert", os.path.join(keys, "db.crt"), efi])
            unsigned = os.path.join(udir, "uki-unsigned.efi")
            shutil.copyfile(efi, unsigned)
            _run(["sbattach", "--remove", unsigned])
            for name, path in (("signed", efi), ("unsigned", unsigned)):
                esp = os.path.join(udir, "esp-%s.img" % name)
                _kernels().esp_image(esp, path)
                _built[name] = esp
        return _built["signed" if signed else "unsigned"], _built["pcr11"]


class SbDisk:
    """The root disk, and an ESP with our UKI (the root on its command
    line) as the removable-media boot path, booted by the Secure Boot
    firmware with our keys enrolled; the UKI signed with db's key or
    not."""
    fs = "ext4"
    firmware = True

    def __init__(self, name, signed, with_tpm=False):
        self.name, self.signed, self.with_tpm = name, signed, with_tpm
        self.esp = self.vars = self.pcr11 = None

    def build(self, testinit, work, env):
        keys, self.vars = enrolled(env)
        root = scenarios_early._ext4(work, testinit, ROOT)
        self.esp, self.pcr11 = _esp(work, env, keys, self.signed)
        return [root]

    def words(self, _dpaths):
        return {"pcr11": self.pcr11}

    @contextlib.contextmanager
    def attach(self, _dpaths):
        with tempfile.TemporaryDirectory() as tmp:
            vars_copy = os.path.join(tmp, "vars.fd")
            shutil.copyfile(self.vars, vars_copy)
            args = (MACHINE +
                    ["-drive", "if=pflash,format=raw,unit=0,readonly=on,file=" + OVMF_CODE,
                     "-drive", "if=pflash,format=raw,unit=1,file=" + vars_copy,
                     "-drive", "if=none,id=esp,format=raw,file=" + self.esp,
                     "-device", "virtio-blk-pci,drive=esp,bootindex=1"])
            if not self.with_tpm:
                yield args
                return
            # a fresh TPM: PCR 11 starts at zero
            with tpm.swtpm(os.path.join(tmp, "tpmstate")) as tpm_args:
                yield args + tpm_args


def scenarios(Scenario):
    return [
        Scenario("sb-signed-uki", "Secure Boot enforcing, our test db enrolled (efitools): OVMF "
                 "runs the UKI signed with --uki-sign-key/--uki-sign-cert, the kernel sees "
                 "Secure Boot on, and the root is reached; with a TPM, the root's PCR 11 is "
                 "systemd-measure's prediction for enter-initrd:leave-initrd, which the UKI's "
                 ".pcrsig (--uki-pcr-key) signed: the stub measured the sections, the init "
                 "the two phases, unasked (the stub's StubPcrKernelImage)",
                 SbDisk("sb-signed", True, with_tpm=tpm.available()), "", ours_only=True,
                 log_expect=("EFI stub: UEFI Secure Boot is enabled.",
                             "secureboot: Secure boot enabled")
                 + (("show %s: {pcr11}" % PCR11,
                     "uniramfs: extended PCR 11 with 'enter-initrd' (banks ",
                     "uniramfs: extended PCR 11 with 'leave-initrd' (banks ") if tpm.available() else ())),
        Scenario("sb-unsigned-refused", "Secure Boot enforcing: the same UKI, its signature "
                 "removed (sbattach --remove), is refused by the firmware; the stub never runs",
                 SbDisk("sb-unsigned", False), "", ours_only=True,
                 fail_msgs=('BdsDxe: failed to load Boot0001 "UEFI Non-Block Boot Device" from '
                            'PciRoot(0x0)/Pci(0x2,0x0): Access Denied',),
                 log_absent=("EFI stub:",)),
    ]
