# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# The shared part of the in-guest suites, sourced by suite.sh first: KTAP
# results and checks, the kernel command line's tb.* parameters, and the
# module's paths, files and load and unload.

TB=/sys/kernel/debug/tracerbench
MODULE=/tracerbench.ko
# shellcheck disable=SC2034 # for the groups suite.sh sources after
PREEMPTIRQ=/sys/kernel/tracing/events/preemptirq
# shellcheck disable=SC2034 # for the groups suite.sh sources after
KMEMLEAK=/sys/kernel/debug/kmemleak
# The module's facts from its C, TB_C_*, as tools/cfacts.py printed them
# into the initramfs (tb_make_initramfs): the primitives in its order, the
# files of each one's directory, the clocks, those of the PMU, the
# defaults at load.
# shellcheck source=/dev/null
. /tb/.cfacts.sh
PRIMS=$TB_C_PRIMS
# shellcheck disable=SC2034 # for the groups suite.sh sources after
STATS=$TB_C_STATS
# shellcheck disable=SC2034 # for the groups suite.sh sources after
PARAMS="nr_samples nr_highest do_work batch cpus clock"
# the largest nr_samples (2^40), nr_highest and batch
# shellcheck disable=SC2034 # for the groups suite.sh sources after
MAX_SAMPLES=1099511627776
# shellcheck disable=SC2034 # for the groups suite.sh sources after
MAX_HIGHEST=1024
# shellcheck disable=SC2034 # for the groups suite.sh sources after
MAX_BATCH=10000

nr_tests=0
nr_failed=0

diag()
{
	echo "# $*"
}

