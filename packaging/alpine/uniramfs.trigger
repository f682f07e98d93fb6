#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# apk runs this (the APKBUILD's triggers=) with each changed
# /usr/share/kernel/FLAVOR directory as an argument, as it runs mkinitfs's:
# a kernel installed or upgraded there has a kernel.release naming its
# version, and gets /boot/initramfs-FLAVOR made by uniramfs beside the
# /boot/vmlinuz-FLAVOR its package installed; a removed kernel leaves
# the directory without kernel.release, and its image goes.
# UNIRAMFS_TRIGGER_ROOT: work under that root instead of /
# (tests/packaging/alpine.sh).
set -u

root=${UNIRAMFS_TRIGGER_ROOT:-}
status=0

for dir in "$@"; do
	flavor=${dir##*/}
	case $flavor in
	'' | .*)
		echo "uniramfs: bad kernel flavor '$flavor'" >&2
		status=1
		continue
		;;
	esac
	image=$root/boot/initramfs-$flavor
	if [ ! -f "$root$dir/kernel.release" ]; then
		rm -f -- "$image"
		continue
	fi
	read -r kver <"$root$dir/kernel.release"
	case $kver in
	'' | */* | .*)
		echo "uniramfs: bad kernel version '$kver' in $root$dir/kernel.release" >&2
		status=1
		continue
		;;
	esac
	echo "uniramfs: making $image for $kver"
	# a failed build leaves any previous image as it was (uniramfs
	# renames only a complete image over it)
	if ! uniramfs build -k "$kver" -o "$image"; then
		echo "uniramfs: FAILED to make $image; any previous image is unchanged" >&2
		status=1
	fi
done
exit "$status"
