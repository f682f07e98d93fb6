# dracut TEST-20-STORAGE's "disk" (create-root.sh with rd.md=0 rd.luks=0):
# both disks PVs of VG dracut, LV root over all of it, ext4 labelled dracut.
lvm pvcreate -q -y "$1" "$2"
lvm vgcreate -q dracut "$1" "$2"
lvm lvcreate -q -y -W y -l 100%FREE -n root dracut
lvm lvs -o vg_name,lv_name,lv_size,devices dracut
mkroot_ext4 /dev/dracut/root
lvm vgchange -q -a n dracut
