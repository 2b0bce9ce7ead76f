# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The command line of the tools, as doc/cli.md says it: -h and --help
# print the usage on stdout and exit 0; an option takes its value as
# --opt VALUE or --opt=VALUE; an unknown option, a missing value or a
# value given to a switch is a usage error: the reason and the synopsis
# on stderr, exit 2; lists take commas (tb_list). Sourced by tools/lib.sh, and alone by the tools that do
# not source that (codesize.sh, disasm.sh, compare.sh); needs nothing else.
#
# A tool defines usage(), which prints its usage on stdout, and sets:
#   tb_cli_name      its name in messages, e.g. bench.sh
#   tb_cli_values    its options that take a value, space-separated
#   tb_cli_switches  its options that take none
#   tb_cli_aliases   old spellings still accepted, OLD=NEW each (optional)
# then normalises its arguments and reads them in a loop of its own:
#
#   tb_cli_parse "$@"
#   set -- "${tb_cli_argv[@]}"
#   while [ "$1" != -- ]; do
#   	case $1 in
#   	--out)		out=$2 ;;
#   	--icount)	icount=1 ;;
#   	esac
#   	shift 2
#   done
#   shift	# the operands are left in "$@"
#
# tb_cli_argv holds each option under its new name followed by its value
# (an empty word for a switch), then "--", then the operands in their
# order. Options may come before or after operands; a "--" of the user's
# ends the options, and is kept among the operands if
# tb_cli_keep_dashdash=1 (boot.sh's kernel arguments follow one). A value
# given as the next word must not begin with "-": --opt=-VALUE passes one.

tb_cli_name=${tb_cli_name:-${0##*/}}
tb_cli_values=${tb_cli_values:-}
tb_cli_switches=${tb_cli_switches:-}
tb_cli_aliases=${tb_cli_aliases:-}
tb_cli_keep_dashdash=${tb_cli_keep_dashdash:-0}

# tb_usage_error MESSAGE...: MESSAGE and the usage's synopsis (its
# "usage:" line and the lines of tools that follow) on stderr, exit 2
tb_usage_error()
{
	{
		echo "$tb_cli_name: $*"
		usage | awk 'NR == 1 || /^ +tools\// { print; next } { exit }'
		echo "(--help for more)"
	} >&2
	exit 2
}

# tb_cli_has LIST WORD: WORD is one of the space-separated LIST
tb_cli_has()
{
	case " $1 " in
	*" $2 "*)	return 0 ;;
	esac
	return 1
}

# tb_cli_parse ARG...: the arguments into tb_cli_argv (above); -h or
# --help prints the usage and exits 0, a usage error exits 2
tb_cli_parse()
{
	local arg name val has_val a ops=()

	tb_cli_argv=()
	while [ $# -gt 0 ]; do
		arg=$1
		shift
		case $arg in
		-h | --help)
			usage
			exit 0 ;;
		--)
			[ "$tb_cli_keep_dashdash" = 1 ] && ops+=(--)
			ops+=("$@")
			break ;;
		-?*)	;;
		*)
			ops+=("$arg")
			continue ;;
		esac
		name=${arg%%=*} has_val=0 val=
		if [ "$name" != "$arg" ]; then
			has_val=1
			val=${arg#*=}
		fi
		for a in $tb_cli_aliases; do
			[ "${a%%=*}" = "$name" ] && name=${a#*=}
		done
		if tb_cli_has "$tb_cli_values" "$name"; then
			if [ $has_val = 0 ]; then
				{ [ $# -gt 0 ] && [[ $1 != -?* ]]; } ||
					tb_usage_error "$name wants a value"
				val=$1
				shift
			fi
			tb_cli_argv+=("$name" "$val")
		elif tb_cli_has "$tb_cli_switches" "$name"; then
			[ $has_val = 0 ] ||
				tb_usage_error "$name takes no value"
			tb_cli_argv+=("$name" "")
		else
			tb_usage_error "unknown option $name"
		fi
	done
	tb_cli_argv+=(-- "${ops[@]}")
}

# tb_list LIST: the items of a list given with commas, spaces or both
# (the old form of TB_PARTS and TB_ARCHS), one word each
tb_list()
{
	local items

	read -rd '' -a items <<<"${1//,/ }"
	echo "${items[*]}"
}

# tb_bench_options: bench.sh's options into tb_cli_values and
# tb_cli_switches, for bench.sh and for compare.sh, which passes them on
tb_bench_options()
{
	tb_cli_values="--arch --out --rounds --states --nr-samples --batch --clock --label --vcpus --mem --target --cpus --cmdline --switch --resume --lava --device-type --artifacts --artifacts-dir --lava-dry-run --lava-token"
	tb_cli_switches="--icount --do-work --host --box-config"
}

# tb_x86_64_only TOOL WHY ARCH: a tool that runs on x86-64 alone refuses
# ARCH (--arch) with the reason; x86_64 is the arch lib.sh loaded
tb_x86_64_only()
{
	[ "$3" = x86_64 ] && return 0
	echo "$1: --arch $3: x86_64 only: $2" >&2
	exit 2
}
