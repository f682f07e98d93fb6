# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the packaging checks (tests/packaging/*.sh): the counting
# every test script here shares (last line "N passed, N failed") and the
# source tarball a package is built from. Sourced with the check's name:
# . tests/packaging/lib.sh NAME

label=$1

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/lib/tally.sh
. "$top/tests/lib/tally.sh" "$label"

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

# packaged_image NAME GENERATOR INIT WORKDIR: the package's generator,
# unpacked, makes a generic image for the host's first kernel with the
# package's init, and that init is the image's /init (same size); no
# kernel with a modules.dep in /lib/modules: skipped, saying so
packaged_image() {
	local kver='' size d
	for d in /lib/modules/*/modules.dep; do
		[ -e "$d" ] && { d=${d%/modules.dep}; kver=${d##*/}; break; }
	done
	if [ -z "$kver" ]; then
		echo "# skip $1: no kernel in /lib/modules"
		return
	fi
	size=$(stat -c %s "$3")
	if "$2" build -k "$kver" --generic --init "$3" -o "$4/image" >"$4/image.txt" 2>&1 &&
		"$2" ls "$4/image" >"$4/image-ls.txt" && grep -qE "^-rwxr-xr-x +$size init$" "$4/image-ls.txt"; then
		ok "$1"
	else
		tail -5 "$4/image.txt"
		fail "$1"
	fi
}
