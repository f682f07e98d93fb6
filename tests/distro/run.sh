#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A Debian 12 system adopts uniramfs: the package is built from this
# tree with dpkg-buildpackage, installed into a real Debian root
# (debootstrap, cached by rootfs.sh), the kernel is installed through
# apt so that the package's postinst.d hook makes its image, and the
# root, as a disk, boots in QEMU with that kernel and that image to
# systemd's multi-user.target and powers off cleanly. Then, in the
# chroot: kernel-install through the plugin, and a switch back to
# initramfs-tools that leaves nothing of uniramfs behind.
# Usage: tests/distro/run.sh [WORKDIR]   Last line: "N passed, N failed".
# Then the same system as Debian's installer lays out an encrypted LVM
# install (tests/distro/stackdisk.py), with the Plymouth splash, booted
# with the passphrase typed into the splash and systemd credentials on
# the command line.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# a private mount namespace: the chroot's /proc, /sys and /dev go away
# with the test, whatever way it ends
if [ -z "${UNIRAMFS_DISTRO_NS:-}" ]; then
	export UNIRAMFS_DISTRO_NS=1
	exec unshare --mount --propagation private "$0" "$@"
fi

work=${1:-$top/build/distro-work}
# shellcheck source=tests/lib/tally.sh
. "$top/tests/lib/tally.sh" distro
logged() { # file command...: the command's output goes to the file
	local f=$1
	shift
	"$@" >"$f" 2>&1
}
step() { echo "# $* ($(($(date +%s) - t0)) s)"; }

rm -rf "$work"
mkdir -p "$work"
root=$work/root
log=$work/log
mkdir -p "$log"

step "Debian 12 root"
tarball=$("$top/tests/distro/rootfs.sh" 2>"$log/rootfs.txt") || { cat "$log/rootfs.txt"; die "debootstrap root"; }

