#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Arch PKGBUILD (packaging/arch) builds with makepkg (Debian's
# makepkg package) as an unprivileged user from a tarball of this
# checkout; the package's .PKGINFO and file list are what they should be,
# unpacked, its uniramfs makes an image with its init for the host's kernel,
# and its libalpm script, run as the hooks run it under a scratch root
# with a stand-in uniramfs, puts each kernel and its image in /boot by
# package name, rebuilds every kernel when asked, removes them, and
# refuses names that would leave /boot.
# --nodeps: Debian has no pacman database of the build dependencies;
# --nocheck: the unit tests run elsewhere.
# Usage: tests/packaging/arch.sh [WORKDIR]   Last line: "N passed, N failed".
# the checks are functions that check() runs
# shellcheck disable=SC2317
set -uo pipefail
# shellcheck source=tests/packaging/lib.sh
. "$(dirname "$0")/lib.sh" arch

work=${1:-$top/build/packaging-work/arch}
rm -rf "$work"
mkdir -p "$work"
log=$work/log
mkdir -p "$log"

command -v makepkg >/dev/null || die "makepkg is installed (apt-get install makepkg)"
build=$(mktemp -d /tmp/uniramfs-arch.XXXXXX)
trap 'rm -rf "$build"' EXIT
cp "$top/packaging/arch/PKGBUILD" "$build/"
source_tarball "$build/uniramfs-$version.tar.gz" || die "source tarball"
# makepkg refuses to run as root: as root, a system user of our own builds
user=$(id -un)
as_user=()
if [ "$(id -u)" = 0 ]; then
	user=uniramfs-makepkg
	id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user" ||
		die "useradd $user"
	chown -R "$user:" "$build"
	as_user=(runuser -u "$user" --)
fi
if (cd "$build" && nice -n 5 "${as_user[@]}" env HOME="$build" PKGEXT=.pkg.tar.zst \
	MAKEFLAGS=-j2 makepkg -f --nodeps --nocheck --noconfirm) >"$log/makepkg.txt" 2>&1; then
	ok "makepkg --nodeps --nocheck as $user"
else
	tail -30 "$log/makepkg.txt"
	die "makepkg --nodeps --nocheck as $user"
fi
pkg=$work/uniramfs-$version-1-x86_64.pkg.tar.zst
cp "$build/${pkg##*/}" "$pkg" || die "makepkg made ${pkg##*/}"

tar --zstd -xOf "$pkg" .PKGINFO >"$work/PKGINFO" || die "the package holds a .PKGINFO"
for line in "pkgname = uniramfs" "pkgver = $version-1" "arch = x86_64" \
	"provides = initramfs" "conflict = initramfs" "backup = etc/uniramfs.conf" \
	"depend = kmod" "depend = util-linux-libs" "depend = zstd" "depend = libxcrypt" \
	"makedepend = meson"; do
	check ".PKGINFO: $line" grep -qxF "$line" "$work/PKGINFO"
done
check ".PKGINFO: squashfs-tools-ng is optional" grep -q '^optdepend = squashfs-tools-ng: ' "$work/PKGINFO"

tar --zstd -tf "$pkg" >"$work/all-files"
grep -v -e '/$' -e '^\.' "$work/all-files" | sed -E 's/\.gz$//' | sort >"$work/files"
sort >"$work/expected-files" <<'LIST'
etc/uniramfs.conf
usr/bin/uniramfs
usr/lib/uniramfs/uniramfs-init
usr/lib/uniramfs/uniramfs-shutdown
usr/lib/uniramfs/uniramfs-multipath-claim
usr/lib/uniramfs/uniramfs-zfs-mount-root
usr/lib/uniramfs/uniramfs-kdump
usr/lib/uniramfs/gnutls-notls.so
usr/lib/uniramfs/plugins.d/clevis-tpm2.conf
usr/lib/uniramfs/plugins.d/clevis.conf
usr/lib/uniramfs/plugins.d/kdump.conf
usr/lib/uniramfs/plugins.d/live-https.conf
usr/lib/uniramfs/plugins.d/lvm-cache.conf
usr/lib/uniramfs/plugins.d/lvm-thin.conf
usr/lib/uniramfs/plugins.d/lvm.conf
usr/lib/uniramfs/plugins.d/multipath.conf
usr/lib/uniramfs/plugins.d/overlay-tools.conf
usr/lib/uniramfs/plugins.d/plymouth.conf
usr/lib/uniramfs/plugins.d/ssh-unlock.conf
usr/lib/uniramfs/plugins.d/zfs.conf
usr/lib/kernel/install.d/50-uniramfs.install
usr/share/bash-completion/completions/uniramfs
usr/share/libalpm/hooks/60-uniramfs-remove.hook
usr/share/libalpm/hooks/90-uniramfs-install.hook
usr/share/libalpm/scripts/uniramfs
usr/share/man/man5/uniramfs.conf.5
usr/share/man/man8/uniramfs.8
LIST
same_list "the file list: programs, plugins, libalpm hooks and script, kernel-install plugin, config, man pages" \
	"$work/expected-files" "$work/files"
check "every file is under usr/ or etc/ (no /usr/sbin: Arch merged it into bin)" \
	sh -c "! grep -v -e '^\.' -e '^usr/' -e '^etc/' '$work/all-files' | grep -q . && ! grep -q '^usr/sbin' '$work/all-files'"

