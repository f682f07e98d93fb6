# dracut TEST-20-STORAGE with TEST_FSTYPE=zfs (create-root.sh): pool
# dracut mirrored over both disks, dataset dracut/root with
# mountpoint=/sysroot holding the root. Exported at the end, as the
# builder's power-off would not. Each disk holds one GPT partition (below).
# the builder image packs zpool where the host has it (tests/zfs/fetch.py)
export PATH=/usr/local/sbin:/usr/local/bin:$PATH
modprobe zfs
# dracut gives zpool the whole disks, which it partitions itself and then
# waits for udev's partition nodes: this builder has no udev, so each disk
# gets its one partition from sfdisk first, as zfs.sh's does
for d in "$1" "$2"; do
	echo 'label: gpt' | sfdisk -q "$d" && echo ',,' | sfdisk -q --append "$d"
	for i in $(seq 1 50); do [ -b "${d}1" ] && break; sleep 0.1; done
done
zpool create -f -o ashift=9 -o cachefile=none -R /mnt dracut mirror "${1}1" "${2}1"
zfs create -o mountpoint=/sysroot dracut/root
grep ' zfs ' /proc/mounts
cp -a "$SRC/." /mnt/sysroot/
ls -l /mnt/sysroot/sbin/init
zpool status dracut | grep -E 'mirror|vd|state'
zpool export dracut
