# LVM's other volume kinds, each a root of its own in one VG over both
# disks, as dracut TEST-20's "disk-thin" makes its VG (create-root.sh with
# test.thin): VG dracut over disk1 and disk2, and in it
#   root    a thin LV in the thin pool mythinpool, ext4 labelled dracut
#           (dracut's pool takes 100%FREE and the LV is 400M virtual;
#           here both are 40 MB, beside the others, so nothing written
#           can outgrow the pool);
#   raid1   lvcreate --type raid1 -m 1 (dm-raid, one image on each disk);
#   cached  an LV on disk1 with a cache pool on disk2 (dm-cache, smq).
# A boot with no LVM option activates all three, so it needs each one's
# tools in the image: thin_check, the dm_raid retry, cache_check.
modprobe dm_thin_pool
modprobe dm_raid
modprobe dm_cache_smq
# the builder's lvm finds the checkers where the host has them
lvm pvcreate -q -y "$1" "$2"
lvm vgcreate -q -s 1m dracut "$1" "$2"
lvm lvcreate -q -y -W y --ignoremonitoring --type raid1 -m 1 -L 16m -n raid1 dracut
lvm lvcreate -q -y -W y --ignoremonitoring -L 16m -n cached dracut "$1"
lvm lvcreate -q -y --ignoremonitoring --type cache-pool -L 8m -n cpool dracut "$2"
lvm lvconvert -q -y --type cache --cachepool dracut/cpool dracut/cached
lvm lvcreate -q -y --ignoremonitoring -L 40m --thinpool mythinpool dracut
lvm lvcreate -q -y -W y --ignoremonitoring -V 40m --thin dracut/mythinpool -n root
lvm lvs -a -o vg_name,lv_name,segtype,lv_size,devices dracut
mkroot_ext4 /dev/dracut/root
FS_UUID=$RAID1_UUID FS_LABEL=raid1root
mkroot_ext4 /dev/dracut/raid1
FS_UUID=$CACHED_UUID FS_LABEL=cachedroot
mkroot_ext4 /dev/dracut/cached
lvm vgchange -q -a n dracut
