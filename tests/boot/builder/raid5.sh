# RAID5 over three whole disks, ext4 on md0.
md_create 5 "$1" "$2" "$3"
mkroot_ext4 /dev/md0
md_close