step "dpkg-buildpackage"
# from a copy of the tree, so the .deb and the build files land in WORK
mkdir -p "$work/src/uniramfs"
(cd "$top" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -C "$work/src/uniramfs" -xf -
check "debian/control's build dependencies resolve (apt-get build-dep -s)" \
	logged "$log/build-dep.txt" sh -c "cd '$work/src/uniramfs' && apt-get build-dep -s ."
if (cd "$work/src/uniramfs" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -b -us -uc) >"$log/deb.txt" 2>&1; then
	ok "dpkg-buildpackage -b -us -uc"
else
	tail -30 "$log/deb.txt"
	die "dpkg-buildpackage -b -us -uc"
fi
deb=$(ls "$work"/src/uniramfs_*_amd64.deb)

step "unpack the root"
mkdir -p "$root"
tar -C "$root" -xf "$tarball"
mount_root() {
	mount -t proc proc "$root/proc"
	mount -t sysfs sys "$root/sys"
	mount --bind /dev "$root/dev"
	mount -t tmpfs tmpfs "$root/run"
	mount -t tmpfs tmpfs "$root/tmp"
}
umount_root() { umount "$root/proc" "$root/sys" "$root/dev" "$root/run" "$root/tmp"; }
mount_root
in_root() { chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
apt_root() { in_root apt-get -y -q -o Dpkg::Use-Pty=0 --no-install-recommends "$@"; }
cp "$deb" "$root/root/uniramfs.deb"

step "install uniramfs"
check "the package installs into Debian 12 (no kernel yet)" logged "$log/install-uniramfs.txt" apt_root install /root/uniramfs.deb
check "its config file is a conffile" grep -qx /etc/uniramfs.conf "$root/var/lib/dpkg/info/uniramfs.conffiles"

step "apt-get install linux-image-amd64"
if apt_root install linux-image-amd64 >"$log/install-kernel.txt" 2>&1; then
	ok "linux-image-amd64 installs through apt with uniramfs as its initramfs tool"
else
	tail -30 "$log/install-kernel.txt"
	fail "linux-image-amd64 installs through apt with uniramfs as its initramfs tool"
fi
kver=$(ls "$root/lib/modules" | head -1)
[ -n "$kver" ] || die "a kernel is installed"
check "initramfs-tools was not pulled in" test -z "$(in_root dpkg-query -W -f='${Status}' initramfs-tools 2>/dev/null | grep 'ok installed')"
check "the postinst.d hook ran uniramfs" grep -q "uniramfs: making /boot/initrd.img-$kver" "$log/install-kernel.txt"
check "/boot/initrd.img-$kver is a uniramfs image" \
	sh -c "chroot '$root' uniramfs ls /boot/initrd.img-$kver | grep -q ' etc/uniramfs/kver$'"
cp "$root/boot/initrd.img-$kver" "$work/initrd.img"
cp "$root/boot/vmlinuz-$kver" "$work/vmlinuz"

step "make the disk"
uuid=8a4d8f36-5a0e-4c4b-9f0e-2b7d6a1c0de5
echo "UUID=$uuid / ext4 errors=remount-ro 0 1" >"$root/etc/fstab"
echo uniramfs-distro >"$root/etc/hostname"
# the marker unit: once startup is over, say how it went, then power off
cat >"$root/usr/local/sbin/uniramfs-report" <<'SH'
#!/bin/sh
# Through the kernel log to the console: a getty starting on ttyS0 hangs
# up every other open of the tty (vhangup), which would lose lines.
say() { echo "$*" >/dev/kmsg; }
plymouthds() { # the pids of every plymouthd
	for p in /proc/[0-9]*; do [ "$(cat "$p/comm" 2>/dev/null)" = plymouthd ] && echo "${p#/proc/}"; done | tr '\n' ' '
}
state=$(systemctl is-system-running --wait)
say "UNIRAMFS-STATE: $state"
systemctl --failed --no-legend --plain | while read -r line; do say "UNIRAMFS-FAILED: $line"; done
say "UNIRAMFS-ROOT: $(findmnt -n -o SOURCE,FSTYPE,OPTIONS /)"
for m in /home /srv; do say "UNIRAMFS-MOUNT: $m $(findmnt -n -o SOURCE,FSTYPE "$m")"; done
say "UNIRAMFS-SWAP: $(swapon --show=UUID --noheadings | tr '\n' ' ')"
systemctl list-units --all --plain --no-legend 'systemd-cryptsetup@*' | while read -r u _; do
	say "UNIRAMFS-UNIT: $u $(systemctl is-active "$u")"
done
# (not the test's own units: uniramfs-splash waits for the test's keys)
systemd-analyze blame --no-pager 2>/dev/null | grep -v ' uniramfs-' | head -5 | while read -r t u; do say "UNIRAMFS-BLAME: $t $u"; done
say "UNIRAMFS-ANALYZE: $(systemd-analyze time --no-pager 2>&1 | head -1)"
# md arrays, and who keeps the metadata of those with external metadata
for a in /sys/block/md*/md; do
	[ -e "$a" ] || continue
	n=${a%/md}
	say "UNIRAMFS-MD: ${n##*/} $(cat "$a/metadata_version") $(cat "$a/array_state")"
done
systemctl list-units --all --plain --no-legend 'mdmon@*' | while read -r u _; do
	say "UNIRAMFS-UNIT: $u $(systemctl is-active "$u") mainpid=$(systemctl show -P MainPID "$u")"
done
say "UNIRAMFS-MDMON-PIDS: $(pidof mdmon)"
# a write reaches the root's disk (an IMSM volume with no mdmon hangs it)
if timeout 120 sh -c 'echo written >/var/tmp/uniramfs-write && sync /var/tmp/uniramfs-write'; then
	say "UNIRAMFS-WRITE: ok"
fi
# the splash: how the root's plymouth units ended, and no plymouthd left
if command -v plymouth >/dev/null; then
	for u in plymouth-start plymouth-quit plymouth-quit-wait; do
		say "UNIRAMFS-PLYMOUTH-UNIT: $u $(systemctl show -P ActiveState "$u.service") $(systemctl show -P Result "$u.service") status=$(systemctl show -P ExecMainStatus "$u.service")"
		journalctl -b -q -o cat --no-pager -u "$u.service" | while read -r l; do say "UNIRAMFS-PLYMOUTH-JOURNAL: $u: $l"; done
	done
	plymouth --ping
	say "UNIRAMFS-PLYMOUTH-AFTER: ping=$? plymouthd=[$(plymouthds)]"
fi
# systemd credentials (systemd.set_credential=, rd.systemd.set_credential=)
if grep -q 'set_credential=' /proc/cmdline; then
	say "UNIRAMFS-CREDS-LIST: $(systemd-creds --system list --no-legend 2>&1 | awk '{ print $1 }' | tr '\n' ' ')"
	for c in /run/credentials/@system/*; do say "UNIRAMFS-CRED: ${c##*/}=$(cat "$c")"; done
	systemctl start uniramfs-cred.service
	say "UNIRAMFS-CRED-UNIT-STATUS: $? $(systemctl show -P Result uniramfs-cred.service)"
fi
say "UNIRAMFS-PID1: $(cat /proc/1/comm)"
say "UNIRAMFS-MARKER"
systemctl poweroff
SH
chmod 755 "$root/usr/local/sbin/uniramfs-report"
cat >"$root/etc/systemd/system/uniramfs-report.service" <<'UNIT'
[Unit]
Description=uniramfs distribution test report
After=multi-user.target

[Service]
Type=simple
ExecStart=/usr/local/sbin/uniramfs-report

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/uniramfs-report.service "$root/etc/systemd/system/multi-user.target.wants/uniramfs-report.service"
# The initramfs's plymouthd seen from the root, before plymouth-quit ends
# it: the pid file it wrote at its start in the initramfs, that process's
# argv[0] (@plymouthd: the init's; plymouth-start.service's would be
# /usr/sbin/plymouthd) and the only plymouthd, answering --ping; then a
# question through it, which the test answers with key presses after a
# screendump (stackdisk.py boot --splash). Enabled for the splash boot only.
cat >"$root/usr/local/sbin/uniramfs-splash" <<'SH'
#!/bin/sh
say() { echo "$*" >/dev/kmsg; }
pid=$(cat /run/plymouth/pid 2>/dev/null)
argv0=$([ -n "$pid" ] && tr '\0' '\n' <"/proc/$pid/cmdline" | head -1)
all=$(for p in /proc/[0-9]*; do [ "$(cat "$p/comm" 2>/dev/null)" = plymouthd ] && echo "${p#/proc/}"; done | tr '\n' ' ')
say "UNIRAMFS-SPLASH-PID: pidfile=${pid:-none} argv0=${argv0:-none} plymouthd=[${all% }]"
plymouth --ping
say "UNIRAMFS-SPLASH-PING: $?"
say "UNIRAMFS-SPLASH-ASK"
answer=$(timeout 600 plymouth ask-question --prompt="uniramfs distribution test: the answer?")
say "UNIRAMFS-SPLASH-ANSWER: $? $answer"
SH
chmod 755 "$root/usr/local/sbin/uniramfs-splash"
cat >"$root/etc/systemd/system/uniramfs-splash.service" <<'UNIT'
[Unit]
Description=uniramfs distribution test: the initramfs's splash, before plymouth-quit
After=plymouth-start.service systemd-user-sessions.service
Before=plymouth-quit.service plymouth-quit-wait.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/uniramfs-splash

[Install]
WantedBy=multi-user.target
UNIT
# a service given a system credential by name (the report starts it)
cat >"$root/etc/systemd/system/uniramfs-cred.service" <<'UNIT'
[Unit]
Description=uniramfs distribution test: a system credential through LoadCredential=

[Service]
Type=oneshot
LoadCredential=uniramfs.rd
ExecStart=/bin/sh -c 'echo "UNIRAMFS-CRED-UNIT: $(cat "$CREDENTIALS_DIRECTORY/uniramfs.rd")" >/dev/kmsg'
UNIT
[ -s "$root/etc/machine-id" ] || in_root systemd-machine-id-setup >/dev/null 2>&1
# the root as an ext4 disk image, without the apt cache (the chroot keeps it)
make_disk() { # OUT EXTRA_MB
	local mb
	umount_root
	mb=$(($(du -sm --exclude=./var/cache/apt/archives "$root" | cut -f1) + $2))
	mkdir -p "$work/disk-root"
	tar -C "$root" --exclude=./var/cache/apt/archives -cf - . | tar -C "$work/disk-root" -xf -
	mkdir -p "$work/disk-root/var/cache/apt/archives/partial"
	rm -f "$1"
	if mkfs.ext4 -q -F -U "$uuid" -L debian-root -d "$work/disk-root" "$1" "${mb}M" >"$log/mkfs.txt" 2>&1; then
		ok "the root as an ext4 disk ($mb MiB)"
	else
		cat "$log/mkfs.txt"
		fail "the root as an ext4 disk"
	fi
	rm -rf "$work/disk-root"
	mount_root
}
# boot_and_check NAME INITRD DISK ROOTDEV CMDLINE...: a TCG boot to the
# marker unit's poweroff, and what its serial console says; the kernel
# through its PVH entry, as every boot test (tests/boot/pvh.py)
boot_and_check() {
	local name=$1 initrd=$2 disk=$3 rootdev=$4 qrc
	shift 4
	timeout 900 qemu-system-x86_64 -accel tcg -m 1024 -smp 1 -no-reboot \
		-kernel "$(python3 "$top/tests/boot/pvh.py" "$work/vmlinuz")" -initrd "$initrd" -append "$*" \
		-drive "if=virtio,format=raw,file=$disk" \
		-serial "file:$work/serial-$name.txt" -monitor none -display none >"$log/qemu-$name.txt" 2>&1 </dev/null
	qrc=$?
	check "$name: QEMU ended by itself (not the timeout)" test "$qrc" -ne 124
	check_boot "$name" "$rootdev"
}
# check_boot NAME ROOTDEV [held]: what the serial console of a boot says;
# held: a root storage daemon (mdmon) runs from the old root at the end,
# so that root ends read-only rather than unmounted (the caller checks)
check_boot() {
	local name=$1 rootdev=$2 held=${3:-} state serial=$work/serial-$1.txt
	check "$name: systemd is PID 1 after switch_root" grep -q "UNIRAMFS-PID1: systemd" "$serial"
	check "$name: the marker unit printed on the serial console" grep -q "UNIRAMFS-MARKER" "$serial"
	# a getty may share the console: take the markers wherever they are on a line
	state=$(grep -ao 'UNIRAMFS-STATE: [a-z-]*' "$serial" | sed 's/.*: //')
	if [ "$state" = running ]; then
		ok "$name: multi-user.target reached: is-system-running says running"
	elif [ "$state" = degraded ] && ! grep -a 'UNIRAMFS-FAILED:' "$serial" | grep -qE "$handover"; then
		ok "$name: multi-user.target reached: degraded, no failed unit from the hand-over: $(grep -ao 'UNIRAMFS-FAILED: [^ ]*' "$serial" | sed 's/.*: //' | tr '\n' ' ')"
	else
		fail "$name: multi-user.target reached (is-system-running: '$state'; $(grep -a 'UNIRAMFS-FAILED:' "$serial" | tr '\n' ' '))"
	fi
	check "$name: the root is $rootdev, mounted rw by systemd" grep -qaE "UNIRAMFS-ROOT: $rootdev +ext4 +rw" "$serial"
	# the initrd's start, in the state systemd deserializes (switchroot.c)
	check "$name: systemd-analyze shows the initrd's time ($(grep -ao 'UNIRAMFS-ANALYZE: .*' "$serial" | head -1 | sed 's/^UNIRAMFS-ANALYZE: //'))" \
		grep -qa 'UNIRAMFS-ANALYZE: Startup finished in .* (kernel) + .* (initrd) + .* (userspace)' "$serial"
	check "$name: poweroff: systemd-shutdown returned to /run/initramfs/shutdown" \
		grep -q "uniramfs-shutdown: back in the initramfs for poweroff" "$serial"
	if [ -z "$held" ]; then
		check "$name: poweroff: uniramfs-shutdown unmounted the old root" grep -q "uniramfs-shutdown: the old root is unmounted" "$serial"
	else
		check "$name: poweroff: the old root, which its mdmon holds, ended read-only" \
			grep -q "uniramfs-shutdown: /oldroot stays busy (Device or resource busy): remounting it read-only" "$serial"
	fi
	check "$name: poweroff: the kernel powered down" grep -q "reboot: Power down" "$serial"
}
# image_with NAME WHAT PATTERN...: the postinst.d hook remakes the image
# as a kernel upgrade runs it, now that the root has the tools; the
# generic image has a file matching each PATTERN; a copy goes to
# WORK/initrd-NAME.img
image_with() {
	local name=$1 what=$2 list=$log/ls-$1.txt p
	shift 2
	check "$name: the postinst.d hook rebuilds the image" \
		logged "$log/hook-$name.txt" in_root /etc/kernel/postinst.d/uniramfs "$kver" "/boot/vmlinuz-$kver"
	chroot "$root" uniramfs ls "/boot/initrd.img-$kver" >"$list" 2>&1
	for p; do # stop at the first pattern missing: the check names its result
		grep -q "$p" "$list" || break
	done
	check "$name: the generic image has $what" grep -q "$p" "$list"
	cp "$root/boot/initrd.img-$kver" "$work/initrd-$name.img"
}
# blame_ms SERIAL: the slowest unit of systemd-analyze blame (its first
# line), in ms; "1min 30.001s", "5.400s", "812ms" as systemd prints them
blame_ms() {
	grep -ao 'UNIRAMFS-BLAME: .*' "$1" | head -1 | sed 's/^UNIRAMFS-BLAME: //' | awk '{
		ms = 0
		for (i = 1; i < NF; i++) {
			v = $i
			if (v ~ /ms$/) ms += substr(v, 1, length(v) - 2)
			else if (v ~ /(us|µs)$/) ms += 0
			else if (v ~ /min$/) ms += substr(v, 1, length(v) - 3) * 60000
			else if (v ~ /h$/) ms += substr(v, 1, length(v) - 1) * 3600000
			else if (v ~ /s$/) ms += substr(v, 1, length(v) - 1) * 1000
		}
		if (NF > 1) printf "%d\n", ms }'
}
# splash_checks SERIAL: the initramfs's plymouthd through to the root's
# plymouth-quit (the splash boot)
splash_checks() {
	local serial=$1 pid
	check "splash: the init started plymouthd on the DRM device" grep -q "uniramfs: splash: plymouthd started, on /dev/dri/card0" "$serial"
	check "splash: ... and kept it for the root (update-root-fs)" grep -q "uniramfs: splash: plymouthd stays for the root" "$serial"
	pid=$(grep -ao 'UNIRAMFS-SPLASH-PID: pidfile=[0-9]*' "$serial" | sed 's/.*=//')
	check "splash: in the root before plymouth-quit, the one plymouthd is the initramfs's (pid file $pid, argv[0] @plymouthd): $(grep -ao 'UNIRAMFS-SPLASH-PID: .*' "$serial" | sed 's/^[^:]*: //')" \
		grep -qaE "UNIRAMFS-SPLASH-PID: pidfile=$pid argv0=@plymouthd plymouthd=\[$pid\]$" "$serial"
	check "splash: the root's plymouth --ping reaches it" grep -qa "UNIRAMFS-SPLASH-PING: 0" "$serial"
	check "splash: the root's plymouth ask-question got the answer typed into the splash ($(grep -ao 'UNIRAMFS-SPLASH-ANSWER: .*' "$serial" | sed 's/^[^:]*: //'))" \
		grep -qa "UNIRAMFS-SPLASH-ANSWER: 0 splash-answer-29" "$serial"
	for u in plymouth-quit plymouth-quit-wait; do
		check "splash: the root's $u.service ran and succeeded ($(grep -ao "UNIRAMFS-PLYMOUTH-UNIT: $u .*" "$serial" | sed 's/^[^:]*: //'))" \
			grep -qa "UNIRAMFS-PLYMOUTH-UNIT: $u active success status=0" "$serial"
	done
	check "splash: after plymouth-quit no plymouthd is left and --ping finds none ($(grep -ao 'UNIRAMFS-PLYMOUTH-AFTER: .*' "$serial" | sed 's/^[^:]*: //'))" \
		grep -qa "UNIRAMFS-PLYMOUTH-AFTER: ping=1 plymouthd=\[\]" "$serial"
}
# creds_checks SERIAL: the credentials of the command line, in the root
creds_checks() {
	local serial=$1
	check "creds: the init passed both on to systemd" \
		grep -q "uniramfs: passing 2 credential(s) from the command line and 0 from the UKI on to systemd" "$serial"
	check "creds: systemd-creds --system list has both ($(grep -ao 'UNIRAMFS-CREDS-LIST: .*' "$serial" | sed 's/^[^:]*: //'))" \
		sh -c "grep -qaE 'UNIRAMFS-CREDS-LIST: .*uniramfs\.plain' '$serial' && grep -qaE 'UNIRAMFS-CREDS-LIST: .*uniramfs\.rd' '$serial'"
	check "creds: /run/credentials/@system/uniramfs.rd holds rd.systemd.set_credential='s value" \
		grep -qa "UNIRAMFS-CRED: uniramfs.rd=from-the-initrd-29" "$serial"
	check "creds: /run/credentials/@system/uniramfs.plain holds systemd.set_credential='s value" \
		grep -qa "UNIRAMFS-CRED: uniramfs.plain=from-the-kernel-29" "$serial"
	check "creds: a unit with LoadCredential=uniramfs.rd reads the value ($(grep -ao 'UNIRAMFS-CRED-UNIT-STATUS: .*' "$serial" | sed 's/^[^:]*: //'))" \
		grep -qa "UNIRAMFS-CRED-UNIT: from-the-initrd-29" "$serial"
}
handover='systemd-journald|systemd-udevd|systemd-udev-trigger|systemd-remount-fs|systemd-fsck|-\.mount|systemd-cryptsetup'
make_disk "$work/disk.img" 300

