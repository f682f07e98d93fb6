# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by run.sh (CI) and long.sh (long campaigns): the list of
# targets, their build, and their seeds. Seeds are made under OUT from
# the host (images in every compression, fonts, ELF files) and joined
# with the committed corpus tests/fuzz/corpus/TARGET, which is only read.

# shellcheck disable=SC2034 # used by the scripts that source this
fuzz_all="fuzz_cpio fuzz_image fuzz_extract fuzz_config fuzz_cmdline fuzz_uki fuzz_uki_pcr fuzz_authorized_keys fuzz_console fuzz_luks2 fuzz_luksmeta fuzz_livesize fuzz_elf fuzz_dhcp fuzz_ipconf fuzz_nfs fuzz_ibft fuzz_nvmf fuzz_dhcp6 fuzz_ra fuzz_dns fuzz_http fuzz_crypttab fuzz_luks_sig_json fuzz_fstab fuzz_import fuzz_sysroot fuzz_tpm2 fuzz_hostonly_live fuzz_plymouth"

# where meson builds a target, under the build directory
fuzz_path() {
	case $1 in
	fuzz_dhcp | fuzz_ipconf | fuzz_nfs | fuzz_ibft | fuzz_nvmf | fuzz_dhcp6 | fuzz_ra | fuzz_dns | fuzz_http) echo "tests/fuzz/net/$1" ;;
	*) echo "tests/fuzz/$1" ;;
	esac
}

# the longest input worth trying: what the real reader can be given
# (a DHCP frame fits the init's 2048-byte receive buffer; a kernel
# command line, a root-path or a sysfs attribute fits a page), else 64k
fuzz_max_len() {
	case $1 in
	fuzz_dhcp | fuzz_dhcp6 | fuzz_dns) echo 2048 ;;
	fuzz_ra) echo 1024 ;; # an RA's options fit in its 1280-byte minimum MTU
	# a selector byte, a URL line, an answer's head (16k at most) and some body
	fuzz_http) echo 20480 ;;
	# a selector byte and a discovery log page of up to 16 records
	fuzz_nvmf) echo 18433 ;;
	fuzz_ipconf | fuzz_nfs | fuzz_cmdline | fuzz_ibft) echo 4096 ;;
	fuzz_hostonly_live) echo 16384 ;; # a command line, a mountinfo of a few dozen mounts, a udev record
	fuzz_plymouth) echo 16384 ;; # plymouthd.conf or a theme's .plymouth (a few KiB)
	fuzz_fstab) echo 16384 ;; # past a 4096-byte line, and enough lines to pass 256 entries
	fuzz_tpm2) echo 4097 ;; # a selector byte and TPM2_RSP_MAX of answer
	fuzz_uki_pcr) echo 4096 ;; # systemd-measure's output, read to 4096 bytes
	*) echo 65536 ;;
	esac
}

# fuzz_build SRC OUT TARGETS...: clang, ASan and UBSan, stopping at the
# first report; OUT/TARGET is a link to each binary.
fuzz_build() {
	_src=$1 _out=$2
	shift 2
	if [ ! -f "$_out/build/build.ninja" ]; then
		CC=${CC_FUZZ:-clang} meson setup "$_out/build" "$_src" -Dfuzz=true \
			-Db_sanitize=address,undefined -Db_lundef=false \
			-Dc_args=-fno-sanitize-recover=all >"$_out/setup.log" 2>&1 ||
			{ cat "$_out/setup.log"; return 1; }
	fi
	_paths=
	for _t in "$@"; do _paths="$_paths $(fuzz_path "$_t")"; done
	# shellcheck disable=SC2086
	ninja -C "$_out/build" $_paths >"$_out/build.log" 2>&1 || { tail -30 "$_out/build.log"; return 1; }
	for _p in $_paths; do ln -sf "$_out/build/$_p" "$_out/${_p##*/}"; done
}

