#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The RPM spec (packaging/rpm/uniramfs.spec) builds with rpmbuild from a
# tarball of this checkout, and the package holds exactly the files it
# should, nothing outside /usr and /etc, no scriptlets (Fedora keeps dracut:
# kernel-install's initrd_generator= chooses, not our scripts), a static
# init, and the requirements rpm found; unpacked, its uniramfs makes an
# image with its init for the host's kernel.
# On Debian (apt-get install rpm) rpmbuild has no rpm database of the
# build dependencies: --nodeps. --nocheck: the unit tests run elsewhere.
# Usage: tests/packaging/rpm.sh [WORKDIR]   Last line: "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/packaging/lib.sh
. "$(dirname "$0")/lib.sh" rpm

work=${1:-$top/build/packaging-work/rpm}
rm -rf "$work"
mkdir -p "$work/SOURCES" "$work/out"
log=$work/log
mkdir -p "$log"

command -v rpmbuild >/dev/null || die "rpmbuild is installed (apt-get install rpm)"
source_tarball "$work/SOURCES/uniramfs-$version.tar.gz" || die "source tarball"
if nice -n 5 rpmbuild -bb --nodeps --nocheck --define "_topdir $work" \
	"$top/packaging/rpm/uniramfs.spec" >"$log/rpmbuild.txt" 2>&1; then
	ok "rpmbuild -bb --nodeps --nocheck packaging/rpm/uniramfs.spec"
else
	tail -30 "$log/rpmbuild.txt"
	die "rpmbuild -bb --nodeps --nocheck packaging/rpm/uniramfs.spec"
fi
rpm=
for f in "$work"/RPMS/*/uniramfs-"$version"-1*.rpm; do
	[ -e "$f" ] && rpm=$f
done
[ -n "$rpm" ] || die "rpmbuild made uniramfs-$version-1.*.rpm"
q() { rpm -qp --nosignature "$@" "$rpm"; }

sbindir=$(rpm --eval '%{_sbindir}')
completions=$(rpm --eval '%{?bash_completions_dir}%{!?bash_completions_dir:/usr/share/bash-completion/completions}')
sort >"$work/expected-files" <<LIST
/etc/uniramfs.conf
$sbindir/uniramfs
/usr/libexec/uniramfs
/usr/libexec/uniramfs/uniramfs-init
/usr/libexec/uniramfs/uniramfs-shutdown
/usr/libexec/uniramfs/uniramfs-multipath-claim
/usr/libexec/uniramfs/uniramfs-zfs-mount-root
/usr/libexec/uniramfs/uniramfs-kdump
/usr/libexec/uniramfs/gnutls-notls.so
/usr/lib/uniramfs
/usr/lib/uniramfs/plugins.d
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
$completions/uniramfs
/usr/share/man/man5/uniramfs.conf.5
/usr/share/man/man8/uniramfs.8
LIST
# rpm's own additions aside: the build-id links of the ELF files, and the
# man pages' compression (brp-compress: .gz on Fedora, none on Debian's rpm)
q --list >"$work/all-files"
grep -v '^/usr/lib/\.build-id' "$work/all-files" | sed -E 's/\.(gz|xz|bz2|zst)$//' | sort >"$work/files"
same_list "rpm -qp --list: the programs, plugins, kernel-install plugin, config and man pages, nothing else" \
	"$work/expected-files" "$work/files"
check "every file is under /usr or /etc" sh -c "! grep -vE '^/(usr|etc)/' '$work/all-files'"
check "no /etc/kernel hooks (Fedora's kernels call kernel-install)" sh -c "! grep -q '^/etc/kernel' '$work/files'"
check "rpm -qp --configfiles: /etc/uniramfs.conf" test "$(q --configfiles)" = /etc/uniramfs.conf
check "rpm -qp --scripts: no scriptlets (dracut stays; initrd_generator= chooses)" test -z "$(q --scripts)"
check "rpm -qp --conflicts: none (dracut stays installed)" test -z "$(q --conflicts)"
q --requires >"$work/requires"
for r in kmod 'libkmod.so.2()(64bit)' 'libblkid.so.1()(64bit)' 'libzstd.so.1()(64bit)' 'liblzma.so.5()(64bit)'; do
	check "rpm -qp --requires: $r" grep -qxF "$r" "$work/requires"
done
check "rpm -qp --recommends: squashfs-tools-ng" sh -c "rpm -qp --nosignature --recommends '$rpm' | grep -qx squashfs-tools-ng"

# the payload: the kernel-install plugin is executable, the init static
mkdir -p "$work/root"
(cd "$work/root" && rpm2cpio "$rpm" | cpio -idm --quiet) || fail "rpm2cpio | cpio -idm"
check "the kernel-install plugin is executable" test -x "$work/root/usr/lib/kernel/install.d/50-uniramfs.install"
check "uniramfs-init is static (no program interpreter)" \
	sh -c "! readelf -l '$work/root/usr/libexec/uniramfs/uniramfs-init' | grep -q 'program interpreter'"
check "the packaged uniramfs runs: --version says $version" \
	sh -c "'$work/root$sbindir/uniramfs' --version | grep -qF '$version'"
packaged_image "the packaged uniramfs makes an image with the packaged init" \
	"$work/root$sbindir/uniramfs" "$work/root/usr/libexec/uniramfs/uniramfs-init" "$work"
finish