step "boot in QEMU (TCG)"
boot_and_check plain "$work/initrd.img" "$work/disk.img" /dev/vda "root=UUID=$uuid ro console=ttyS0 panic=-1"
check "plain: poweroff: systemd-shutdown detached every filesystem" \
	grep -q "systemd-shutdown\[1\]: All filesystems, swaps, loop devices, MD devices and DM devices detached." "$work/serial-plain.txt"
check "plain: poweroff: the root filesystem was left clean" sh -c "e2fsck -fn '$work/disk.img' >'$log/e2fsck.txt' 2>&1"
check "plain: poweroff: the root's ext4 state is clean" \
	sh -c "dumpe2fs -h '$work/disk.img' 2>/dev/null | grep -q '^Filesystem state: *clean$'"
rm -f "$work/disk.img"

# The layout of Debian's installer for "Guided - use entire disk and set
# up encrypted LVM" (LUKS2 -> LVM root, swap, /home, all named by UUID in
# fstab), plus a second LUKS volume in crypttab with the same passphrase.
# The generic image opens the root's volume as luks-UUID (rd.luks.uuid=);
# the passphrase is typed once. What the root's udev and systemd need of
# the devices the initramfs set up (issue 22) decides whether this ends in
# emergency mode: udev's database for the dm devices, the crypttab name,
# the passphrase in the kernel keyring.
# And a desktop's Plymouth splash (issue 29): plymouth and plymouth-themes
# installed through apt, the theme chosen (spinfinity, whose blue the boot
# tests' screendump check knows; a Debian desktop's plymouthd.defaults
# names desktop-base's emerald). Nothing is done for uniramfs: its
# package's trigger on plymouth's theme directory makes the images again,
# and plymouth = auto packs the splash since the host has a theme chosen.
# The boot has `splash` and QEMU's std VGA; the passphrase is typed as key
# presses into the splash, which the init's plymouthd keeps up across
# switch_root for the root's plymouth-quit. The same boot passes systemd
# credentials, one in the initrd's own word (rd.systemd.set_credential=,
# which the root's systemd 252 does not read itself).
step "Debian's guided encrypted LVM, and a second LUKS volume, with the Plymouth splash"
mkdir -p "$root/etc/plymouth"
printf '# the theme chosen before plymouth comes in\n[Daemon]\nTheme=spinfinity\n' >"$root/etc/plymouth/plymouthd.conf"
check "splash: plymouth and plymouth-themes install through apt" \
	logged "$log/install-plymouth.txt" apt_root -o Dpkg::Options::=--force-confold install plymouth plymouth-themes
