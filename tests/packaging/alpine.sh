#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Alpine APKBUILD (packaging/alpine), linted, not built: Debian has
# no abuild. It and its trigger parse with busybox's ash (sh -n) and are
# clean under shellcheck -s dash (it knows no ash; dash is the nearest); the
# APKBUILD, sourced in a subshell, declares what it should, and its
# package() run with a stand-in meson that lays out what meson would
# install (meson introspect, with abuild-meson's directories) leaves the
# files it should. The trigger, run by busybox sh as apk runs it under a
# scratch root with a stand-in uniramfs, makes /boot/initramfs-FLAVOR,
# removes it with its kernel, and refuses a bad kernel.release.
# Usage: tests/packaging/alpine.sh [WORKDIR]   Last line: "N passed, N failed".
# the checks are functions that check() runs (SC2317); the APKBUILD,
# sourced, sets and reads the variables named below (SC2154, SC2034)
# shellcheck disable=SC2317,SC2154,SC2034
set -uo pipefail
# shellcheck source=tests/packaging/lib.sh
. "$(dirname "$0")/lib.sh" alpine

work=${1:-$top/build/packaging-work/alpine}
rm -rf "$work"
mkdir -p "$work"
apkbuild=$top/packaging/alpine/APKBUILD
trigger=$top/packaging/alpine/uniramfs.trigger

command -v busybox >/dev/null || die "busybox is installed (apt-get install busybox-static)"
check "APKBUILD parses with busybox sh -n" busybox sh -n "$apkbuild"
check "uniramfs.trigger parses with busybox sh -n" busybox sh -n "$trigger"
if command -v shellcheck >/dev/null; then
	# abuild sets srcdir and pkgdir and reads the variables (SC2154, SC2034)
	check "APKBUILD: shellcheck -s dash" shellcheck -s dash -e SC2034,SC2154 "$apkbuild"
	check "uniramfs.trigger: shellcheck -s dash" shellcheck -s dash "$trigger"
else
	echo "# skip shellcheck: not installed (apt-get install shellcheck)"
fi

# the variables abuild reads, as the APKBUILD sets them
vars() (
	srcdir=/src
	# shellcheck disable=SC1090
	. "$apkbuild"
	printf '%s=%s\n' pkgname "$pkgname" pkgver "$pkgver" arch "$arch" license "$license" \
		depends "$depends" provides "$provides" provider_priority "$provider_priority" \
		triggers "$triggers" source "$source" builddir "$builddir" subpackages "$subpackages"
	echo "makedepends=$makedepends"
)
vars >"$work/vars" 2>&1 || fail "the APKBUILD sources"
has() { grep -qxF "$1" "$work/vars"; }
check "pkgname=uniramfs" has pkgname=uniramfs
check "pkgver is meson.build's version ($version)" has "pkgver=$version"
check "depends: kmod, and not mkinitfs (one generator writes the image)" has "depends=kmod !mkinitfs"
check "provides=initramfs-generator, below mkinitfs's priority 900" \
	sh -c "grep -qx 'provides=initramfs-generator' '$work/vars' && grep -qx 'provider_priority=100' '$work/vars'"
check "triggers: uniramfs.trigger on /usr/share/kernel/*" has 'triggers=uniramfs.trigger=/usr/share/kernel/*'
check "source: the release tarball" has "source=uniramfs-$version.tar.gz"
check "builddir: the tarball's directory" has "builddir=/src/uniramfs-$version"
for d in kmod-dev util-linux-static zstd-dev xz-dev lz4-dev zlib-dev; do
	check "makedepends: $d" grep -q "^makedepends=.*\\b$d\\b" "$work/vars"
done

# package() with a meson that lays out what `meson install` would, from
# a tree configured with abuild-meson's directories
meson setup "$work/introspect" "$top" --prefix=/usr --libexecdir=/usr/libexec --sbindir=/usr/sbin \
	--sysconfdir=/etc --mandir=/usr/share/man >"$work/meson-setup.txt" 2>&1 || die "meson setup (for introspection)"
meson introspect "$work/introspect" --installed |
	python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin).values()))' >"$work/installed"
