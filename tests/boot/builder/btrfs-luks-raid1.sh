# btrfs RAID1 over two LUKS2 devices with the same passphrase (booster's
# TestLuksBtrfsRaid1): LUKS_UUID on the first disk, LUKS_UUID2 on the
# second.
printf '%s' "$PASS" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
	--uuid "$LUKS_UUID" --key-file - "$1"
printf '%s' "$PASS" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
	--uuid "$LUKS_UUID2" --key-file - "$2"
printf '%s' "$PASS" | cryptsetup open --key-file - "$1" cr_a
printf '%s' "$PASS" | cryptsetup open --key-file - "$2" cr_b
mkfs.btrfs -q -f -d raid1 -m raid1 -U "$FS_UUID" -L "$FS_LABEL" /dev/mapper/cr_a /dev/mapper/cr_b
mount -t btrfs -o device=/dev/mapper/cr_a,device=/dev/mapper/cr_b /dev/mapper/cr_a /mnt
cp -a "$SRC/." /mnt/
ls -l /mnt/sbin/init
umount /mnt
blkid /dev/mapper/cr_a /dev/mapper/cr_b
cryptsetup close cr_a
cryptsetup close cr_b
