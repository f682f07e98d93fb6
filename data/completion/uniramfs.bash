# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for uniramfs
_uniramfs()
{
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W 'build ls extract import-config --help --version' -- "$cur"))
		return
	fi
	case $cmd in
	build)
		case $prev in
		-k|--kver)
			COMPREPLY=($(compgen -W "$(ls /lib/modules 2>/dev/null)" -- "$cur"))
			return ;;
		--compress)
			COMPREPLY=($(compgen -W 'zstd xz lz4 gzip none' -- "$cur"))
			return ;;
		--mode)
			COMPREPLY=($(compgen -W 'generic hostonly' -- "$cur"))
			return ;;
		--microcode)
			COMPREPLY=($(compgen -W 'auto none' -- "$cur"))
			return ;;
		-o|--output|--config|--init|--add-files|--add-keys|--add-hook)
			COMPREPLY=($(compgen -f -- "$cur"))
			return ;;
		--kmoddir|--sysroot)
			COMPREPLY=($(compgen -d -- "$cur"))
			return ;;
		esac
		COMPREPLY=($(compgen -W '--kver --output --all --generic --hostonly --mode --compress
			--compress-level --add-modules --omit-modules --add-files --add-binaries --add-keys
			--add-hook --kmoddir --sysroot --cmdline --microcode --init --config --kdump --verbose --help' -- "$cur"))
		;;
	import-config)
		case $prev in
		--from)
			COMPREPLY=($(compgen -W 'initramfs-tools dracut mkinitcpio' -- "$cur"))
			return ;;
		--sysroot)
			COMPREPLY=($(compgen -d -- "$cur"))
			return ;;
		esac
		COMPREPLY=($(compgen -W '--from --sysroot --write --force --help' -- "$cur"))
		;;
	ls|extract)
		COMPREPLY=($(compgen -f -- "$cur"))
		;;
	esac
}
complete -F _uniramfs uniramfs
