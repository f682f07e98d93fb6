# LUKS2 on the first disk with its header detached onto the second (the
# file the image carries), ext4 inside; the first disk holds no signature.
# A small header (16 KiB metadata, 1 MiB of keyslots) keeps the image small.
printf '%s' "$PASS" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
	--uuid "$LUKS_UUID" --luks2-metadata-size 16k --luks2-keyslots-size 1m \
	--header "$2" --key-file - "$1"
printf '%s' "$PASS" | cryptsetup open --header "$2" --key-file - "$1" cr_root
cryptsetup luksDump "$2" | grep -E '^(Version|UUID|	PBKDF)'
mkroot_ext4 /dev/mapper/cr_root
luks_close
echo "data disk signature: $(blkid -p "$1" || echo none)"