packaged() (
	pkgdir=$work/pkg
	srcdir=$work/src
	meson() {
		[ "$*" = "install --no-rebuild -C output" ] || { echo "meson $*: not meson install" >&2; return 1; }
		while read -r f; do
			mkdir -p "$DESTDIR${f%/*}" && : >"$DESTDIR$f"
		done <"$work/installed"
	}
	# shellcheck disable=SC1090
	. "$apkbuild"
	set -e
	package
)
check "package() runs (meson install into \$pkgdir)" packaged
(cd "$work/pkg" && find . ! -type d | sed 's,^\.,,' | sort) >"$work/files"
sort >"$work/expected-files" <<'LIST'
/etc/uniramfs.conf
/usr/sbin/uniramfs
/usr/libexec/uniramfs/uniramfs-init
/usr/libexec/uniramfs/uniramfs-shutdown
/usr/libexec/uniramfs/uniramfs-multipath-claim
/usr/libexec/uniramfs/uniramfs-zfs-mount-root
/usr/libexec/uniramfs/uniramfs-kdump
/usr/libexec/uniramfs/gnutls-notls.so
/usr/lib/uniramfs/plugins.d/clevis-tpm2.conf
/usr/lib/uniramfs/plugins.d/clevis.conf
/usr/lib/uniramfs/plugins.d/kdump.conf
/usr/lib/uniramfs/plugins.d/live-https.conf
/usr/lib/uniramfs/plugins.d/lvm-cache.conf
/usr/lib/uniramfs/plugins.d/lvm-thin.conf
/usr/lib/uniramfs/plugins.d/lvm.conf
/usr/lib/uniramfs/plugins.d/multipath.conf
/usr/lib/uniramfs/plugins.d/overlay-tools.conf
/usr/lib/uniramfs/plugins.d/plymouth.conf
/usr/lib/uniramfs/plugins.d/ssh-unlock.conf
/usr/lib/uniramfs/plugins.d/zfs.conf
/usr/lib/kernel/install.d/50-uniramfs.install
/usr/share/bash-completion/completions/uniramfs
/usr/share/man/man5/uniramfs.conf.5
/usr/share/man/man8/uniramfs.8
LIST
same_list "package() leaves the programs, plugins, kernel-install plugin, config and man pages; no /etc/kernel hooks" \
	"$work/expected-files" "$work/files"

# the trigger as apk runs it: busybox sh, the changed directories as arguments
fake=$work/fake
mkdir -p "$fake/bin"
cat >"$fake/bin/uniramfs" <<'SH'
#!/bin/sh
echo "$*" >>"$UNIRAMFS_FAKE_LOG"
while [ $# -gt 0 ]; do [ "$1" = -o ] && echo image >"$2"; shift; done
SH
chmod +x "$fake/bin/uniramfs"
run_trigger() { # ROOT DIRS...: output in $work/trigger.txt
	local r=$1
	shift
	env UNIRAMFS_TRIGGER_ROOT="$r" UNIRAMFS_FAKE_LOG="$r/calls" PATH="$fake/bin:$PATH" \
		busybox sh "$trigger" "$@" >"$work/trigger.txt" 2>&1
}
sys=$fake/sys
mkdir -p "$sys/usr/share/kernel/lts" "$sys/usr/share/kernel/virt" "$sys/boot"
echo 6.6.60-0-lts >"$sys/usr/share/kernel/lts/kernel.release"
echo 6.6.60-0-virt >"$sys/usr/share/kernel/virt/kernel.release"
makes_images() {
	run_trigger "$sys" /usr/share/kernel/lts /usr/share/kernel/virt &&
		[ "$(cat "$sys/calls")" = "build -k 6.6.60-0-lts -o $sys/boot/initramfs-lts
build -k 6.6.60-0-virt -o $sys/boot/initramfs-virt" ] &&
		[ -s "$sys/boot/initramfs-lts" ] && [ -s "$sys/boot/initramfs-virt" ]
}
removes_image() {
	rm -f "$sys/calls" "$sys/usr/share/kernel/virt/kernel.release"
	run_trigger "$sys" /usr/share/kernel/virt &&
		[ ! -e "$sys/boot/initramfs-virt" ] && [ -e "$sys/boot/initramfs-lts" ] && [ ! -e "$sys/calls" ]
}
refuses_bad_release() {
	local bad=$fake/bad rc
	mkdir -p "$bad/usr/share/kernel/lts"
	echo ../../etc >"$bad/usr/share/kernel/lts/kernel.release"
	run_trigger "$bad" /usr/share/kernel/lts
	rc=$?
	[ "$rc" = 1 ] &&
		grep -qxF "uniramfs: bad kernel version '../../etc' in $bad/usr/share/kernel/lts/kernel.release" "$work/trigger.txt" &&
		[ ! -e "$bad/calls" ] && [ ! -e "$bad/boot" ]
}
check "trigger: each flavor's /boot/initramfs-FLAVOR made from its kernel.release" makes_images
check "trigger: a removed kernel's image goes, the other stays" removes_image
check "trigger: a kernel.release that is no version is refused, by name, nothing built" refuses_bad_release
finish
