# LUKS1 on the whole disk, ext4 inside (passphrase), plus a clevis binding
# with the tpm2 pin ('{}': no PCRs, as luks2-clevis-tpm2.sh) in luksmeta's
# slots (booster's luks1.clevis.tpm2.img), sealed by the builder VM's
# swtpm, whose state builder.py keeps with the disk.
luks_format luks1 "$1"
mkroot_ext4 /dev/mapper/cr_root
luks_close
[ -e /dev/tpmrm0 ] || { echo "builder: no /dev/tpmrm0"; exit 1; }
mkdir -p /tmp/bin
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# clevis makes the new slot's key with pwmake (cracklib): random text does
printf '#!/bin/sh\nhead -c 32 /dev/urandom | od -An -tx1 | tr -d " \\n"\n' > /tmp/bin/pwmake
chmod +x /tmp/bin/pwmake
printf '%s' "$PASS" | PATH=/tmp/bin:$PATH clevis luks bind -y -k - -d "$1" tpm2 '{}'
luksmeta show -d "$1"
