# RAID1 over two whole disks (metadata 1.2), ext4 on md0.
md_create 1 "$1" "$2"
mkroot_ext4 /dev/md0
md_close
