# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/distro/run.sh: the Debian system with its root on the
# network, issue 22's acceptance. The same root, with nbd-client and
# systemd-networkd enabled (an administrator's .network file asking DHCP
# for the NIC), the generic image the postinst.d hook makes for it, and:
#   NBD: its ext4 image served by nbd-server, netroot=nbd:…, root=UUID=
#   NFS: its tree exported by nfs-ganesha (NFSv4), root=/dev/nfs nfsroot=
# Both servers listen on 127.0.0.1 only; the guest reaches them at
# 10.0.2.100 through QEMU user networking (restrict=on, guestfwd), by
# tests/distro/netroot.py. Once systemd is running, the guest restarts
# systemd-networkd, then writes, fsyncs and reads back a file on its root,
# and the report unit powers off: the console must show the root
# unmounted. All of it happens in a copy of the chroot, which is removed
# after, so run.sh goes on with the root as it was.
# Tried by hand the other way: with the init's networkd file masked (one of
# the same name in /etc, DHCP=ipv4 and no KeepConfiguration=), networkd's
# first start drops the address and the NBD root hangs (jbd2 blocked, the
# boot never reaches the report); NFS is spared by networkd's own default
# (KeepConfiguration=yes on a network filesystem root), and the restart
# itself then deletes no address either.

nr_t0=$(date +%s)
step "the root on the network (NBD, NFS) with systemd-networkd"
nr_chroot=$root
umount_root
rm -rf "$work/netroot"
cp -a "$nr_chroot" "$work/netroot"
root=$work/netroot
mount_root

check "netroot: nbd-client and dbus install in the root" logged "$log/install-nbd.txt" apt_root install nbd-client dbus
check "netroot: systemctl enable systemd-networkd" logged "$log/enable-networkd.txt" in_root systemctl enable systemd-networkd
# what an administrator writes for the machine's wired NIC; the init's
# /run/systemd/network/00-uniramfs-IFACE.network sorts first and wins
mkdir -p "$root/etc/systemd/network"
cat >"$root/etc/systemd/network/50-wired.network" <<'NET'
[Match]
Type=ether

[Network]
DHCP=ipv4
NET
# the acceptance's step, before the report unit's own: once systemd is
# running, restart networkd, then the root must still take a write
cat >"$root/usr/local/sbin/uniramfs-netcheck" <<'SH'
#!/bin/sh
say() { echo "$*" >/dev/kmsg; }
link_state() { # PREFIX: networkd's view of the root's link, its addresses
	grep -E '^(ADMIN_STATE|OPER_STATE|NETWORK_FILE)=' "/run/systemd/netif/links/$(cat "/sys/class/net/$link/ifindex")" |
		while read -r l; do say "$1: $l"; done
	say "$1: ADDRESSES=$(hostname -I)"
	networkctl --no-pager status "$link" 2>&1 | while read -r l; do say "UNIRAMFS-NET-DEBUG: $l"; done
}
say "UNIRAMFS-NET-STATE: $(systemctl is-system-running --wait)"
systemctl --failed --no-legend --plain | while read -r u _; do
	say "UNIRAMFS-NET-FAILED: $u"
	journalctl -b -u "$u" -o cat -n 6 --no-pager | while read -r l; do say "UNIRAMFS-NET-DEBUG: $u: $l"; done
