# LUKS on RAID1: md0 over two whole disks, LUKS2 on md0, ext4 inside.
md_create 1 "$1" "$2"
luks_format luks2 /dev/md0
mkroot_ext4 /dev/mapper/cr_root
luks_close
md_close
