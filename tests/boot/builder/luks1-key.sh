# LUKS1 on the whole disk unlocked by a key file, ext4 inside.
luks_format luks1 "$1"
mkroot_ext4 /dev/mapper/cr_root
luks_close
