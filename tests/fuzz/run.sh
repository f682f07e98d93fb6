#!/bin/sh
# Build the libFuzzer targets with clang (ASan + UBSan) and run each for a
# short while from seed images made here plus the committed corpus of
# crafted ones (tests/fuzz/corpus/TARGET, from make-corpus.py); exit
# non-zero on a crash, a leak or a build failure. FUZZ_SECONDS (default
# 15) per target, FUZZ_TARGETS (default all) a space-separated subset,
# FUZZ_OUT (default a temp dir) keeps the build and the corpus.
# Long campaigns: long.sh.
set -eu

src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/fuzz/prepare.sh
. "$src/tests/fuzz/prepare.sh"
seconds=${FUZZ_SECONDS:-15}
out=${FUZZ_OUT:-$(mktemp -d /tmp/uniramfs-fuzz.XXXXXX)}
mkdir -p "$out"
targets=${FUZZ_TARGETS:-$fuzz_all}

echo "fuzz: building in $out with ${CC_FUZZ:-clang}"
# shellcheck disable=SC2086
fuzz_build "$src" "$out" $targets
fuzz_seeds "$out"

status=0
for t in $targets; do
	dirs=$(fuzz_dirs "$src" "$out" "$t")
	mkdir -p "$out/corpus-$t"
	echo "fuzz: running $t for ${seconds}s (corpus $out/corpus-$t)"
	# shellcheck disable=SC2086
	if ! "$out/$t" -max_total_time="$seconds" -max_len="$(fuzz_max_len "$t")" -rss_limit_mb=2048 \
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
