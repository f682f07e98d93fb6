#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Write the committed seeds of the network fuzzers: three command lines
# for fuzz_ipconf and a DHCP ACK (bare and in its IPv4/UDP frame) for
# fuzz_dhcp.   tests/fuzz/make-net-corpus.sh [OUTDIR] (default tests/fuzz/corpus)
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
src, dst = bytes([10, 0, 2, 2]), bytes([255] * 4)
udp = struct.pack("!HHHH", 67, 68, 8 + len(msg), 0) + msg
ph = src + dst + struct.pack("!BBH", 0, 17, len(udp))
udp = udp[:6] + struct.pack("!H", csum(ph + udp) or 0xffff) + udp[8:]
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, src, dst)
ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
open(os.path.join(d, "frame"), "wb").write(ip + udp)
PY
mkdir -p "$corpus/fuzz_ipconf" "$corpus/fuzz_dhcp"
cp "$out"/seeds-ipconf/* "$corpus/fuzz_ipconf/"
cp "$out"/seeds-dhcp/* "$corpus/fuzz_dhcp/"
