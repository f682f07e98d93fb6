#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# /etc/kernel/postinst.d/uniramfs: called by a kernel package's postinst
# (and by installkernel) as HOOK KVER [/boot/vmlinuz-KVER] to make
# /boot/initrd.img-KVER. A failed build exits non-zero, which fails the
# kernel package's configuration loudly; the previous image, if any, is
# left in place since uniramfs only renames a complete image over it.
set -e

version="$1"
image="$2"

command -v uniramfs >/dev/null 2>&1 || exit 0

if [ -z "$version" ]; then
	echo "uniramfs: ${DPKG_MAINTSCRIPT_PACKAGE:-the kernel package} did not pass a kernel version" >&2
	exit 2
fi
# a kernel built without the need for an initramfs says so
[ "$INITRD" = No ] && exit 0

# the kernel's maintainer scripts call every hook once per action: act
# on configure only
if [ -n "$DEB_MAINT_PARAMS" ]; then
	eval set -- "$DEB_MAINT_PARAMS"
	[ "$1" = configure ] || exit 0
fi

bootdir=/boot
[ -n "$image" ] && bootdir=$(dirname "$image")

# In a chroot (debootstrap, an image builder) the host is not the
# machine that will boot: build a generic image whatever the config says.
mode=
if command -v ischroot >/dev/null 2>&1 && ischroot; then
	mode=--generic
fi

echo "uniramfs: making $bootdir/initrd.img-$version" >&2
# shellcheck disable=SC2086
if ! uniramfs build -k "$version" -o "$bootdir/initrd.img-$version" $mode >&2; then
	echo "uniramfs: FAILED to make $bootdir/initrd.img-$version; any previous image is unchanged" >&2
	exit 1
fi
