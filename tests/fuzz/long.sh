#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A long fuzzing campaign, outside CI: every target (or those named) in
# turn, one at a time, each until it has run RUNS inputs or for SECONDS,
# whichever comes first, then a table: target, executions, coverage
# (libFuzzer's cov: edges and ft: features), corpus size, findings.
#
#   tests/fuzz/long.sh [-n RUNS] [-c CHUNK] [-t SECONDS] [-w WORKDIR] [-k] [TARGET[=RUNS]]...
#
#   -n RUNS     inputs per target (default 1000000; 1e7 is understood)
#   -c CHUNK    run libFuzzer at most CHUNK inputs at a time (default
#               500000) and add each chunk to the table as it ends, so
#               that a campaign killed after hours keeps all but its
#               last chunk
#   -t SECONDS  time per target (default none: RUNS decides)
#   -w WORKDIR  where the build, the working corpora, the logs and the
#               findings go (default /tmp/uniramfs-fuzz-long); reusing it
#               goes on from its corpora and adds to its table
#   -k          keep: merge what the campaign found into the committed
#               corpora (tests/fuzz/corpus/TARGET), minimised; without
#               it they are only read
#   TARGET=RUNS a target's own count, e.g. fuzz_dhcp=1e7
#   -T          print the table of WORKDIR and stop
#
# The committed corpus is copied to WORKDIR/corpus/TARGET, which is the
# one that grows. A crash, leak, timeout or out-of-memory is a finding:
# its input is kept as WORKDIR/findings/TARGET/KIND-SHA1, and the target
# starts again on the rest of its budget, at most FUZZ_MAX_FINDINGS
# (default 3) times. Reproduce one with WORKDIR/bin/TARGET FILE.
# The table is printed and written to WORKDIR/table.md. Be kind to a
# shared machine: nice -n 19 tests/fuzz/long.sh …
set -eu

src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/fuzz/prepare.sh
. "$src/tests/fuzz/prepare.sh"

# All in a function, read whole before it runs: editing this file during
# a campaign of hours does not change the running one.
main() {


	runs=1000000
	chunk=500000
	seconds=
	work=/tmp/uniramfs-fuzz-long
	keep=
	table_only=
	while getopts n:c:t:w:kT o; do
		case $o in
		n) runs=$OPTARG ;;
		c) chunk=$OPTARG ;;
		t) seconds=$OPTARG ;;
		w) work=$OPTARG ;;
		k) keep=1 ;;
		T) table_only=1 ;;
		*) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;/^set -eu/d' >&2; exit 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	mkdir -p "$work/results"
	work=$(cd "$work" && pwd)

	# 1e7 → 10000000
	count() {
		case $1 in
		*e*) awk -v x="$1" 'BEGIN { printf "%d\n", x }' ;;
		*) echo "$1" ;;
		esac
	}

	# The table from WORKDIR/results/TARGET: one line per run of the
	# target, "EXECS COV FT SECONDS", summed (executions, time) or the
	# largest (coverage); corpus and findings as they are now.
	table() {
		{
			echo "| target | execs | exec/s | cov | ft | corpus (files, bytes) | findings |"
			echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
			for r in "$work"/results/*; do
				[ -f "$r" ] || continue
				t=${r##*/}
				files=$(find "$work/corpus/$t" -type f 2>/dev/null | wc -l)
				bytes=$(find "$work/corpus/$t" -type f -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
				# "crash 2, leak 1": the kinds of input kept, counted
				found=$(find "$work/findings/$t" -type f 2>/dev/null | sed 's,.*/,,; s,-.*,,' | sort | uniq -c |
					awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }')
				awk -v t="$t" -v files="$files" -v bytes="$bytes" -v found="${found:-none}" '
					{ e += $1; if ($2 > c) c = $2; if ($3 > f) f = $3; s += $4 }
					END { printf "| %s | %d | %d | %d | %d | %d, %d | %s |\n", t, e, s ? e / s : 0, c, f, files, bytes, found }' "$r"
			done
		} > "$work/table.md"
		cat "$work/table.md"
	}

	if [ -n "$table_only" ]; then
		table
		exit 0
	fi

	# shellcheck disable=SC2086 # a list of words
	[ $# -gt 0 ] || set -- $fuzz_all
	names=
	for a in "$@"; do names="$names ${a%%=*}"; done

	echo "long: building in $work with ${CC_FUZZ:-clang}"
	# shellcheck disable=SC2086
	fuzz_build "$src" "$work" $names
	fuzz_seeds "$work"
	# The binaries are copied so that a rebuild during the campaign does not
	# change a target under a running fuzzer.
	mkdir -p "$work/bin"
	for t in $names; do cp -L "$work/$t" "$work/bin/$t.new" && mv "$work/bin/$t.new" "$work/bin/$t"; done

	for a in "$@"; do
		t=${a%%=*}
		want=$(count "$runs")
		[ "$a" = "$t" ] || want=$(count "${a#*=}")
		corpus="$work/corpus/$t"
		if [ ! -d "$corpus" ]; then
			mkdir -p "$corpus"
			[ ! -d "$src/tests/fuzz/corpus/$t" ] || cp "$src/tests/fuzz/corpus/$t"/* "$corpus/"
		fi
		mkdir -p "$work/findings/$t" "$work/logs"
		start=$(date +%s)
		left=$want
		tries=0
		chunk=$(count "$chunk")
		while :; do
			tries=$((tries + 1))
			log="$work/logs/$t.$(date +%Y%m%dT%H%M%S).log"
			limit=
			if [ -n "$seconds" ]; then
				rest=$((seconds - ($(date +%s) - start)))
				[ "$rest" -gt 0 ] || break
				limit="-max_total_time=$rest"
			fi
			this=$left
			[ "$this" -le "$chunk" ] || this=$chunk
			echo "long: $t: $this of $left inputs${limit:+, ${rest}s} (log $log)"
			t0=$(date +%s)
			rc=0
			# shellcheck disable=SC2046,SC2086
			"$work/bin/$t" -runs="$this" $limit -max_len="$(fuzz_max_len "$t")" -rss_limit_mb=2048 -timeout=10 \
				-artifact_prefix="$work/findings/$t/" -print_final_stats=1 -print_pcs=0 \
				"$corpus" $(fuzz_dirs "$src" "$work" "$t") > "$log" 2>&1 || rc=$?
			secs=$(($(date +%s) - t0))
			execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
			# a crash may come before the final statistics: the last status line
			[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -n 1)
			cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \2/p' "$log" | tail -n 1)
			echo "${execs:-0} ${cov:-0 0} $secs" >> "$work/results/$t"
			left=$((left - ${execs:-0}))
			if [ "$rc" -eq 0 ]; then
				[ "$left" -gt 0 ] || break
				# a chunk ended: go on with a fresh process
				tries=$((tries - 1))
				continue
			fi
			echo "long: $t: FINDING (exit $rc), see $log"
			grep -m 3 -E '^==[0-9]+==ERROR|SUMMARY|runtime error' "$log" || true
			if [ "$tries" -ge "${FUZZ_MAX_FINDINGS:-3}" ] || [ "$left" -le 0 ]; then
				break
			fi
		done
		if [ -n "$keep" ]; then
			mkdir -p "$src/tests/fuzz/corpus/$t"
			"$work/bin/$t" -merge=1 "$src/tests/fuzz/corpus/$t" "$corpus" > "$work/logs/$t.merge.log" 2>&1
		fi
	done
	table
}

main "$@"; exit $?
