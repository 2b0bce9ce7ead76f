#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# In-guest tests of tracerbench, in KTAP. Run as root in a guest whose
# initramfs has /tracerbench.ko, with debugfs mounted:
#
#	suite.sh GROUP...
#
# functional	the tree, results, bad input, concurrency, hotplug, unload
# exact		checks that need -icount shift=0,sleep=off: exact medians
# long		a run of 10^7 samples per CPU
# tracepoints	the preemptirq events raise the medians, exactly reversibly
# faults	every allocation on load and on a run failed in turn
# leaks		kmemleak finds nothing once the module is gone
# compare	no checks: measure.sh's samples, for tools/compare.sh
# show		no tests: run one benchmark and print every result file
# version	the module reports the version tb.version= names
# kunit		load tracerbench_kunit.ko, which runs the KUnit suites of the
#		pure helpers, and pass their KTAP on as "# kunit: " lines
#
# Groups take parameters from the kernel command line: tb.rounds=,
# tb.nr_samples=, tb.do_work=. The run ends by checking dmesg. The plan line
# comes last, so a guest that dies part-way leaves no plan and the host
# counts that as a failure.

TB=/sys/kernel/debug/tracerbench
MODULE=/tracerbench.ko
PREEMPTIRQ=/sys/kernel/tracing/events/preemptirq
KMEMLEAK=/sys/kernel/debug/kmemleak
PRIMS="irq preempt irq_save"
STATS="median average max max_avg percentile"
PARAMS="nr_samples nr_highest do_work"
# the largest nr_samples/nr_highest: INT_MAX / sizeof(u64)
MAX_SAMPLES=268435455

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

