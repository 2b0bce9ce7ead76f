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

# tb_uncut CMD ARG...: CMD run in the background with SIGINT ignored,
# waited for; its status. For a step that a Ctrl-C must not cut
# (bench.sh's trap handles it): the programs a background job runs get
# SIGINT as the script found it (the default, from a terminal) unless
# the job ignores it, and one that dies of it (an ssh before its own
# handler, a Python program) ends the step (seen: a kexec cut with no
# word). The job, a subshell, ignores SIGINT, then opens a file this
# shell made for it (anew, O_EXCL: noclobber), writes "began" there,
# runs CMD and, as it exits, writes its status there:
# - a Ctrl-C as the job starts can still end it before its trap (seen
#   once in make check, as bench.sh --resume began a switch: its output
#   file was not even made); then CMD did not begin (the file is
#   empty), and it runs again, up to three times in all; a file another
#   removed (a cleaner of TMPDIR) runs nothing again;
# - wait's status cannot be trusted where a trap runs: a trapped signal
#   that comes as the job ends makes wait return the trap's 128 and
#   more, or 255, the job's status lost, which would run again a step
#   that ran, or fail one that passed.
# Nothing runs in the foreground, where a Ctrl-C would end it: the file
# is made by this shell, and removed by jobs that ignore SIGINT. In a
# subshell (a $(...)), which SIGINT would end before it removes the
# file, SIGINT is ignored from here on. A trap that returns must not
# start a background job in the caller's shell (wrap it: ( CMD & )),
# which would take $! from this one's. tb_uncut_files are the files of
# the steps under way (a trap's own step may run in another's), for an
# EXIT trap to remove (tb_uncut_abandon).
tb_uncut_files=()
tb_uncut()
{
	local tb_try tb_rc=1 tb_file tb_word tb_value tb_began tb_status

	[ "$BASHPID" = "$$" ] || trap '' INT
	for tb_try in 1 2 3; do
		tb_uncut_file tb_file || return 1
		(
			tb_uncut_fault
			trap '' INT
			exec 3>>"$tb_file" || exit
			echo began >&3
			trap 'echo "status $?" >&3' EXIT
			"$@"
		) &
		tb_wait $!
		tb_rc=$?
		tb_began=0 tb_status=
		# gone, removed by another: the job may have run CMD, whose
		# status wait's is then taken for
		[ -e "$tb_file" ] || { tb_uncut_remove "$tb_file"; return "$tb_rc"; }
		while read -r tb_word tb_value; do
			case $tb_word in
			began)	tb_began=1 ;;
			status)	[[ $tb_value =~ ^[0-9]+$ ]] && tb_status=$tb_value ;;
			esac
		done <"$tb_file"
		tb_uncut_remove "$tb_file"
		[ "$tb_began" = 1 ] && break
	done
	if [ -n "$tb_status" ]; then
		tb_rc=$tb_status
	elif [ "$tb_rc" = 0 ]; then
		# a job killed in CMD (not by SIGINT) keeps wait's status, or
		# fails if that says 0
		tb_rc=1
	fi
	return "$tb_rc"
}

# tb_uncut_file VAR: VAR names a new, empty file of tb_uncut's in
# TMPDIR, made by this shell (noclobber: O_EXCL, no file or link of
# another's taken), on tb_uncut_files; 1, saying why, if none can be
tb_uncut_file()
{
	local -
	local try f

	set -C
	for try in 1 2 3; do
		f=${TMPDIR:-/tmp}/tb-uncut.$$.$BASHPID.$RANDOM$RANDOM
		if { : >"$f"; } 2>/dev/null; then
			tb_uncut_files+=("$f")
			printf -v "$1" %s "$f"
			return 0
		fi
	done
	echo "tracerbench: cannot make a file in ${TMPDIR:-/tmp}" >&2
	return 1
}

# tb_uncut_remove FILE: tb_uncut's FILE removed by a job that ignores
# SIGINT (run again if a Ctrl-C ends it first), and taken off
# tb_uncut_files
tb_uncut_remove()
{
	local try f kept=()

	for try in 1 2 3; do
		[ -e "$1" ] || break
		( trap '' INT; rm -f "$1" ) &
		tb_wait $!
	done
	for f in "${tb_uncut_files[@]}"; do
		[ "$f" = "$1" ] || kept+=("$f")
	done
	tb_uncut_files=("${kept[@]}")
}

# tb_uncut_abandon: every step's file removed (tb_uncut_remove), for an
# EXIT trap of a script that may exit in a trap while a step runs (its
# job writes on to the file it opened, which is then gone). A script
# that exits as a step's job starts, before it opened its file, leaves
# the file the job then makes.
tb_uncut_abandon()
{
	local f

	for f in "${tb_uncut_files[@]}"; do
		tb_uncut_remove "$f"
	done
}

# tb_uncut_fault: a fault point for make check, in tb_uncut's job before
# its trap (check_steps_uncut kills the job there); nothing
tb_uncut_fault()
{
	:
}

# tb_wait PID: the background job PID waited for until it ended: wait
# returns early when a trap ran (Ctrl-C's). Its status is the job's,
# unless a trap ran as the job ended (tb_uncut takes the status apart).
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
