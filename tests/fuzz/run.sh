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

flags="-g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined"
flags="$flags -fno-sanitize-recover=all -I$src/src/common -I$src/src/gen -I$out"
common="$src/src/common/cpio.c $src/src/common/err.c $src/src/common/log.c $src/src/common/util.c"
: > "$out/config.h"

echo "fuzz: building in $out with $cc"
# shellcheck disable=SC2086
$cc $flags -o "$out/fuzz_cpio" "$src/tests/fuzz/fuzz_cpio.c" $common
# shellcheck disable=SC2086
$cc $flags -o "$out/fuzz_image" "$src/tests/fuzz/fuzz_image.c" $common \
	"$src/src/gen/compress.c" "$src/src/gen/image_read.c" -lzstd -llzma -llz4 -lz -lpthread
# shellcheck disable=SC2086
$cc $flags -o "$out/fuzz_extract" "$src/tests/fuzz/fuzz_extract.c" $common \
	"$src/src/common/nameset.c" "$src/src/gen/compress.c" "$src/src/gen/image_read.c" \
	"$src/src/gen/extract.c" "$src/src/gen/extract_path.c" -lzstd -llzma -llz4 -lz -lpthread
# shellcheck disable=SC2086
$cc $flags -o "$out/fuzz_config" "$src/tests/fuzz/fuzz_config.c" $common \
	"$src/src/gen/config.c" "$src/src/gen/compress.c" -lzstd -llzma -llz4 -lz -lpthread
# shellcheck disable=SC2086
$cc $flags -I"$src/src/init" -o "$out/fuzz_cmdline" "$src/tests/fuzz/fuzz_cmdline.c" $common \
	"$src/src/common/cmdline.c" "$src/src/init/options.c" "$src/src/init/mountopts.c"

# shellcheck disable=SC2086
$cc $flags -o "$out/fuzz_uki" "$src/tests/fuzz/fuzz_uki.c" $common "$src/src/gen/uki.c"

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

status=0
for t in ${FUZZ_TARGETS:-fuzz_cpio fuzz_image fuzz_extract fuzz_config fuzz_cmdline fuzz_uki}; do
	dirs="$seeds"
	[ "$t" = fuzz_extract ] && dirs="$out/seeds-extract"
	[ "$t" = fuzz_uki ] && dirs="$out/seeds-uki"
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