# run_test NAME COMMAND...: one KTAP line for COMMAND's exit status
run_test()
{
	name=$1
	shift
	"$@"
	ktap_result $? "$name"
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

now_cs()
{
	cut -d' ' -f1 /proc/uptime | tr -d .
}

# The snapshots read with the builtin read, not a cat per file: on a slow
# debug kernel, spawning 15 processes outlasts a run.
snapshot_params()
{
	local p v out=

	for p in $PARAMS; do
		read -r v <$TB/$p
		out="$out$p=$v "
	done
	echo "$out"
}

snapshot_results()
{
	local p s v out=

	for p in $PRIMS; do
		for s in $STATS; do
			read -r v <$TB/$p/$s
			out="$out$p/$s=$v "
		done
	done
	echo "$out"
}

set_defaults()
{
	echo 10000 >$TB/nr_samples && echo 100 >$TB/nr_highest &&
		echo 0 >$TB/do_work
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

# --- functional -------------------------------------------------------------

# All the CPUs QEMU was given (tb.cpus=) are online: runs measure on all.
test_all_cpus_online()
{
	cpus=$(cmdline_param cpus 1)
	want=0
	[ "$cpus" -gt 1 ] && want="0-$((cpus - 1))"
	expect "present CPUs" "$(cat /sys/devices/system/cpu/present)" $want &&
		expect "online CPUs" "$(cat /sys/devices/system/cpu/online)" $want
}

test_tree()
{
	local fail=0
	for f in nr_samples:644 nr_highest:644 do_work:644 benchmark:200 \
		 percentile:200; do
		expect "mode of ${f%%:*}" "$(stat -c %a $TB/${f%%:*})" \
			"${f##*:}" || fail=1
	done
	for p in $PRIMS; do
		[ -d $TB/$p ] || { diag "no $p/"; fail=1; }
		for s in $STATS; do
			expect "mode of $p/$s" "$(stat -c %a $TB/$p/$s)" 444 ||
				fail=1
		done
	done
	expect "entries at the top" "$(ls $TB | tr '\n' ' ')" \
		"benchmark do_work irq irq_save nr_highest nr_samples percentile preempt " ||
		fail=1
	expect "world-writable files" "$(find $TB -perm -o+w)" "" || fail=1
	return $fail
}

test_defaults()
{
	expect defaults "$(snapshot_params)" \
		"nr_samples=10000 nr_highest=100 do_work=0 "
}

test_zero_before_run()
{
	local fail=0
	for p in $PRIMS; do
		for s in $STATS; do
			expect "$p/$s" "$(cat $TB/$p/$s)" 0 || fail=1
		done
	done
	return $fail
}

# Every max above 0; median, average and max_avg not above max; max_avg not
# below the median (the top nr_highest include every CPU's upper half).
check_results_sane()
{
	local fail=0
	for p in $PRIMS; do
		med=$(cat $TB/$p/median)
		avg=$(cat $TB/$p/average)
		max=$(cat $TB/$p/max)
		top=$(cat $TB/$p/max_avg)
		[ "$max" -gt 0 ] || { diag "$p/max is $max"; fail=1; }
		expect_le "$p median <= max" "$med" "$max" || fail=1
		expect_le "$p average <= max" "$avg" "$max" || fail=1
		expect_le "$p max_avg <= max" "$top" "$max" || fail=1
		expect_le "$p median <= max_avg" "$med" "$top" || fail=1
	done
	return $fail
}

test_run_sane()
{
	expect "benchmark" "$(write_errno $TB/benchmark 1)" OK &&
		check_results_sane
}

test_run_any_input()
{
	expect "benchmark 'go'" "$(write_errno $TB/benchmark go)" OK
}

test_percentile_run()
{
	local fail=0
	for pct in 1 50 100; do
		expect "percentile $pct" "$(write_errno $TB/percentile $pct)" OK ||
			fail=1
	done
	# nearest-rank 100 is the largest fresh sample: some cycles passed
	for p in $PRIMS; do
		[ "$(cat $TB/$p/percentile)" -gt 0 ] ||
			{ diag "$p/percentile 100 is 0"; fail=1; }
	done
	return $fail
}

# Bad input: FILE VALUE ERRNO. Values go in with a newline, as echo writes.
BAD_INPUTS="
nr_samples|0|EINVAL
nr_samples|-1|EINVAL
nr_samples|abc|EINVAL
nr_samples|12abc|EINVAL
nr_samples|12 |EINVAL
nr_samples| 12|EINVAL
nr_samples|268435456|EINVAL
nr_samples|2305843009213693953|EINVAL
nr_samples|18446744073709551615|EINVAL
nr_samples|18446744073709551616|ERANGE
nr_samples|99999999999999999999999999|ERANGE
nr_highest|0|EINVAL
nr_highest|-5|EINVAL
nr_highest|x|EINVAL
nr_highest|5x|EINVAL
nr_highest|268435456|EINVAL
nr_highest|18446744073709551616|ERANGE
do_work|2|EINVAL
do_work|-1|EINVAL
do_work|10|EINVAL
do_work|yes|EINVAL
do_work|18446744073709551616|ERANGE
percentile|0|EINVAL
percentile|101|EINVAL
percentile|-1|EINVAL
percentile|50x|EINVAL
percentile|abc|EINVAL
percentile|18446744073709551616|ERANGE
"

test_bad_input()
{
	file=$1 value=$2 want=$3
	params=$(snapshot_params)
	results=$(snapshot_results)
	local fail=0
	expect "errno" "$(write_errno $TB/$file "$value
")" "$want" || fail=1
	expect "configuration" "$(snapshot_params)" "$params" || fail=1
	expect "results" "$(snapshot_results)" "$results" || fail=1
	return $fail
}

test_write_read_only()
{
	before=$(cat $TB/$1)
	local fail=0
	expect "errno" "$(write_errno $TB/$1 5)" EACCES || fail=1
	expect "value" "$(cat $TB/$1)" "$before" || fail=1
	return $fail
}

test_read_write_only()
{
	expect "errno" "$(read_errno $TB/$1)" EACCES
}

test_limits_accepted()
{
	local fail=0
	for p in nr_samples nr_highest; do
		expect "$p max" "$(write_errno $TB/$p $MAX_SAMPLES)" OK || fail=1
		expect "$p reads back" "$(cat $TB/$p)" $MAX_SAMPLES || fail=1
		expect "$p 1" "$(write_errno $TB/$p 1)" OK || fail=1
	done
	expect "do_work 1" "$(write_errno $TB/do_work 1)" OK || fail=1
	expect "do_work reads back" "$(cat $TB/do_work)" 1 || fail=1
	set_defaults
	return $fail
}

test_highest_clamped()
{
	local fail=0
	echo 50 >$TB/nr_samples
	echo 1000 >$TB/nr_highest
	expect "benchmark" "$(write_errno $TB/benchmark 1)" OK || fail=1
	check_results_sane || fail=1
	expect "nr_highest kept" "$(cat $TB/nr_highest)" 1000 || fail=1
	set_defaults
	return $fail
}

test_one_sample()
{
	local fail=0
	echo 1 >$TB/nr_samples
	expect "benchmark" "$(write_errno $TB/benchmark 1)" OK || fail=1
	check_results_sane || fail=1
	expect "percentile" "$(write_errno $TB/percentile 50)" OK || fail=1
	set_defaults
	return $fail
}

test_do_work_run()
{
	echo 1 >$TB/do_work
	expect "benchmark" "$(write_errno $TB/benchmark 1)" OK &&
		check_results_sane
	rc=$?
	set_defaults
	return $rc
}

# Buffers that cannot be had: -ENOMEM, nothing changed, next run fine.
test_enomem()
{
	local fail=0
	echo 1 >$TB/benchmark
	results=$(snapshot_results)
	echo $MAX_SAMPLES >$TB/nr_samples
	expect "benchmark" "$(write_errno $TB/benchmark 1)" ENOMEM || fail=1
	expect "percentile" "$(write_errno $TB/percentile 50)" ENOMEM || fail=1
	expect "results" "$(snapshot_results)" "$results" || fail=1
	expect "nr_samples" "$(cat $TB/nr_samples)" $MAX_SAMPLES || fail=1
	set_defaults
	expect "next benchmark" "$(write_errno $TB/benchmark 1)" OK || fail=1
	return $fail
}

# Start a benchmark in the background; $1 names its status file, which
# holds "errno end-time" once the write returns.
start_benchmark()
{
	rm -f "$1"
	( e=$(write_errno $TB/benchmark 1); echo "$e $(now_cs)" >"$1" ) &
}

wait_file()
{
	n=0
	while [ ! -s "$1" ] && [ $n -lt 3000 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ -s "$1" ]
}

# The length of one run with nr_samples as set now, in centiseconds.
time_run()
{
	t0=$(now_cs)
	echo 1 >$TB/benchmark
	echo $(($(now_cs) - t0))
}

# Runs long enough to act on one while it is in progress: about 4 s, sized
# from a timed run, as kernels and hosts differ several times in speed.
SLOW_SAMPLES=3000000
size_slow_runs()
{
	local t

	echo 300000 >$TB/nr_samples
	t=$(time_run)
	SLOW_SAMPLES=$((300000 * 400 / (t > 0 ? t : 1)))
	[ $SLOW_SAMPLES -le 10000000 ] || SLOW_SAMPLES=10000000
	diag "300000 samples took ${t}cs: runs of $SLOW_SAMPLES take about 4 s"
	set_defaults
}

test_concurrent_writers()
{
	local fail=0
	echo $SLOW_SAMPLES >$TB/nr_samples
	one=$(time_run)
	start_benchmark /tmp/a
	start_benchmark /tmp/b
	wait_file /tmp/a && wait_file /tmp/b ||
		{ diag "a writer did not return"; set_defaults; return 1; }
	wait
	read -r ea ta </tmp/a
	read -r eb tb </tmp/b
	expect "first writer" "$ea" OK || fail=1
	expect "second writer" "$eb" OK || fail=1
	gap=$((ta > tb ? ta - tb : tb - ta))
	diag "one run ${one}cs, writers returned ${gap}cs apart"
	# serialised writers return a whole run apart, not together
	[ $((gap * 2)) -ge "$one" ] ||
		{ diag "writers overlapped"; fail=1; }
	check_results_sane || fail=1
	set_defaults
	return $fail
}

test_read_during_run()
{
	local fail=0
	echo 1 >$TB/benchmark
	before=$(snapshot_results)
	echo $SLOW_SAMPLES >$TB/nr_samples
	start_benchmark /tmp/a
	sleep 0.3
	during=$(snapshot_results)
	params=$(snapshot_params)
	[ -s /tmp/a ] && { diag "run ended before the reads"; fail=1; }
	expect "results during the run" "$during" "$before" || fail=1
	echo 777 >$TB/nr_samples ||
		{ diag "config write during the run failed"; fail=1; }
	wait_file /tmp/a || { diag "writer did not return"; fail=1; }
	wait
	read -r e t </tmp/a
	expect "writer" "$e" OK || fail=1
	expect "nr_samples after the run" "$(cat $TB/nr_samples)" 777 || fail=1
	expect "params read during the run" "$params" \
		"nr_samples=$SLOW_SAMPLES nr_highest=100 do_work=0 " || fail=1
	set_defaults
	return $fail
}

# An empty write asks for nothing: it returns at once, without a run.
test_empty_write()
{
	local fail=0 results t0 t

	echo 1 >$TB/benchmark
	results=$(snapshot_results)
	echo $SLOW_SAMPLES >$TB/nr_samples
	t0=$(now_cs)
	expect "empty write" "$(write_errno $TB/benchmark '')" OK || fail=1
	t=$(($(now_cs) - t0))
	# a run of SLOW_SAMPLES takes about 4 s
	[ $t -lt 100 ] || { diag "it took ${t}cs: a run happened"; fail=1; }
	expect "results" "$(snapshot_results)" "$results" || fail=1
	set_defaults
	return $fail
}

# SIGKILL during a run ends it early; it publishes nothing.
test_killed_writer()
{
	local fail=0
	echo 1 >$TB/benchmark
	results=$(snapshot_results)
	echo 10000000 >$TB/nr_samples
	t0=$(now_cs)
	/tests/tbio write $TB/benchmark 1 >/dev/null &
	pid=$!
	sleep 1
	kill -9 $pid
	{ wait $pid; } 2>/dev/null
	t=$(($(now_cs) - t0))
	diag "the killed writer was gone after ${t}cs"
	# a whole run of 10^7 samples per CPU takes well over 10 s here
	[ $t -lt 500 ] || { diag "the run was not aborted"; fail=1; }
	expect "results" "$(snapshot_results)" "$results" || fail=1
	set_defaults
	expect "next run" "$(write_errno $TB/benchmark 1)" OK || fail=1
	return $fail
}

# On a kernel without the tracepoints, tools/compare.sh --host says so.
test_compare_host_refuses()
{
	out=$(/tb/tools/compare.sh --host 2>&1)
	rc=$?
	diag "$out"
	[ $rc = 1 ] && case $out in
	*"has no preemptirq tracepoints"*)	return 0 ;;
	esac
	return 1
}

CPU3=/sys/devices/system/cpu/cpu3/online

# switch_cpu3_during_run 0|1: take cpu3 down or up while a run is in
# progress; the switch must wait for the run and then succeed.
switch_cpu3_during_run()
{
	local fail=0 t_switch e t

	echo $SLOW_SAMPLES >$TB/nr_samples
	start_benchmark /tmp/a
	sleep 1
	[ -s /tmp/a ] && { diag "run ended too early"; fail=1; }
	echo "$1" >$CPU3 || { diag "writing $1 to cpu3 failed"; fail=1; }
	t_switch=$(now_cs)
	wait_file /tmp/a || { diag "writer did not return"; fail=1; }
	wait
	read -r e t </tmp/a
	expect "writer" "$e" OK || fail=1
	# both stamps follow cpus_read_unlock(); a switch that did not wait
	# would have returned seconds before the run did
	diag "cpu3 switched to $1 at ${t_switch}cs, the run returned at ${t}cs"
	[ $((t_switch + 50)) -ge "$t" ] ||
		{ diag "the switch did not wait for the run"; fail=1; }
	expect "cpu3 online" "$(cat $CPU3)" "$1" || fail=1
	set_defaults
	return $fail
}

# Offlining a CPU waits for the run holding cpus_read_lock(), then works.
test_offline_during_run()
{
	local fail=0

	[ -w $CPU3 ] || { diag "cpu3 cannot go offline"; return 1; }
	switch_cpu3_during_run 0 || fail=1
	expect "run with cpu3 offline" "$(write_errno $TB/benchmark 1)" OK ||
		fail=1
	check_results_sane || fail=1
	echo 1 >$CPU3 || { diag "online failed"; fail=1; }
	expect "run with cpu3 back" "$(write_errno $TB/benchmark 1)" OK ||
		fail=1
	return $fail
}

# Onlining waits too. Unlike offlining, which waits anyway to park the
# CPU's busy thread, only cpus_read_lock() makes it wait.
test_online_during_run()
{
	echo 0 >$CPU3 || { diag "offline failed"; return 1; }
	switch_cpu3_during_run 1
}

test_rmmod_after_run()
{
	echo 1 >$TB/benchmark && rmmod tracerbench && [ ! -d $TB ] &&
		insmod $MODULE && [ -d $TB ] && test_zero_before_run
}

test_load_cycles()
{
	i=0
	while [ $i -lt 20 ]; do
		unload || { diag "rmmod $i failed"; return 1; }
		insmod $MODULE || { diag "insmod $i failed"; return 1; }
		test_defaults || return 1
		if [ $((i % 5)) -eq 0 ]; then
			echo 100 >$TB/nr_samples
			echo 1 >$TB/benchmark || { diag "run $i"; return 1; }
		fi
		i=$((i + 1))
	done
}

test_big_run()
{
	local fail=0
	echo 10000000 >$TB/nr_samples
	t=$(time_run)
	diag "10^7 samples per CPU in ${t}cs"
	check_results_sane || fail=1
	set_defaults
	return $fail
}

# Report markers, not words: "RCU lockdep checking is enabled" is no report.
DMESG_BAD='WARNING:|BUG:|Oops|soft lockup|hard LOCKUP|rcu.*stall|blocked for more than|Out of memory|oom-kill|Call Trace|sleeping function called'

test_dmesg_clean()
{
	bad=$(dmesg | grep -E "$DMESG_BAD")
	[ -z "$bad" ] && return 0
	echo "$bad" | while read -r line; do diag "$line"; done
	return 1
}

group_functional()
{
	run_test "load" insmod $MODULE
	run_test "tree: files, modes, nothing world-writable" test_tree
	run_test "defaults" test_defaults
	run_test "results read 0 before any run" test_zero_before_run
	run_test "benchmark: results consistent" test_run_sane
	run_test "benchmark: any input starts a run" test_run_any_input
	run_test "percentile 1, 50, 100" test_percentile_run
	echo "$BAD_INPUTS" | while IFS='|' read -r file value want; do
		[ -n "$file" ] || continue
		echo "$file|$value|$want"
	done >/tmp/bad
	while IFS='|' read -r file value want; do
		run_test "bad input: $file '$value' is $want, nothing changes" \
			test_bad_input "$file" "$value" "$want"
	done </tmp/bad
	for p in $PRIMS; do
		for s in $STATS; do
			run_test "write to read-only $p/$s is EACCES" \
				test_write_read_only "$p/$s"
		done
	done
	for f in benchmark percentile; do
		run_test "read of write-only $f is EACCES" \
			test_read_write_only $f
	done
	run_test "limits accepted" test_limits_accepted
	run_test "nr_highest above nr_samples is clamped" test_highest_clamped
	run_test "nr_samples 1" test_one_sample
	run_test "do_work run" test_do_work_run
	run_test "ENOMEM leaves everything as it was" test_enomem
	size_slow_runs
	run_test "concurrent writers are serialised" test_concurrent_writers
	run_test "reads and config writes during a run" test_read_during_run
	run_test "a killed writer aborts its run" test_killed_writer
	run_test "an empty write to benchmark runs nothing" test_empty_write
	run_test "CPU offline waits for the run" test_offline_during_run
	run_test "CPU online waits for the run" test_online_during_run
	if [ -d $PREEMPTIRQ ]; then
		run_test "compare.sh --host measures off and on" \
			test_compare_host_runs
	else
		run_test "compare.sh --host refuses without tracepoints" \
			test_compare_host_refuses
	fi
	run_test "rmmod after a run" test_rmmod_after_run
	run_test "20 load/unload cycles" test_load_cycles
	run_test "10^7 samples per CPU" test_big_run
	run_test "unload" unload
}

# --- exact: under -icount shift=0,sleep=off -----------------------------------

medians()
{
	for p in $PRIMS; do
		printf '%s ' "$(cat $TB/$p/median)"
	done
}

test_identical_medians()
{
	echo 1 >$TB/benchmark || return 1
	first=$(medians)
	echo 1 >$TB/benchmark || return 1
	diag "medians: $first"
	expect "second run" "$(medians)" "$first"
}

test_percentile_order()
{
	local fail=0
	echo 50 >$TB/percentile || return 1
	p50=$(for p in $PRIMS; do printf '%s ' "$(cat $TB/$p/percentile)"; done)
	echo 99 >$TB/percentile || return 1
	set -- $p50
	for p in $PRIMS; do
		expect_le "$p p50 <= p99" "$1" "$(cat $TB/$p/percentile)" ||
			fail=1
		shift
	done
	return $fail
}

# The simulated work is calibrated and subtracted: medians barely move.
test_do_work_subtracted()
{
	local fail=0
	echo 1 >$TB/benchmark || return 1
	plain=$(medians)
	echo 1 >$TB/do_work
	echo 1 >$TB/benchmark || fail=1
	work=$(medians)
	echo 0 >$TB/do_work
	diag "medians without work: $plain, with: $work"
	set -- $work
	for m in $plain; do
		d=$(($1 - m))
		[ ${d#-} -le 2 ] || { diag "differ by $d"; fail=1; }
		shift
	done
	return $fail
}

group_exact()
{
	run_test "load" load
	run_test "two runs give identical medians" test_identical_medians
	run_test "percentile 50 <= percentile 99" test_percentile_order
	run_test "do_work medians within 2 cycles" test_do_work_subtracted
	run_test "unload" unload
}

# With preempt=MODEL on the command line, that model is the one in force.
test_preempt_model()
{
	model=$(cat /sys/kernel/debug/sched/preempt 2>/dev/null)
	diag "preemption: ${model:-fixed at build time}"
	want=$(sed -n 's/.*preempt=\([a-z]*\).*/\1/p' /proc/cmdline)
	[ -z "$want" ] && return 0
	case $model in
	*"($want)"*)	return 0 ;;
	esac
	diag "booted with preempt=$want"
	return 1
}

group_long()
{
	run_test "load" load
	run_test "preemption model as booted" test_preempt_model
	run_test "10^7 samples per CPU" test_big_run
	run_test "unload" unload
}

# --- tracepoints: on a kernel with them, under icount --------------------------

test_tracepoint_events()
{
	local fail=0
	for e in irq_disable irq_enable preempt_disable preempt_enable; do
		[ -d $PREEMPTIRQ/$e ] || { diag "no event $e"; fail=1; }
	done
	return $fail
}

# events 0|1
events()
{
	echo "$1" >$PREEMPTIRQ/enable && [ "$(cat $PREEMPTIRQ/enable)" = "$1" ]
}

# expect_raised WHAT ON OFF: ON is at least 5 times OFF, and not 0
expect_raised()
{
	[ "$2" -gt 0 ] && [ "$2" -ge $((5 * $3)) ] && return 0
	diag "$1: $2 with the events on, $3 off"
	return 1
}

test_tracepoints_raise()
{
	local fail=0
	events 0 && echo 1 >$TB/benchmark || return 1
	tp_off=$(medians)
	events 1 && echo 1 >$TB/benchmark || fail=1
	tp_on=$(medians)
	events 0 || fail=1
	diag "medians (irq preempt irq_save) off: $tp_off, on: $tp_on"
	set -- $tp_off $tp_on
	expect_raised irq "$4" "$1" || fail=1
	expect_raised preempt "$5" "$2" || fail=1
	return $fail
}

test_tracepoints_restore()
{
	events 0 && echo 1 >$TB/benchmark || return 1
	expect "medians with the events off again" "$(medians)" "$tp_off"
}

# compare_host MIN_RATIO: tools/compare.sh --host, as on a real machine
# with the tracepoints. The off and on columns are filled, "compiled out"
# is blank, and for irq and preempt, on/off is at least MIN_RATIO.
compare_host()
{
	local out rc

	out=$(/tb/tools/compare.sh --host --rounds 2 --nr-samples 2000 2>&1)
	rc=$?
	echo "$out" | while read -r line; do diag "$line"; done
	[ $rc = 0 ] || return 1
	echo "$out" | awk -v min="$1" '$1 == "irq" || $1 == "preempt" {
		rows++
		if ($2 != "-" || $NF != "-" || $(NF - 2) != "-" ||
		    $(NF - 1) == "-" || $(NF - 1) < min)
			bad = 1
	} END { exit rows != 2 || bad }'
}

# Under icount the events' cost is exact: 5 times or more, as above.
test_compare_host()
{
	compare_host 5
}

# Elsewhere (the debug kernel), only that on costs more than off.
test_compare_host_runs()
{
	compare_host 1.01
}

group_tracepoints()
{
	run_test "load" load
	run_test "preemptirq events exist" test_tracepoint_events
	run_test "events on raise irq and preempt medians 5 times or more" \
		test_tracepoints_raise
	run_test "events off again give the exact earlier medians" \
		test_tracepoints_restore
	run_test "compare.sh --host measures off and on" test_compare_host
	run_test "unload" unload
}

# --- faults: fail-nth on every allocation of a load and of a run --------------

FAULT_LIMIT=3000
# x86-64's module area, for either KERNEL_IMAGE_SIZE; kernel text is below
MODULES_START=0xffffffffa0000000
MODULES_END=0xffffffffff000000

# in_modules ADDRESS: within the module area
in_modules()
{
	[ "$(printf '%s\n%s\n' "$1" $MODULES_START | sort | head -n 1)" = \
	  $MODULES_START ] &&
	[ "$(printf '%s\n%s\n' "$1" $MODULES_END | sort | head -n 1)" = "$1" ]
}

# Let fail-nth reach GFP_KERNEL and order-0 allocations, quietly, but only
# those with a caller in the module area: tracerbench's own, not the module
# loader's or those of the rest of the kernel.
fault_setup()
{
	local text stext

	load || return 1
	text=$(cat /sys/module/tracerbench/sections/.text)
	stext=0x$(grep ' _stext$' /proc/kallsyms | cut -d' ' -f1)
	in_modules "$text" || { diag "module text $text not in the area"; return 1; }
	in_modules "$stext" && { diag "kernel text $stext in the area"; return 1; }
	for f in failslab fail_page_alloc; do
		d=/sys/kernel/debug/$f
		[ -d $d ] || { diag "no $d"; return 1; }
		echo N >$d/ignore-gfp-wait && echo 0 >$d/verbose &&
			echo $MODULES_START >$d/require-start &&
			echo $MODULES_END >$d/require-end || return 1
	done
	echo N >/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem &&
		echo 0 >/sys/kernel/debug/fail_page_alloc/min-order
}

# A failed call must give a plain errno, not a garbled one.
is_errno()
{
	case $1 in
	E[A-Z]*)	return 0 ;;
	esac
	diag "not an errno: $1"
	return 1
}

