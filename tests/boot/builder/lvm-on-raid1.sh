# RAID1 over two disks, md0 a PV of VG testvg, LV root ext4.
md_create 1 "$1" "$2"
vg_root /dev/md0
mkroot_ext4 /dev/testvg/root
vg_close
md_close
