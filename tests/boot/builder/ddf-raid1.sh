# SNIA DDF firmware RAID, as mdadm makes it on plain disks (no platform
# check for DDF): a container over two disks, a RAID1 volume in it, ext4
# on the volume. mdadm starts mdmon, which keeps the DDF metadata while
# the volume is written.
mkdir -p /run/mdadm
mdadm --create /dev/md/ddf0 --run --metadata=ddf --raid-devices=2 "$1" "$2"
mdadm --create /dev/md/vol0 --run --level=1 --raid-devices=2 --assume-clean /dev/md/ddf0
cat /proc/mdstat
mkroot_ext4 /dev/md/vol0
sync
mdadm --detail /dev/md/vol0 | grep -E 'Raid Level|State :|Container|UUID'
mdadm --wait-clean /dev/md/vol0 || true
mdadm --stop /dev/md/vol0
mdadm --stop /dev/md/ddf0
