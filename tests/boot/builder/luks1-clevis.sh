# LUKS1 on the whole disk, ext4 inside (passphrase), plus a clevis binding
# to Tang at $TANG_URL in luksmeta's slots (booster's
# luks1.clevis.tang.img), with the advertisement builder.py fetched on the
# host (/src/tang.adv): no network here, and no trust prompt.
luks_format luks1 "$1"
mkroot_ext4 /dev/mapper/cr_root
luks_close
mkdir -p /tmp/bin
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# clevis makes the new slot's key with pwmake (cracklib): random text does
printf '#!/bin/sh\nhead -c 32 /dev/urandom | od -An -tx1 | tr -d " \\n"\n' > /tmp/bin/pwmake
chmod +x /tmp/bin/pwmake
printf '%s' "$PASS" | PATH=/tmp/bin:$PATH clevis luks bind -y -k - -d "$1" tang \
	"{\"url\":\"$TANG_URL\",\"adv\":\"/src/tang.adv\"}"
luksmeta show -d "$1"
