# dracut TEST-72-NBD's "encrypted" export (create-encrypted-root.sh): LUKS
# on the whole disk, in it a PV of VG dracut, LV root, ext4 labelled dracut.
luks_format luks2 "$1"
lvm pvcreate -q -y /dev/mapper/cr_root
lvm vgcreate -q dracut /dev/mapper/cr_root
lvm lvcreate -q -y -W y -l 100%FREE -n root dracut
lvm lvs -o vg_name,lv_name,lv_size,devices dracut
mkroot_ext4 /dev/dracut/root
lvm vgchange -q -a n dracut
luks_close