# plymouth depends on initramfs-tools | dracut: uniramfs provides the first
check "splash: ... beside uniramfs (apt removed nothing, initramfs-tools not pulled in)" \
	sh -c "! grep -q '^The following packages will be REMOVED' '$log/install-plymouth.txt' &&
		test -z \"\$(chroot '$root' dpkg-query -W -f='\${Status}' initramfs-tools 2>/dev/null | grep 'ok installed')\""
check "splash: uniramfs's trigger made the image again (dpkg: Processing triggers for uniramfs)" \
	sh -c "grep -q '^Processing triggers for uniramfs ' '$log/install-plymouth.txt' &&
		grep -q 'uniramfs: wrote /boot/initrd.img-$kver: ' '$log/install-plymouth.txt'"
chroot "$root" uniramfs ls "/boot/initrd.img-$kver" >"$log/ls-trigger.txt" 2>&1
check "splash: ... with plymouthd and the spinfinity theme, no step taken for uniramfs" \
	sh -c "grep -q 'sbin/plymouthd\$' '$log/ls-trigger.txt' && grep -q 'themes/spinfinity/spinfinity.plymouth\$' '$log/ls-trigger.txt'"
pass=uniramfs-distro-pass
luks_uuid=5d2f6a0e-1c3b-4e8a-9f7d-3b2a1c0d9e8f
data_luks_uuid=8e7d6c5b-4a39-4281-9f0e-d1c2b3a49586
home_uuid=0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9
swap_uuid=1a2b3c4d-5e6f-4071-8293-0a1b2c3d4e5f
data_uuid=9f8e7d6c-5b4a-4938-a271-605f4e3d2c1b
check "encrypted: cryptsetup and lvm2 install in the root" \
	logged "$log/install-stack.txt" apt_root install cryptsetup lvm2
