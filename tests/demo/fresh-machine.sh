#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The README's first command on a machine that has no kernel yet: run
# ./demo.sh in a private mount namespace whose /boot is empty, with
# tools/install-deps.sh replaced by a stand-in that "installs" the kernel
# (puts the real /boot back). demo.sh must install before it looks for a
# kernel, then build, make the image and boot it to the root's marker.
#
#   tests/demo/fresh-machine.sh BUILDDIR      prints "N passed, N failed"
set -uo pipefail
cd "$(dirname "$0")/../.."
build=$(realpath -m "${1:-build}")
work=$build/demo-fresh
rm -rf "$work"
mkdir -p "$work/realboot"
log=$work/demo.log

# The stand-in records that it ran, then brings the kernel in.
cat >"$work/install-deps" <<STUB
#!/bin/bash
echo "stand-in install-deps ran: \$*" >&2
mount --bind "$work/realboot" /boot
STUB
chmod +x "$work/install-deps"

unshare --mount --propagation private bash -c '
	set -e
	mount --bind /boot "$1/realboot"
	mount -t tmpfs -o mode=0755 none /boot
	mount --bind "$1/install-deps" tools/install-deps.sh
	# Nothing to find before the install step runs.
	[ -z "$(ls /boot)" ]
	UNIRAMFS_BUILDDIR="$2" ./demo.sh
' fresh "$work" "$build" >"$log" 2>&1
rc=$?

fail=0
grep -q "^stand-in install-deps ran" "$log" || { echo "FAIL demo-fresh: install-deps never ran"; fail=1; }
# the demo installs what it needs, not the test suite's servers
grep -q "^stand-in install-deps ran: demo$" "$log" || { echo "FAIL demo-fresh: install-deps was not asked for the demo's set only"; fail=1; }
grep -q "no installed kernel" "$log" && { echo "FAIL demo-fresh: looked for the kernel before installing it"; fail=1; }
grep -q "^PASS virtio-uuid" "$log" || { echo "FAIL demo-fresh: the boot did not reach the root's marker (exit $rc)"; fail=1; }
if [ $fail -ne 0 ]; then
	sed 's/^/    | /' "$log" | tail -30
	echo "0 passed, 1 failed"
	exit 1
fi
echo "PASS demo-fresh: ./demo.sh installed, built, made the image and booted it (log $log)"
echo "1 passed, 0 failed"
