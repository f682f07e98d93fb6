# dracut TEST-20-STORAGE's "raid" (create-root.sh with rd.luks=0): RAID1
# md0 with 0.90 metadata over both disks, md0 the PV of VG dracut, LV root,
# ext4 labelled dracut.  With LUKS_UUID set ("raid-crypt"): LUKS2 on md0
# (the passphrase is the key file's text) and the PV inside it.
mdadm --create /dev/md0 --run --level=1 --metadata=0.90 --raid-devices=2 \
	--assume-clean --uuid="$MD_UUID" "$1" "$2"
cat /proc/mdstat
pv=/dev/md0
if [ -n "$LUKS_UUID" ]; then
	luks_format luks2 /dev/md0
	pv=/dev/mapper/cr_root
fi
lvm pvcreate -q -y "$pv"
lvm vgcreate -q dracut "$pv"
lvm lvcreate -q -y -W y -l 100%FREE -n root dracut
lvm lvs -o vg_name,lv_name,lv_size,devices dracut
mkroot_ext4 /dev/dracut/root
lvm vgchange -q -a n dracut
[ -z "$LUKS_UUID" ] || luks_close
md_close
