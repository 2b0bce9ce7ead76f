#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# codesize.sh [--clocks LIST] MODULE.ko [VMLINUX [BASE_VMLINUX]]: what a
# call site of each primitive costs in code, and what the kernel's text
# is, as "key value" lines (bench.sh puts them in kernels/LABEL.env,
# report.py's code table reads them):
#
#   site.P.insns, site.P.bytes   one site of primitive P, from the built
#                                module: its window of batch 1 (clock
#                                cycles, no work) between the two clock
#                                reads, less the empty window's (the clock
#                                reads' glue and the loop), as
#                                tools/disasm.sh --sizes measures them:
#                                every instruction once, taken or not
#   site.P.inline_bytes,         those bytes apart: in the straight line
#   site.P.out_of_line_bytes     between the reads, and in blocks only
#                                jumps reach (after the return, a .cold
#                                part); the two add up to site.P.bytes
#   site.P.jump_entries,         the site's __jump_table entries (static
#   site.P.jump_bytes            branches) and the bytes they take in the
#                                module's or kernel's data
#   site.P.calls                 the functions that site calls, or "-"
#   vmlinux.text, .data, .bss    the kernel's sizes (size -B), in bytes;
#                                its sections end aligned (to 64 KiB on
#                                arm64), so a change of a few bytes may
#                                not show in them
#   vmlinux.functions            the bytes of all its functions (nm -S),
#                                where every byte a patch adds to one shows
#   vmlinux.jump_table,          its __jump_table section's bytes and
#   vmlinux.jump_entries         entries: every static branch's, in data
#   hook.F                       call sites of F in the kernel: calls and
#                                tail jumps to it, for the preemptirq hooks
#                                trace_hardirqs_on/off, trace_preempt_on/off
#                                and every function of VMLINUX that
#                                BASE_VMLINUX has not (what a patch added)
#
# Without VMLINUX (a kernel whose build tree is not at hand), the site
# lines only. The kernel's lines, which take a disassembly of the whole
# kernel, are kept beside VMLINUX (VMLINUX.codesize-*) while it and
# BASE_VMLINUX stay older, and this script the same. The windows must
# check (tools/disasm.sh): those of the clocks in LIST (a run's) and of
# cycles, which the sites are measured by; any other clock's that do not
# are warnings. Exit 1 if a file cannot be read or its windows not checked.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
TB_TOP=$top
# shellcheck source=tools/lib/cli.sh
. "$top/tools/lib/cli.sh"
# shellcheck source=tools/lib/harness.sh
. "$top/tools/lib/harness.sh"
# shellcheck source=tools/lib/cache.sh
. "$top/tools/lib/cache.sh"

die()
{
	echo "codesize: $*" >&2
	exit 1
}

