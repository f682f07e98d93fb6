#!/bin/sh
# Build the libFuzzer targets with clang (ASan + UBSan) and run each for a
# short while from seed images made here plus the committed corpus of
# crafted ones (tests/fuzz/corpus/TARGET, from make-corpus.py); exit
# non-zero on a crash, a leak or a build failure. FUZZ_SECONDS (default
# 10) per target, FUZZ_TARGETS (default all) a space-separated subset,
# FUZZ_OUT (default a temp dir) keeps the build and the corpus.
# FUZZ_JOBS (default the number of CPUs) targets run at once: each is one
# process, and nothing else runs beside this step in CI.
# Long campaigns: long.sh.
set -eu

src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/fuzz/prepare.sh
. "$src/tests/fuzz/prepare.sh"
seconds=${FUZZ_SECONDS:-10}
out=${FUZZ_OUT:-$(mktemp -d /tmp/uniramfs-fuzz.XXXXXX)}
mkdir -p "$out"
targets=${FUZZ_TARGETS:-$fuzz_all}

echo "fuzz: building in $out with ${CC_FUZZ:-clang}"
# shellcheck disable=SC2086
fuzz_build "$src" "$out" $targets
fuzz_seeds "$out"

jobs=${FUZZ_JOBS:-$(nproc)}

# one target, its exit status in OUT/TARGET.rc
run_one() {
	_t=$1 _rc=0
	# shellcheck disable=SC2046 # a list of words
	"$out/$_t" -max_total_time="$seconds" -max_len="$(fuzz_max_len "$_t")" -rss_limit_mb=2048 \
		-timeout=10 -artifact_prefix="$out/$_t-" -print_final_stats=1 \
		"$out/corpus-$_t" $(fuzz_dirs "$src" "$out" "$_t") > "$out/$_t.log" 2>&1 || _rc=$?
	echo "$_rc" > "$out/$_t.rc"
}

# what a finished target says, in the order of the list
report() {
	_t=$1
	if [ "$(cat "$out/$_t.rc")" != 0 ]; then
		echo "fuzz: $_t FAILED, log follows (artifacts: $out/$_t-*)"
		tail -n 60 "$out/$_t.log"
		status=1
	else
		grep -E '^stat::number_of_executed_units|^Done' "$out/$_t.log" || true
		echo "fuzz: $_t ok"
	fi
}

status=0
batch=
n=0
for t in $targets; do
	mkdir -p "$out/corpus-$t"
	echo "fuzz: running $t for ${seconds}s (corpus $out/corpus-$t)"
	run_one "$t" &
	batch="$batch $t"
	n=$((n + 1))
	if [ "$n" -ge "$jobs" ]; then
		wait
		for b in $batch; do report "$b"; done
		batch=
		n=0
	fi
done
wait
for b in $batch; do report "$b"; done
exit $status
