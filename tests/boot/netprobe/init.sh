#!/usr/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
# /init of the network-root probe VM (tests/boot/netprobe.py): does QEMU
# user networking with restrict=on reach the host's NFS, iSCSI and NBD
# servers through guestfwd rules at 10.0.2.100? Prints one PROBE-* line
# per check and PROBE-DONE, then powers off. Each guestfwd rule carries
# one connection, so each server is used exactly once.
/usr/bin/busybox mkdir -p /bin /sbin /proc /sys /dev /mnt /tmp /etc
/usr/bin/busybox --install -s /bin
/usr/bin/busybox ln -s /bin/modprobe /sbin/modprobe
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in virtio_pci virtio_net af_packet nfs nfsv4 nbd iscsi_tcp sd_mod ext4; do
	modprobe "$m" || echo "PROBE-MODPROBE $m failed"
done
ip link set lo up
ip link set eth0 up
# slirp's own DHCP server answers even with restrict=on: first to
# src/init/net's client (dhcpprobe.c), then to busybox's.
if timeout 60 dhcpprobe eth0 >/tmp/dhcpprobe 2>&1; then
	echo "PROBE-OURDHCP ok: $(grep DHCPPROBE /tmp/dhcpprobe)"
	sed 's/^/PROBE-CONF /' /tmp/dhcpprobe | grep -v DHCPPROBE
else
	echo "PROBE-OURDHCP fail: $(cat /tmp/dhcpprobe)"
fi
if udhcpc -i eth0 -n -q -t 5 -s /bin/true >/tmp/dhcp 2>&1; then
	echo "PROBE-DHCP ok: $(grep -o 'lease of [0-9.]*' /tmp/dhcp)"
else
	echo "PROBE-DHCP fail: $(cat /tmp/dhcp)"
fi
ip addr add 10.0.2.15/24 dev eth0
# The NFS mount(2) arguments src/init/net builds for root=nfs4:10.0.2.100:/root
# first (tests/unit/init/net/test_netroot.c checks this exact string).
if timeout 60 mount -t nfs -o vers=4.2,addr=10.0.2.100,clientaddr=10.0.2.15 10.0.2.100:/root /mnt; then
	echo "PROBE-NFS ok: $(cat /mnt/hello) $(grep ' /mnt ' /proc/mounts)"
	umount /mnt
else
	echo "PROBE-NFS fail"
fi
if timeout 30 nbd-client 10.0.2.100 10809 /dev/nbd0 -N root && mount -t ext4 -o ro /dev/nbd0 /mnt; then
	echo "PROBE-NBD ok: $(cat /mnt/hello)"
	umount /mnt
else
	echo "PROBE-NBD fail"
fi
if timeout 60 iscsistart -i iqn.2026-12.test.uniramfs:probe -t iqn.2026-12.test.uniramfs:root -g 1 \
	-a 10.0.2.100 -p 3260; then
	for i in $(seq 1 50); do [ -b /dev/sda ] && break; sleep 0.1; done
	if mount -t ext4 -o ro /dev/sda /mnt; then
		echo "PROBE-ISCSI ok: $(cat /mnt/hello)"
		umount /mnt
	else
		echo "PROBE-ISCSI fail: no /dev/sda to mount"
	fi
else
	echo "PROBE-ISCSI fail: login"
fi
echo PROBE-DONE
poweroff -f
