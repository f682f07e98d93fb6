# The Debian installer's encrypted LVM: a partition table, vda1 LUKS2, in it
# a PV of VG testvg, LV root ext4 (the installer's /boot partition is not
# needed: the kernel comes from outside).
printf 'label: dos\nstart=2048, type=83\n' | sfdisk -q "$1"
part=${1}1
for i in $(seq 1 50); do [ -b "$part" ] && break; sleep 0.1; done
luks_format luks2 "$part"
vg_root /dev/mapper/cr_root
mkroot_ext4 /dev/testvg/root
vg_close
luks_close
