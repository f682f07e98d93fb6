# LUKS2 on the whole disk, ext4 inside (passphrase), plus a systemd-tpm2
# token that needs a PIN ($PIN): systemd-cryptenroll --tpm2-with-pin=yes,
# the PIN through $NEWPIN as systemd 252 reads it, sealed by the builder
# VM's swtpm (builder.py keeps its state with the disk).  No PCRs, for the
# reason luks2-tpm2.sh gives.
luks_format luks2 "$1"
mkroot_ext4 /dev/mapper/cr_root
luks_close
[ -e /dev/tpmrm0 ] || { echo "builder: no /dev/tpmrm0"; exit 1; }
PASSWORD="$PASS" NEWPIN="$PIN" systemd-cryptenroll --tpm2-device=auto --tpm2-pcrs= \
	--tpm2-with-pin=yes "$1"
cryptsetup luksDump "$1" | grep -E '^Tokens:|systemd-tpm2|tpm2-pin|^	Keyslot:'
