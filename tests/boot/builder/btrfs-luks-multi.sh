# btrfs RAID1 over one LUKS2 device per disk: two for booster's
# TestLuksBtrfsRaid1, three for the passphrase cache and bench/multidev.py.
# LUKS_UUID is the first disk's, LUKS_UUID2, LUKS_UUID3 the next ones';
# each opens with PASS, or with PASS_N where the layout gives disk N a
# passphrase of its own.
i=0
maps=
devopts=
for dev in "$@"; do
	i=$((i + 1))
	if [ "$i" = 1 ]; then u=$LUKS_UUID; else eval "u=\$LUKS_UUID$i"; fi
	eval "p=\${PASS_$i:-\$PASS}"
	printf '%s' "$p" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
		--uuid "$u" --key-file - "$dev"
	printf '%s' "$p" | cryptsetup open --key-file - "$dev" "cr_$i"
	maps="$maps /dev/mapper/cr_$i"
	devopts="$devopts,device=/dev/mapper/cr_$i"
done
# shellcheck disable=SC2086 # one word a device
mkfs.btrfs -q -f -d raid1 -m raid1 -U "$FS_UUID" -L "$FS_LABEL" $maps
# no btrfs tool here to scan: the mount names every member
mount -t btrfs -o "${devopts#,}" /dev/mapper/cr_1 /mnt
cp -a "$SRC/." /mnt/
ls -l /mnt/sbin/init
umount /mnt
# shellcheck disable=SC2086
blkid $maps
for m in $maps; do
	cryptsetup close "${m#/dev/mapper/}"
done