usage()
{
	cat <<EOF
usage: tools/codesize.sh [--clocks LIST] MODULE.ko [VMLINUX [BASE_VMLINUX]]
What one call site of each primitive costs in code, from the built module
(tools/disasm.sh --sizes), and the kernel's sizes and hook call sites from
its VMLINUX (those BASE_VMLINUX has not: a patch's functions), as "key
value" lines for bench.sh's kernels/LABEL.env.
options (--opt VALUE or --opt=VALUE):
  --clocks LIST    the clocks a run used (comma-separated), whose windows
                   must check, as cycles' must; the others' are warnings
  -h, --help       print this and exit
EOF
}

tb_cli_name=codesize.sh
tb_cli_values="--clocks"
tb_cli_parse "$@"
set -- "${tb_cli_argv[@]}"
clocks=
while [ "$1" != -- ]; do
	case $1 in
	--clocks)	clocks=$(tb_list "$2"); clocks=${clocks// /,} ;;
	esac
	shift 2
done
shift
{ [ $# -ge 1 ] && [ $# -le 3 ]; } ||
	tb_usage_error "MODULE.ko, and at most VMLINUX and BASE_VMLINUX"
ko=$1
vmlinux=${2:-}
base=${3:-}

sizes=$("$top/tools/disasm.sh" --sizes ${clocks:+--clocks "$clocks,cycles"} "$ko") ||
	die "$ko: its windows do not check (tools/disasm.sh $ko)"
echo "$sizes" | awk -v prims="$(tb_prims | tr '\n' ' ')" '
	$1 == "size" {
		insns[$2] = $3; bytes[$2] = $4; calls[$2] = $5
		inline[$2] = $6; ool[$2] = $7; jumps[$2] = $8; jbytes[$2] = $9
	}
	END {
		n = split(prims, p, " ")
		if (!("tb_win_none" in insns))
			exit 1
		for (k = 1; k <= n; k++) {
			if (p[k] == "none")
				continue
			w = "tb_win_" p[k]
			if (!(w in insns))
				exit 1
			print "site." p[k] ".insns " insns[w] - insns["tb_win_none"]
			print "site." p[k] ".bytes " bytes[w] - bytes["tb_win_none"]
			print "site." p[k] ".inline_bytes " inline[w] - inline["tb_win_none"]
			print "site." p[k] ".out_of_line_bytes " ool[w] - ool["tb_win_none"]
			print "site." p[k] ".jump_entries " jumps[w] - jumps["tb_win_none"]
			print "site." p[k] ".jump_bytes " jbytes[w] - jbytes["tb_win_none"]
			print "site." p[k] ".calls " calls[w]
		}
	}' || die "$ko: a window's size is missing"

# text symbols, for what the base has not; not x86's __pfx_ labels of
# the padding before each function (CALL_PADDING), which are no functions
text_symbols()
{
	$nm "$1" | awk '$2 ~ /^[Tt]$/ && $3 !~ /^__pfx_/ { print $3 }' | sort -u
}

# "hook.F N" for each hook, and each function that the base has not
hook_sites()
{
	local hooks="trace_hardirqs_on trace_hardirqs_off trace_preempt_on trace_preempt_off" added

	if [ -n "$base" ]; then
		added=$(comm -23 <(text_symbols "$vmlinux") <(text_symbols "$base")) ||
			die "$base: no symbols"
		hooks="$hooks $added"
	fi
	# the names go on stdin ahead of the disassembly, a line each: a
	# patch may add more than an argument can hold
	# shellcheck disable=SC2086 # the names are words
	{ printf '%s\n' $hooks; echo "--"; $objdump -d --no-show-raw-insn "$vmlinux"; } |
	awk -v arch="$elf_arch" '
		BEGIN {
			branch = arch == "arm64" ? "^(bl|b)$" : "^(call|jmp)[lq]?$"
		}
		!names_read {
			if ($0 == "--")
				names_read = 1
			else if (!($0 in sites)) {
				h[++n] = $0
				sites[$0] = 0
			}
			next
		}
		# "ADDR:<tab>MNEMONIC ARGS <TARGET>"
		/^ *[0-9a-f]+:\t/ {
			split($0, f, "\t")
			op = f[2]
			sub(/ .*/, "", op)
			if (op !~ branch || !match($0, /<[^>+]+>$/))
				next
			t = substr($0, RSTART + 1, RLENGTH - 2)
			if (t in sites)
				sites[t]++
		}
		END {
			for (k = 1; k <= n; k++)
				print "hook." h[k] " " sites[h[k]]
		}'
}

# the kernel's lines
kernel_code()
{
	$elf_size -B "$vmlinux" | awk 'NR == 2 {
		print "vmlinux.text " $1; print "vmlinux.data " $2; print "vmlinux.bss " $3 }' |
		grep . || die "$vmlinux: no sizes"
	$nm -S "$vmlinux" | awk '
		# mawk has no strtonum()
		function hex(s,    v, k) {
			v = 0
			for (k = 1; k <= length(s); k++)
				v = v * 16 + index("0123456789abcdef", substr(s, k, 1)) - 1
			return v
		}
		NF == 4 && $3 ~ /^[Tt]$/ { n += hex($2) }
		END { print "vmlinux.functions " n + 0 }'
	# the table lies in .data, between the linker script's symbols (none
	# in a kernel without JUMP_LABEL: no static branch)
	$nm "$vmlinux" | awk -v n="$elf_jump_entry" '
		function hex(s,    v, k) {
			v = 0
			for (k = 1; k <= length(s); k++)
				v = v * 16 + index("0123456789abcdef", substr(s, k, 1)) - 1
			return v
		}
		# the low 48 bits: a 64-bit address loses its last ones in a double
		$3 == "__start___jump_table" { start = hex(substr($1, length($1) - 11)) }
		$3 == "__stop___jump_table" { stop = hex(substr($1, length($1) - 11)) }
		END {
			b = stop - start
			print "vmlinux.jump_table " b; print "vmlinux.jump_entries " int(b / n)
		}'
	hook_sites
}

[ -n "$vmlinux" ] || exit 0
tb_elf_tools "$vmlinux" || die "$vmlinux: not an x86-64, i386 or arm64 kernel"
# keyed by the base and by this script, whose lines may change; made
# under a lock of its own, once, whoever else asks (tools/lib/cache.sh)
cache=$vmlinux.codesize-$(cat "$0" - <<<"$base" | sha256sum | cut -c 1-16)
fresh()
{
	[ -s "$1" ] && [ "$1" -nt "$vmlinux" ] &&
		{ [ -z "$base" ] || [ "$1" -nt "$base" ]; }
}
tb_cache_file "$cache" fresh kernel_code || die "$vmlinux: cannot size it"
