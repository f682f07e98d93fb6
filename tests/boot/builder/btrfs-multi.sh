# One btrfs over every disk, data and metadata in PROFILE (raid0, raid1).
# No udev here to register the members: the mount names them (device=).
mkfs.btrfs -q -f -d "$PROFILE" -m "$PROFILE" -U "$FS_UUID" -L "$FS_LABEL" "$@"
opts=
for d in "$@"; do
	opts="$opts,device=$d"
done
mount -t btrfs -o "${opts#,}" "$1" /mnt
cp -a "$SRC/." /mnt/
ls -l /mnt/sbin/init
umount /mnt
blkid "$@"