# Fail the 1st, 2nd, ... allocation of insmod until none is left.
test_fault_load()
{
	unload || return 1
	local fail=0
	n=1
	while :; do
		set -- $(/tests/tbio -f $n insmod $MODULE)
		[ "$2" = missed ] && break
		if [ "$1" = OK ]; then
			# something that may fail did: the module must be whole
			test_tree >/dev/null ||
				{ diag "fault $n: loaded without its tree"; fail=1; }
		else
			is_errno "$1" || fail=1
			[ -d $TB ] && { diag "fault $n: $1 left a tree"; fail=1; }
		fi
		unload || { diag "fault $n: rmmod failed"; return 1; }
		n=$((n + 1))
		[ $n -le $FAULT_LIMIT ] || { diag "no end of faults"; return 1; }
	done
	diag "insmod reached $((n - 1)) fault points"
	expect "load past the last fault point" "$1" OK || fail=1
	test_defaults || fail=1
	return $fail
}

# test_fault_run FILE VALUE: the same for a benchmark or percentile write.
# A failed run is -ENOMEM and publishes nothing; the next run succeeds.
test_fault_run()
{
	local file=$1 value=$2 fail=0 n=1
	load || return 1
	echo 100 >$TB/nr_samples
	while :; do
		results=$(snapshot_results)
		set -- $(/tests/tbio -f $n write $TB/$file $value)
		[ "$2" = missed ] && break
		if [ "$1" != OK ]; then
			expect "fault $n" "$1" ENOMEM || fail=1
			expect "results after fault $n" "$(snapshot_results)" \
				"$results" || fail=1
		fi
		expect "run after fault $n" "$(write_errno $TB/$file $value)" OK ||
			fail=1
		n=$((n + 1))
		[ $n -le $FAULT_LIMIT ] || { diag "no end of faults"; return 1; }
	done
	diag "$file reached $((n - 1)) fault points"
	expect "$file past the last fault point" "$1" OK || fail=1
	set_defaults
	return $fail
}

