# LUKS2 with serpent-xts-plain64 (keyslots and data) on the whole disk,
# ext4 inside (passphrase): a cipher the init loads only when the kernel
# asks for it.
printf '%s' "$PASS" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
	--cipher serpent-xts-plain64 --key-size 512 --uuid "$LUKS_UUID" --key-file - "$1"
printf '%s' "$PASS" | cryptsetup open --key-file - "$1" cr_root
cryptsetup luksDump "$1" | grep -E '^(Version|UUID)|cipher:'
mkroot_ext4 /dev/mapper/cr_root
luks_close