root=$work/root
mkdir -p "$root"
tar --zstd -C "$root" -xf "$pkg" || die "unpack the package"
hooks=$root/usr/share/libalpm/hooks
for h in 90-uniramfs-install 60-uniramfs-remove; do
	check "$h.hook triggers on usr/lib/modules/*/vmlinuz" grep -qx 'Target = usr/lib/modules/\*/vmlinuz' "$hooks/$h.hook"
	check "$h.hook runs the script with the targets" grep -qx 'NeedsTargets' "$hooks/$h.hook"
done
check "the install hook runs after the transaction, the remove hook before" \
	sh -c "grep -qx 'When = PostTransaction' '$hooks/90-uniramfs-install.hook' && grep -qx 'When = PreTransaction' '$hooks/60-uniramfs-remove.hook'"
check "uniramfs-init is static (no program interpreter)" \
	sh -c "! readelf -l '$root/usr/lib/uniramfs/uniramfs-init' | grep -q 'program interpreter'"
packaged_image "the packaged uniramfs makes an image with the packaged init" \
	"$root/usr/bin/uniramfs" "$root/usr/lib/uniramfs/uniramfs-init" "$work"

# The libalpm script as the hooks run it: paths on stdin, under a
# scratch root, with a uniramfs that records its arguments and writes
# the image it is asked for.
script=$root/usr/share/libalpm/scripts/uniramfs
fake=$work/fake
mkdir -p "$fake/bin"
cat >"$fake/bin/uniramfs" <<'SH'
#!/bin/sh
echo "$*" >>"$UNIRAMFS_FAKE_LOG"
while [ $# -gt 0 ]; do [ "$1" = -o ] && echo image >"$2"; shift; done
SH
chmod +x "$fake/bin/uniramfs"
alpm() { # ROOT ACTION TARGETS: the script's output in $work/alpm.txt
	printf '%s\n' "$3" | env UNIRAMFS_ALPM_ROOT="$1" UNIRAMFS_FAKE_LOG="$1/calls" \
		PATH="$fake/bin:$PATH" sh "$script" "$2" >"$work/alpm.txt" 2>&1
}
kernel() { # ROOT KVER PKGBASE
	mkdir -p "$1/usr/lib/modules/$2"
	echo "kernel $2" >"$1/usr/lib/modules/$2/vmlinuz"
	[ -z "$3" ] || echo "$3" >"$1/usr/lib/modules/$2/pkgbase"
}
sys=$fake/sys
kernel "$sys" 6.1.0-arch1-1 linux
kernel "$sys" 6.1.0-lts1-1 linux-lts
kernel "$sys" 6.1.0-custom ''
installs_one() {
	alpm "$sys" install usr/lib/modules/6.1.0-arch1-1/vmlinuz &&
		cmp -s "$sys/boot/vmlinuz-linux" "$sys/usr/lib/modules/6.1.0-arch1-1/vmlinuz" &&
		[ "$(cat "$sys/calls")" = "build -k 6.1.0-arch1-1 -o $sys/boot/initramfs-linux.img" ] &&
		[ -s "$sys/boot/initramfs-linux.img" ] && [ ! -e "$sys/boot/vmlinuz-linux-lts" ]
}
rebuilds_all() {
	rm -f "$sys/calls"
	alpm "$sys" install usr/lib/uniramfs/uniramfs-init &&
		[ "$(sort "$sys/calls")" = "build -k 6.1.0-arch1-1 -o $sys/boot/initramfs-linux.img
build -k 6.1.0-lts1-1 -o $sys/boot/initramfs-linux-lts.img" ] &&
		[ -e "$sys/boot/vmlinuz-linux-lts" ] && ! compgen -G "$sys/boot/*custom*" >/dev/null
}
removes_one() {
	alpm "$sys" remove usr/lib/modules/6.1.0-lts1-1/vmlinuz &&
		[ ! -e "$sys/boot/vmlinuz-linux-lts" ] && [ ! -e "$sys/boot/initramfs-linux-lts.img" ] &&
		[ -e "$sys/boot/vmlinuz-linux" ] && [ -e "$sys/boot/initramfs-linux.img" ]
}
refuses_climbing() {
	local bad=$fake/bad rc
	kernel "$bad" 6.1.0-evil ../etc
	mkdir -p "$bad/etc"
	alpm "$bad" install usr/lib/modules/6.1.0-evil/vmlinuz
	rc=$?
	[ "$rc" = 1 ] &&
		grep -qxF "uniramfs: bad package name '../etc' in $bad/usr/lib/modules/6.1.0-evil/pkgbase" "$work/alpm.txt" &&
		[ ! -e "$bad/calls" ] && [ -z "$(ls "$bad/etc")" ] && [ ! -e "$bad/boot" ]
}
check "install of one kernel: its vmlinuz and image in /boot by package name" installs_one
check "one of our files changed: every packaged kernel rebuilt, the unpackaged one left alone" rebuilds_all
check "remove: that kernel's vmlinuz and image go, the other's stay" removes_one
check "a pkgbase that climbs out of /boot is refused, by name, and nothing written" refuses_climbing
finish