printf 'cr_root UUID=%s none luks,discard\ncr_data UUID=%s none luks\n' "$luks_uuid" "$data_luks_uuid" >"$root/etc/crypttab"
cat >"$root/etc/fstab" <<FSTAB
UUID=$uuid / ext4 errors=remount-ro 0 1
UUID=$home_uuid /home ext4 defaults 0 2
UUID=$data_uuid /srv ext4 defaults 0 2
UUID=$swap_uuid none swap sw 0 0
FSTAB
image_with encrypted "cryptsetup, lvm and the splash" sbin/cryptsetup sbin/lvm 'sbin/plymouthd$' 'spinfinity.plymouth$'
ln -sf /etc/systemd/system/uniramfs-splash.service "$root/etc/systemd/system/multi-user.target.wants/uniramfs-splash.service"
make_disk "$work/stack-root.img" 64
rm -f "$root/etc/systemd/system/multi-user.target.wants/uniramfs-splash.service"
mkdir -p "$work/fs-home/user" "$work/fs-srv"
echo home >"$work/fs-home/user/marker"
echo srv >"$work/fs-srv/marker"
mkfs.ext4 -q -F -U "$home_uuid" -L home -d "$work/fs-home" "$work/stack-home.img" 32M
mkfs.ext4 -q -F -U "$data_uuid" -L srv -d "$work/fs-srv" "$work/stack-data.img" 32M
rm -f "$work/stack-swap.img"
(umask 077 && head -c 32M /dev/zero >"$work/stack-swap.img")
mkswap -q -U "$swap_uuid" "$work/stack-swap.img"
hkver=$(ls /lib/modules | sort -V | tail -1)
if logged "$log/stackdisk.txt" python3 "$top/tests/distro/stackdisk.py" build "$work/src/uniramfs/obj-x86_64-linux-gnu/uniramfs" \
	"$hkver" "/boot/vmlinuz-$hkver" "$work/builder" "$work/stack-root.img" "$work/stack-home.img" "$work/stack-swap.img" \
	"$work/stack-data.img" "$pass" "$luks_uuid" "$data_luks_uuid" "$work/stack1.img" "$work/stack2.img"; then
	ok "encrypted: the disks made in the builder VM ($(tail -1 "$log/stackdisk.txt"))"
	rm -f "$work"/stack-*.img
	creds="rd.systemd.set_credential=uniramfs.rd:from-the-initrd-29 systemd.set_credential=uniramfs.plain:from-the-kernel-29"
	if logged "$log/boot-stack.txt" python3 "$top/tests/distro/stackdisk.py" boot --splash "$work/vmlinuz" "$work/initrd-encrypted.img" \
		"$work/stack1.img" "$work/stack2.img" "$pass" "$work/serial-encrypted.txt" \
		"root=UUID=$uuid ro rd.luks.uuid=$luks_uuid splash $creds console=ttyS0 panic=-1" -icount shift=0; then
		ok "encrypted: the splash asked for the passphrase and took it as key presses, and asked the root's question (screendumps: serial-encrypted-prompt.png, -root.png; $(tail -1 "$log/boot-stack.txt"))"
	else
		fail "encrypted: the splash asked for the passphrase and took it as key presses, and asked the root's question ($(tr '\n' ' ' <"$log/boot-stack.txt"))"
	fi
	serial=$work/serial-encrypted.txt
	# the kernel names the root dm-N: the init mounts the LV by its node
	check_boot encrypted '/dev/(mapper/debvg-root|dm-[0-9]+)'
	check "encrypted: the passphrase was typed once (the init's one prompt, no systemd prompt)" \
		sh -c "[ \$(grep -c 'Passphrase for /dev/vda' '$serial') -eq 1 ] && ! grep -q 'Please enter passphrase' '$serial'"
	check "encrypted: luks-UUID renamed to the root's crypttab name cr_root" \
		grep -q "renamed /dev/mapper/luks-$luks_uuid to cr_root, as the root's /etc/crypttab names /dev/vda" "$serial"
	check "encrypted: systemd-cryptsetup@cr_root is active" grep -qa "UNIRAMFS-UNIT: systemd-cryptsetup@cr_root.service active" "$serial"
	check "encrypted: systemd-cryptsetup@cr_data opened the second volume from the keyring" \
		grep -qa "UNIRAMFS-UNIT: systemd-cryptsetup@cr_data.service active" "$serial"
	check "encrypted: /home is mounted from debvg-home" grep -qaE "UNIRAMFS-MOUNT: /home /dev/mapper/debvg-home +ext4" "$serial"
	check "encrypted: /srv is mounted from cr_data" grep -qaE "UNIRAMFS-MOUNT: /srv /dev/mapper/cr_data +ext4" "$serial"
	check "encrypted: the swap LV is on (by UUID)" grep -qa "UNIRAMFS-SWAP: $swap_uuid" "$serial"
	check "encrypted: no device job timed out" sh -c "! grep -qa 'Timed out waiting for device' '$serial'"
	# On QEMU's instruction clock (-icount shift=0: the guest's second is
	# 10^9 instructions, whatever the host's load), not TCG's wall time,
	# which makes every unit of any boot slow. A unit waiting for a device
	# the hand-over left unready shows here as seconds.
	ms=$(blame_ms "$serial")
	check "encrypted: nothing in systemd-analyze blame over 5 s on the instruction clock (slowest: ${ms:-?} ms, $(grep -ao 'UNIRAMFS-BLAME: .*' "$serial" | head -1 | sed 's/^UNIRAMFS-BLAME: //'))" \
		test -n "$ms" -a "${ms:-0}" -lt 5000
	check "encrypted: the root takes writes" grep -qa "UNIRAMFS-WRITE: ok" "$serial"
	check "encrypted: poweroff: uniramfs-shutdown took the LVM and LUKS devices apart" \
		grep -q "uniramfs-shutdown: no device-mapper devices left" "$serial"
	splash_checks "$serial"
	creds_checks "$serial"
