# booster's luks2.external.module.img: LUKS2 in camellia-xts-plain64, 512-bit
# key, sha512, on the whole disk, ext4 inside; a cipher whose module only
# the kernel's request loads.  PBKDF2 where booster has argon2id with 4 GB
# of memory: a TCG guest of 1 GB could not open it.
printf '%s' "$PASS" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
	--cipher camellia-xts-plain64 --key-size 512 --hash sha512 --uuid "$LUKS_UUID" \
	--key-file - "$1"
printf '%s' "$PASS" | cryptsetup open --key-file - "$1" cr_root
cryptsetup luksDump "$1" | grep -E '^(Version|UUID)|cipher:'
mkroot_ext4 /dev/mapper/cr_root
luks_close
