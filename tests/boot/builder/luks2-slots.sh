# LUKS2 on the whole disk, ext4 inside, with two passphrases: PASS in
# key slot 0, PASS2 in key slot 1 (crypttab's key-slot= picks one).
luks_format luks2 "$1"
printf '%s' "$PASS" > /tmp/pass0
printf '%s' "$PASS2" > /tmp/pass1
cryptsetup luksAddKey --batch-mode $FAST_KDF --key-slot 1 --key-file /tmp/pass0 "$1" /tmp/pass1
rm -f /tmp/pass0 /tmp/pass1
cryptsetup luksDump "$1" | grep -E '^  [0-9]+: luks2'
mkroot_ext4 /dev/mapper/cr_root
luks_close
