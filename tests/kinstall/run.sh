#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# systemd's kernel-install chooses the initrd generator with
# initrd_generator= in /etc/kernel/install.conf (issue 30). In a Debian 12
# chroot laid out as Fedora's (BLS layout, no Debian 85-initrd.install),
# with dracut (Debian 12's dracut-core, 059) and dracut's own
# kernel-install plugin beside ours, `kernel-install add` runs under each
# choice, and the loader entry's one initrd is checked for who made it.
# Two versions of dracut's plugin: 059's (Debian 12's source, as Fedora
# 38 and 39 shipped it), which ignores initrd_generator=, and 106's
# (Debian 13's dracut-core), which follows it.
# Usage: tests/kinstall/run.sh [BUILDDIR]   (the build of this tree, whose
# `meson install` goes into the chroot). Last line: "N passed, N failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# a private mount namespace: the chroot's mounts go with the test
if [ -z "${UNIRAMFS_KINSTALL_NS:-}" ]; then
	export UNIRAMFS_KINSTALL_NS=1
	exec unshare --mount --propagation private "$0" "$@"
fi

builddir=$(cd "${1:-$top/build}" && pwd)
work=$builddir/kinstall-work
CACHE=${UNIRAMFS_TEST_CACHE:-/var/cache/uniramfs-tests}
# shellcheck source=tests/lib/tally.sh
. "$top/tests/lib/tally.sh" kinstall

rm -rf "$work"
mkdir -p "$work/log"
log=$work/log
root=$work/root

# The root, cached by its recipe: tests/distro/rootfs.sh's Debian 12 with
# the kernel and dracut-core installed through apt (initramfs-tools comes
# with the kernel; its image is removed below), a dracut configuration
# that makes a small image quickly (what dracut packs is not the
# question here), and dracut's two plugins.
base=$("$top/tests/distro/rootfs.sh" 2>"$log/rootfs.txt") || { cat "$log/rootfs.txt"; die "the Debian 12 root (rootfs.sh)"; }
# dracut's upstream source as Debian 12 has it (its 50-dracut.install is
# upstream 059's), and Debian 13's dracut-core
src059=dracut_059.orig.tar.xz
sum059=11c338ba8a71d07874753f1dba1c261f2f3cef9f2ba5d14dfc2c13f4047e266a
deb106=106-6
sum106=2a976f1141a05383331c6cb4e04b6a29e625516688ece99f6533e04fa089426e
dracutconf=$'hostonly="no"\ndracutmodules="base"\ncompress="cat"'
recipe="base=${base##*/} install=linux-image-amd64,dracut-core src059=$sum059 dracut-core=$deb106:$sum106 conf=$dracutconf v=1"
cache=$CACHE/kinstall-$(printf '%s' "$recipe" | sha256sum | cut -c1-16)
make_cache() ( # (a subshell: its EXIT trap cleans up)
	tmp=$(mktemp -d "$CACHE/kinstall-build.XXXXXX") || return 1
	# shellcheck disable=SC2064
	trap "umount '$tmp/root/proc' '$tmp/root/dev' 2>/dev/null; rm -rf '$tmp'" EXIT
	mirror=$(python3 -c "import sys; sys.path.insert(0, '$top/tests/lib'); import privapt; print(privapt.host_mirror())") || return 1
	curl -sSf -o "$tmp/$src059" "$mirror/pool/main/d/dracut/$src059" || return 1
	echo "$sum059  $tmp/$src059" | sha256sum -c --quiet || return 1
	tar -C "$tmp" -xJf "$tmp/$src059" dracut/install.d/50-dracut.install || return 1
	mv "$tmp/dracut/install.d/50-dracut.install" "$tmp/50-dracut.install-059"
	python3 - "$top/tests/lib" "$tmp" "$deb106" <<'PY' || return 1
import sys
sys.path.insert(0, sys.argv[1])
import privapt
apt = privapt.PrivateApt(sys.argv[2] + "/apt", "trixie", ["main"], say=lambda *a: print(*a, file=sys.stderr))
apt.update()
print(apt.download("dracut-core", sys.argv[3]))
PY
	dpkg-deb --fsys-tarfile "$tmp"/apt/debs/dracut-core_"$deb106"_*.deb |
		tar -xOf - ./usr/lib/kernel/install.d/50-dracut.install >"$tmp/50-dracut.install-106" || return 1
	echo "$sum106  $tmp/50-dracut.install-106" | sha256sum -c --quiet || return 1
	mkdir "$tmp/root"
	tar -C "$tmp/root" -xf "$base" || return 1
	mount -t proc proc "$tmp/root/proc" && mount --bind /dev "$tmp/root/dev" || return 1
	chroot "$tmp/root" env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o Dpkg::Use-Pty=0 --no-install-recommends \
		install linux-image-amd64 dracut-core || return 1
	umount "$tmp/root/proc" "$tmp/root/dev"
	printf '%s\n' "$dracutconf" >"$tmp/root/etc/dracut.conf.d/50-kinstall-test.conf"
	rm -f "$tmp"/root/boot/initrd.img-*
	tar -C "$tmp/root" -cf "$tmp/root.tar" . || return 1
	mv "$tmp/50-dracut.install-059" "$tmp/50-dracut.install-106" "$tmp/root.tar" "$cache/"
)
if [ ! -f "$cache/root.tar" ]; then
	echo "# making $cache (once)"
	mkdir -p "$cache"
	make_cache >"$log/cache.txt" 2>&1 || { tail -30 "$log/cache.txt"; rm -rf "$cache"; die "the cached root with dracut ($cache)"; }
