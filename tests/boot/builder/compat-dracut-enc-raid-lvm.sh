# dracut TEST-26-ENC-RAID-LVM's create-root.sh: LUKS on each disk (the key
# file's text as passphrase), RAID1 md0 with 0.90 metadata over the two
# mappings, md0 the PV of VG dracut, LV root, ext4.
printf '%s' "$PASS" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
	--uuid "$LUKS_UUID" --key-file - "$1"
printf '%s' "$PASS" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
	--uuid "$LUKS_UUID2" --key-file - "$2"
printf '%s' "$PASS" | cryptsetup open --key-file - "$1" dracut_disk1
printf '%s' "$PASS" | cryptsetup open --key-file - "$2" dracut_disk2
mdadm --create /dev/md0 --run --level=1 --metadata=0.90 --raid-devices=2 \
	--assume-clean --uuid="$MD_UUID" /dev/mapper/dracut_disk1 /dev/mapper/dracut_disk2
cat /proc/mdstat
lvm pvcreate -q -y /dev/md0
lvm vgcreate -q dracut /dev/md0
lvm lvcreate -q -y -W y -l 100%FREE -n root dracut
mkroot_ext4 /dev/dracut/root
lvm vgchange -q -a n dracut
md_close
cryptsetup close dracut_disk1
cryptsetup close dracut_disk2
