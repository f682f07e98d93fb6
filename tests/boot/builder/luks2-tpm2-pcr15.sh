# Two LUKS2 disks, ext4 inside the first (the root), nothing in the
# second, each with a systemd-tpm2 token bound to PCR 15 as it is in the
# builder VM: zero (its init measures nothing). booster's supplantation
# latch (scenarios_pcr.py): whichever opens first by its token has its
# volume key measured into PCR 15, and the other's token no longer
# unseals in that boot.
luks_format luks2 "$1"
mkroot_ext4 /dev/mapper/cr_root
luks_close
printf '%s' "$PASS" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
	--uuid "$DATA_UUID" --key-file - "$2"
[ -e /dev/tpmrm0 ] || { echo "builder: no /dev/tpmrm0"; exit 1; }
PASSWORD="$PASS" systemd-cryptenroll --tpm2-device=auto --tpm2-pcrs=15 "$1"
PASSWORD="$PASS" systemd-cryptenroll --tpm2-device=auto --tpm2-pcrs=15 "$2"
cryptsetup luksDump "$2" | grep -E '^Tokens:|systemd-tpm2|tpm2-pcrs|^	Keyslot:'
