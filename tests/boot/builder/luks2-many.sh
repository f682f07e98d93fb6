# Many LUKS2 partitions on one disk, each with a passphrase and a UUID of
# its own (scenarios_plymouth's questions in a row): UUIDS and PASSES
# are space-separated lists, in partition order; partition ROOT_PART
# holds the ext4 root, the others nothing.  Small LUKS2 headers (16 KiB
# of metadata, 256 KiB of key slots, where the default takes 16 MiB) so
# that a 2 MiB partition holds one: the disk stays 64 MiB.
disk=$1
n=$(echo $UUIDS | wc -w)
{
	echo 'label: gpt'
	for i in $(seq 1 "$n"); do
		size=2MiB
		[ "$i" = "$ROOT_PART" ] && size=32MiB
		echo "size=$size, type=linux, name=vol$i"
	done
} | sfdisk -q "$disk"
for i in $(seq 1 50); do [ -b "$disk$n" ] && break; sleep 0.1; done
[ -b "$disk$n" ] || { echo "no $disk$n after partitioning"; exit 1; }
i=0
for u in $UUIDS; do
	i=$((i + 1))
	pass=$(echo $PASSES | cut -d' ' -f$i)
	[ -n "$pass" ] || { echo "no passphrase for partition $i"; exit 1; }
	printf '%s' "$pass" | cryptsetup luksFormat --batch-mode --type luks2 $FAST_KDF \
		--luks2-metadata-size 16k --luks2-keyslots-size 256k --uuid "$u" \
		--key-file - "$disk$i"
	echo "vol$i: $disk$i LUKS2 $u"
done
pass=$(echo $PASSES | cut -d' ' -f"$ROOT_PART")
printf '%s' "$pass" | cryptsetup open --key-file - "$disk$ROOT_PART" cr_root
mkroot_ext4 /dev/mapper/cr_root
luks_close
