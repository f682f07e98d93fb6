# booster's generators/mdraid_raid1.sh: five 10 MiB partitions of one disk,
# a RAID1 of all five (p2 p4 p5 p1 p3) named BoosterTestArray1.
printf 'label: gpt\nsize=10MiB, type=linux\nsize=10MiB, type=linux\nsize=10MiB, type=linux\nsize=10MiB, type=linux\nsize=10MiB, type=linux\n' |
	sfdisk -q "$1"
for i in $(seq 1 50); do [ -b "${1}5" ] && break; sleep 0.1; done
mdadm --create /dev/md/BoosterTestArray1 --run --level=raid1 --metadata=default \
	--assume-clean --raid-devices=5 "${1}2" "${1}4" "${1}5" "${1}1" "${1}3"
cat /proc/mdstat
mkroot_ext4 /dev/md/BoosterTestArray1
mdadm --detail /dev/md/BoosterTestArray1 | grep -E 'Raid Level|State :|UUID|Name'
mdadm --stop /dev/md/BoosterTestArray1