# Allocation failures print their own reports; only real bugs count here.
test_dmesg_after_faults()
{
	bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|sleeping function called')
	dmesg -c >/dev/null
	[ -z "$bad" ] && return 0
	echo "$bad" | while read -r line; do diag "$line"; done
	return 1
}

group_faults()
{
	run_test "dmesg clean before injecting" test_dmesg_clean
	dmesg -c >/dev/null
	run_test "fault injection set up" fault_setup
	run_test "every fault on load fails it cleanly" test_fault_load
	run_test "every fault in a benchmark run fails it cleanly" \
		test_fault_run benchmark 1
	run_test "every fault in a percentile run fails it cleanly" \
		test_fault_run percentile 50
	run_test "unload" unload
	run_test "no WARNING, BUG, KASAN or lockdep report under injection" \
		test_dmesg_after_faults
}

# --- leaks ----------------------------------------------------------------------

test_kmemleak()
{
	[ -w $KMEMLEAK ] || { diag "no kmemleak"; return 1; }
	unload || return 1
	# kmemleak reports only objects older than 5 s
	sleep 6
	echo scan >$KMEMLEAK
	echo scan >$KMEMLEAK
	leaks=$(cat $KMEMLEAK)
	[ -z "$leaks" ] && return 0
	echo "$leaks" | head -n 60 | while read -r line; do diag "$line"; done
	return 1
}

