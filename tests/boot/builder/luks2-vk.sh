# LUKS2 on the whole disk, ext4 inside (passphrase), with the volume key
# $VK (64 printable bytes, so the params line carries it) rather than a
# random one: the boot test computes PCR 15's value from it
# (scenarios_pcr.py, tpm2-measure-pcr=yes).
printf '%s' "$VK" > /tmp/vk
printf '%s' "$PASS" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
	--uuid "$LUKS_UUID" --key-size 512 --volume-key-file /tmp/vk --key-file - "$1"
printf '%s' "$PASS" | cryptsetup open --key-file - "$1" cr_root
cryptsetup luksDump "$1" | grep -E '^(Version|UUID|Cipher|	PBKDF|	Iterations|[ 	]*[0-9]+: luks)'
mkroot_ext4 /dev/mapper/cr_root
luks_close
