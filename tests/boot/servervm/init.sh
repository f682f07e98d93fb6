#!/usr/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-or-later
# /init of the boot tests' server VM (tests/boot/servervm.py): serve DHCP
# (busybox udhcpd, with a root-path, option 17) and the test root over
# NFSv3 and v4 (kernel nfsd, rpcbind, rpc.mountd; sv.nov4=1: v3 only) and,
# with sv.nbd=NAME, over NBD (nbd-server, the disk read-only as export
# NAME on port 10809) and, with sv.iscsi=IQN, over iSCSI (tgtd, the disk
# read-only as LUN 1 of target IQN, open to any initiator) and, with
# sv.nvmet=NQN, over NVMe/TCP (the kernel's nvmet, the disk as namespace 1
# of subsystem NQN on port 4420, open to any host or to sv.nvmethost=) and,
# with sv.ipv6=ADDR/PREFIX,POOL, over IPv6 too (ADDR on the wire, dnsmasq's
# router advertisements and DHCPv6 handing out POOL) and, with sv.vlan=ID,
# with its IPv4 addresses and DHCP on a VLAN (eth0.ID) only, and, with
# sv.dns=NAME, DNS for that one name (dnsmasq) on its one NIC, a QEMU
# socket netdev whose only other end is the guest under test.  The test
# root is the ext4 disk /dev/vda, mounted read-only at the export path.
# Parameters come on the kernel command line as sv.KEY=VALUE (see
# servervm.py).  Prints "SERVERVM-READY" once every service answers, or
# "SERVERVM-FAIL: why"; then serves until QEMU is killed.
/usr/bin/busybox mkdir -p /bin /sbin
/usr/bin/busybox --install -s /bin
/usr/bin/busybox ln -s /bin/modprobe /sbin/modprobe   # the kernel's request_module
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

