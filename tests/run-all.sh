#!/bin/bash
# Build uniramfs and run every test: unit tests, the same under
# ASan+UBSan, the fuzz targets briefly, and the QEMU boot tests.
# The last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD

bash tools/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
# each step's start, in seconds since this script began: where CI's time goes
note() { printf '\n=== %s (at %d s)\n' "$*" "$SECONDS"; }

# Add a sub-suite's closing "N passed, N failed" line to the totals; a
# suite that printed none counts as one failure.
add_counts() {
	local line
	line=$(tail -1 "$1")
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
	else
		failed=$((failed + 1))
	fi
}

# Count TAP subtest results that meson logged for one build dir.
count_tap() {
	local log=$1/meson-logs/testlog.txt p f
	p=$(grep -cE '^ok [0-9]+' "$log" || true)
	f=$(grep -cE '^not ok [0-9]+' "$log" || true)
	passed=$((passed + p))
	failed=$((failed + f))
	echo "$2: $p passed, $f failed"
}

unit() { # builddir label [meson options]
	local dir=$1 label=$2
	shift 2
	if [ ! -d "$dir" ]; then
		meson setup "$dir" "$@" >/dev/null || { failed=$((failed + 1)); echo "$label: meson setup failed"; return; }
	fi
	if ! meson compile -C "$dir" >"$dir/compile.log" 2>&1; then
		tail -30 "$dir/compile.log"
		failed=$((failed + 1))
		echo "$label: build failed"
		return
	fi
	meson test -C "$dir" --print-errorlogs >"$dir/test.log" 2>&1 || grep -E '^(not ok|#)' "$dir/meson-logs/testlog.txt" | head -60
	count_tap "$dir" "$label"
}

note "unit tests"
unit build unit
note "unit tests under ASan+UBSan"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	unit build-asan asan -Db_sanitize=address,undefined -Db_lundef=false

if [ -x tests/fuzz/run.sh ]; then
	note "fuzz targets (brief)"
	# 5 s a target: a smoke run of 30 targets on 2 CPUs (tests/fuzz/long.sh
	# is the campaign); each target's committed corpus is replayed first
	FUZZ_SECONDS=${FUZZ_SECONDS:-5} tests/fuzz/run.sh 2>&1 | tee build/fuzz.log
	p=$(grep -cE '^fuzz: [a-z0-9_]+ ok$' build/fuzz.log || true)
	f=$(grep -cE '^fuzz: [a-z0-9_]+ FAILED' build/fuzz.log || true)
	[ "$p" -gt 0 ] || f=$((f + 1)) # a build failure runs no target
	passed=$((passed + p))
	failed=$((failed + f))
fi

if [ -f tests/boot/run.py ] && [ -x build/uniramfs ]; then
	note "boot tests (QEMU, real kernel)"
	python3 tests/boot/run.py --builddir build --workdir build/boot-work | tee build/boot.log
	add_counts build/boot.log
fi

if [ -x build/uniramfs ]; then
	note "a DKMS module reaches the image (ZFS from contrib, tests/zfs)"
	python3 tests/zfs/dkms.py --builddir build 2>&1 | tee build/zfs-dkms.log
	add_counts build/zfs-dkms.log
fi

if [ -x tests/distro/run.sh ] && [ -x build/uniramfs ]; then
	note "a Debian 12 system adopts uniramfs (debootstrap once, dpkg, apt, QEMU)"
	tests/distro/run.sh build/distro-work 2>&1 | tee build/distro.log
	add_counts build/distro.log
fi

if [ -x tests/packaging/run.sh ]; then
	note "packaging: the RPM and Arch packages built and inspected, the Alpine APKBUILD linted"
	tests/packaging/run.sh build/packaging-work 2>&1 | tee build/packaging.log
	add_counts build/packaging.log
fi

if [ -x tests/kinstall/run.sh ] && [ -x build/uniramfs ]; then
	note "kernel-install's initrd_generator= beside dracut's plugin (059, 106) in a chroot"
	tests/kinstall/run.sh build 2>&1 | tee build/kinstall.log
	add_counts build/kinstall.log
fi

if [ -x tests/distro/debianlive.py ] && [ -x build/uniramfs ]; then
	note "a Debian live image boots (boot=live, live-config; its filesystem made once)"
	python3 tests/distro/debianlive.py --builddir build 2>&1 | tee build/debianlive.log
	add_counts build/debianlive.log
fi

if [ -x build/uniramfs ]; then
	note "other kernels: Debian 13's 6.12 (generic, cloud, rt), a kernel without modules, a UKI"
	python3 tests/kernels/kernels.py --builddir build --workdir build/kernels-work 2>&1 | tee build/kernels.log
	add_counts build/kernels.log
fi

if [ -x build/uniramfs ]; then
	note "arm64: Debian 12's arm64 kernel under qemu-system-aarch64, the init cross-built (ext4 on virtio-mmio, LUKS2, LVM)"
	python3 tests/arm64/arm64.py --builddir build 2>&1 | tee build/arm64.log
	add_counts build/arm64.log
fi

if [ -x build/uniramfs ]; then
	note "other layouts: Fedora, Arch and musl sysroots (fixtures made once), a generic and a hostonly image from each, booted"
	python3 tests/layouts/run.py --builddir build 2>&1 | tee build/layouts.log
	add_counts build/layouts.log
fi

if [ -x build/uniramfs ]; then
	note "extract against cpio -idm: our image, initramfs-tools', dracut's"
	python3 tests/extract/compare.py --builddir build 2>&1 | tee build/extract-compare.log
	add_counts build/extract-compare.log
fi

if [ -x build/uniramfs ]; then
	note "the README's first command on a machine without a kernel"
	tests/demo/fresh-machine.sh build 2>&1 | tee build/demo-fresh.log
	add_counts build/demo-fresh.log
fi

note "done"
echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
