#!/bin/bash
# Install from Debian's archive what uniramfs needs. Idempotent: does
# nothing when everything is there.
#
#   tools/install-deps.sh demo   what ./demo.sh needs: the compiler and
#                                libraries, Debian's kernel, QEMU, mkfs.ext4
#   tools/install-deps.sh [all]  that, and what the tests and benchmarks
#                                need (servers among them: NFS, iSCSI, tang)
set -euo pipefail

demo=(
	# build
	meson ninja-build pkg-config gcc libc6-dev libcrypt-dev python3
	libkmod-dev libblkid-dev libzstd-dev liblzma-dev liblz4-dev zlib1g-dev
	# the kernel the demo boots, and what boots it on its root disk
	linux-image-amd64 qemu-system-x86 kmod e2fsprogs
	# the images' rescue shell
	busybox-static
)

tests=(
	# fuzzing and sanitizers
	clang libclang-rt-14-dev
	# the kernel we boot and the tools that boot it and make its disks
	linux-image-amd64 qemu-system-x86 kmod cpio
	e2fsprogs xfsprogs btrfs-progs dosfstools fdisk util-linux
	# the static e2fsck the images pack in place of the dynamic one
	# (src/gen/features/fsck_static.c), so the fsck boot tests run it
	e2fsck-static
	# mkfs.f2fs and sload.f2fs for the f2fs root (tests/boot/scenarios_f2fs.py),
	# whose fsck.f2fs the generic image packs
	f2fs-tools
	busybox-static xz-utils zstd gzip lz4
	# binaries the tests pack into images
	cryptsetup-bin lvm2 mdadm
	# thin_check and cache_check: lvm refuses a thin pool or a cache
	# volume without them (plugins/lvm-thin.conf, lvm-cache.conf; the
	# boot tests lvm-thin, lvm-cache, dracut20-thin)
	thin-provisioning-tools
	# make-bcache for the plugin-layer boot test's disk (tests/boot/scenarios_plugins.py)
	bcache-tools
	# multipath, its checkers and libraries, packed by the multipath plugin
	# (plugins/multipath.conf.in, tests/boot/scenarios_multipath.py)
	multipath-tools
	# LUKS2 tokens: the TPM2 plugin's dlopen()ed tss2 libraries, and the
	# software TPM the builder enrols with and the boot unlocks with
	libtss2-esys-3.0.2-0 libtss2-rc0 libtss2-mu0 libtss2-tcti-device0 swtpm swtpm-tools
	# clevis and Tang (tests/boot/tang.py): the clevis an image packs
	# (jose, curl, luksmeta come with it), tangd and its keygen on the
	# host, socat in front of tangd on 127.0.0.1
	clevis clevis-luks jose curl luksmeta tang socat
	# clevis's tpm2 pin (tests/boot/scenarios_clevis.py): bound in the
	# builder VM with the host's clevis-encrypt-tpm2 and tpm2-tools
	# (listed below too), unlocked by what an image packs
	clevis-tpm2
	# netbooted live roots (tests/boot/scenarios_http.py): the curl an
	# image packs for https:// and its CA bundle (plugins/live-https.conf),
	# openssl to make the test's own CA (curl and socat are above)
	ca-certificates openssl
	# the Plymouth splash an image packs (plugins/plymouth.conf,
	# src/gen/features/plymouth.c) and the themes its boot test shows
	# (spinfinity: tests/boot/scenarios_plymouth.py checks its blue)
	plymouth plymouth-themes
	# the console: loadkeys compiles keymaps, console-data has the
	# keymaps and fonts (src/gen/features/console.c)
	kbd console-data
	# network roots: the servers on 127.0.0.1 (tests/boot/netservers.py)
	# and the clients a probe image carries (tests/boot/netprobe.py)
	nfs-ganesha nfs-ganesha-vfs tgt nbd-server nbd-client open-iscsi
	# iPXE's ROM for QEMU's NICs: its sanhook leaves a real iBFT
	# (tests/boot/scenarios_ibft.py; socat, above, per connection)
	ipxe-qemu
	# what the server VM packs besides busybox (tests/boot/servervm.py,
	# which apt-get downloads nfs-kernel-server itself: never installed)
	rpcbind nfs-common
	# the server VM's router advertisements and DHCPv6 server for the IPv6
	# boots (tests/boot/scenarios_ipv6.py), and its DNS server for servers
	# given by name (servervm.py dns=, tests/boot/scenarios_dns.py);
	# -base: the binary, no service
	dnsmasq-base
	# other kernels (tests/kernels): the minimal kernel built from
	# Debian's source, and a UKI booted by OVMF from an mtools ESP (also
	# the root discovery boots, tests/boot/scenarios_dps.py)
	linux-source-6.1 make flex bison bc libelf-dev libssl-dev
	ovmf mtools systemd-boot-efi
	# arm64 (tests/arm64): the cross compiler and its libc for
	# uniramfs-init and testinit, and the emulator of -M virt; the arm64
	# libraries, programs and kernel come unpacked, not installed, from
	# a private apt state (tests/arm64/sysroot.py)
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
	# Secure Boot: sbsign for `build --uki-sign-key` (sbverify and sbattach
	# for the tests: tests/unit/gen/build/test_build_uki.c), and efitools,
	# whose efi-updatevar enrols the test keys into OVMF's variable store
	# in a builder boot (tests/boot/scenarios_sb.py)
	sbsigntool efitools
	# remote unlock over SSH: dropbear packed into images, dropbearkey
	# for their host keys, and the boot test's ssh (tests/boot/scenarios_ssh.py)
	dropbear-bin openssh-client
	# kdump (docs/kdump.md): makedumpfile, which `build --kdump` packs;
	# kexec-tools' kexec, on the kdump boot test's root
	# (tests/boot/scenarios_kdump.py), loads the crash kernel
	makedumpfile kexec-tools
	# the squashfs segment's writer (src/gen/image/squash.c), and rdsquashfs
	# for the tests that read it back
	squashfs-tools-ng
	# mkfs.erofs for TEST-30's erofs disk (tests/boot/scenarios_liveovl.py)
	erofs-utils
	# LUKS for mkinitramfs (bench/stack.py)
	cryptsetup-initramfs
	# the other generators, for reading their images and benchmarks;
	# dracut-network: dracut's nfs and iscsi modules (bench/net.py)
	initramfs-tools dracut-core dracut-network
	# tiny-initramfs's mktirfs (bench/run.py); not tiny-initramfs, which
	# conflicts with initramfs-tools and dracut
	tiny-initramfs-core
	# dracut's dmsquash-live and livenet modules, and xorriso for the live
	# ISO, for bench/live.py
	dracut-live xorriso
	# dracut's tpm2-tss module, for its TPM2 unlock (bench/unlock.py)
	tpm2-tools
	# packaging and the Debian system test (tests/distro)
	debootstrap debhelper dpkg-dev fakeroot systemd
	# the other distributions' packages (tests/packaging): rpmbuild for the
	# RPM spec, makepkg for the PKGBUILD (a package of its own beside
	# pacman's; bsdtar unpacks its sources), shellcheck for the APKBUILD
	# and its trigger (busybox, above, parses them)
	rpm pacman-package-manager makepkg libarchive-tools shellcheck
	# the musl userland of tests/layouts: musl-gcc builds its e2fsck from
	# bookworm's e2fsprogs source (dpkg-dev, above, unpacks it)
	musl musl-dev musl-tools
	# benchmarks
	hyperfine gnuplot-nox
	# ZFS (tests/zfs/fetch.py, after the packages below): DKMS builds the
	# contrib zfs-dkms against the boot kernel's headers; patchelf gives
	# the userland its /usr/local RUNPATH
	dkms linux-headers-amd64 patchelf
	# live ISOs (tests/boot/scenarios_iso.py): xorriso makes them with
	# isolinux's El Torito record and isohybrid MBR, implantisomd5 puts the
	# MD5 sum in that rd.live.check's checkisomd5 (packed by the images) reads
	xorriso isolinux syslinux-common isomd5sum
)

case "${1:-all}" in
demo) packages=("${demo[@]}") ;;
all) packages=("${demo[@]}" "${tests[@]}") ;;
*)
	echo "usage: tools/install-deps.sh [demo|all]" >&2
	exit 2
	;;
esac

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
# ZFS is in Debian's contrib, which the host's sources may lack:
# tests/zfs/fetch.py fetches it through an apt state of its own, builds the
# module with DKMS (minutes, once; cached in /var/cache/uniramfs-tests)
# and puts the userland in /usr/local. Warm, it costs an apt-get update.
zfs() {
	[ "${1:-all}" = all ] || return 0
	# not fatal here: the ZFS tests run it again and fail with its reason
	python3 "$(dirname "$0")/../tests/zfs/fetch.py" --install >/tmp/uniramfs-zfs.log 2>&1 || {
		tail -20 /tmp/uniramfs-zfs.log
		echo "install-deps: ZFS not ready (above); the ZFS tests will fail" >&2
	}
}
if [ ${#missing[@]} -eq 0 ]; then
	zfs "${1:-all}"
	exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/uniramfs-apt.log 2>&1 || {
	tail -20 /tmp/uniramfs-apt.log
	exit 1
}
zfs "${1:-all}"
