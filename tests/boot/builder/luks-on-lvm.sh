# LUKS on LVM: the whole disk a PV of VG testvg, LV crypt holding LUKS2,
# ext4 inside.  The init must activate the VG before it can see the LUKS
# header (the reverse of lvm-on-luks).
lvm pvcreate -q -y "$1"
lvm vgcreate -q testvg "$1"
lvm lvcreate -q -y -W y -l 100%FREE -n crypt testvg
lvm lvs -o vg_name,lv_name,lv_size,devices testvg
luks_format luks2 /dev/testvg/crypt
mkroot_ext4 /dev/mapper/cr_root
luks_close
vg_close
