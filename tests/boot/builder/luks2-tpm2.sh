# LUKS2 on the whole disk, ext4 inside (passphrase), plus a systemd-tpm2
# token sealed by the builder VM's swtpm (builder.py keeps its state with
# the disk).  --tpm2-pcrs= (none): under SeaBIOS and -kernel the PCRs
# differ between the builder's boot and the test's (another initrd,
# another command line), so binding to one would only test our VMs.
luks_format luks2 "$1"
mkroot_ext4 /dev/mapper/cr_root
luks_close
[ -e /dev/tpmrm0 ] || { echo "builder: no /dev/tpmrm0"; exit 1; }
PASSWORD="$PASS" systemd-cryptenroll --tpm2-device=auto --tpm2-pcrs= "$1"
cryptsetup luksDump "$1" | grep -E '^Tokens:|systemd-tpm2|^	Keyslot:'