done
link=$(ls /run/systemd/network | sed -n 's/^00-uniramfs-\(.*\)\.network$/\1/p' | head -1)
say "UNIRAMFS-NET-LINK: $link"
link_state UNIRAMFS-NET-BEFORE
say "UNIRAMFS-NET-OWNER: /usr/bin/mount $(stat -c '%u:%g %A' /usr/bin/mount)"
pid=$(systemctl show -p MainPID --value systemd-networkd)
# the address must never leave the link: rtnetlink's events, all
# through the restart (uniramfs-netwatch)
rm -f /run/uniramfs-netwatch.stop /run/uniramfs-netwatch.stop.ready
/usr/local/sbin/uniramfs-netwatch /run/uniramfs-netwatch.stop >/run/uniramfs-netwatch.out 2>&1 &
watch=$!
for i in $(seq 50); do [ -e /run/uniramfs-netwatch.stop.ready ] && break; sleep 0.2; done
systemctl restart systemd-networkd
say "UNIRAMFS-NET-RESTART: $? $(systemctl is-active systemd-networkd) pid $pid -> $(systemctl show -p MainPID --value systemd-networkd)"
/lib/systemd/systemd-networkd-wait-online -i "$link" --timeout=60
say "UNIRAMFS-NET-ONLINE: $?"
sleep 5
touch /run/uniramfs-netwatch.stop
wait $watch
say "UNIRAMFS-NET-WATCH: $(cat /run/uniramfs-netwatch.out)"
link_state UNIRAMFS-NET-AFTER
token=$(cat /proc/sys/kernel/random/uuid)
f=/var/lib/uniramfs-netcheck
# written, fsynced, the page cache dropped, read back: from the server
if timeout 120 sh -c "echo $token >$f.new && sync $f.new && mv $f.new $f && sync $f /var/lib &&
	echo 3 >/proc/sys/vm/drop_caches && [ \"\$(cat $f)\" = $token ]"; then
	say "UNIRAMFS-NETROOT-OK: $token"
else
	say "UNIRAMFS-NETROOT-FAILED: $?"
fi
exec /usr/local/sbin/uniramfs-report
SH
chmod 755 "$root/usr/local/sbin/uniramfs-netcheck"
# rtnetlink's IPv4 address events until the file $1 exists (perl-base is
# in every Debian; no iproute2 in a minimal root)
cat >"$root/usr/local/sbin/uniramfs-netwatch" <<'PL'
#!/usr/bin/perl
use strict;
use warnings;
# AF_NETLINK, SOCK_RAW, NETLINK_ROUTE; bound to RTMGRP_IPV4_IFADDR
socket(my $s, 16, 3, 0) or die "socket: $!\n";
bind($s, pack("SSLL", 16, 0, 0, 0x10)) or die "bind: $!\n";
my ($new, $del) = (0, 0);
open(my $ready, '>', "$ARGV[0].ready") or die "$ARGV[0].ready: $!\n";
close($ready);
until (-e $ARGV[0]) {
	my $rin = '';
	vec($rin, fileno($s), 1) = 1;
	next unless select(my $rout = $rin, undef, undef, 0.2);
	my $buf;
	sysread($s, $buf, 65536) or last;
	while (length($buf) >= 16) {
		my ($len, $type) = unpack("LS", $buf);
		last if $len < 16 || $len > length($buf);
		$new++ if $type == 20;	# RTM_NEWADDR
		$del++ if $type == 21;	# RTM_DELADDR
		substr($buf, 0, ($len + 3) & ~3, '');
	}
}
print "RTM_NEWADDR $new RTM_DELADDR $del\n";
PL
chmod 755 "$root/usr/local/sbin/uniramfs-netwatch"
mkdir -p "$root/etc/systemd/system/uniramfs-report.service.d"
printf '[Service]\nExecStart=\nExecStart=/usr/local/sbin/uniramfs-netcheck\n' \
	>"$root/etc/systemd/system/uniramfs-report.service.d/netroot.conf"

# the hook, as a kernel upgrade runs it: the image now has nbd-client
check "netroot: the postinst.d hook rebuilds the image" \
	logged "$log/hook-net.txt" in_root /etc/kernel/postinst.d/uniramfs "$kver" "/boot/vmlinuz-$kver"
check "netroot: the generic image boots NFS and NBD roots (the hook says so)" \
	grep -q "uniramfs: network roots: nfs, nbd" "$log/hook-net.txt"
chroot "$root" uniramfs ls "/boot/initrd.img-$kver" >"$log/ls-net.txt" 2>&1
check "netroot: the generic image has nbd-client, nbd, nfsv4 and virtio_net" \
	sh -c "grep -q 'sbin/nbd-client\$' '$log/ls-net.txt' && grep -q '/nbd\\.ko' '$log/ls-net.txt' &&
		grep -q '/nfsv4\\.ko' '$log/ls-net.txt' && grep -q '/virtio_net\\.ko' '$log/ls-net.txt'"
cp "$root/boot/initrd.img-$kver" "$work/initrd-net.img"
make_disk "$work/netroot-nbd.img" 64
# an NFS root has no line in fstab: the kernel command line names it
printf '# / is on NFS, as the kernel command line says\n' >"$root/etc/fstab"
umount_root

# nr_checks NAME ROOTRE: what the console of a network root's boot says
nr_checks() {
	local name=$1 rootre=$2 serial=$work/serial-$1.txt state
	check "$name: systemd is PID 1 after switch_root" grep -q "UNIRAMFS-PID1: systemd" "$serial"
	state=$(grep -ao 'UNIRAMFS-NET-STATE: [a-z-]*' "$serial" | sed 's/.*: //')
	check "$name: is-system-running says running ('$state'$(grep -ao 'UNIRAMFS-NET-FAILED: [^ ]*' "$serial" | sed 's/.*: /, failed: /' | tr -d '\n'))" \
		test "$state" = running
	check "$name: the root is $rootre, mounted rw" grep -qaE "UNIRAMFS-ROOT: $rootre +rw" "$serial"
	check "$name: networkd manages the link with the init's hand-over file" \
		grep -qaE "UNIRAMFS-NET-BEFORE: NETWORK_FILE=/run/systemd/network/00-uniramfs-[a-z0-9]+\.network$" "$serial"
	check "$name: the root's files keep their owner (setuid-root mount is 0:0)" \
		grep -qa "UNIRAMFS-NET-OWNER: /usr/bin/mount 0:0 -rwsr-xr-x" "$serial"
	check "$name: systemctl restart systemd-networkd: done, a new networkd active" \
		sh -c "grep -aoE 'UNIRAMFS-NET-RESTART: 0 active pid [0-9]+ -> [0-9]+' '$serial' | awk '\$5 != \$7 && \$5 > 0 && \$7 > 0 { ok = 1 } END { exit !ok }'"
	check "$name: no IPv4 address left the link during the restart (rtnetlink: new ones, no deletion)" \
		grep -qaE "UNIRAMFS-NET-WATCH: RTM_NEWADDR [1-9][0-9]* RTM_DELADDR 0$" "$serial"
	check "$name: after the restart networkd has the link configured, by the same file" sh -c \
		"grep -qa 'UNIRAMFS-NET-AFTER: ADMIN_STATE=configured' '$serial' &&
		grep -qaE 'UNIRAMFS-NET-AFTER: NETWORK_FILE=/run/systemd/network/00-uniramfs-[a-z0-9]+\\.network$' '$serial'"
	check "$name: ... and the link kept the address 10.0.2.15" grep -qaE "UNIRAMFS-NET-AFTER: ADDRESSES=(.* )?10\.0\.2\.15( |$)" "$serial"
	check "$name: after the restart the root takes a write, an fsync and a read from the server" \
		grep -qaE "UNIRAMFS-NETROOT-OK: [0-9a-f-]{36}" "$serial"
	state=$(grep -ao 'UNIRAMFS-STATE: [a-z-]*' "$serial" | sed 's/.*: //')
	check "$name: is-system-running still says running after the restart ('$state')" test "$state" = running
	check "$name: the marker unit printed on the serial console" grep -q "UNIRAMFS-MARKER" "$serial"
	check "$name: no I/O error and no silent server on the console" \
		sh -c "! grep -aE 'I/O error|not responding|Receive control failed|timed out' '$serial'"
	check "$name: poweroff: systemd-shutdown returned to /run/initramfs/shutdown" \
		grep -q "uniramfs-shutdown: back in the initramfs for poweroff" "$serial"
	check "$name: poweroff: systemd-shutdown detached every filesystem" \
		grep -q "systemd-shutdown\[1\]: All filesystems, swaps, loop devices, MD devices and DM devices detached." "$serial"
	check "$name: poweroff: uniramfs-shutdown unmounted the old root" grep -q "uniramfs-shutdown: the old root is unmounted" "$serial"
	check "$name: poweroff: the kernel powered down" grep -q "reboot: Power down" "$serial"
}
nr_token() { grep -ao 'UNIRAMFS-NETROOT-OK: [0-9a-f-]*' "$work/serial-$1.txt" | sed 's/.*: //'; }

step "NBD root: nbd-server on 127.0.0.1, netroot=nbd:"
if logged "$log/boot-nbd.txt" python3 "$top/tests/distro/netroot.py" nbd "$work/vmlinuz" "$work/initrd-net.img" \
	"$work/netroot-nbd.img" "$work/serial-nbd.txt" \
	"root=UUID=$uuid ro netroot=nbd:10.0.2.100:10809/root console=ttyS0 panic=-1"; then
	ok "nbd: the boot ended by itself ($(tail -1 "$log/boot-nbd.txt"))"
else
	fail "nbd: the boot ended by itself ($(tr '\n' ' ' <"$log/boot-nbd.txt"))"
fi
check "nbd: the init connected /dev/nbd0 to the server" \
	grep -q "uniramfs: NBD: connecting /dev/nbd0 to 10.0.2.100:10809 export root" "$work/serial-nbd.txt"
nr_checks nbd '/dev/nbd0 +ext4'
nr_tok=$(nr_token nbd)
check "nbd: the file written after the restart is in the server's image" \
	sh -c "[ -n '$nr_tok' ] && [ \"\$(debugfs -R 'cat /var/lib/uniramfs-netcheck' '$work/netroot-nbd.img' 2>/dev/null)\" = '$nr_tok' ]"
check "nbd: poweroff: the root filesystem was left clean" sh -c "e2fsck -fn '$work/netroot-nbd.img' >'$log/e2fsck-nbd.txt' 2>&1"
check "nbd: poweroff: the root's ext4 state is clean" \
	sh -c "dumpe2fs -h '$work/netroot-nbd.img' 2>/dev/null | grep -q '^Filesystem state: *clean$'"
rm -f "$work/netroot-nbd.img"

step "NFS root: nfs-ganesha on 127.0.0.1, root=/dev/nfs nfsroot="
if logged "$log/boot-nfs.txt" python3 "$top/tests/distro/netroot.py" nfs "$work/vmlinuz" "$work/initrd-net.img" \
	"$root" "$work/serial-nfs.txt" \
	"root=/dev/nfs nfsroot=10.0.2.100:/root,vers=4.2 ip=dhcp rw console=ttyS0 panic=-1"; then
	ok "nfs: the boot ended by itself ($(tail -1 "$log/boot-nfs.txt"))"
else
	fail "nfs: the boot ended by itself ($(tr '\n' ' ' <"$log/boot-nfs.txt"))"
fi
nr_checks nfs '10\.0\.2\.100:/root +nfs4'
nr_tok=$(nr_token nfs)
check "nfs: the file written after the restart is in the exported tree" \
	sh -c "[ -n '$nr_tok' ] && [ \"\$(cat '$root/var/lib/uniramfs-netcheck' 2>/dev/null)\" = '$nr_tok' ]"

rm -rf "$work/netroot" "$work/initrd-net.img"
root=$nr_chroot
mount_root
echo "# the network roots took $(($(date +%s) - nr_t0)) s"
