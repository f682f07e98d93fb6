# LVM with many volumes (bench/scaling.py): VG testvg with 1 MiB extents,
# NLV-1 one-extent LVs made inactive and unzeroed (fast, nothing to wipe),
# then LV root ext4 over the rest: the last of NLV.
lvm pvcreate -q -y "$1"
lvm vgcreate -q -s 1M testvg "$1"
i=1
while [ "$i" -lt "$NLV" ]; do
	lvm lvcreate -q -y -an -Zn -Wn -l 1 -n "lv$i" testvg >/dev/null
	i=$((i + 1))
done
lvm lvcreate -q -y -W y -l 100%FREE -n root testvg
lvm lvs --noheadings testvg | wc -l
mkroot_ext4 /dev/testvg/root
vg_close
