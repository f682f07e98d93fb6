# booster's generators/lvm.sh: four partitions of one disk (10, 15, 11 MiB
# and the rest), VG booster_test_vg over p2, p4, p1 in that order, a 60 MiB
# LV booster_test_lv, ext4 inside.
printf 'label: gpt\nsize=10MiB, type=linux\nsize=15MiB, type=linux\nsize=11MiB, type=linux\ntype=linux\n' |
	sfdisk -q "$1"
for i in $(seq 1 50); do [ -b "${1}4" ] && break; sleep 0.1; done
lvm pvcreate -q -y "${1}1" "${1}2" "${1}4"
lvm vgcreate -q booster_test_vg "${1}2" "${1}4" "${1}1"
lvm lvcreate -q -y -W y -L 60M -n booster_test_lv booster_test_vg
lvm lvs -o vg_name,lv_name,lv_size,devices booster_test_vg
mkroot_ext4 /dev/booster_test_vg/booster_test_lv
lvm vgchange -q -a n booster_test_vg
