# LUKS2 on the whole disk, ext4 inside (passphrase), plus a clevis token
# bound to Tang at $TANG_URL with the advertisement builder.py fetched on
# the host (/src/tang.adv): no network here, and no trust prompt.
luks_format luks2 "$1"
mkroot_ext4 /dev/mapper/cr_root
luks_close
# clevis makes the new slot's key with pwmake, which wants cracklib's
# dictionary: any random text does here.
mkdir -p /tmp/bin
# clevis-encrypt-tang reads a process substitution: bash's /dev/fd/N.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
printf '#!/bin/sh\nhead -c 32 /dev/urandom | od -An -tx1 | tr -d " \\n"\n' > /tmp/bin/pwmake
chmod +x /tmp/bin/pwmake
printf '%s' "$PASS" | PATH=/tmp/bin:$PATH clevis luks bind -y -k - -d "$1" tang \
	"{\"url\":\"$TANG_URL\",\"adv\":\"/src/tang.adv\"}"
cryptsetup luksDump "$1" | grep -E '^Tokens:|clevis|^	Keyslot:'
