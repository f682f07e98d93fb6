#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Make (once) a Debian live filesystem for tests/distro/debianlive.py and
# print the path of its squashfs: the distribution test's Debian 12 root
# (rootfs.sh, debootstrap from apt's mirror) with live-config,
# live-config-systemd and user-setup installed, as a live image's
# filesystem.squashfs has them (not live-boot: uniramfs is the
# initramfs), and a report unit that prints markers on the console.
# Cached outside the checkout, keyed by a hash of this recipe (this
# script's text and the root's tarball), so only a cold machine pays.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${UNIRAMFS_TEST_CACHE:-/var/cache/uniramfs-tests}
PACKAGES="live-config live-config-systemd user-setup sudo"

tarball=$("$here/rootfs.sh")
hash=$( (basename "$tarball"; cat "$0") | sha256sum | cut -c1-16)
out=$CACHE/debianlive-$hash.squashfs
if [ -f "$out" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$CACHE"
work=$(mktemp -d "$CACHE/build.XXXXXX")
trap 'umount "$work/root/proc" 2>/dev/null || true; rm -rf "$work"' EXIT
echo "liveroot: $PACKAGES into $(basename "$tarball") (once; cached as $out)" >&2
root=$work/root
mkdir -p "$root"
tar -C "$root" -xf "$tarball"
mount -t proc proc "$root/proc"
in_root() { chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
in_root apt-get update -q >"$work/apt.log" 2>&1 || { tail -20 "$work/apt.log" >&2; exit 1; }
# shellcheck disable=SC2086
in_root apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends $PACKAGES >>"$work/apt.log" 2>&1 ||
	{ tail -20 "$work/apt.log" >&2; exit 1; }
in_root apt-get clean
umount "$root/proc"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin
# live-build leaves these out: live-config's hostname component writes
# /etc/hostname only when there is none; each boot gets its own machine id
rm -f "$root/etc/hostname"
: >"$root/etc/machine-id"
# a live system has no fstab of its own (live-boot writes one in /run)
: >"$root/etc/fstab"

# The report unit: once startup is over, what live-config did, through
# the kernel log to the console (a getty on ttyS0 would hang up a plain
# open of the tty), at KERN_CRIT so that Debian live's "quiet" shows it,
# then power off.
cat >"$root/usr/local/sbin/uniramfs-live-report" <<'SH'
#!/bin/sh
say() { echo "<2>$*" >/dev/kmsg; }
say "UNIRAMFS-LIVE-STATE: $(systemctl is-system-running --wait)"
systemctl --failed --no-legend --plain | while read -r u _; do say "UNIRAMFS-LIVE-FAILED: $u"; done
say "UNIRAMFS-LIVE-CONFIG: $(systemctl is-active live-config.service) $(ls /var/lib/live/config 2>/dev/null | tr '\n' ' ')"
say "UNIRAMFS-LIVE-USER: $(getent passwd user | cut -d: -f1,6) groups=$(id -nG user 2>/dev/null | tr ' ' ',')"
say "UNIRAMFS-LIVE-HOSTNAME: $(hostname) $(cat /etc/hostname 2>/dev/null)"
say "UNIRAMFS-LIVE-ROOT: $(findmnt -n -o SOURCE,FSTYPE /) $(findmnt -n -o OPTIONS / | tr ',' '\n' | grep -E '^(lowerdir|upperdir)=' | tr '\n' ' ')"
say "UNIRAMFS-LIVE-WRITE: $(echo ok >/var/tmp/uniramfs-live && cat /var/tmp/uniramfs-live)"
say "UNIRAMFS-LIVE-CMDLINE: $(cat /proc/cmdline)"
say "UNIRAMFS-LIVE-PID1: $(cat /proc/1/comm)"
say "UNIRAMFS-LIVE-MARKER"
systemctl poweroff
SH
chmod 755 "$root/usr/local/sbin/uniramfs-live-report"
cat >"$root/etc/systemd/system/uniramfs-live-report.service" <<'UNIT'
[Unit]
Description=uniramfs Debian live test report
After=multi-user.target

[Service]
Type=simple
ExecStart=/usr/local/sbin/uniramfs-live-report

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/uniramfs-live-report.service \
	"$root/etc/systemd/system/multi-user.target.wants/uniramfs-live-report.service"

# zstd: what the TCG guest unpacks fastest (Debian's own images use xz)
gensquashfs -q -k -x -c zstd -D "$root" "$out.tmp" >&2
mv "$out.tmp" "$out"
echo "$out"
