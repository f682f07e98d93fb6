# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the packaging checks (tests/packaging/*.sh): the counting
# every test script here shares (last line "N passed, N failed") and the
# source tarball a package is built from. Sourced with the check's name:
# . tests/packaging/lib.sh NAME

label=$1

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
passed=0
failed=0
t0=$(date +%s)
ok() { passed=$((passed + 1)); echo "ok - $*"; }
fail() { failed=$((failed + 1)); echo "FAIL - $*"; }
check() { # name command...
	local name=$1
	shift
	if "$@"; then ok "$name"; else fail "$name"; fi
}
finish() {
	echo "$label: $(($(date +%s) - t0)) s"
	echo "$passed passed, $failed failed"
	exit $((failed > 0))
}
die() { fail "$*"; finish; }

# the version meson.build declares: the one the packages must carry
version=$(sed -n "s/^  version : '\([^']*\)',$/\1/p" "$top/meson.build")

# source_tarball OUT: the checkout as uniramfs-VERSION/ in a .tar.gz, the
# files git knows and the new ones it does not ignore, so that uncommitted
# work is what gets packaged (as tests/distro/run.sh does)
source_tarball() {
	(cd "$top" && git ls-files -co --exclude-standard -z |
		tar --null -T - --transform "s,^,uniramfs-$version/," -czf "$1")
}

# same_list NAME EXPECTED_FILE ACTUAL_FILE: the two sorted lists are equal
same_list() {
	if diff -u "$2" "$3" >"$3.diff"; then
		ok "$1"
	else
		cat "$3.diff"
		fail "$1"
	fi
}
