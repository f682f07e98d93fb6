#!/usr/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
# /init of the boot tests' builder VM (tests/boot/builder.py): lay out one
# stacked root (LUKS, LVM, md) on the blank virtio disks, copy the test root
# in, print what was made, power off.  The layout script, its parameters and
# the test root come on the source disk (the ext4 labelled ubsrc).
# Ends with "BUILDER-OK" on the console, or "BUILDER-FAIL: why".
/usr/bin/busybox mkdir -p /bin /sbin
/usr/bin/busybox --install -s /bin
/usr/bin/busybox ln -s /bin/modprobe /sbin/modprobe   # the kernel's request_module
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

fail() {
	echo "BUILDER-FAIL: $*"
	sync
	poweroff -f
	echo o > /proc/sysrq-trigger
	sleep 60
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /run/lock/lvm /run/lvm /etc/lvm /tmp /src /mnt
echo 1 > /proc/sys/kernel/sysrq

# The modules the layouts need (busybox modprobe follows modules.dep).
for m in virtio_pci virtio_blk crc32c_generic ext4 btrfs dm_mod dm_crypt \
	 raid1 raid456 xts ecb af_alg algif_skcipher algif_hash; do
	modprobe "$m" || echo "builder: modprobe $m failed"
done

# No udev here: lvm must make its own /dev nodes.
cat > /etc/lvm/lvm.conf <<LVM
activation {
	udev_sync = 0
	udev_rules = 0
}
devices {
	obtain_device_list_from_udev = 0
}
LVM

src=
for i in $(seq 1 100); do
	src=$(blkid -L ubsrc 2>/dev/null) && [ -n "$src" ] && break
	sleep 0.1
done
[ -n "$src" ] || fail "no source disk (LABEL=ubsrc)"
mount -o ro "$src" /src || fail "cannot mount the source disk $src"

# The blank disks, in the order they were attached.
DISKS=
for d in /sys/block/vd*; do
	dev=/dev/${d##*/}
	[ "$dev" = "$src" ] && continue
	DISKS="$DISKS $dev"
done
export DISKS SRC=/src/root
set -a
. /src/params
set +a
echo "builder: layout $LAYOUT on$DISKS"

sh -e /src/layout.sh || fail "layout $LAYOUT exited with status $?"
sync
echo "BUILDER-OK"
poweroff -f
echo o > /proc/sysrq-trigger
sleep 60
