# btrfs RAID1 over three LUKS2 devices with one passphrase (bench/multidev.py):
# LUKS_UUID, LUKS_UUID2, LUKS_UUID3 on the three disks.
i=0
for u in "$LUKS_UUID" "$LUKS_UUID2" "$LUKS_UUID3"; do
	i=$((i + 1))
	eval dev=\${$i}
	printf '%s' "$PASS" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
		--uuid "$u" --key-file - "$dev"
	printf '%s' "$PASS" | cryptsetup open --key-file - "$dev" cr_$i
done
mkfs.btrfs -q -f -d raid1 -m raid1 -U "$FS_UUID" -L "$FS_LABEL" /dev/mapper/cr_1 /dev/mapper/cr_2 \
	/dev/mapper/cr_3
mount -t btrfs -o device=/dev/mapper/cr_1,device=/dev/mapper/cr_2,device=/dev/mapper/cr_3 \
	/dev/mapper/cr_1 /mnt
cp -a "$SRC/." /mnt/
ls -l /mnt/sbin/init
umount /mnt
blkid /dev/mapper/cr_1 /dev/mapper/cr_2 /dev/mapper/cr_3
cryptsetup close cr_1
cryptsetup close cr_2
cryptsetup close cr_3