# fuzz_seeds OUT: seeds made from the host under OUT/seeds*.
fuzz_seeds() {
	_seeds="$1/seeds"
	rm -rf "$1"/seeds* "$1/tree"
	mkdir -p "$_seeds" "$1/tree/etc" "$1/tree/bin"
	# a small tree as cpio, plain and in every compression the reader
	# knows, and a multi-segment image
	echo hello > "$1/tree/etc/hello"
	ln -s ../etc/hello "$1/tree/bin/link"
	(cd "$1/tree" && find . | LC_ALL=C sort | cpio --quiet -o -H newc) > "$_seeds/plain.cpio"
	zstd -q -c "$_seeds/plain.cpio" > "$_seeds/img.zst"
	xz --check=crc32 -c "$_seeds/plain.cpio" > "$_seeds/img.xz"
	gzip -n -c "$_seeds/plain.cpio" > "$_seeds/img.gz"
	if command -v lz4 > /dev/null; then lz4 -q -l -c "$_seeds/plain.cpio" > "$_seeds/img.lz4"; fi
	{ cat "$_seeds/plain.cpio"; head -c 16 /dev/zero; cat "$_seeds/img.zst" "$_seeds/img.gz"; } \
		> "$_seeds/multi.img"

	# fuzz_extract reads a flags byte before the image
	mkdir -p "$1/seeds-extract"
	for _f in "$_seeds"/*; do
		{ printf '\0'; cat "$_f"; } > "$1/seeds-extract/${_f##*/}"
	done

	# fuzz_uki starts from systemd's stub, when it is installed
	mkdir -p "$1/seeds-uki"
	_stub=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
	if [ -f "$_stub" ]; then cp "$_stub" "$1/seeds-uki/"; fi

	# fuzz_console starts from real fonts (PSF1, PSF2 with Unicode
	# tables) and a compiled keymap, when the host has them
	# (console-data, kbd)
	mkdir -p "$1/seeds-console"
	for _f in /usr/share/consolefonts/lat9w-16.psf.gz /usr/share/consolefonts/LatArCyrHeb-16.psf.gz \
		/usr/share/consolefonts/default8x16.psf.gz; do
		if [ -f "$_f" ]; then gzip -dc "$_f" > "$1/seeds-console/$(basename "$_f" .gz)"; fi
	done
	_map=/usr/share/keymaps/i386/qwertz/de-latin1.kmap.gz
	if [ -f "$_map" ] && command -v loadkeys > /dev/null; then
		loadkeys -q -u -b "$_map" > "$1/seeds-console/de-latin1.bmap" < /dev/null || true
	fi

	# fuzz_luks2 starts from a token list as a LUKS2 header's JSON area
	# holds one (a systemd-tpm2 and a foreign token)
	mkdir -p "$1/seeds-luks2"
	printf '%s' '{"keyslots":{"0":{"type":"luks2"}},"tokens":{"0":{"type":"systemd-tpm2","keyslots":["0"]},"1":{"type":"x"}},"segments":{},"digests":{},"config":{"json_size":"12288"}}' \
		> "$1/seeds-luks2/tokens.json"

	# fuzz_elf starts from real programs and libraries: a PIE, libc
	# (GNU hash, versions defined and needed), a library with DT_HASH
	mkdir -p "$1/seeds-elf"
	for _f in /usr/bin/true /lib/x86_64-linux-gnu/libc.so.6 /lib/x86_64-linux-gnu/libz.so.1; do
		if [ -f "$_f" ]; then cp -L "$_f" "$1/seeds-elf/"; fi
	done
}

# fuzz_dirs SRC OUT TARGET: the seed directories of TARGET (read only).
fuzz_dirs() {
	case $3 in
	fuzz_extract) _d="$2/seeds-extract" ;;
	fuzz_uki) _d="$2/seeds-uki" ;;
	fuzz_console) _d="$2/seeds-console" ;;
	fuzz_luks2) _d="$2/seeds-luks2" ;;
	fuzz_elf) _d="$2/seeds-elf" ;;
	fuzz_cpio | fuzz_image | fuzz_config | fuzz_cmdline | fuzz_authorized_keys | fuzz_dhcp | fuzz_ipconf) _d="$2/seeds" ;;
	*) _d= ;;
	esac
	if [ -d "$1/tests/fuzz/corpus/$3" ]; then _d="$_d $1/tests/fuzz/corpus/$3"; fi
	echo "$_d"
}
