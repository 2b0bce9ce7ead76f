# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Results: the counting harness of the checks and make check's parts, the
# module's facts from its C, the binutils of an ELF file, and background
# jobs that a Ctrl-C does not cut short. Sourced by tools/lib.sh.

# The parts of make check (tools/check.sh), the one list of them: the
# host's checks, and each architecture's (tools/scenarios' second column).
# shellcheck disable=SC2034 # read by tools/check.sh and tools/check/
TB_ARCH_PARTS="debian long debug rt built"
# shellcheck disable=SC2034
TB_ALL_PARTS="host $TB_ARCH_PARTS"

# tb_scenario_lines [FILE]: the lines of tools/scenarios (or FILE), the
# table of make check's boots and steps, without their comments and blank
# lines
tb_scenario_lines()
{
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "${1:-$TB_TOP/tools/scenarios}"
}

# tb_interruptible CMD ARG...: CMD run as a terminal runs it, with
# SIGINT (Ctrl-C) and SIGPIPE as they should be, by a check that runs it
# in the background (&): a shell's background jobs ignore SIGINT, and
# a signal ignored when bash starts cannot be trapped (Python, which
# resets SIGINT, ignores SIGPIPE: that is reset too)
tb_interruptible()
{
	exec /usr/bin/python3 -c '
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$@"
}

# tb_no_sigint CMD ARG...: CMD with SIGINT ignored, for a step run in
# the background (&, then tb_wait) that a Ctrl-C must not cut. Bash
# ignores SIGINT in a background job only where the shell does not trap
# it; where it does (bench.sh's Ctrl-C), the job gets the default, a
# child that dies of it (an ssh before its own handler, a Python
# program) takes the job's shell along (seen: a kexec cut with no word).
tb_no_sigint()
(
	trap '' INT
	"$@"
)

# tb_uncut CMD ARG...: CMD in the background with SIGINT ignored
# (tb_no_sigint), waited for (tb_wait); its status. A Ctrl-C that comes
# as the job forks, before its trap, still kills it: bash resets a
# trapped signal to its default in a job it starts (seen once in make
# check, as bench.sh --resume began a switch: its output file was not
# even made). Such a job ran nothing of CMD, and its status is 130, which
# no step run so gives otherwise (its Ctrl-C ignored, and its programs'):
# it runs again, up to three times in all.
tb_uncut()
{
	local try rc

	for try in 1 2 3; do
		tb_no_sigint "$@" &
		tb_wait $!
		rc=$?
		[ $rc = 130 ] || break
	done
	return $rc
}

# tb_wait PID: the status of the background job PID once it ended: wait
# returns early when a trap ran (Ctrl-C's), and the job's status stays.
# A job run so, in the background where SIGINT is ignored, is not cut
# short by a Ctrl-C, which its script's trap handles.
tb_wait()
{
	while kill -0 "$1" 2>/dev/null; do
		wait "$1"
	done
	wait "$1"
}

# tb_bench_interrupted LOG PATTERN ARG...: tools/bench.sh ARGs as a
# terminal runs it (tb_interruptible), in a session of its own, its
# output into LOG, and SIGINT to its process group, as from a terminal's
# Ctrl-C, once LOG has a line matching PATTERN (tb_interrupt_at); its
# exit status
tb_bench_interrupted()
{
	local log=$1 pattern=$2

	shift 2
	rm -f "$log"
	tb_interruptible /usr/bin/setsid "$TB_TOP/tools/bench.sh" "$@" >"$log" 2>&1 &
	tb_interrupt_at $! "$log" "$pattern"
}

# tb_interrupt_at PID LOG PATTERN: SIGINT (Ctrl-C) to the background job
# PID (tb_interruptible) once its LOG has a line matching PATTERN (grep),
# or at once if it ended before; its exit status. LOG must not be there
# before the job starts: an earlier run's would match at once. It is
# looked at every 0.05 s, so that a step that follows the line closely
# is still under way. If PID
# leads a process group (setsid), the whole group gets it, as from a
# terminal's Ctrl-C.
tb_interrupt_at()
{
	until grep -q "$3" "$2" 2>/dev/null; do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	if [ "$(ps -o pgid= -p "$1" | tr -d ' ')" = "$1" ]; then
		kill -INT -- "-$1"
	else
		kill -INT "$1"
	fi
	wait "$1"
}

