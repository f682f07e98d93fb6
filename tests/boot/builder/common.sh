# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers every layout script starts with (builder.py puts this file in front
# of the layout).  Parameters come from the environment: DISKS (the blank
# disks, in order), SRC (the test root to copy), FS_UUID, FS_LABEL, and per
# layout LUKS_UUID, PASS (the passphrase) or KEYFILE, MD_UUID.

set -- $DISKS

# Unlocking under TCG must take milliseconds: PBKDF2 with the fewest
# iterations cryptsetup accepts, never argon2's memory-hard default.
FAST_KDF="--pbkdf pbkdf2 --pbkdf-force-iterations 1000"

luks_format() {		# TYPE DEV
	if [ -n "$KEYFILE" ]; then
		cryptsetup luksFormat --batch-mode --type "$1" $FAST_KDF --uuid "$LUKS_UUID" \
			--key-file "$KEYFILE" "$2"
		cryptsetup open --key-file "$KEYFILE" "$2" cr_root
	else
		# The init hands cryptsetup exactly the typed bytes (no newline).
		printf '%s' "$PASS" | cryptsetup luksFormat --batch-mode --type "$1" $FAST_KDF \
			--uuid "$LUKS_UUID" --key-file - "$2"
		printf '%s' "$PASS" | cryptsetup open --key-file - "$2" cr_root
	fi
	cryptsetup luksDump "$2" | grep -E '^(Version|UUID|Cipher|	PBKDF|	Iterations|[ 	]*[0-9]+: luks)'
}

luks_close() {
	cryptsetup close cr_root
}

mkroot_ext4() {		# DEV
	mkfs.ext4 -q -F -U "$FS_UUID" -L "$FS_LABEL" -E root_owner=0:0 "$1"
	mount -t ext4 "$1" /mnt
	cp -a "$SRC/." /mnt/
	ls -l /mnt/sbin/init
	umount /mnt
	blkid "$1"
}

mkroot_btrfs() {	# DEV
	mkfs.btrfs -q -f -U "$FS_UUID" -L "$FS_LABEL" --rootdir "$SRC" "$1"
	blkid "$1"
}

vg_root() {		# PV...: VG testvg, LV root over all of it
	lvm pvcreate -q -y "$@"
	lvm vgcreate -q testvg "$@"
	lvm lvcreate -q -y -W y -l 100%FREE -n root testvg
	lvm lvs -o vg_name,lv_name,lv_size,devices testvg
}

vg_close() {
	lvm vgchange -q -a n testvg
}

md_create() {		# LEVEL DEV...
	level=$1
	shift
	# --assume-clean: the disks are blank, so in sync already; no resync
	# to wait for (or to race with the power-off).
	mdadm --create /dev/md0 --run --level="$level" --raid-devices=$# --metadata=1.2 \
		--assume-clean --uuid="$MD_UUID" --name=root "$@"
	cat /proc/mdstat
}

md_close() {
	mdadm --detail /dev/md0 | grep -E 'Raid Level|State :|UUID|Active Devices'
	mdadm --stop /dev/md0
}
