# Partitioned md: RAID1 md0 over two whole disks, a GPT on md0, ext4 on
# md0p1 (the root is a partition of the array, not the array).  Named "0"
# as the Debian installer names its arrays: with the homehost matching
# (both the builder and the init have none), `mdadm -I` brings a numeric
# name up as md0 again, so root=/dev/md0p1 means something.
mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
	--assume-clean --uuid="$MD_UUID" --name=0 "$1" "$2"
cat /proc/mdstat
printf 'label: gpt\nstart=2048, type=linux, uuid=%s, name=mdroot\n' "$PART_UUID" |
	sfdisk -q /dev/md0
part=/dev/md0p1
for i in $(seq 1 50); do [ -b "$part" ] && break; sleep 0.1; done
[ -b "$part" ] || { echo "no $part after partitioning md0"; exit 1; }
mkroot_ext4 "$part"
md_close
