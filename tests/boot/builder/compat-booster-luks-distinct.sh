# booster's generators/luks_btrfs_raid1_distinct.sh: two LUKS2 partitions
# (2-224 and 224-446 MiB) with distinct passphrases ($PASS, $PASS2), one
# btrfs raid1 over both mappings.
printf 'label: gpt\nstart=2MiB, size=222MiB, type=linux, name=member1\nstart=224MiB, size=222MiB, type=linux, name=member2\n' |
	sfdisk -q "$1"
for i in $(seq 1 50); do [ -b "${1}2" ] && break; sleep 0.1; done
printf '%s' "$PASS" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
	--uuid "$LUKS_UUID" --key-file - "${1}1"
printf '%s' "$PASS2" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
	--uuid "$LUKS_UUID2" --key-file - "${1}2"
printf '%s' "$PASS" | cryptsetup open --key-file - "${1}1" cr_one
printf '%s' "$PASS2" | cryptsetup open --key-file - "${1}2" cr_two
mkfs.btrfs -q -f -d raid1 -m raid1 -U "$FS_UUID" /dev/mapper/cr_one /dev/mapper/cr_two
mount -t btrfs -o device=/dev/mapper/cr_one,device=/dev/mapper/cr_two /dev/mapper/cr_one /mnt
cp -a "$SRC/." /mnt/
ls -l /mnt/sbin/init
umount /mnt
cryptsetup close cr_one
cryptsetup close cr_two
