# Fedora's layout: btrfs directly in LUKS2.
luks_format luks2 "$1"
mkroot_btrfs /dev/mapper/cr_root
luks_close
