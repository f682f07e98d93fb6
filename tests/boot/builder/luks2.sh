# LUKS2 on the whole disk, ext4 inside (passphrase).
luks_format luks2 "$1"
mkroot_ext4 /dev/mapper/cr_root
luks_close
