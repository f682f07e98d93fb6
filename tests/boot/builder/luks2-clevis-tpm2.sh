# LUKS2 on the whole disk, ext4 inside (passphrase), plus a clevis token
# bound with the tpm2 pin ($PIN tpm2, $PINCFG {}: no PCRs, for the reason
# luks2-tpm2.sh gives; or $PIN sss joining it to Tang, whose advertisement
# builder.py fetched, /src/tang.adv) to the builder VM's swtpm, whose state
# builder.py keeps with the disk.
luks_format luks2 "$1"
mkroot_ext4 /dev/mapper/cr_root
luks_close
[ -e /dev/tpmrm0 ] || { echo "builder: no /dev/tpmrm0"; exit 1; }
mkdir -p /tmp/bin
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# clevis makes the new slot's key with pwmake (cracklib): random text does
printf '#!/bin/sh\nhead -c 32 /dev/urandom | od -An -tx1 | tr -d " \\n"\n' > /tmp/bin/pwmake
chmod +x /tmp/bin/pwmake
printf '%s' "$PASS" | PATH=/tmp/bin:$PATH clevis luks bind -y -k - -d "$1" "$PIN" "$PINCFG"
cryptsetup luksDump "$1" | grep -E '^Tokens:|clevis|^	Keyslot:'
