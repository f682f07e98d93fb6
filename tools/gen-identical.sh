#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Does a change to the generator leave its images alone? Builds, with two
# uniramfs binaries and one /init, a generic and a hostonly image of this
# host in every format (zstd, xz, lz4, gzip, none, and gen_init_cpio's
# list with its files), and cmp's each pair; the messages too, less the
# build's duration.
#
#   tools/gen-identical.sh BASEDIR NEW_UNIRAMFS [KVER]
#
# BASEDIR holds the baseline build's files, laid out as in a build tree:
# uniramfs, uniramfs-init, src/shutdown/uniramfs-shutdown and
# src/notls/gnutls-notls.so (what uniramfs packs from beside itself).
# Both binaries run in turn from one copy of that directory, so the
# companions and every path are the same; only uniramfs differs. KVER
# defaults to the newest directory in /lib/modules. Exit status 0 when
# every pair is identical.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 BASEDIR NEW_UNIRAMFS [KVER]" >&2; exit 2; }
basedir=$(realpath "$1") new=$(realpath "$2")
kver=${3:-$(ls /lib/modules | sort -V | tail -n 1)}
work=$(mktemp -d /tmp/gen-identical.XXXXXX)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=0
cp -a "$basedir" "$work/bin"
cp "$basedir/uniramfs" "$work/base-uniramfs"
cp "$new" "$work/new-uniramfs"
init=$work/bin/uniramfs-init

# build BINARY WHERE: every image of one binary into $work/cur, then moved to WHERE
build() {
	cp "$1" "$work/bin/uniramfs"
	set -- "$work/bin/uniramfs" "$2"
	mkdir "$work/cur"
	for mode in generic hostonly; do
		for c in zstd xz lz4 gzip none; do
			"$1" build --config /dev/null -k "$kver" --"$mode" --init "$init" \
				--microcode none --compress "$c" -o "$work/cur/$mode.$c" \
				2>"$work/cur/$mode.$c.log" || echo "exit $?" >>"$work/cur/$mode.$c.log"
		done
		"$1" build --config /dev/null -k "$kver" --"$mode" --init "$init" \
			--microcode none --format gen_init_cpio -o "$work/cur/$mode.list" \
			2>"$work/cur/$mode.list.log" || echo "exit $?" >>"$work/cur/$mode.list.log"
	done
	sed -i 's/, [0-9.]* s$/, T s/' "$work"/cur/*.log
	mv "$work/cur" "$2"
}

build "$work/base-uniramfs" "$work/base"
build "$work/new-uniramfs" "$work/new"
fail=0
for f in $(cd "$work/base" && find . -type f | sort); do
	if [ ! -e "$work/new/$f" ]; then
		echo "MISSING $f"; fail=1
	elif cmp -s "$work/base/$f" "$work/new/$f"; then
		echo "same    $f"
	else
		echo "DIFFER  $f"; fail=1
		case $f in *.log) diff "$work/base/$f" "$work/new/$f" | head -n 10 ;; esac
	fi
done
for f in $(cd "$work/new" && find . -type f | sort); do
	[ -e "$work/base/$f" ] || { echo "EXTRA   $f"; fail=1; }
done
n=$(cd "$work/base" && find . -type f | wc -l)
if [ "$fail" = 0 ]; then echo "identical: $n files (kernel $kver)"; else echo "NOT identical (kernel $kver)"; fi
exit "$fail"