# tb_same_medians TAG RUN A B: the run RUN of the results directories A
# and B has the same per-CPU medians of every primitive (its .per_cpu
# files, of five primitives at least), each said as "[TAG] PRIM: A's,
# B's"; 1 at the first that differs
tb_same_medians()
{
	local f p a b n=0

	for f in "$3/runs/$2"/*.per_cpu; do
		[ -f "$f" ] || break
		p=${f##*/}
		a=$(awk 'NR > 1 { printf "%s %s ", $1, $2 }' "$f")
		b=$(awk 'NR > 1 { printf "%s %s ", $1, $2 }' "$4/runs/$2/$p" 2>/dev/null)
		echo "[$1] ${p%.per_cpu} (CPU median): ${a% }; ${b% }"
		{ [ -n "$a" ] && [ "$a" = "$b" ]; } || return 1
		n=$((n + 1))
	done
	[ $n -ge 5 ] || { echo "[$1] $n primitives in $3/runs/$2, not 5 or more"; return 1; }
}

# result STATUS NAME: print one result, "ok - NAME" for a status of 0, and
# count it in the caller's passed and failed; a failure's NAME is kept in
# tb_failed_names too, for a list at the end of a long log. A result 10 s
# or more after the shell's last result or time line (time_mark) is
# followed by "# took N s": where a part's time went, between the lines
# that say their own (a boot's, a step's).
result()
{
	if [ "$1" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok - $2"
	else
		failed=$((failed + 1))
		tb_failed_names+=("$2")
		echo "not ok - $2"
	fi
	[ $((SECONDS - ${tb_result_at:-0})) -lt 10 ] ||
		echo "# took $((SECONDS - ${tb_result_at:-0})) s"
	time_mark
}

# time_mark: from now on, result() times the next result
time_mark()
{
	tb_result_at=$SECONDS
}

# tb_cfacts: the module's facts from its C into this shell, once: TB_C_PRIMS,
# TB_C_CLOCKS, TB_C_PMU_CLOCKS, TB_C_UNTRACED, TB_C_STATS, TB_C_WINDOWS and
# the defaults, as tools/cfacts.py prints them (which says what each is).
# A guest, which has no Python, reads the same output from the file its
# initramfs carries ($TB_TOP/.cfacts.sh, tb_make_initramfs).
tb_cfacts()
{
	[ -n "${TB_C_PRIMS:-}" ] && return 0
	if [ -f "$TB_TOP/.cfacts.sh" ]; then
		# shellcheck source=/dev/null # the initramfs's own
		. "$TB_TOP/.cfacts.sh"
	else
		eval "$(/usr/bin/python3 "$TB_TOP/tools/cfacts.py" --top "$TB_TOP")"
	fi
	[ -n "${TB_C_PRIMS:-}" ] || {
		echo "tracerbench: cannot read the module's facts (tools/cfacts.py)" >&2
		return 1
	}
}

# tb_clocks: the module's clocks, as its clock file takes them, a line each
tb_clocks()
{
	# shellcheck disable=SC2086 # a list, a word each
	tb_cfacts && printf '%s\n' $TB_C_CLOCKS
}

# tb_prims: the primitives' names, in the module's order, a line each
tb_prims()
{
	# shellcheck disable=SC2086 # a list, a word each
	tb_cfacts && printf '%s\n' $TB_C_PRIMS
}

# tb_elf_tools FILE: the architecture of an ELF object (x86_64, i386 or
# arm64, from its header) in elf_arch, and the binutils that read it in
# objdump, nm and elf_size; 1 for another machine. elf_jump_entry: the
# bytes of one __jump_table entry there (struct jump_entry, relative:
# s32 code, s32 target, long key).
# shellcheck disable=SC2034 # the variables are the caller's
tb_elf_tools()
{
	case $(readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p') in
	*X86-64*)	elf_arch=x86_64 objdump=objdump nm=nm elf_size=size
			elf_jump_entry=16 ;;
	*80386*)	elf_arch=i386 objdump=objdump nm=nm elf_size=size
			elf_jump_entry=12 ;;
	AArch64)	elf_arch=arm64 objdump=aarch64-linux-gnu-objdump
			nm=aarch64-linux-gnu-nm elf_size=aarch64-linux-gnu-size
			elf_jump_entry=16 ;;
	*)		return 1 ;;
	esac
}
