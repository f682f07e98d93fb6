# The Debian installer's encrypted LVM with its swap: vda1 LUKS2, in it a
# PV of VG testvg with LV root (ext4) and LV swap.  A resume from that swap
# can only happen once the LUKS device is open and the VG active
# (tests/boot/scenarios_early.py, resume-lvm-luks).
printf 'label: dos\nstart=2048, type=83\n' | sfdisk -q "$1"
part=${1}1
for i in $(seq 1 50); do [ -b "$part" ] && break; sleep 0.1; done
luks_format luks2 "$part"
lvm pvcreate -q -y /dev/mapper/cr_root
lvm vgcreate -q testvg /dev/mapper/cr_root
lvm lvcreate -q -y -W y -L 40m -n root testvg
lvm lvcreate -q -y -W y -l 100%FREE -n swap testvg
lvm lvs -o vg_name,lv_name,lv_size,devices testvg
mkroot_ext4 /dev/testvg/root
mkswap -L "$SWAP_LABEL" /dev/testvg/swap
blkid /dev/testvg/swap
vg_close
luks_close