else
	cat "$log/stackdisk.txt"
	fail "encrypted: the disks made in the builder VM"
fi
rm -f "$work"/stack*.img
# the later images without the splash, as before; the trigger makes them
check "splash: plymouth and plymouth-themes purge" \
	logged "$log/purge-plymouth.txt" apt_root purge plymouth plymouth-themes
chroot "$root" uniramfs ls "/boot/initrd.img-$kver" >"$log/ls-purged.txt" 2>&1
check "splash: uniramfs's trigger made the image again, without plymouthd" \
	sh -c "grep -q '^Processing triggers for uniramfs ' '$log/purge-plymouth.txt' && ! grep -q 'sbin/plymouthd\$' '$log/ls-purged.txt'"
rm -f "$root/etc/crypttab"
echo "UUID=$uuid / ext4 errors=remount-ro 0 1" >"$root/etc/fstab"
in_root /etc/kernel/postinst.d/uniramfs "$kver" "/boot/vmlinuz-$kver" >/dev/null 2>&1

# Intel firmware RAID (IMSM), as a BIOS sets up RAID1: the md layer
# assembles the container and its volume and starts mdmon --offroot,
# without which the first write to the volume hangs; the root's
# mdmon@.service (started by mdadm's udev rules) takes over from it. QEMU's
# disks have no Intel option ROM and no serial IMSM can read: the
# variables mdadm's own tests use say so, to the init (the command line's
# environment) and to the root's services (systemd.setenv).
# imsm_clean DISK: the IMSM metadata on DISK calls its volume clean
imsm_clean() {
	local dev
	dev=$(losetup -f --show -r "$1") || return 1
	IMSM_NO_PLATFORM=1 IMSM_DEVNAME_AS_SERIAL=1 mdadm --examine "$dev" >"$log/imsm-examine.txt" 2>&1
	losetup -d "$dev"
	grep -qE '^ *Dirty State : clean$' "$log/imsm-examine.txt"
}
step "Intel firmware RAID (IMSM): the root on a RAID1 volume kept by mdmon"
check "imsm: mdadm installs in the root" logged "$log/install-mdadm.txt" apt_root install mdadm
image_with imsm "mdadm and mdmon" 'sbin/mdadm$' 'sbin/mdmon$'
make_disk "$work/imsm-root.img" 64
if logged "$log/imsmdisk.txt" python3 "$top/tests/distro/stackdisk.py" build-imsm "$work/src/uniramfs/obj-x86_64-linux-gnu/uniramfs" \
	"$hkver" "/boot/vmlinuz-$hkver" "$work/builder" "$work/imsm-root.img" "$work/imsm1.img" "$work/imsm2.img"; then
	ok "imsm: the disks made in the builder VM ($(tail -1 "$log/imsmdisk.txt"))"
	rm -f "$work/imsm-root.img"
	imsm_env="IMSM_NO_PLATFORM=1 IMSM_DEVNAME_AS_SERIAL=1"
	logged "$log/boot-imsm.txt" python3 "$top/tests/distro/stackdisk.py" boot --persist "$work/vmlinuz" "$work/initrd-imsm.img" \
		"$work/imsm1.img" "$work/imsm2.img" - "$work/serial-imsm.txt" \
		"root=UUID=$uuid ro $imsm_env systemd.setenv=IMSM_NO_PLATFORM=1 systemd.setenv=IMSM_DEVNAME_AS_SERIAL=1 console=ttyS0 panic=-1"
	serial=$work/serial-imsm.txt
	check_boot imsm '/dev/md12[0-9]' held
	check "imsm: the volume is external metadata, and active or clean" \
		grep -qaE "UNIRAMFS-MD: md12[0-9] external:/md12[0-9]/0 (active|clean)" "$serial"
	# the root's mdmon is the only one: the one its unit started
	mainpid=$(grep -aoE 'UNIRAMFS-UNIT: mdmon@md12[0-9]\.service active mainpid=[0-9]+' "$serial" | sed 's/.*=//')
	pids=$(grep -ao 'UNIRAMFS-MDMON-PIDS: [0-9 ]*' "$serial" | sed 's/.*: *//; s/ *$//')
	check "imsm: the root's mdmon@.service took over (unit's pid ${mainpid:-none}, mdmon pids: ${pids:-none})" \
		test -n "$mainpid" -a "$mainpid" = "$pids"
	check "imsm: the root takes writes" grep -qa "UNIRAMFS-WRITE: ok" "$serial"
	# an IMSM volume left dirty resyncs in full at the next boot
	check "imsm: poweroff: the root's mdmon confirmed the volume clean" \
		grep -qE "uniramfs-shutdown: md12[0-9] is clean: md12[0-9]'s mdmon confirmed its metadata" "$serial"
	check "imsm: the volume's metadata on the disk says clean" imsm_clean "$work/imsm1.img"
