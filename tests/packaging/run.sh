#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every packaging check (tests/packaging/*.sh): the RPM and the Arch
# package built and inspected, the Alpine APKBUILD linted. A format whose
# tool is missing fails, saying which: tools/install-deps.sh installs
# them all, so a missing one is a gap in it (a skip hid bookworm's
# makepkg, a package of its own, on a fresh machine). Each check's
# counts, then the sum.
# Usage: tests/packaging/run.sh [WORKDIR]   Last line: "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-$here/../../build/packaging-work}
mkdir -p "$work"
# absolute: rpmbuild's _topdir and makepkg's BUILDDIR are taken from the root
work=$(cd "$work" && pwd)
passed=0
failed=0

run() { # NAME TOOL
	local line
	if ! command -v "$2" >/dev/null; then
		echo "FAIL $1: $2 is not installed (tools/install-deps.sh should have)"
		failed=$((failed + 1))
		return
	fi
	"$here/$1.sh" "$work/$1" >"$work/$1.log" 2>&1
	grep -E '^(FAIL|# )' "$work/$1.log"
	line=$(tail -1 "$work/$1.log")
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
		echo "packaging $1: $line"
	else
		tail -20 "$work/$1.log"
		failed=$((failed + 1))
		echo "packaging $1: no result (log: $work/$1.log)"
	fi
}

run rpm rpmbuild
run arch makepkg
run alpine busybox
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