# ktap_result STATUS NAME
ktap_result()
{
	nr_tests=$((nr_tests + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $nr_tests $2"
	else
		nr_failed=$((nr_failed + 1))
		echo "not ok $nr_tests $2"
	fi
}

# now_us VAR: set VAR to the wall clock in microseconds. Not just
# EPOCHREALTIME without its dot: a guest whose kernel has no RTC driver
# (arm64's: virt's PL031 is not built) starts at 0, and 0.898685 would
# make 0898685, which the shell's arithmetic refuses as octal.
now_us()
{
	# shellcheck disable=SC3028 # busybox ash has it, as bash does
	local now_us_t=$EPOCHREALTIME now_us_frac

	now_us_frac=${now_us_t#*.}
	now_us_frac=${now_us_frac#"${now_us_frac%%[!0]*}"}
	eval "$1=$((${now_us_t%.*} * 1000000 + ${now_us_frac:-0}))"
}

# run_test NAME COMMAND...: one KTAP line for COMMAND's exit status, then
# the time it took if that was a second or more, so that a slow guest's
# log shows where the time went ("took" first: a test named "kunit: ..."
# must not pass for a line of the KUnit log). The names are ones no test uses: ash's
# locals are seen, and set, by the functions called.
run_test()
{
	local run_test_start run_test_end run_test_ms

	now_us run_test_start
	name=$1
	shift
	"$@"
	ktap_result $? "$name"
	now_us run_test_end
	run_test_ms=$(((run_test_end - run_test_start) / 1000))
	[ $run_test_ms -lt 1000 ] || diag "took" \
		"$((run_test_ms / 1000)).$((run_test_ms % 1000 / 100)) s: $name"
}

# The errno of one write of $2 to $1, or of one read of $1: a name or OK.
write_errno()
{
	/tests/tbio write "$1" "$2"
}

read_errno()
{
	/tests/tbio read "$1"
}

# expect WHAT GOT WANT
expect()
{
	[ "$2" = "$3" ] && return 0
	diag "$1: got '$2', want '$3'"
	return 1
}

# expect_le WHAT A B: A <= B
expect_le()
{
	[ "$2" -le "$3" ] && return 0
	diag "$1: $2 > $3"
	return 1
}

# cmdline_param NAME DEFAULT: tb.NAME= from the kernel command line
cmdline_param()
{
	v=$(sed -n "s/.*tb\.$1=\([^ ]*\).*/\1/p" /proc/cmdline)
	echo "${v:-$2}"
}

# How many ticks two exact (icount) medians of the same thing may differ
# by: 0, or tb.tick_slack=. On arm64 a tick is 16 instructions, and a pair
# that takes a whole number of ticks and a half (irq with the events off:
# 75.5) reads as either neighbour, as the phase of its windows against the
# counter falls; that phase moves with the guest's I/O even under icount,
# so two runs' medians differ by one tick now and then. arm64.conf asks
# for 1.
TICK_SLACK=$(cmdline_param tick_slack 0)
# The PMU clocks the guest's PMU serves, comma-separated (tb_boot)
PMU_CLOCKS=$(cmdline_param pmu none)

# pmu_clock CLOCK: CLOCK counts the PMU's events (clocks.h), whether or
# not this guest's PMU serves it
pmu_clock()
{
	case " $TB_C_PMU_CLOCKS " in
	*" $1 "*)	return 0 ;;
	esac
	return 1
}

# The clocks that count time, not the PMU's events, in the module's order
# shellcheck disable=SC2034 # for the groups suite.sh sources after
TIME_CLOCKS=$(for c in $TB_C_CLOCKS; do pmu_clock "$c" || echo "$c"; done)

# The clock the icount groups (exact, baseline, tracepoints) time with,
# one that counts every instruction, so that what they compare is exact:
# cycles where a tick is an instruction (x86, i386), else instructions,
# which arm64's PMU serves under icount. With cycles there, a median
# could move by a tick between two runs as the phases of the windows and
# of the calibration's against the counter fall. EXACT_SLACK: the ticks
# two medians by it may differ by.
EXACT_CLOCK=cycles
EXACT_SLACK=$TICK_SLACK
case ",$PMU_CLOCKS," in
*,instructions,*)
	[ "$TICK_SLACK" = 0 ] || { EXACT_CLOCK=instructions; EXACT_SLACK=0; } ;;
esac

# set_exact_clock: the icount groups' clock, set
set_exact_clock()
{
	echo $EXACT_CLOCK >$TB/clock
}

# expect_ticks WHAT GOT WANT: the same lists of integer medians by the
# exact clock, or with each pair within EXACT_SLACK ticks
expect_ticks()
{
	local what=$1 got=$2 want=$3 g

	[ "$got" = "$want" ] && return 0
	# shellcheck disable=SC2086 # the values wanted, a word each
	set -- $want
	for g in $got; do
		{ [ $# -gt 0 ] && [ $((g - $1)) -le "$EXACT_SLACK" ] &&
			[ $(($1 - g)) -le "$EXACT_SLACK" ]; } || { set -- x; break; }
		shift
	done
	if [ $# = 0 ]; then
		diag "$what: got '$got', want '$want', within $EXACT_SLACK tick(s)"
		return 0
	fi
	diag "$what: got '$got', want '$want'"
	return 1
}

set_defaults()
{
	echo "$TB_C_DEFAULT_SAMPLES" >$TB/nr_samples &&
		echo "$TB_C_DEFAULT_HIGHEST" >$TB/nr_highest &&
		echo 0 >$TB/do_work && echo all >$TB/cpus &&
		echo cycles >$TB/clock && echo 1 >$TB/batch
}

# summary_key KEY: KEY's value in the summary
summary_key()
{
	awk -v k="$1" '$1 == k { print $2 }' $TB/summary
}

# Completed benchmarks: the state that says whether a run happened.
runs()
{
	summary_key run
}

online_cpus()
{
	cat /sys/devices/system/cpu/online
}

# The CPUs of a cpulist, one per line: "0-2,5" gives 0 1 2 5.
expand_cpulist()
{
	echo "$1" | tr , '\n' | while IFS=- read -r lo hi; do
		seq "$lo" "${hi:-$lo}"
	done
}

load()
{
	[ -d $TB ] || insmod $MODULE
}

unload()
{
	[ -d $TB ] || return 0
	rmmod tracerbench
}

# pid_of COMM: the PID of the task named COMM
pid_of()
{
	local f
	for f in /proc/[0-9]*/comm; do
		[ "$(cat "$f" 2>/dev/null)" = "$1" ] || continue
		f=${f#/proc/}
		echo "${f%/comm}"
		return 0
	done
	return 1
}

# thread_pid CPU: the PID of tracerbench's thread on CPU
thread_pid()
{
	pid_of "tracerbench/$1"
}

medians()
{
	for p in $PRIMS; do
		printf '%s ' "$(cat "$TB/$p/median")"
	done
}
