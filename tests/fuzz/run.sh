#!/bin/sh
# Build the libFuzzer targets with clang (ASan + UBSan) and run each for a
# short while from seed images made here plus the committed corpus of
# crafted ones (tests/fuzz/corpus/TARGET, from make-corpus.py); exit
# non-zero on a crash, a leak or a build failure. FUZZ_SECONDS (default
# 15) per target, FUZZ_TARGETS (default all) a space-separated subset,
# FUZZ_OUT (default a temp dir) keeps the build and the corpus.
set -eu

src=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${FUZZ_SECONDS:-15}
out=${FUZZ_OUT:-$(mktemp -d /tmp/uniramfs-fuzz.XXXXXX)}
cc=${CC_FUZZ:-clang}
mkdir -p "$out"

targets=${FUZZ_TARGETS:-fuzz_cpio fuzz_image fuzz_extract fuzz_config fuzz_cmdline fuzz_uki fuzz_authorized_keys fuzz_console fuzz_luks2 fuzz_elf fuzz_dhcp fuzz_ipconf}

# The targets' sources are listed once, in tests/fuzz/meson.build: build
# them there, with clang, ASan and UBSan, stopping at the first report.
echo "fuzz: building in $out with $cc"
if [ ! -f "$out/build/build.ninja" ]; then
	CC=$cc meson setup "$out/build" "$src" -Dfuzz=true -Db_sanitize=address,undefined \
		-Db_lundef=false -Dc_args=-fno-sanitize-recover=all >"$out/setup.log" 2>&1 ||
		{ cat "$out/setup.log"; exit 1; }
fi
paths=
for t in $targets; do
	case $t in
	fuzz_dhcp | fuzz_ipconf) paths="$paths tests/fuzz/net/$t" ;;
	*) paths="$paths tests/fuzz/$t" ;;
	esac
done
# shellcheck disable=SC2086
ninja -C "$out/build" $paths >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
for p in $paths; do
	ln -sf "$out/build/$p" "$out/${p##*/}"
done

# Seeds: a small tree as cpio, plain and in every compression the reader
# knows, and a multi-segment image.
seeds="$out/seeds"
rm -rf "$seeds" "$out/tree"
mkdir -p "$seeds" "$out/tree/etc" "$out/tree/bin"
echo hello > "$out/tree/etc/hello"
ln -s ../etc/hello "$out/tree/bin/link"
(cd "$out/tree" && find . | LC_ALL=C sort | cpio --quiet -o -H newc) > "$seeds/plain.cpio"
zstd -q -c "$seeds/plain.cpio" > "$seeds/img.zst"
xz --check=crc32 -c "$seeds/plain.cpio" > "$seeds/img.xz"
gzip -n -c "$seeds/plain.cpio" > "$seeds/img.gz"
if command -v lz4 > /dev/null; then lz4 -q -l -c "$seeds/plain.cpio" > "$seeds/img.lz4"; fi
{ cat "$seeds/plain.cpio"; head -c 16 /dev/zero; cat "$seeds/img.zst" "$seeds/img.gz"; } \
	> "$seeds/multi.img"

# fuzz_extract reads a flags byte before the image
mkdir -p "$out/seeds-extract"
for f in "$seeds"/*; do
	{ printf '\0'; cat "$f"; } > "$out/seeds-extract/${f##*/}"
done

# fuzz_uki starts from systemd's stub, when it is installed
mkdir -p "$out/seeds-uki"
stub=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
[ -f "$stub" ] && cp "$stub" "$out/seeds-uki/"

# fuzz_console starts from real fonts (PSF1, PSF2 with Unicode tables)
# and a compiled keymap, when the host has them (console-data, kbd)
mkdir -p "$out/seeds-console"
for f in /usr/share/consolefonts/lat9w-16.psf.gz /usr/share/consolefonts/LatArCyrHeb-16.psf.gz \
	/usr/share/consolefonts/default8x16.psf.gz; do
	[ -f "$f" ] && gzip -dc "$f" > "$out/seeds-console/$(basename "$f" .gz)"
done
map=/usr/share/keymaps/i386/qwertz/de-latin1.kmap.gz
if [ -f "$map" ] && command -v loadkeys > /dev/null; then
	loadkeys -q -u -b "$map" > "$out/seeds-console/de-latin1.bmap" < /dev/null || true
fi

# fuzz_luks2 starts from a token list as a LUKS2 header's JSON area
# holds one (a systemd-tpm2 and a foreign token)
mkdir -p "$out/seeds-luks2"
printf '%s' '{"keyslots":{"0":{"type":"luks2"}},"tokens":{"0":{"type":"systemd-tpm2","keyslots":["0"]},"1":{"type":"x"}},"segments":{},"digests":{},"config":{"json_size":"12288"}}' \
	> "$out/seeds-luks2/tokens.json"

# fuzz_elf starts from real programs and libraries: a PIE, libc (GNU
# hash, versions defined and needed), a library with a DT_HASH table
mkdir -p "$out/seeds-elf"
for f in /usr/bin/true /lib/x86_64-linux-gnu/libc.so.6 /lib/x86_64-linux-gnu/libz.so.1; do
	[ -f "$f" ] && cp -L "$f" "$out/seeds-elf/"
done

status=0
for t in $targets; do
	dirs="$seeds"
	[ "$t" = fuzz_extract ] && dirs="$out/seeds-extract"
	[ "$t" = fuzz_uki ] && dirs="$out/seeds-uki"
	[ "$t" = fuzz_console ] && dirs="$out/seeds-console"
	[ "$t" = fuzz_luks2 ] && dirs="$out/seeds-luks2"
	[ "$t" = fuzz_elf ] && dirs="$out/seeds-elf"
	[ -d "$src/tests/fuzz/corpus/$t" ] && dirs="$dirs $src/tests/fuzz/corpus/$t"
	mkdir -p "$out/corpus-$t"
	echo "fuzz: running $t for ${seconds}s (corpus $out/corpus-$t)"
	# shellcheck disable=SC2086
	if ! "$out/$t" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
		-timeout=10 -artifact_prefix="$out/$t-" -print_final_stats=1 \
		"$out/corpus-$t" $dirs > "$out/$t.log" 2>&1; then
		echo "fuzz: $t FAILED, log follows (artifacts: $out/$t-*)"
		tail -n 60 "$out/$t.log"
		status=1
	else
		grep -E '^stat::number_of_executed_units|^Done' "$out/$t.log" || true
		echo "fuzz: $t ok"
	fi
done
exit $status
