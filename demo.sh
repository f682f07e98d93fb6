#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The whole product in one go: build uniramfs, make an image for the
# installed kernel, boot it in QEMU on a small ext4 root disk, and show what
# happened (the init's log lines, what the real root's /sbin/init saw, and
# PASS/FAIL).
#
#   ./demo.sh            UNIRAMFS_BUILDDIR (default build) is set up if needed
#
# On a machine with nothing but the checkout it first installs, with apt,
# the compiler, the libraries, Debian's kernel, QEMU and mkfs.ext4 and
# nothing else (tools/install-deps.sh demo; the tests install the rest).
set -eu

cd "$(dirname "$0")"
BUILD=${UNIRAMFS_BUILDDIR:-build}

# A fresh machine: install the compiler, libraries, kernel and QEMU first:
# the kernel is looked for only once it can be there.
bash tools/install-deps.sh demo

# The newest kernel that has both an image and its modules.
KVER=
for k in $(ls /boot/ | sed -n 's/^vmlinuz-//p' | sort -V); do
	[ -d "/lib/modules/$k" ] && KVER=$k
done
if [ -z "$KVER" ]; then
	echo "demo: no installed kernel (/boot/vmlinuz-KVER with /lib/modules/KVER)" >&2
	exit 1
fi

echo "== building uniramfs in $BUILD"
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" >/dev/null
ninja -C "$BUILD" >/dev/null

echo "== making out/initrd.img for kernel $KVER"
mkdir -p out
# --generic: the QEMU guest is not this machine, so its image must not be
# tailored to this host's root.
start=$(date +%s.%N)
"$BUILD/uniramfs" build -k "$KVER" -o out/initrd.img --generic
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v b="$(stat -c %s out/initrd.img)" \
	'BEGIN { printf "   %.1f MB in %.1f s\n", b / 1e6, e - s }'

echo "== booting /boot/vmlinuz-$KVER + out/initrd.img in QEMU (TCG), root=UUID on virtio-blk"
# as a boot loader does: the bzImage, not the tests' PVH shortcut
exec env UNIRAMFS_TEST_BZIMAGE=1 python3 tests/boot/run.py "$BUILD" --kver "$KVER" --initrd out/initrd.img \
	--only virtio-uuid --show