group_leaks()
{
	run_test "kmemleak: nothing unreferenced" test_kmemleak
}

# --- compare: samples for tools/compare.sh --------------------------------------

test_compare_setup()
{
	echo "$(cmdline_param nr_samples 10000)" >$TB/nr_samples &&
		echo "$(cmdline_param do_work 0)" >$TB/do_work
}

group_compare()
{
	run_test "load" load
	run_test "configure" test_compare_setup
	run_test "measure" /tests/measure.sh "$(cmdline_param rounds 5)"
	run_test "unload" unload
}

# --- version: the module carries the version it was built as ------------------

test_version()
{
	expect "/sys/module/tracerbench/version" \
		"$(cat /sys/module/tracerbench/version)" \
		"$(cmdline_param version "no tb.version=")"
}

group_version()
{
	run_test "load" load
	run_test "version in sysfs is tb.version=" test_version
	run_test "benchmark: results consistent" test_run_sane
	run_test "unload" unload
}

# --- kunit: the KUnit suites of the pure helpers, on a kernel with KUnit ------

KUNIT_MODULE=/tracerbench_kunit.ko
KUNIT_MARK="tracerbench: loading the KUnit suites"
KUNIT_END="tracerbench: the KUnit suites are loaded"

# Loading the module runs its suites, which print KTAP to the kernel log.
# Follow /dev/kmsg meanwhile and pass the log between the two marks on as
# "# kunit: " diagnostics, which the host counts case by case. They go out
# line by line, so that a guest that dies in a suite still reports what ran
# before it. A record is "level,seq,time,flags;text"; lines that start with
# a space continue the record before.
test_kunit_load()
{
	local rc cat_pid awk_pid n=0

	rm -f /tmp/kmsg && mkfifo /tmp/kmsg || return 1
	cat /dev/kmsg >/tmp/kmsg &
	cat_pid=$!
	awk -v mark="$KUNIT_MARK" -v end="$KUNIT_END" '
	!/^[0-9]+,[0-9]+,[0-9]+,[^;]*;/ { next }
	{ msg = $0; sub(/^[^;]*;/, "", msg) }
	msg == end { exit }
	on { print "# kunit: " msg; fflush() }
	msg == mark { on = 1 }' </tmp/kmsg &
	awk_pid=$!
	echo "$KUNIT_MARK" >/dev/kmsg
	insmod $KUNIT_MODULE
	rc=$?
	echo "$KUNIT_END" >/dev/kmsg
	while kill -0 $awk_pid 2>/dev/null && [ $n -lt 300 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	kill $cat_pid $awk_pid 2>/dev/null
	wait $cat_pid $awk_pid 2>/dev/null
	[ $n -lt 300 ] || { diag "the end of the KUnit log never came"; rc=1; }
	return $rc
}

group_kunit()
{
	run_test "kunit: the module loads and runs its suites" test_kunit_load
	run_test "kunit: the module unloads" rmmod tracerbench_kunit
}

# --- show: for make run -------------------------------------------------------

group_show()
{
	load || return 1
	echo 1 >$TB/benchmark || return 1
	echo 99 >$TB/percentile || return 1
	echo "tracerbench on $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, nr_samples $(cat $TB/nr_samples), nr_highest $(cat $TB/nr_highest), do_work $(cat $TB/do_work)"
	echo "all figures in cycles (get_cycles()); percentile is p99 on one CPU"
	printf '%-10s' ""
	for s in $STATS; do
		printf '%12s' "$s"
	done
	echo
	for p in $PRIMS; do
		printf '%-10s' "$p"
		for s in $STATS; do
			printf '%12s' "$(cat $TB/$p/$s)"
		done
		echo
	done
}

echo "KTAP version 1"
[ "$1" = show ] || run_test "every present CPU online" test_all_cpus_online
# what the kernel reported before the module was loaded is not ours
if [ -w $KMEMLEAK ]; then
	echo scan >$KMEMLEAK
	echo clear >$KMEMLEAK
fi
for group in "$@"; do
	case $group in
	functional)	group_functional ;;
	exact)		group_exact ;;
	long)		group_long ;;
	tracepoints)	group_tracepoints ;;
	faults)		group_faults ;;
	leaks)		group_leaks ;;
	compare)	group_compare ;;
	version)	group_version ;;
	kunit)		group_kunit ;;
	show)		group_show; exit ;;
	*)		diag "unknown group $group"; ktap_result 1 "group $group" ;;
	esac
done
run_test "dmesg: no warning, lockdep, lockup, stall or KASAN report" \
	test_dmesg_clean
echo "1..$nr_tests"
echo "# $((nr_tests - nr_failed)) passed, $nr_failed failed"