fi

mkdir -p "$root"
tar -C "$root" -xf "$cache/root.tar" || die "unpack the root"
if ! { mount -t proc proc "$root/proc" && mount --bind /dev "$root/dev" && mount -t tmpfs tmpfs "$root/tmp"; }; then
	die "mount the root's /proc, /dev, /tmp"
fi
in_root() { chroot "$root" env LC_ALL=C.UTF-8 PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
# our files, as `meson install` lays them out (the .deb conflicts with
# dracut's Debian package), and the plugin where kernel-install reads it
check "meson install into the root" sh -c "meson install -C '$builddir' --no-rebuild --destdir '$root' >'$log/install.txt' 2>&1"
prefix=$(meson introspect --buildoptions "$builddir" | python3 -c 'import json, sys; print(*[o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"])')
[ -f "$root$prefix/lib/kernel/install.d/50-uniramfs.install" ] || die "meson install put 50-uniramfs.install in $prefix/lib/kernel/install.d"
[ "$prefix" = /usr ] || cp "$root$prefix/lib/kernel/install.d/50-uniramfs.install" "$root/usr/lib/kernel/install.d/"
kver=$(find "$root/lib/modules" -mindepth 1 -maxdepth 1 -printf '%f\n' | head -1)
[ -n "$kver" ] || die "a kernel in the root"
mid=$(cat "$root/etc/machine-id")
[ -n "$mid" ] || die "the root's machine id"
# Fedora's plugin set: Debian's 85-initrd.install (which hands
# /boot/initrd.img-KVER over as an initrd) masked
mkdir -p "$root/etc/kernel/install.d" "$root/boot/loader/entries" "$root/boot/$mid"
ln -s /dev/null "$root/etc/kernel/install.d/85-initrd.install"
# the entries' command line (else kernel-install copies the host's)
echo "root=UUID=8a4d8f36-5a0e-4c4b-9f0e-2b7d6a1c0de5 ro" >"$root/etc/kernel/cmdline"
entry=$root/boot/loader/entries/$mid-$kver.conf

# made_by: who made the entry's initrd, "uniramfs", "dracut", or what is wrong
made_by() {
	local n
	n=$(grep -c '^initrd ' "$entry" 2>/dev/null)
	[ "$n" = 1 ] || { echo "${n:-no} initrd lines"; return; }
	[ -f "$root/boot/$mid/$kver/initrd" ] || { echo "no $mid/$kver/initrd"; return; }
	# (into files, not "| grep -q": with pipefail, grep leaving early fails the pipe)
	in_root uniramfs ls "/boot/$mid/$kver/initrd" >"$log/ls-uniramfs.txt" 2>&1
	in_root lsinitrd "/boot/$mid/$kver/initrd" >"$log/ls-dracut.txt" 2>&1
	if grep -q ' etc/uniramfs/kver$' "$log/ls-uniramfs.txt"; then
		echo uniramfs
	elif grep -q ' usr/lib/dracut/build-parameter.txt$' "$log/ls-dracut.txt"; then
		echo dracut
	else
		echo "an initrd of neither"
	fi
}
# case NAME PLUGIN GENERATOR EXPECTED DRACUT_RAN [keep]: kernel-install add
# with dracut's plugin PLUGIN (059, 106, or "masked") and
# initrd_generator=GENERATOR; keep: the entry of the case before stays
# (a second add of the same kernel)
case_() {
	local name=$1 plugin=$2 gen=$3 want=$4 ran=$5 keep=${6:-} got
	rm -f "$root/etc/kernel/install.d/50-dracut.install"
	if [ "$plugin" = masked ]; then
		cp "$cache/50-dracut.install-059" "$root/usr/lib/kernel/install.d/50-dracut.install"
		ln -s /dev/null "$root/etc/kernel/install.d/50-dracut.install"
	elif [ "$plugin" = 106 ]; then
		# Debian 12's dracut (059) has no --add-confdir, which 106's plugin
		# passes for its hostonly configuration: that line goes, the rest
		# (its choice, line 19) is Debian 13's as it ships
		sed '/^ *--add-confdir hostonly \\$/d' "$cache/50-dracut.install-106" >"$root/usr/lib/kernel/install.d/50-dracut.install"
		check "$name: 106's plugin less its --add-confdir line" \
			test "$(diff "$cache/50-dracut.install-106" "$root/usr/lib/kernel/install.d/50-dracut.install" | grep -c '^<')" = 1
	else
		cp "$cache/50-dracut.install-$plugin" "$root/usr/lib/kernel/install.d/50-dracut.install"
	fi
	chmod 755 "$root/usr/lib/kernel/install.d/50-dracut.install"
	printf 'layout=bls\n%s\n' "${gen:+initrd_generator=$gen}" >"$root/etc/kernel/install.conf"
	[ -n "$keep" ] || rm -rf "${root:?}/boot/$mid/$kver" "$entry"
	if in_root env BOOT_ROOT=/boot kernel-install -v add "$kver" "/boot/vmlinuz-$kver" >"$log/$name.txt" 2>&1; then
		ok "$name: kernel-install add"
	else
		tail -20 "$log/$name.txt"
		fail "$name: kernel-install add"
	fi
	got=$(made_by)
	check "$name: the entry's one initrd is $want's (got: $got)" test "$got" = "$want"
	# dracut --verbose (kernel-install -v) says when it writes an image
	if [ "$ran" = yes ]; then
		check "$name: dracut's plugin ran dracut" grep -q 'Creating initramfs image file' "$log/$name.txt"
	else
		check "$name: dracut's plugin did nothing" sh -c "! grep -q 'Creating initramfs image file' '$log/$name.txt'"
	fi
	# and ours, when it builds, says where it wrote
	if [ "$want" = uniramfs ]; then
		check "$name: our plugin made the image" grep -q 'uniramfs: wrote .*/initrd: kernel' "$log/$name.txt"
	else
		check "$name: our plugin did nothing" sh -c "! grep -q 'uniramfs: wrote' '$log/$name.txt'"
	fi
}
echo "# kernel $kver, dracut $(in_root dracut --version 2>/dev/null | head -1) ($(($(date +%s) - t0)) s)"
# dracut 106's plugin follows the choice; unset, it is the default and,
# first in name order (50-dracut < 50-uniramfs), keeps its initrd
case_ dracut106-uniramfs 106 uniramfs uniramfs no
case_ dracut106-dracut 106 dracut dracut yes
case_ dracut106-unset 106 "" dracut yes
# dracut 059's plugin ignores it: chosen, ours replaces its initrd
# (dracut still ran); unset, its initrd stays as 106's does
case_ dracut059-uniramfs 059 uniramfs uniramfs yes
case_ dracut059-dracut 059 dracut dracut yes
case_ dracut059-unset 059 "" dracut yes
# what docs/integration.md recommends with dracut 059: mask its plugin
case_ dracut059-masked-uniramfs masked uniramfs uniramfs no
# an initrd left in the entry directory by an earlier add (dracut's) is
# not this run's: unset, with dracut's plugin masked, ours replaces it
case_ dracut059-again 059 dracut dracut yes
case_ dracut059-again-masked-unset masked "" uniramfs no keep
finish
