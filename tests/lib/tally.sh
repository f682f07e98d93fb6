# SPDX-License-Identifier: GPL-2.0-or-later
# The pass/fail count of a shell test program, ending in the line
# tests/run-all.sh adds up. Sourced with the program's name:
# . tests/lib/tally.sh NAME   (bash: check uses local)

tally_label=$1
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
	echo "$tally_label: $(($(date +%s) - t0)) s"
	echo "$passed passed, $failed failed"
	exit $((failed > 0))
}
die() { fail "$*"; finish; }