fail() {
	echo "SERVERVM-FAIL: $*"
	poweroff -f
	echo o > /proc/sysrq-trigger
	sleep 60
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo 1 > /proc/sys/kernel/sysrq

addr='' exp_dir='' rootpath='' pool='' siaddr='' nfsbin='' nfsd_opts='' nbd='' iscsi=''
nvmet='' nvmethost='' ipv6='' vlan='' dns=''
for kv in $(cat /proc/cmdline); do
	case "$kv" in
	sv.addr=*) addr=${kv#sv.addr=} ;;
	sv.export=*) exp_dir=${kv#sv.export=} ;;
	sv.rootpath=*) rootpath=${kv#sv.rootpath=} ;;
	sv.pool=*) pool=${kv#sv.pool=} ;;
	sv.siaddr=*) siaddr=${kv#sv.siaddr=} ;;
	sv.nfsbin=*) nfsbin=${kv#sv.nfsbin=} ;;
	sv.nov4=1) nfsd_opts="-N 4" ;;
	sv.nbd=*) nbd=${kv#sv.nbd=} ;;
	sv.iscsi=*) iscsi=${kv#sv.iscsi=} ;;
	sv.nvmet=*) nvmet=${kv#sv.nvmet=} ;;
	sv.nvmethost=*) nvmethost=${kv#sv.nvmethost=} ;;
	sv.ipv6=*) ipv6=${kv#sv.ipv6=} ;;
	sv.vlan=*) vlan=${kv#sv.vlan=} ;;
	sv.dns=*) dns=${kv#sv.dns=} ;;
	esac
done
[ -n "$addr" ] && [ -n "$exp_dir" ] && [ -n "$pool" ] && [ -n "$nfsbin" ] ||
	fail "missing sv.addr, sv.export, sv.pool or sv.nfsbin on the command line"
PATH=$nfsbin:$PATH

for m in virtio_pci virtio_net virtio_blk crc32c_generic ext4 nfsd; do
	modprobe "$m" || fail "modprobe $m"
done

# What glibc, libtirpc and nfs-utils look for (the rest came in the image:
# /etc/services, /etc/protocols, /etc/netconfig, /etc/rpc).
mkdir -p /etc /run /var/lib/nfs/v4recovery /var/lib/nfs/rpc_pipefs /tmp
ln -s /run /var/run
echo "root:x:0:0:root:/:/bin/sh" > /etc/passwd
echo "_rpc:x:100:65534::/run/rpcbind:/bin/false" >> /etc/passwd
echo "root:x:0:" > /etc/group
echo "nogroup:x:65534:" >> /etc/group
printf 'passwd: files\ngroup: files\nhosts: files\n' > /etc/nsswitch.conf
printf '127.0.0.1 localhost\n%s server\n' "${addr%/*}" > /etc/hosts
: > /var/lib/nfs/etab
: > /var/lib/nfs/rmtab

ip link set lo up
ifc=eth0
# --- VLAN (sv.vlan=ID; servervm.start(vlan=ID)) ---
# The addresses and DHCP on eth0.ID, a VLAN of eth0, and none on eth0
# itself: only 802.1Q-tagged frames of that VLAN reach a service.
if [ -n "$vlan" ]; then
	modprobe 8021q || fail "modprobe 8021q"
	ip link set eth0 up || fail "ip link set eth0 up"
	ip link add link eth0 name "eth0.$vlan" type vlan id "$vlan" || fail "VLAN $vlan on eth0"
	ifc=eth0.$vlan
fi
ip addr add "$addr" dev "$ifc" || fail "ip addr add $addr dev $ifc"
# A next-server other than the server id is a second address of this VM.
if [ -n "$siaddr" ] && [ "$siaddr" != "${addr%/*}" ]; then
	ip addr add "$siaddr/${addr#*/}" dev "$ifc" || fail "ip addr add $siaddr dev $ifc"
fi
ip link set "$ifc" up || fail "ip link set $ifc up"

dev=
for _ in $(seq 1 100); do
	[ -b /dev/vda ] && dev=/dev/vda && break
	sleep 0.1
done
[ -n "$dev" ] || fail "no export disk /dev/vda"
mkdir -p "$exp_dir"
mount -t ext4 -o ro "$dev" "$exp_dir" || fail "mount $dev $exp_dir"
[ -x "$exp_dir/sbin/init" ] || fail "$dev holds no sbin/init"

# The pool is one address, so the guest's lease is known in advance.
cat > /etc/udhcpd.conf <<EOF
start $pool
end $pool
interface $ifc
max_leases 1
auto_time 0
lease_file /run/udhcpd.leases
pidfile /run/udhcpd.pid
siaddr ${siaddr:-0.0.0.0}
opt subnet 255.255.255.0
opt lease 3600
EOF
# As "opt rootpath VALUE" udhcpd would cut the value at its first comma;
# a quoted value for the option's number is sent whole.
[ -n "$rootpath" ] && echo "opt 17 '$rootpath'" >> /etc/udhcpd.conf

: > /run/udhcpd.leases

net=${addr%.*}.0/${addr#*/}
echo "$exp_dir $net(ro,no_root_squash,no_subtree_check,insecure)" > /etc/exports

# --- IPv6 (sv.ipv6=ADDR/PREFIX,POOL; servervm.start(ipv6=True)) ---
# ADDR on the wire, NFS exported to its prefix, and dnsmasq (DNS off)
# sending router advertisements (A flag: SLAAC; M flag: DHCPv6) with
# ADDR as RDNSS and "test" as DNSSL, and handing out POOL by DHCPv6.
if [ -n "$ipv6" ]; then
	addr6=${ipv6%,*} pool6=${ipv6#*,}
	echo 0 > /proc/sys/net/ipv6/conf/eth0/accept_ra
	echo 0 > /proc/sys/net/ipv6/conf/eth0/accept_dad # busybox ip has no nodad
	ip -6 addr add "$addr6" dev eth0 || fail "ip -6 addr add $addr6"
	echo "$exp_dir ${addr6%::*}::/${addr6#*/}(ro,no_root_squash,no_subtree_check,insecure)" >> /etc/exports
	cat > /etc/dnsmasq.conf <<EOF
port=0
interface=eth0
bind-interfaces
enable-ra
ra-param=eth0,10,0
dhcp-range=$pool6,$pool6,slaac,${addr6#*/},1h
dhcp-option=option6:dns-server,[${addr6%/*}]
dhcp-option=option6:domain-search,test
dhcp-leasefile=/run/dnsmasq.leases
pid-file=/run/dnsmasq.pid
user=root
log-dhcp
EOF
fi

# --- DNS, only with sv.dns=NAME.DOMAIN: dnsmasq answers NAME.DOMAIN with
# this server's address (with sv.ipv6, its IPv6 address too: an AAAA
# record, and it listens there, the DNS server DHCPv6 and the RAs name)
# and every other name in DOMAIN with NXDOMAIN (it has no upstream), and
# DHCP names it (option 6), DOMAIN (option 15) and the search list
# lab.DOMAIN DOMAIN (option 119, compressed by udhcpd).  After the IPv6
# block: dnsmasq binds the addresses it listens on.
if [ -n "$dns" ]; then
	echo "opt dns ${addr%/*}" >> /etc/udhcpd.conf
	echo "opt domain ${dns#*.}" >> /etc/udhcpd.conf
	echo "opt search lab.${dns#*.} ${dns#*.}" >> /etc/udhcpd.conf
	record="$dns,${addr%/*}" listen6=''
	if [ -n "$ipv6" ]; then
		record="$record,${addr6%/*}" listen6="--listen-address=${addr6%/*}"
	fi
	# shellcheck disable=SC2086 # listen6 is one word or none
	# --conf-file=/dev/null: the IPv6 block's /etc/dnsmasq.conf is the other dnsmasq's
	dnsmasq --conf-file=/dev/null --user=root --group=root --no-resolv --no-hosts --no-poll --bind-interfaces \
		--listen-address="${addr%/*}" $listen6 --port=53 --host-record="$record" \
		--local="/${dns#*.}/" --pid-file=/run/dnsmasq-dns.pid --log-queries --log-facility=- ||
		fail "dnsmasq"
	for _ in $(seq 1 50); do
		grep -q ":0035 " /proc/net/udp && break
		sleep 0.2
	done
	grep -q ":0035 " /proc/net/udp || fail "dnsmasq does not listen on 53/udp"
	echo "servervm: dnsmasq: $dns is $record"
fi

mount -t nfsd nfsd /proc/fs/nfsd || fail "mount -t nfsd"
mount -t rpc_pipefs sunrpc /var/lib/nfs/rpc_pipefs || fail "mount -t rpc_pipefs"
mkdir -p /run/rpcbind
rpcbind || fail "rpcbind"
exportfs -ra || fail "exportfs -ra"
rpc.mountd || fail "rpc.mountd"
# The shortest v4 grace period: a v4 client opens no file before it ends.
# shellcheck disable=SC2086 # nfsd_opts is words
rpc.nfsd -G 10 -L 10 $nfsd_opts 4 || fail "rpc.nfsd $nfsd_opts"
udhcpd /etc/udhcpd.conf || fail "udhcpd"
if [ -n "$ipv6" ]; then
	dnsmasq -C /etc/dnsmasq.conf || fail "dnsmasq"
fi
if [ -n "$nbd" ]; then
	mkdir -p /etc/nbd-server
	printf '[generic]\n    port = 10809\n    allowlist = false\n[%s]\n    exportname = %s\n    readonly = true\n' \
		"$nbd" "$dev" > /etc/nbd-server/config
	nbd-server -C /etc/nbd-server/config || fail "nbd-server"
fi

for _ in $(seq 1 50); do
	rpcinfo -p 127.0.0.1 > /tmp/rpcinfo 2>&1
	grep -q " 3 *tcp .*nfs" /tmp/rpcinfo && grep -q " 3 *tcp .*mountd" /tmp/rpcinfo && break
	sleep 0.2
done
if [ -n "$iscsi" ]; then
	mkdir -p /run/tgtd
	tgtd || fail "tgtd"
	for _ in $(seq 1 50); do
		tgtadm --lld iscsi --op show --mode target > /dev/null 2>&1 && break
		sleep 0.2
	done
	tgtadm --lld iscsi --op new --mode target --tid 1 -T "$iscsi" || fail "tgtadm: target $iscsi"
	tgtadm --lld iscsi --op new --mode logicalunit --tid 1 --lun 1 -b "$dev" ||
		fail "tgtadm: LUN 1 on $dev"
	# the disk is QEMU's read-only: say so to the initiator too
	tgtadm --lld iscsi --op update --mode logicalunit --tid 1 --lun 1 --params readonly=1 ||
		fail "tgtadm: LUN 1 read-only"
	tgtadm --lld iscsi --op bind --mode target --tid 1 -I ALL || fail "tgtadm: bind"
fi
# PORT (hex) listening (state 0A), on either family
listening() {
	cat /proc/net/tcp /proc/net/tcp6 2> /dev/null | grep -q ":$1 [0-9A-F:]* 0A "
}
if [ -n "$nbd" ]; then
	for _ in $(seq 1 50); do
		listening 2A39 && break
		sleep 0.2
	done
	listening 2A39 || fail "nbd-server does not listen on 10809"
	echo "servervm: nbd-server: export $nbd is $dev, read-only"
fi
if [ -n "$iscsi" ]; then
	listening 0CBC || fail "tgtd does not listen on 3260"
	echo "servervm: tgtd: $(tgtadm --lld iscsi --op show --mode target | grep -E 'Target|LUN:|Backing store path|Readonly' | tr -s ' \n' ' ')"
fi
# ---- NVMe over TCP (sv.nvmet=NQN): the kernel's own target, set up
# through configfs: the disk as namespace 1 of subsystem NQN, on a TCP
# port (4420) of the server's address; the discovery controller comes
# with the port. Any host, or only sv.nvmethost= (the guest's host NQN).
if [ -n "$nvmet" ]; then
	for m in nvmet nvmet_tcp; do
		modprobe "$m" || fail "modprobe $m"
	done
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config || fail "mount -t configfs"
	cfg=/sys/kernel/config/nvmet
	sub=$cfg/subsystems/$nvmet
	mkdir "$sub" || fail "nvmet: subsystem $nvmet"
	if [ -n "$nvmethost" ]; then
		mkdir "$cfg/hosts/$nvmethost" || fail "nvmet: host $nvmethost"
		echo 0 > "$sub/attr_allow_any_host"
		ln -s "$cfg/hosts/$nvmethost" "$sub/allowed_hosts/$nvmethost" || fail "nvmet: allow $nvmethost"
	else
		echo 1 > "$sub/attr_allow_any_host"
	fi
	mkdir "$sub/namespaces/1" || fail "nvmet: namespace 1"
	printf '%s' "$dev" > "$sub/namespaces/1/device_path"
	echo 1 > "$sub/namespaces/1/enable" || fail "nvmet: namespace 1 on $dev"
	mkdir "$cfg/ports/1" || fail "nvmet: port 1"
	echo tcp > "$cfg/ports/1/addr_trtype"
	echo ipv4 > "$cfg/ports/1/addr_adrfam"
	echo "${addr%/*}" > "$cfg/ports/1/addr_traddr"
	echo 4420 > "$cfg/ports/1/addr_trsvcid"
	ln -s "$sub" "$cfg/ports/1/subsystems/$nvmet" || fail "nvmet: port 1 serves $nvmet"
	listening 1144 || fail "nvmet-tcp does not listen on 4420"
	echo "servervm: nvmet: $nvmet namespace 1 is $dev on tcp ${addr%/*}:4420, hosts: ${nvmethost:-any}"
fi
sed 's/^/servervm: rpcinfo: /' /tmp/rpcinfo
grep -q " 3 *tcp .*nfs" /tmp/rpcinfo || fail "nfs v3 is not registered with rpcbind"
grep -q " 3 *tcp .*mountd" /tmp/rpcinfo || fail "mountd v3 is not registered with rpcbind"
echo "servervm: exports: $(exportfs -v | tr -s ' \t\n' ' ')"
echo "servervm: udhcpd: $(grep -v '^ *$' /etc/udhcpd.conf | tr '\n' ';')"
pidof udhcpd > /dev/null || fail "udhcpd is not running"
if [ -n "$ipv6" ]; then
	pidof dnsmasq > /dev/null || fail "dnsmasq is not running"
	listening 0801 || fail "nfsd does not listen on 2049"
	echo "servervm: ipv6: $(ip -6 addr show dev eth0 | grep inet6 | tr -s ' \n' ' ')"
fi
echo "servervm: up for $(cut -d' ' -f1 /proc/uptime) s"
echo "SERVERVM-READY"
while :; do
	sleep 3600
done
