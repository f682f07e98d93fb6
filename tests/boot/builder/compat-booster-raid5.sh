# booster's generators/mdraid_raid5.sh: five 10 MiB partitions of one disk,
# a RAID5 of four (p2 p4 p5 p1, chunk 256) with p3 a spare, named
# BoosterTestArray5.
printf 'label: gpt\nsize=10MiB, type=linux\nsize=10MiB, type=linux\nsize=10MiB, type=linux\nsize=10MiB, type=linux\nsize=10MiB, type=linux\n' |
	sfdisk -q "$1"
for i in $(seq 1 50); do [ -b "${1}5" ] && break; sleep 0.1; done
mdadm --create /dev/md/BoosterTestArray5 --run --level=raid5 --metadata=1.2 --chunk=256 \
	--assume-clean --raid-devices=4 "${1}2" "${1}4" "${1}5" "${1}1" --spare-devices=1 "${1}3"
cat /proc/mdstat
mkroot_ext4 /dev/md/BoosterTestArray5
mdadm --detail /dev/md/BoosterTestArray5 | grep -E 'Raid Level|State :|UUID|Name'
mdadm --stop /dev/md/BoosterTestArray5
