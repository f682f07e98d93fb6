#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Write the committed seeds of the network fuzzers: three command lines
# for fuzz_ipconf, a DHCP ACK (bare and in its IPv4/UDP frame) for
# fuzz_dhcp, nfsroot= over DHCP root-paths for fuzz_nfs, iBFT tables
# for fuzz_ibft.   tests/fuzz/make-net-corpus.sh [OUTDIR] (default tests/fuzz/corpus)
set -eu
corpus=${1:-$(dirname "$0")/corpus}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/seeds-ipconf" "$out/seeds-dhcp"
printf '%s' "ip=10.0.0.5:10.0.0.1:10.0.0.254:255.255.255.0:h:eth0:off:10.0.0.2:10.0.0.3:10.0.0.4 root=/dev/nfs nfsroot=10.0.0.1:/srv/%s,ro" \
	> "$out/seeds-ipconf/kernel"
printf '%s' "ip=[2001:db8::2]::[2001:db8::1]:64:h:eth0:none:1500:52:54:00:12:34:56 netroot=iscsi:u:p@[2001:db8::1]:6:3260:1:iqn.x:t" \
	> "$out/seeds-ipconf/dracut"
printf '%s' "ip=eth0:dhcp ifname=lan0:52:54:00:aa:bb:cc BOOTIF=01-52-54-00-aa-bb-cc nameserver=10.0.0.53 netroot=nbd:10.0.0.1:10809/root:ext4:ro" \
	> "$out/seeds-ipconf/nbd"
# A DHCP ACK with the options the client reads, in an IPv4/UDP frame.
python3 - "$out/seeds-dhcp" <<'PY'
import struct, sys, os
d = sys.argv[1]
def csum(b):
    if len(b) % 2: b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
msg = bytearray(240)
msg[0:3] = b"\x02\x01\x06"
msg[16:20] = bytes([10, 0, 2, 15])
msg[28:34] = bytes([0x52, 0x54, 0, 0x12, 0x34, 0x56])
msg[236:240] = bytes([99, 130, 83, 99])
opts = bytes([53, 1, 5, 54, 4, 10, 0, 2, 2, 1, 4, 255, 255, 255, 0, 3, 4, 10, 0, 2, 2,
              6, 8, 10, 0, 2, 3, 10, 0, 2, 4, 12, 4]) + b"host" + bytes([15, 3]) + b"lan" + \
       bytes([17, 9]) + b"nfs:/srv/" + bytes([52, 1, 3, 26, 2, 5, 220, 51, 4, 0, 0, 14, 16, 255])
msg += opts
open(os.path.join(d, "ack"), "wb").write(msg)
# option 119 (RFC 3397's example, compressed, split over two instances)
search = bytes([119, 15, 3]) + b"eng" + bytes([5]) + b"apple" + bytes([3]) + b"com" + bytes([0]) + \
         bytes([119, 12, 9]) + b"marketing" + bytes([0xc0, 4])
open(os.path.join(d, "ack-search"), "wb").write(msg[:-1] + search + bytes([255]))
src, dst = bytes([10, 0, 2, 2]), bytes([255] * 4)
udp = struct.pack("!HHHH", 67, 68, 8 + len(msg), 0) + msg
ph = src + dst + struct.pack("!BBH", 0, 17, len(udp))
udp = udp[:6] + struct.pack("!H", csum(ph + udp) or 0xffff) + udp[8:]
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, src, dst)
ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
open(os.path.join(d, "frame"), "wb").write(ip + udp)
PY
# fuzz_nfs: the administrator's nfsroot= on the first line, DHCP's
# root-path (option 17) after it: the rogue's redirections, an IPv6
# server, no nfsroot= at all (root=dhcp), a path-only nfsroot=.
mkdir -p "$out/seeds-nfs"
printf '10.0.0.1:/export\n/x,addr=6.6.6.6,port=2049' > "$out/seeds-nfs/rogue-addr"
printf '10.0.0.1:/export,port=2049,vers=3\n6.6.6.6:/x,mountaddr=6.6.6.6,mountport=635,proto=udp,nolock' \
	> "$out/seeds-nfs/rogue-mount"
printf '[2001:db8::1]:/srv/%%s,ro,v4.1\n[2001:db8::6]:/evil,ADDR=2001:db8::6,Port=1' > "$out/seeds-nfs/ipv6"
printf '\nnfs4:10.0.2.2:/srv/root:vers=4.2,sec=sys' > "$out/seeds-nfs/dhcp-only"
printf '/export,tcp\n10.0.2.2:default,rsize=8192' > "$out/seeds-nfs/path-only"
# fuzz_ibft: records, each an attribute's number then its value (see
# fuzz_ibft.c for the order): a booted target with CHAP and its NIC.
python3 - "$out/seeds-ibft" <<'PY'
import os, sys
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
target = ["flags", "nic-assoc", "ip-addr", "port", "lun", "target-name",
          "chap-name", "chap-secret", "rev-chap-name", "rev-chap-name-secret"]
nic = ["mac", "ip-addr", "gateway", "primary-dns", "secondary-dns", "subnet-mask", "hostname", "origin"]
def key(slot, kind, name):
    base = 1 + slot * (len(target) + len(nic))
    return base + (target.index(name) if kind == "t" else len(target) + nic.index(name))
def rec(k, v):
    return bytes([k]) + v.encode() + b"\n"
boot = rec(0, "iqn.2009-06.dev.uniramfs:client")
for n, v in [("flags", "3"), ("nic-assoc", "0"), ("ip-addr", "10.0.2.2"), ("port", "3260"),
             ("lun", "00000000"), ("target-name", "iqn.2009-06.dev.uniramfs:root"),
             ("chap-name", "user"), ("chap-secret", "s3cret\xa0pass")]:
    boot += rec(key(0, "t", n), v)
for n, v in [("mac", "52:54:00:12:34:56"), ("ip-addr", "10.0.2.15"), ("gateway", "10.0.2.2"),
             ("subnet-mask", "255.255.255.0"), ("hostname", "client"), ("origin", "0")]:
    boot += rec(key(0, "n", n), v)
open(os.path.join(d, "booted"), "wb").write(boot)
two = rec(key(0, "t", "flags"), "1") + rec(key(0, "t", "ip-addr"), "2001:db8::1") + \
    rec(key(0, "t", "target-name"), "iqn.a:b") + rec(key(1, "t", "flags"), "3") + \
    rec(key(1, "t", "ip-addr"), "10.0.0.9") + rec(key(1, "t", "port"), "99999") + \
    rec(key(1, "t", "lun"), "0102000000000000") + rec(key(1, "t", "target-name"), "iqn.c:d") + \
    rec(key(1, "t", "nic-assoc"), "1") + rec(key(1, "n", "mac"), "52:54:00:aa:bb:cc") + \
    rec(key(1, "n", "origin"), "3")
open(os.path.join(d, "two-targets"), "wb").write(two)
PY
mkdir -p "$corpus/fuzz_ipconf" "$corpus/fuzz_dhcp" "$corpus/fuzz_nfs" "$corpus/fuzz_ibft"
cp "$out"/seeds-ipconf/* "$corpus/fuzz_ipconf/"
cp "$out"/seeds-dhcp/* "$corpus/fuzz_dhcp/"
cp "$out"/seeds-nfs/* "$corpus/fuzz_nfs/"
cp "$out"/seeds-ibft/* "$corpus/fuzz_ibft/"
