#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# /etc/kernel/postrm.d/uniramfs: called by a kernel package's postrm as
# HOOK KVER [/boot/vmlinuz-KVER]; removes the image made for that kernel.
set -e

version="$1"
image="$2"

if [ -z "$version" ]; then
	echo "uniramfs: ${DPKG_MAINTSCRIPT_PACKAGE:-the kernel package} did not pass a kernel version" >&2
	exit 0
fi
[ "$INITRD" = No ] && exit 0

if [ -n "$DEB_MAINT_PARAMS" ]; then
	eval set -- "$DEB_MAINT_PARAMS"
	[ "$1" = remove ] || exit 0
fi

# the version names a file: nothing that could climb out of the directory
case "$version" in
*/* | . | ..) echo "uniramfs: bad kernel version '$version'" >&2; exit 1 ;;
esac

bootdir=/boot
[ -n "$image" ] && bootdir=$(dirname "$image")
if [ -e "$bootdir/initrd.img-$version" ]; then
	echo "uniramfs: removing $bootdir/initrd.img-$version" >&2
	rm -f -- "$bootdir/initrd.img-$version"
fi