else
	cat "$log/imsmdisk.txt"
	fail "imsm: the disks made in the builder VM"
fi
rm -f "$work"/imsm*.img
apt_root purge mdadm >/dev/null 2>&1
in_root /etc/kernel/postinst.d/uniramfs "$kver" "/boot/vmlinuz-$kver" >/dev/null 2>&1

# The same system with its root on the network (tests/distro/netroot.sh)
. "$top/tests/distro/netroot.sh"

step "kernel-install through the plugin"
mid=$(cat "$root/etc/machine-id")
entry=$root/boot/loader/entries/$mid-$kver.conf
printf 'layout=bls\n' >"$root/etc/kernel/install.conf"
mkdir -p "$root/boot/loader/entries" "$root/boot/$mid"
# the entry's initrds: exactly one, and a uniramfs image
one_uniramfs_initrd() {
	local n initrd
	n=$(grep -c '^initrd ' "$entry")
	# the entry names it relative to BOOT_ROOT
	initrd=$(sed -n 's/^initrd *//p' "$entry")
	[ -e "$root$initrd" ] || initrd=/boot$initrd
	# (not "ls | grep -q": with pipefail, grep leaving early fails the pipe)
	[ "$n" -eq 1 ] && chroot "$root" uniramfs ls "$initrd" >"$log/ls-entry.txt" &&
		grep -q ' etc/uniramfs/kver$' "$log/ls-entry.txt"
}
# Debian's 85-initrd.install hands over /boot/initrd.img-KVER: the plugin remakes it
rm -f "$root/boot/initrd.img-$kver"
if logged "$log/kernel-install.txt" in_root env BOOT_ROOT=/boot kernel-install -v add "$kver" "/boot/vmlinuz-$kver"; then
	ok "kernel-install add $kver"
else
	cat "$log/kernel-install.txt"
	fail "kernel-install add $kver"
