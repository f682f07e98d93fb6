# Intel firmware RAID (IMSM) as mdadm's own tests make it on disks with no
# Intel RAID option ROM: IMSM_NO_PLATFORM=1, and the disk names as their
# serials (virtio disks have none IMSM can read). A container over two
# disks, a RAID1 volume in it, ext4 on the volume. mdadm starts mdmon,
# which keeps the metadata while the volume is written.
export IMSM_NO_PLATFORM=1 IMSM_DEVNAME_AS_SERIAL=1
mkdir -p /run/mdadm
mdadm --create /dev/md/imsm0 --run --metadata=imsm --raid-devices=2 "$1" "$2"
mdadm --create /dev/md/vol0 --run --level=1 --raid-devices=2 --assume-clean /dev/md/imsm0
cat /proc/mdstat
mkroot_ext4 /dev/md/vol0
sync
mdadm --detail /dev/md/vol0 | grep -E 'Raid Level|State :|Container|UUID'
mdadm --wait-clean /dev/md/vol0 || true
mdadm --stop /dev/md/vol0
mdadm --stop /dev/md/imsm0
