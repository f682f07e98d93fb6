# LUKS2 on the whole disk, ext4 inside (passphrase), plus a systemd-tpm2
# token sealed to a signed PCR 11 policy: systemd-cryptenroll
# --tpm2-public-key= with the PEM in $PUB (scenarios_sigpol.py's key) and
# --tpm2-public-key-pcrs=11, no literal PCRs; the TPM releases the key
# only under a PCR 11 value that key's private half signed (the UKI's
# .pcrsig).  Sealed by the builder VM's swtpm (builder.py keeps its state).
luks_format luks2 "$1"
mkroot_ext4 /dev/mapper/cr_root
luks_close
[ -e /dev/tpmrm0 ] || { echo "builder: no /dev/tpmrm0"; exit 1; }
printf '%s\n' "$PUB" > /tmp/pcr-pub.pem
PASSWORD="$PASS" systemd-cryptenroll --tpm2-device=auto --tpm2-pcrs= \
	--tpm2-public-key=/tmp/pcr-pub.pem --tpm2-public-key-pcrs=11 "$1"
cryptsetup luksDump "$1" | grep -E '^Tokens:|systemd-tpm2|tpm2-pubkey|^	Keyslot:'
