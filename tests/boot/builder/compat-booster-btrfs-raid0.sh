# booster's generators/btrfs_raid0.sh: two 300 MiB partitions of one disk,
# one btrfs over both with its data in raid0 (metadata mkfs's default).
# No udev here to register the members: the mount names them (device=).
printf 'label: gpt\nsize=300MiB, type=linux\nsize=300MiB, type=linux\n' | sfdisk -q "$1"
for i in $(seq 1 50); do [ -b "${1}2" ] && break; sleep 0.1; done
mkfs.btrfs -q -f -d raid0 -U "$FS_UUID" "${1}1" "${1}2"
mount -t btrfs -o "device=${1}1,device=${1}2" "${1}1" /mnt
cp -a "$SRC/." /mnt/
ls -l /mnt/sbin/init
umount /mnt
blkid "${1}1" "${1}2"