fi
check "kernel-install ran 50-uniramfs.install" grep -q "uniramfs: making /boot/initrd.img-$kver" "$log/kernel-install.txt"
check "the BLS entry has one initrd, a uniramfs image" one_uniramfs_initrd
# (remove runs 50-depmod.install, which deletes the module indexes)
in_root kernel-install remove "$kver" >/dev/null 2>&1
# with 85-initrd.install masked, the plugin writes into the staging area
mkdir -p "$root/etc/kernel/install.d"
ln -s /dev/null "$root/etc/kernel/install.d/85-initrd.install"
if logged "$log/kernel-install-staging.txt" in_root env BOOT_ROOT=/boot kernel-install -v add "$kver" "/boot/vmlinuz-$kver"; then
	ok "kernel-install add $kver (85-initrd.install masked)"
else
	cat "$log/kernel-install-staging.txt"
	fail "kernel-install add $kver (85-initrd.install masked)"
fi
check "... the plugin wrote the staging area's initrd" grep -q "uniramfs: wrote /tmp/kernel-install.staging.*/initrd:" "$log/kernel-install-staging.txt"
check "... the BLS entry has one initrd, a uniramfs image" one_uniramfs_initrd
check "... in the entry directory" sh -c "chroot '$root' uniramfs ls /boot/$mid/$kver/initrd | grep -q ' etc/uniramfs/kver$'"
mkdir -p "$root/tmp/staging"
in_root env KERNEL_INSTALL_INITRD_GENERATOR=dracut KERNEL_INSTALL_STAGING_AREA=/tmp/staging \
	/usr/lib/kernel/install.d/50-uniramfs.install add "$kver" "/boot/$mid/$kver" "/boot/vmlinuz-$kver"
check "the plugin steps aside for KERNEL_INSTALL_INITRD_GENERATOR=dracut" test ! -e "$root/tmp/staging/initrd"
logged "$log/plugin-staging.txt" in_root env KERNEL_INSTALL_INITRD_GENERATOR=uniramfs KERNEL_INSTALL_STAGING_AREA=/tmp/staging \
	/usr/lib/kernel/install.d/50-uniramfs.install add "$kver" "/boot/$mid/$kver" "/boot/vmlinuz-$kver"
check "... and writes the staging area's initrd for KERNEL_INSTALL_INITRD_GENERATOR=uniramfs" test -s "$root/tmp/staging/initrd"
in_root kernel-install remove "$kver" >/dev/null 2>&1
in_root depmod -a "$kver"
rm -rf "$root/boot/loader" "${root:?}/boot/$mid" "$root/etc/kernel/install.conf" "$root/etc/kernel/install.d/85-initrd.install"
test -e "$root/boot/initrd.img-$kver" || in_root /etc/kernel/postinst.d/uniramfs "$kver" "/boot/vmlinuz-$kver" >/dev/null 2>&1

step "a failed build fails the hook and keeps the image"
cp "$root/boot/initrd.img-$kver" "$work/before.img"
printf 'compress = nonsense\n' >"$root/etc/uniramfs.conf.d-test"
mkdir -p "$root/etc/uniramfs.conf.d"
mv "$root/etc/uniramfs.conf.d-test" "$root/etc/uniramfs.conf.d/broken.conf"
if in_root /etc/kernel/postinst.d/uniramfs "$kver" "/boot/vmlinuz-$kver" >"$log/hook-fail.txt" 2>&1; then
	fail "a failed build makes the postinst.d hook fail"
else
	ok "a failed build makes the postinst.d hook fail"
fi
check "... saying so" grep -q "uniramfs: FAILED to make /boot/initrd.img-$kver; any previous image is unchanged" "$log/hook-fail.txt"
check "... and the previous image is unchanged" cmp -s "$work/before.img" "$root/boot/initrd.img-$kver"
rm -rf "$root/etc/uniramfs.conf.d"

step "back to initramfs-tools"
if apt_root install --purge initramfs-tools uniramfs- >"$log/switch-back.txt" 2>&1; then
	ok "apt-get install --purge initramfs-tools uniramfs-"
else
	tail -30 "$log/switch-back.txt"
	fail "apt-get install --purge initramfs-tools uniramfs-"
fi
check "uniramfs is purged (no config files left)" test -z "$(in_root dpkg-query -W -f='${Status}' uniramfs 2>/dev/null)"
left=$(cd "$root" && ls -d etc/uniramfs.conf etc/uniramfs.conf.d etc/kernel/postinst.d/uniramfs etc/kernel/postrm.d/uniramfs \
	usr/lib/kernel/install.d/50-uniramfs.install usr/sbin/uniramfs usr/libexec/uniramfs \
	usr/share/bash-completion/completions/uniramfs usr/share/doc/uniramfs 2>/dev/null)
check "nothing of uniramfs left behind${left:+: $left}" test -z "$left"
check "the kernel is still installed" test -f "$root/boot/vmlinuz-$kver"
check "/boot/initrd.img-$kver is initramfs-tools' own again" \
	sh -c "chroot '$root' lsinitramfs /boot/initrd.img-$kver | grep -q '^scripts/local$'"

step "the kernel's removal removes the image"
apt_root install --purge /root/uniramfs.deb initramfs-tools- >"$log/reinstall.txt" 2>&1
check "uniramfs replaces initramfs-tools in place" sh -c "chroot '$root' uniramfs ls /boot/initrd.img-$kver | grep -q ' etc/uniramfs/kver$'"
apt_root purge "linux-image-$kver" linux-image-amd64 >"$log/remove-kernel.txt" 2>&1
check "removing linux-image-$kver removes its image" test ! -e "$root/boot/initrd.img-$kver"
check "... through the postrm.d hook" grep -q "uniramfs: removing /boot/initrd.img-$kver" "$log/remove-kernel.txt"
finish
