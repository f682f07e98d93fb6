# ZFS (tests/boot/scenarios_zfs.py): pool rpool on a GPT partition of the
# disk, bootfs rpool/ROOT/debian (mountpoint=/) holding the test root;
# with ZFS_ENCRYPT=1 that dataset is encrypted, keyformat=passphrase
# ($PASS).  Exported at the end, as an installer leaves it; with
# ZFS_FOREIGN=1 left imported by host id $ZFS_FOREIGN_HOSTID instead, as
# a pool another machine last used: importing it needs -f.
# the builder image packs zpool where the host has it (tests/zfs/fetch.py)
export PATH=/usr/local/sbin:/usr/local/bin:$PATH
modprobe zfs
if [ -n "$ZFS_FOREIGN" ]; then
	zgenhostid -f "$ZFS_FOREIGN_HOSTID"
	hostid
fi
echo 'label: gpt' | sfdisk -q "$1" && echo ',,' | sfdisk -q --append "$1"
for i in $(seq 1 50); do [ -b "${1}1" ] && break; sleep 0.1; done
zpool create -f -o ashift=9 -o cachefile=none -O mountpoint=none -O atime=off -R /mnt \
	rpool "${1}1"
zfs create -o mountpoint=none rpool/ROOT
if [ -n "$ZFS_ENCRYPT" ]; then
	# the fewest PBKDF2 iterations zfs takes: unlocking under TCG stays short
	printf '%s\n' "$PASS" | zfs create -o encryption=aes-256-gcm -o keyformat=passphrase \
		-o keylocation=prompt -o pbkdf2iters=100000 -o mountpoint=/ rpool/ROOT/debian
else
	zfs create -o mountpoint=/ rpool/ROOT/debian
fi
zpool set bootfs=rpool/ROOT/debian rpool
grep ' zfs ' /proc/mounts
cp -a "$SRC/." /mnt/
ls -l /mnt/sbin/init
zfs get -H -o name,property,value encryption,keyformat,mountpoint rpool/ROOT/debian
zpool list -H -o name,bootfs,health
if [ -n "$ZFS_FOREIGN" ]; then
	zfs umount -a
	zpool sync rpool
	zpool get -H -o value guid rpool
else
	zpool export rpool
fi
blkid "${1}1"
