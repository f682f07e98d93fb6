#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Profile `uniramfs build --generic` for the installed kernel and print the
# functions that cost the most, to decide what to optimise.
#
#   bench/profile.sh [BUILDDIR] [MORE BUILD ARGS...]
#
# UNIRAMFS=PATH profiles that binary instead of BUILDDIR's (an installed
# one, which reads the plugins installed beside it: every shipped plugin).
#
# Uses `perf record` when the CPU's counters are readable here (perf stat -e
# instructions works), else valgrind's callgrind (instruction counts, all
# threads summed; time spent waiting on I/O does not show).  The raw profile
# stays in bench/work/profile/ (callgrind.out: open with kcachegrind or
# callgrind_annotate; perf.data: perf report -i).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-${UNIRAMFS_BUILDDIR:-$src/build}}
shift || true
[ -f "$builddir/build.ninja" ] || meson setup "$builddir" "$src" >/dev/null
# The generator alone: a half-edited init elsewhere in the tree must not stop
# a profile of the generator.
ninja -C "$builddir" uniramfs >"$builddir/profile-ninja.log" 2>&1 || {
	tail -20 "$builddir/profile-ninja.log" >&2; exit 1; }
uniramfs=${UNIRAMFS:-$(cd "$builddir" && pwd)/uniramfs}

kver=
for v in /boot/vmlinuz-*; do
	k=${v#/boot/vmlinuz-}
	[ -d "/lib/modules/$k" ] && kver=$(printf '%s\n%s\n' "$kver" "$k" | sort -V | tail -1)
done
[ -n "$kver" ] || { echo "profile.sh: no installed kernel under /boot" >&2; exit 1; }

out=$src/bench/work/profile
mkdir -p "$out"
# Under valgrind /proc/self/exe is valgrind, so name the init uniramfs would
# find beside itself.
init=
for f in "$builddir/uniramfs-init" "$builddir/src/init/uniramfs-init"; do
	[ -x "$f" ] && { init=$(cd "$(dirname "$f")" && pwd)/uniramfs-init; break; }
done
[ -n "$init" ] || { echo "profile.sh: no uniramfs-init in $builddir" >&2; exit 1; }
rm -f "$out/generic.img"
cmd=("$uniramfs" build -k "$kver" -o "$out/generic.img" --generic --config /dev/null
	--init "$init" "$@")
echo "profile.sh: ${cmd[*]}"

if perf stat -e instructions -x, true 2>&1 | grep -q '^[0-9]'; then
	perf record -g -o "$out/perf.data" -- "${cmd[@]}" >/dev/null 2>&1
	echo "== perf: top functions, self time"
	perf report -i "$out/perf.data" --no-children --stdio --percent-limit 1 \
		--sort dso,symbol 2>/dev/null | grep -v '^$' | grep -v '^#' | grep '%' | head -40
	echo "== perf: top functions, with callees"
	perf report -i "$out/perf.data" --children --stdio --percent-limit 3 \
		--sort symbol -g none 2>/dev/null | grep '%' | head -30
	echo "raw profile: $out/perf.data"
	exit 0
fi

command -v valgrind >/dev/null || { echo "profile.sh: no usable perf and no valgrind" >&2; exit 1; }
echo "(perf has no instruction counter here: using callgrind, instruction counts)"
# the children too: gensquashfs compresses the squashfs segment, most of
# a generic build; one file per process (not ldconfig, static: valgrind
# cannot run it, and it is the same for any change)
rm -f "$out"/callgrind.out*
valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out.%p" --trace-children=yes \
	--trace-children-skip="*ldconfig*" \
	--separate-threads=no "${cmd[@]}" 2>"$out/valgrind.log" >/dev/null || {
	tail -5 "$out/valgrind.log" >&2; exit 1; }
[ -f "$out/generic.img" ] || { grep -v '^==' "$out/valgrind.log" >&2; exit 1; }
# head closes the pipes early: no pipefail from here on.
set +o pipefail
echo "== instructions by process (Ir)"
for f in "$out"/callgrind.out.*; do
	printf '%16s  %s\n' "$(sed -n 's/^summary: \([0-9]*\).*/\1/p' "$f")" \
		"$(sed -n 's/^cmd: *\([^ ]*\).*/\1/p' "$f" | sed 's|.*/||')"
done | sort -rn
# the generator's own process: the biggest file that ran it
main=$(grep -l "^cmd: *$uniramfs" "$out"/callgrind.out.* | head -1)
ln -sf "$(basename "$main")" "$out/callgrind.out"
echo "== instructions by object (own cost of every function, summed)"
callgrind_annotate --inclusive=no --threshold=100 --auto=no "$out/callgrind.out" 2>/dev/null |
	awk '/^ *[0-9,]+ \(.*\]$/ && !/=>/ {
		n = $1; gsub(",", "", n); o = $NF; gsub(/[][]/, "", o); sub(".*/", "", o)
		sum[o] += n; tot += n }
	END { for (o in sum) printf "%6.2f%%  %s\n", 100 * sum[o] / tot, o }' |
	sort -rn | head -8
echo "== top functions, own instructions (Ir), all threads"
callgrind_annotate --inclusive=no --auto=no "$out/callgrind.out" 2>/dev/null |
	sed -n '/^-\+$/,$p' | grep -E '^ *[0-9,]+ ' | head -30
echo "== top functions with everything they call (inclusive Ir)"
callgrind_annotate --inclusive=yes --auto=no "$out/callgrind.out" 2>/dev/null |
	sed -n '/^-\+$/,$p' | grep -E '^ *[0-9,]+ ' | head -30
echo "raw profile: $out/callgrind.out"
