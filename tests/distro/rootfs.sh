#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Make (once) a Debian 12 root for the distribution test and print the
# path of its tarball. The root is cached outside the checkout, keyed by
# a hash of this recipe, so only a cold machine pays for debootstrap.
# The kernel, initramfs-tools and Plymouth (plymouth, plymouth-themes: the
# splash boot) packages are downloaded into the root's apt cache as part
# of the recipe: the test installs them through apt, offline after the
# first run.
set -euo pipefail

CACHE=${UNIRAMFS_TEST_CACHE:-/var/cache/uniramfs-tests}
SUITE=bookworm
# apt's configured mirror, as the host uses it
MIRROR=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
[ -n "$MIRROR" ] || MIRROR=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
[ -n "$MIRROR" ] || MIRROR=http://deb.debian.org/debian
INCLUDE=systemd-sysv,udev,kmod,e2fsprogs
PREFETCH="linux-image-amd64 initramfs-tools plymouth plymouth-themes"

recipe="suite=$SUITE variant=minbase include=$INCLUDE prefetch=$PREFETCH mirror=$MIRROR v=1"
hash=$(printf '%s' "$recipe" | sha256sum | cut -c1-16)
tarball=$CACHE/debian12-$hash.tar
if [ -f "$tarball" ]; then
	echo "$tarball"
	exit 0
fi

mkdir -p "$CACHE"
work=$(mktemp -d "$CACHE/build.XXXXXX")
trap 'umount -R "$work/root/proc" 2>/dev/null || true; rm -rf "$work"' EXIT
echo "rootfs: debootstrap $SUITE from $MIRROR (once; cached as $tarball)" >&2
debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$work/root" "$MIRROR" >"$work/debootstrap.log" 2>&1 ||
	{ tail -30 "$work/debootstrap.log" >&2; exit 1; }
cp /etc/resolv.conf "$work/root/etc/resolv.conf" 2>/dev/null || true
printf 'deb %s %s main\n' "$MIRROR" "$SUITE" >"$work/root/etc/apt/sources.list"
chroot "$work/root" apt-get update -q >&2
# shellcheck disable=SC2086
chroot "$work/root" apt-get install -y -q --download-only $PREFETCH >&2
tar -C "$work/root" -cf "$tarball.tmp" .
mv "$tarball.tmp" "$tarball"
echo "$tarball"
