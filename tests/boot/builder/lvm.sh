# LVM: the whole disk a PV of VG testvg, LV root ext4.
vg_root "$1"
mkroot_ext4 /dev/testvg/root
vg_close
