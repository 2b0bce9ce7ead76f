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
# long		a long run (tb.long_samples= per CPU, 10^8 by default) in a
#		small guest, with the lockup detectors tightened
# stall		batch 10000 with the events on (the debug kernel): no
#		detector reports, and signals end a run
# headless	insmod run=1 with debugfs off: the summary in the kernel log
# tracepoints	the preemptirq events raise the medians, exactly reversibly
# baseline	traced primitives against raw ones (icount): equal without the
#		tracepoints, above them, repeatably, with the events off
# faults	every allocation on load and on a run failed in turn
# leaks		kmemleak finds nothing once the module is gone
# compare	no checks: measure.sh's samples, for tools/compare.sh
# collect	no checks: collect.sh's results, for tools/bench.sh
# timing	no checks: the duration of a run of the default settings
# cost		no checks: runs of tb.cost_sizes= samples, for tools/speed.sh
# show		no tests: run one benchmark and print every result file
# version	the module reports the version tb.version= names
# kunit		load tracerbench_kunit.ko, which runs the KUnit suites of the
#		pure helpers, and pass their KTAP on as "# kunit: " lines
#
# Groups take parameters from the kernel command line: tb.rounds=,
# tb.nr_samples=, tb.do_work=, tb.batch= (compare). The run ends by checking
# dmesg. The plan line comes last, so a guest that dies part-way leaves no
# plan and the host counts that as a failure.

GUEST=${0%/*}
. "$GUEST/ktap.sh"

# the summary's tail levels, in order
LEVELS="p50 p90 p99 p99.9 p99.99"

# The snapshots read with the builtin read, not a cat per file: on a slow
# debug kernel, spawning 15 processes outlasts a run. snap_params and
# snap_results leave theirs in SNAPSHOT, for callers that would otherwise
# fork a subshell to take it, four a bad-input test.
snap_params()
{
	local p v

	SNAPSHOT=
	for p in $PARAMS; do
		read -r v <$TB/$p
		SNAPSHOT="$SNAPSHOT$p=$v "
	done
}

snap_results()
{
	local p s v

	SNAPSHOT=
	for p in $PRIMS; do
		for s in $STATS; do
			read -r v <$TB/$p/$s
			SNAPSHOT="$SNAPSHOT$p/$s=$v "
		done
	done
}

snapshot_params()
{
	snap_params
	echo "$SNAPSHOT"
}

snapshot_results()
{
	snap_results
	echo "$SNAPSHOT"
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

# dir_entries DIR: the names in DIR, in order, each followed by a space,
# into ENTRIES; builtins only, as in test_tree
dir_entries()
{
	local f

	ENTRIES=
	for f in "$1"/*; do
		[ -e "$f" ] && ENTRIES="$ENTRIES${f##*/} "
	done
}

# Every file with its mode, every directory with its entries. One stat for
# all the files: a process per file made this take 3 s on the debug
# kernel, and the fault group runs it after each load that survived a
# fault.
test_tree()
{
	local fail=0 want= names= f got v

	for f in nr_samples:644 nr_highest:644 do_work:644 batch:644 cpus:644 \
		 clock:644 benchmark:200 percentile:200 summary:444; do
		want="$want $f"
	done
	for p in $PRIMS; do
		for s in $STATS histogram per_cpu; do
			want="$want $p/$s:444"
		done
	done
	for f in $want; do
		names="$names ${f%%:*}"
	done
	got=" $(cd $TB && stat -c '%n:%a' $names 2>/dev/null | tr '\n' ' ')"
	for f in $want; do
		case $got in
		*" $f "*)	continue ;;
		*" ${f%%:*}:"*)	v=${got#* "${f%%:*}":}; v=${v%% *} ;;
		*)		v=missing ;;
		esac
		expect "mode of ${f%%:*}" "$v" "${f##*:}"
		fail=1
	done
	for p in $PRIMS; do
		[ -d $TB/$p ] || { diag "no $p/"; fail=1; }
		dir_entries $TB/$p
		expect "entries of $p/" "$ENTRIES" \
			"average histogram max max_avg median per_cpu percentile " ||
			fail=1
	done
	dir_entries $TB
	expect "entries at the top" "$ENTRIES" \
		"batch benchmark clock cpus do_work irq irq_save none nr_highest nr_samples percentile preempt preempt_notrace raw_irq raw_irq_save summary " ||
		fail=1
	expect "world-writable files" "$(find $TB -perm -o+w)" "" || fail=1
	return $fail
}

test_defaults()
{
	expect defaults "$(snapshot_params)" \
		"nr_samples=10000 nr_highest=100 do_work=0 batch=1 cpus=$(online_cpus) clock=cycles "
}

test_zero_before_run()
{
	local fail=0
	for p in $PRIMS; do
		for s in $STATS; do
			expect "$p/$s" "$(cat $TB/$p/$s)" 0 || fail=1
		done
		expect "$p/histogram" "$(cat $TB/$p/histogram)" "" || fail=1
		expect "$p/per_cpu" "$(cat $TB/$p/per_cpu)" \
			"cpu median average max p99 samples" || fail=1
		expect "summary $p.samples" "$(summary_key $p.samples)" 0 ||
			fail=1
	done
	expect "summary run" "$(runs)" 0 || fail=1
	return $fail
}

# Every max above 0; median, average and max_avg not above max; max_avg not
# below the median (the top nr_highest include every CPU's upper half).
# With "few" as $1, a max of 0 is allowed: a handful of windows of a cheap
# primitive (preempt_notrace is two instructions) can all come out at or
# below the calibrated overhead. none, the empty window, always may.
check_results_sane()
{
	local fail=0
	for p in $PRIMS; do
		med=$(cat $TB/$p/median)
		avg=$(cat $TB/$p/average)
		max=$(cat $TB/$p/max)
		top=$(cat $TB/$p/max_avg)
		[ "$max" -gt 0 ] || [ "${1:-}" = few ] || [ $p = none ] ||
			{ diag "$p/max is $max"; fail=1; }
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
	# nearest-rank 100 is the largest fresh sample: some cycles passed,
	# but for none, whose windows can all cost just the overhead
	for p in $PRIMS; do
		[ $p = none ] || [ "$(cat $TB/$p/percentile)" -gt 0 ] ||
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
nr_samples|1099511627777|EINVAL
nr_samples|2305843009213693953|EINVAL
nr_samples|18446744073709551615|EINVAL
nr_samples|18446744073709551616|ERANGE
nr_samples|99999999999999999999999999|ERANGE
nr_highest|0|EINVAL
nr_highest|-5|EINVAL
nr_highest|x|EINVAL
nr_highest|5x|EINVAL
nr_highest|1025|EINVAL
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
cpus|abc|EINVAL
cpus||EINVAL
cpus|,|EINVAL
cpus|0-|EINVAL
cpus|3-1|EINVAL
cpus|-1|EINVAL
cpus|4096|EINVAL
cpus|0-4096|EINVAL
cpus|99999999999999999999|EINVAL
batch|0|EINVAL
batch|-1|EINVAL
batch|10001|EINVAL
batch|abc|EINVAL
batch|5x|EINVAL
batch|18446744073709551616|ERANGE
clock|foo|EINVAL
clock||EINVAL
clock|Cycles|EINVAL
clock|cyclesx|EINVAL
clock|ns ns|EINVAL
clock| ns|EINVAL
clock|0|EINVAL
clock|ordered ordered ordered ordered|EINVAL
"

test_bad_input()
{
	file=$1 value=$2 want=$3
	snap_params
	params=$SNAPSHOT
	snap_results
	results=$SNAPSHOT
	local fail=0
	expect "errno" "$(write_errno $TB/$file "$value
")" "$want" || fail=1
	snap_params
	expect "configuration" "$SNAPSHOT" "$params" || fail=1
	snap_results
	expect "results" "$SNAPSHOT" "$results" || fail=1
	return $fail
}

test_write_read_only()
{
	local fail=0 before after

	read -r before <$TB/$1
	expect "errno" "$(write_errno $TB/$1 5)" EACCES || fail=1
	read -r after <$TB/$1
	expect "value" "$after" "$before" || fail=1
	return $fail
}

test_read_write_only()
{
	expect "errno" "$(read_errno $TB/$1)" EACCES
}

test_limits_accepted()
{
	local fail=0 p max
	for p in nr_samples:$MAX_SAMPLES nr_highest:$MAX_HIGHEST batch:$MAX_BATCH; do
		max=${p#*:}
		p=${p%%:*}
		expect "$p max" "$(write_errno $TB/$p $max)" OK || fail=1
		expect "$p reads back" "$(cat $TB/$p)" $max || fail=1
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
	check_results_sane few || fail=1
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

# Start a benchmark in the background, from CPU 0; $1 names its status
# file, which holds the write's errno once it returns. The writer's PID is
# left in writer_pid.
start_benchmark()
{
	start_call "$1" 0 write $TB/benchmark 1
}

# wait_in PID PATTERN [LINES]: until PID sleeps in the kernel with a stack
# (its first LINES frames, all by default) that matches PATTERN. The stack
# leaves out the scheduler's and the locks' own functions: a writer that
# waits for the run lock shows tb_benchmark on top. Tests act on what a
# process is doing, not on time.
wait_in()
{
	local n=0
	while [ $n -lt 600 ]; do
		head -n "${3:-100}" /proc/$1/stack 2>/dev/null | grep -qE "$2" &&
			return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
		n=$((n + 1))
	done
	diag "$1 never waited in $2: $(head -n 4 /proc/$1/stack 2>/dev/null | tr '\n' ' ')"
	return 1
}

# wait_file FILE: until FILE has content; a bound for hangs only (300 s)
wait_file()
{
	n=0
	while [ ! -s "$1" ] && [ $n -lt 3000 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ -s "$1" ]
}

# wait_gone PID: until the process has ended; a bound for hangs only
wait_gone()
{
	n=0
	while kill -0 "$1" 2>/dev/null && [ $n -lt 3000 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	! kill -0 "$1" 2>/dev/null
}

# wait_run_lock PID: until the writer PID sleeps in tb_benchmark before its
# run, waiting for another's: on the run lock (an rtmutex on RT, whose
# frames then come first).
wait_run_lock()
{
	local n=0 stack
	while [ $n -lt 600 ]; do
		stack=$(cat /proc/$1/stack 2>/dev/null)
		case $stack in
		*tb_run_cpus*)	;;
		*"] tb_benchmark+"*)	return 0 ;;
		esac
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
		n=$((n + 1))
	done
	diag "$1 never waited for the run lock: $(echo "$stack" | head -n 3 | tr '\n' ' ')"
	return 1
}

# A run held in progress, for as long as a test needs: a real-time hog
# on HOLD_CPU, with RT throttling and the fair server off, keeps that CPU's
# thread from ever reaching the start barrier, so the run cannot end until
# release_cpu. Tests decide by what has or has not happened meanwhile,
# never by how long something took. The suite's shell moves off HOLD_CPU
# first, or it would starve too. The hog is round-robin at the lowest
# real-time priority, so the kernel's real-time threads (RCU's on RT) still
# run, and ksoftirqd of HOLD_CPU is raised above it while the CPU is held:
# softirqs deferred to it, RCU's among them, would otherwise wait, and with
# them every RCU grace period. The hog ends itself after 60 s. The
# settings are read with cat: busybox's read takes a byte at a time, and
# these files return nothing at an offset past 0.
HOLD_CPU=2
RT_RUNTIME=/proc/sys/kernel/sched_rt_runtime_us
FAIR_RUNTIME=/sys/kernel/debug/sched/fair_server/cpu$HOLD_CPU/runtime

# set_knob FILE VALUE: write a scheduler setting, saying why if it fails
set_knob()
{
	local e
	e=$(write_errno "$1" "$2")
	[ "$e" = OK ] && return 0
	diag "writing $2 to $1: $e"
	return 1
}

hold_cpu()
{
	saved_rt=$(cat $RT_RUNTIME)
	saved_fair=
	[ -e $FAIR_RUNTIME ] && saved_fair=$(cat $FAIR_RUNTIME)
	# On 6.12 a CPU onlined after boot (see tools/lib.sh) has no fair
	# server: runtime and period read 0 and stay so, and a write fails
	# with EINVAL. There is nothing to switch off then.
	[ "$saved_fair" = 0 ] && saved_fair=
	hog_pid=
	softirqd=$(pid_of "ksoftirqd/$HOLD_CPU")
	taskset -p -c 0,1 $$ >/dev/null &&
		{ [ -z "$softirqd" ] || /tests/tbio setsched "$softirqd" fifo 2; } &&
		set_knob $RT_RUNTIME -1 &&
		{ [ -z "$saved_fair" ] || set_knob $FAIR_RUNTIME 0; } ||
		{ release_cpu; return 1; }
	rm -f /tmp/hog
	/tests/tbio hog $HOLD_CPU 60 >/tmp/hog &
	hog_pid=$!
	wait_file /tmp/hog ||
		{ diag "the hog did not start"; release_cpu; return 1; }
}

# Let go of the held CPU: the limits come back, then the hog goes, and
# from then on the held thread runs and the run ends. RT throttling comes
# back first: offlining a CPU with sched_rt_runtime_us at -1 fails with
# EBUSY where CPUs have fair servers. With cpusets (Debian's kernels) that
# write rebuilds the sched domains under cpus_read_lock(), which a pending
# CPU switch holds off: the write goes on in the background, and the hog
# goes once it is done or waits for that lock.
release_cpu()
{
	local writer n=0

	[ -n "$saved_fair" ] && set_knob $FAIR_RUNTIME "$saved_fair"
	( echo "$saved_rt" >$RT_RUNTIME ) 2>/dev/null &
	writer=$!
	while kill -0 $writer 2>/dev/null && [ $n -lt 600 ]; do
		# done (a zombie until the shell reaps it), or waiting
		case $(cat /proc/$writer/stat 2>/dev/null) in
		*") Z "*)	break ;;
		esac
		# without /proc/PID/stack, this waits out its 60 s bound
		grep -q cpus_read_lock /proc/$writer/stack 2>/dev/null && break
		sleep 0.1
		n=$((n + 1))
	done
	if [ -n "$hog_pid" ]; then
		kill -9 $hog_pid 2>/dev/null
		wait $hog_pid 2>/dev/null
	fi
	wait $writer || diag "restoring $RT_RUNTIME to $saved_rt failed"
	# PREEMPT_RT runs ksoftirqd at SCHED_OTHER too
	[ -n "$softirqd" ] && /tests/tbio setsched "$softirqd" other 0
	taskset -p -c "$(online_cpus)" $$ >/dev/null
}

# wait_held: until CPU 0's thread waits at the start barrier: the run is
# under way and, with HOLD_CPU's thread kept away, cannot pass it.
wait_held()
{
	# tb.held_frames=2 on i386, whose unwinder puts a stale return
	# address above the sleeping function in /proc/PID/stack
	wait_in "$(thread_pid 0)" '\] tb_thread_fn\+' \
		"$(cmdline_param held_frames 1)"
}

# start_held_run STATUS: a benchmark that stays in progress until
# release_cpu.
start_held_run()
{
	hold_cpu || return 1
	start_benchmark "$1"
	wait_held && return 0
	diag "the run was not held: $(cat "$1" 2>/dev/null)"
	release_cpu
	return 1
}

# Two writers: the second waits for the first. The second asks for CPUs
# the held run does not block on, so had it not waited it would be done.
test_concurrent_writers()
{
	local fail=0 before
	before=$(runs)
	echo 100 >$TB/nr_samples
	start_held_run /tmp/a || return 1
	echo 0-1 >$TB/cpus
	start_benchmark /tmp/b
	# it waits for the first writer's run, on the run lock
	wait_run_lock "$writer_pid" || fail=1
	[ -s /tmp/b ] && { diag "the second writer ran: $(cat /tmp/b)"; fail=1; }
	expect "runs while held" "$(runs)" "$before" || fail=1
	release_cpu
	wait_file /tmp/a && wait_file /tmp/b ||
		{ diag "a writer did not return"; fail=1; }
	wait
	expect "first writer" "$(cat /tmp/a)" OK || fail=1
	expect "second writer" "$(cat /tmp/b)" OK || fail=1
	expect "runs after both" "$(runs)" $((before + 2)) || fail=1
	# the second run snapshotted its settings when it got its turn
	expect "CPUs of the last run" "$(summary_key cpus)" 0-1 || fail=1
	check_results_sane || fail=1
	set_defaults
	return $fail
}

test_read_during_run()
{
	local fail=0 before params during summary
	echo 1 >$TB/benchmark
	before=$(snapshot_results)
	summary=$(cat $TB/summary)
	echo 100 >$TB/nr_samples
	start_held_run /tmp/a || return 1
	during=$(snapshot_results)
	params=$(snapshot_params)
	expect "results during the run" "$during" "$before" || fail=1
	expect "summary during the run" "$(cat $TB/summary)" "$summary" ||
		fail=1
	echo 777 >$TB/nr_samples ||
		{ diag "config write during the run failed"; fail=1; }
	expect "params read during the run" "$params" \
		"nr_samples=100 nr_highest=100 do_work=0 batch=1 cpus=$(online_cpus) clock=cycles " ||
		fail=1
	release_cpu
	wait_file /tmp/a || { diag "writer did not return"; fail=1; }
	wait
	expect "writer" "$(cat /tmp/a)" OK || fail=1
	expect "nr_samples after the run" "$(cat $TB/nr_samples)" 777 || fail=1
	expect "the run's nr_samples" "$(summary_key nr_samples)" 100 || fail=1
	set_defaults
	return $fail
}

# An empty write asks for nothing: no run happens.
test_empty_write()
{
	local fail=0 results before

	echo 1 >$TB/benchmark
	results=$(snapshot_results)
	before=$(runs)
	expect "empty write" "$(write_errno $TB/benchmark '')" OK || fail=1
	expect "runs" "$(runs)" "$before" || fail=1
	expect "results" "$(snapshot_results)" "$results" || fail=1
	expect "a write of one byte runs" "$(write_errno $TB/benchmark x)" OK ||
		fail=1
	expect "runs after it" "$(runs)" $((before + 1)) || fail=1
	return $fail
}

# A killed writer ends a run while a thread has not reached the start
# barrier, and never will until its CPU is released: the writer takes its
# place.
test_killed_before_barrier()
{
	local fail=0 pid before
	before=$(runs)
	echo 100 >$TB/nr_samples
	hold_cpu || return 1
	taskset -c 0 /tests/tbio write $TB/benchmark 1 >/tmp/a &
	pid=$!
	wait_held || { diag "the run was not held: $(cat /tmp/a)"; fail=1; }
	kill -9 $pid
	wait_gone $pid ||
		{ diag "the killed writer hangs with its CPU held"; fail=1; }
	{ wait $pid; } 2>/dev/null
	# the writer ended, not the hold: the hog ends itself only after 60 s
	kill -0 "$hog_pid" 2>/dev/null ||
		{ diag "the writer ended only once the hog had gone"; fail=1; }
	expect "runs while held" "$(runs)" "$before" || fail=1
	release_cpu
	expect "next run" "$(write_errno $TB/benchmark 1)" OK || fail=1
	expect "runs" "$(runs)" $((before + 1)) || fail=1
	set_defaults
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

# A run ended from outside: TRIGGER|EVENT|ERRNO, during a run of 2^32
# samples per CPU (hours, and no more memory than 100), started from CPU
# 3, which a benchmark of all CPUs, the percentile and the run at load
# (insmod run=1) all measure. offline takes CPU 3 down; SIGINT is Ctrl-C
# (tbio catches it, so the call returns its errno); SIGKILL leaves no
# errno to read ("-"). Each ends the run at its threads' next checkpoint:
# nothing is published, and a load fails.
RUN_ENDINGS="
benchmark|offline|EAGAIN
percentile|offline|EAGAIN
insmod|offline|EAGAIN
benchmark|SIGINT|EINTR
percentile|SIGINT|EINTR
insmod|SIGINT|EINTR
benchmark|SIGKILL|-
percentile|SIGKILL|-
insmod|SIGKILL|-
"

CPU3=/sys/devices/system/cpu/cpu3/online

# switch_cpu CPU 0|1: take CPU down or up, in the background, and wait
# for it; a bound for hangs only. Fails with the write's status.
switch_cpu()
{
	local rc
	rm -f /tmp/switch
	( echo "$2" >/sys/devices/system/cpu/cpu$1/online; echo $? >/tmp/switch ) &
	wait_file /tmp/switch || { diag "cpu$1 $2 did not return"; return 1; }
	rc=$(cat /tmp/switch)
	wait $!
	expect "cpu$1 $2" "$rc" 0
}

# start_call STATUS CPU TBIO_ARGS...: tbio in the background, on CPU;
# STATUS holds its output once it returns, its PID is left in writer_pid
start_call()
{
	local status=$1 cpu=$2

	shift 2
	rm -f "$status" "$status.pid" "$status.tmp"
	( taskset -c "$cpu" /tests/tbio "$@" >"$status.tmp" &
	  echo $! >"$status.pid"
	  { wait $!; } 2>/dev/null
	  mv "$status.tmp" "$status" ) &
	wait_file "$status.pid"
	writer_pid=$(cat "$status.pid")
}

test_run_ended()
{
	local trigger=$1 event=$2 want=$3 fail=0 params results before

	echo 4294967296 >$TB/nr_samples
	snap_params
	params=$SNAPSHOT
	snap_results
	results=$SNAPSHOT
	before=$(runs)
	case $trigger in
	benchmark)	start_call /tmp/e 3 write $TB/benchmark 1 ;;
	percentile)	start_call /tmp/e 3 write $TB/percentile 50 ;;
	insmod)		unload || return 1
			start_call /tmp/e 3 insmod $MODULE \
				"run=1 nr_samples=4294967296" ;;
	esac
	wait_in "$writer_pid" tb_run_cpus || fail=1
	case $event in
	offline)	switch_cpu 3 0 || fail=1 ;;
	SIGINT)		kill -INT "$writer_pid" ;;
	SIGKILL)	kill -KILL "$writer_pid" ;;
	esac
	wait_gone "$writer_pid" || { diag "the caller is still there"; fail=1; }
	{ wait; } 2>/dev/null
	[ "$want" = - ] || expect "errno" "$(cat /tmp/e)" "$want" || fail=1
	[ "$event" = offline ] && { switch_cpu 3 1 || fail=1; }
	if [ "$trigger" = insmod ]; then
		[ -d /sys/module/tracerbench ] && { diag "loaded"; fail=1; }
		load || fail=1
		return $fail
	fi
	expect "runs" "$(runs)" "$before" || fail=1
	snap_results
	expect "results" "$SNAPSHOT" "$results" || fail=1
	snap_params
	expect "configuration" "$SNAPSHOT" "$params" || fail=1
	set_defaults
	expect "next run" "$(write_errno $TB/$trigger 1)" OK || fail=1
	return $fail
}

# A static key that a held cpus_read_lock() would block, and its file:
# the preemptirq events where the kernel has them, else another event's
# (every kernel here with tracing has sched_switch), else schedstats.
if [ -d $PREEMPTIRQ ]; then
	STATIC_KEY=$PREEMPTIRQ/enable
elif [ -f /sys/kernel/tracing/events/sched/sched_switch/enable ]; then
	STATIC_KEY=/sys/kernel/tracing/events/sched/sched_switch/enable
else
	STATIC_KEY=/proc/sys/kernel/sched_schedstats
fi

# toggle_key: turn STATIC_KEY on and back to what it was, in the
# background, and wait for it; a bound for hangs only
toggle_key()
{
	local was
	read -r was <$STATIC_KEY
	rm -f /tmp/toggle
	( echo 1 >$STATIC_KEY && echo "${was%X}" >$STATIC_KEY
	  echo $? >/tmp/toggle ) &
	wait_file /tmp/toggle || { diag "toggling $STATIC_KEY did not return"; return 1; }
	wait $!
	expect "toggle $STATIC_KEY" "$(cat /tmp/toggle)" 0
}

# still_running WHEN: the writer has not returned, the run goes on
still_running()
{
	kill -0 "$writer_pid" 2>/dev/null && [ ! -s /tmp/a ] && return 0
	diag "the run ended $1: $(cat /tmp/a 2>/dev/null)"
	return 1
}

# The run holds no CPU-hotplug lock. During a run on CPUs 0-2, CPU 3
# goes down, a static key is toggled (which waits for a pending hotplug
# while anyone holds cpus_read_lock()) and CPU 3 comes back: each returns
# while the run goes on, and CPU 3 takes no part in it. Then CPU 2, which
# the run measures, goes down: the run ends with EAGAIN at its next
# checkpoint, and nothing is published.
test_hotplug_during_run()
{
	local fail=0 results before
	[ -w $CPU3 ] || { diag "cpu3 cannot go offline"; return 1; }
	results=$(snapshot_results)
	before=$(runs)
	echo 4294967296 >$TB/nr_samples && echo 0-2 >$TB/cpus || return 1
	start_benchmark /tmp/a
	wait_in "$writer_pid" tb_run_cpus || fail=1
	( echo 0 >$CPU3; echo $? >/tmp/switch3 ) &
	toggle_key || fail=1
	still_running "before the toggle returned" || fail=1
	wait_file /tmp/switch3 && expect "cpu3 offline" "$(cat /tmp/switch3)" 0 ||
		fail=1
	still_running "before cpu3 went down" || fail=1
	switch_cpu 3 1 || fail=1
	still_running "before cpu3 came up" || fail=1
	switch_cpu 2 0 || fail=1
	wait_file /tmp/a || { diag "the writer did not return"; fail=1; }
	wait
	expect "writer" "$(cat /tmp/a)" EAGAIN || fail=1
	switch_cpu 2 1 || fail=1
	expect "runs" "$(runs)" "$before" || fail=1
	expect "results" "$(snapshot_results)" "$results" || fail=1
	set_defaults
	expect "next run" "$(write_errno $TB/benchmark 1)" OK || fail=1
	expect "CPUs of the run" "$(summary_key cpus)" 0-3 || fail=1
	return $fail
}

# A benchmark on a subset measures exactly those CPUs.
test_cpus_subset()
{
	local fail=0 p n want
	for list in 1,3 0-1 2 "0,2-3"; do
		expect "cpus $list" "$(write_errno $TB/cpus "$list")" OK || fail=1
		want=$(expand_cpulist "$list" | tr '\n' ,)
		expect "cpus reads back" "$(cat $TB/cpus)" "$list" || fail=1
		expect "run on $list" "$(write_errno $TB/benchmark 1)" OK ||
			fail=1
		n=$(expand_cpulist "$list" | wc -l)
		expect "summary cpus" "$(summary_key cpus)" "$list" || fail=1
		for p in $PRIMS; do
			expect "$p/per_cpu CPUs" \
				"$(sed 1d $TB/$p/per_cpu | cut -d' ' -f1 | tr '\n' ,)" \
				"$want" || fail=1
			expect "$p.samples" "$(summary_key $p.samples)" \
				$((n * 10000)) || fail=1
		done
	done
	expect "cpus all" "$(write_errno $TB/cpus all)" OK || fail=1
	expect "all reads back as the online CPUs" "$(cat $TB/cpus)" \
		"$(online_cpus)" || fail=1
	set_defaults
	return $fail
}

# Wanted CPUs that are all offline: the run fails and nothing changes.
test_cpus_offline()
{
	local fail=0 results before
	results=$(snapshot_results)
	before=$(runs)
	echo 3 >$TB/cpus && echo 0 >$CPU3 || { diag "set-up failed"; return 1; }
	expect "benchmark" "$(write_errno $TB/benchmark 1)" ENODEV || fail=1
	expect "runs" "$(runs)" "$before" || fail=1
	expect "results" "$(snapshot_results)" "$results" || fail=1
	expect "cpus kept" "$(cat $TB/cpus)" 3 || fail=1
	echo 1 >$CPU3 || fail=1
	expect "benchmark with cpu3 back" "$(write_errno $TB/benchmark 1)" OK ||
		fail=1
	set_defaults
	return $fail
}

# is_number VALUE [DECIMALS]: an integer, or with exactly three decimals
is_number()
{
	case $1 in
	'' | *[!0-9.]* | .* | *. | *.*.*)
		diag "not a number: '$1'"; return 1 ;;
	*.*)
		[ ${#1} -gt 4 ] && [ "${1%.???}" != "$1" ] ||
			{ diag "not three decimals: '$1'"; return 1; } ;;
	esac
}

# is_signed VALUE: as is_number, or its negative (a mean can be below 0)
is_signed()
{
	is_number "${1#-}"
}

# The summary says what ran and how, and agrees with every other file.
test_summary()
{
	local fail=0 p k v prev ncpu model
	expect "benchmark" "$(write_errno $TB/benchmark 1)" OK || return 1
	ncpu=$(expand_cpulist "$(online_cpus)" | wc -l)
	for k in version run kernel preemption preemptirq_tracepoints cpus \
		 nr_samples nr_highest do_work batch clock unit counter_hz overhead \
		 duration_ns; do
		[ -n "$(summary_key $k)" ] || { diag "no $k"; fail=1; }
	done
	expect kernel "$(summary_key kernel)" "$(uname -r)" || fail=1
	expect cpus "$(summary_key cpus)" "$(online_cpus)" || fail=1
	expect nr_samples "$(summary_key nr_samples)" 10000 || fail=1
	expect nr_highest "$(summary_key nr_highest)" 100 || fail=1
	expect do_work "$(summary_key do_work)" 0 || fail=1
	expect clock "$(summary_key clock)" cycles || fail=1
	expect batch "$(summary_key batch)" 1 || fail=1
	expect unit "$(summary_key unit)" cycles || fail=1
	v=no
	[ -d $PREEMPTIRQ ] && v=yes
	expect preemptirq_tracepoints "$(summary_key preemptirq_tracepoints)" \
		$v || fail=1
	model=$(summary_key preemption)
	case $model in
	none | voluntary | full | lazy | rt | rt+full | rt+lazy) ;;
	*) diag "preemption '$model'"; fail=1 ;;
	esac
	v=no
	uname -v | grep -q PREEMPT_RT && v=yes
	[ "${model#rt}" != "$model" ] && [ $v = no ] &&
		{ diag "preemption '$model' on $(uname -v)"; fail=1; }
	[ "${model#rt}" = "$model" ] && [ $v = yes ] &&
		{ diag "preemption '$model' on $(uname -v)"; fail=1; }
	# the mode in force is the one in parentheses
	if [ -r /sys/kernel/debug/sched/preempt ] && [ "$model" != rt ]; then
		grep -q "(${model#rt+})" /sys/kernel/debug/sched/preempt ||
			{ diag "sched/preempt: $(cat /sys/kernel/debug/sched/preempt)"; fail=1; }
	fi
	[ "$(summary_key counter_hz)" -gt 0 ] || { diag "counter_hz"; fail=1; }
	[ "$(summary_key duration_ns)" -gt 0 ] || { diag "duration_ns"; fail=1; }
	for p in $PRIMS; do
		for k in median max max_avg $LEVELS samples; do
			is_number "$(summary_key $p.$k)" || fail=1
		done
		is_signed "$(summary_key $p.average)" || fail=1
		expect "$p.median" "$(summary_key $p.median)" \
			"$(cat $TB/$p/median)" || fail=1
		# the legacy file: the whole part and the sign, -0 as 0
		v=$(summary_key $p.average | cut -d. -f1)
		[ "$v" = -0 ] && v=0
		expect "$p.average" "$v" "$(cat $TB/$p/average)" || fail=1
		expect "$p.max" "$(summary_key $p.max)" "$(cat $TB/$p/max)" ||
			fail=1
		expect "$p.max_avg" "$(summary_key $p.max_avg | cut -d. -f1)" \
			"$(cat $TB/$p/max_avg)" || fail=1
		expect "$p.samples" "$(summary_key $p.samples)" \
			$((ncpu * 10000)) || fail=1
		prev=0
		for k in $LEVELS max; do
			v=$(summary_key $p.$k)
			expect_le "$p: previous level <= $k" $prev "$v" || fail=1
			prev=$v
		done
	done
	return $fail
}

# Each clock reads back, measures, and says so in the summary; ns ticks at
# exactly 10^9 per second, by definition.
test_clock_runs()
{
	local fail=0 c unit
	echo 1000 >$TB/nr_samples
	for c in ordered ns cycles; do
		expect "clock $c" "$(write_errno $TB/clock $c)" OK || fail=1
		expect "clock reads back" "$(cat $TB/clock)" $c || fail=1
		expect "run with clock $c" "$(write_errno $TB/benchmark 1)" OK ||
			fail=1
		expect "summary clock" "$(summary_key clock)" $c || fail=1
		unit=cycles
		[ $c = ns ] && unit=ns
		expect "summary unit" "$(summary_key unit)" $unit || fail=1
		check_results_sane || fail=1
		[ "$(summary_key counter_hz)" -gt 0 ] ||
			{ diag "counter_hz with $c"; fail=1; }
		[ $c = ns ] && { expect "counter_hz of ns" \
			"$(summary_key counter_hz)" 1000000000 || fail=1; }
		diag "clock $c: medians $(medians)"
	done
	set_defaults
	return $fail
}

# A batch of 7 pairs per window: the legacy files show the summary's
# figures rounded down, and summary, per_cpu and histogram are numbers with
# no or three decimals, whose histogram counts add up to the samples.
test_batch_run()
{
	local fail=0 p v ncpu
	echo 1000 >$TB/nr_samples
	expect "batch 7" "$(write_errno $TB/batch 7)" OK || fail=1
	expect "run" "$(write_errno $TB/benchmark 1)" OK || fail=1
	expect "summary batch" "$(summary_key batch)" 7 || fail=1
	ncpu=$(expand_cpulist "$(online_cpus)" | wc -l)
	for p in $PRIMS; do
		for k in median max; do
			v=$(summary_key $p.$k)
			is_number "$v" || fail=1
			expect "$p/$k is $p.$k rounded down" "$(cat $TB/$p/$k)" \
				"${v%.*}" || fail=1
		done
		expect "$p.samples" "$(summary_key $p.samples)" \
			$((ncpu * 1000)) || fail=1
		sed 1d $TB/$p/per_cpu | while read -r cpu med avg max p99 n; do
			for v in $med $max $p99; do
				is_number "$v" || echo bad
			done
			is_signed "$avg" || echo bad
		done | grep -q bad && { diag "$p/per_cpu: $(cat $TB/$p/per_cpu)"; fail=1; }
		v=$(awk '{ n += $2 } $1 !~ /^[0-9]+(\.[0-9][0-9][0-9])?$/ { bad = 1 }
			END { print bad ? "bad" : n }' $TB/$p/histogram)
		expect "$p/histogram counts" "$v" $((ncpu * 1000)) || fail=1
	done
	check_results_sane || fail=1
	set_defaults
	return $fail
}

# A benchmark counts in run; a percentile run does not.
test_run_counter()
{
	local fail=0 before
	before=$(runs)
	echo 1 >$TB/benchmark && echo 1 >$TB/benchmark || fail=1
	expect "two benchmarks" "$(runs)" $((before + 2)) || fail=1
	echo 90 >$TB/percentile || fail=1
	expect "a percentile run" "$(runs)" $((before + 2)) || fail=1
	return $fail
}

# The histogram holds every sample of the run, in ascending buckets, and
# its nearest ranks are the summary's levels.
test_histogram()
{
	local fail=0 p
	echo 1 >$TB/benchmark || return 1
	for p in $PRIMS; do
		awk -v n="$(summary_key $p.samples)" -v max="$(summary_key $p.max)" \
		    -v p50="$(summary_key $p.p50)" -v p99="$(summary_key $p.p99)" \
		    -v avg="$(summary_key $p.average)" '
			NF != 2 || $1 !~ /^[0-9]+$/ || $2 !~ /^[1-9][0-9]*$/ {
				print "# bad line: " $0; bad = 1
			}
			NR > 1 && $1 + 0 <= last { print "# not ascending at " $1; bad = 1 }
			{ last = $1; low[NR] = $1; c[NR] = $2; total += $2; sum += $1 * $2 }
			END {
				if (total != n) { print "# counts " total ", samples " n; bad = 1 }
				# below 4096 every bucket is one value, so the mean of the
				# histogram is exact: that of the differences clamped at 0,
				# which the average, unclamped and rounded toward 0, is not
				# above
				if (max < 4096 && n && avg + 0 > sum / n) {
					print "# mean " sum / n " from the histogram, below the summary average " avg
					bad = 1
				}
				if (last > max) { print "# last bucket " last " > max " max; bad = 1 }
				r50 = int((n * 50 + 99) / 100); r99 = int((n * 99 + 99) / 100)
				g50 = g99 = ""
				for (i = 1; i <= NR; i++) {
					s += c[i]
					if (g50 == "" && s >= r50) g50 = low[i]
					if (g99 == "" && s >= r99) { g99 = low[i]; break }
				}
				if (g50 != p50 || g99 != p99) {
					print "# p50 " g50 " p99 " g99 " from the histogram, summary " p50 " " p99
					bad = 1
				}
				exit bad
			}' $TB/$p/histogram || { diag "$p/histogram"; fail=1; }
	done
	return $fail
}

# One row per CPU of the run; their medians and maxima give the summary's.
test_per_cpu()
{
	local fail=0 p
	echo 1 >$TB/benchmark || return 1
	for p in $PRIMS; do
		expect "$p/per_cpu header" "$(head -n 1 $TB/$p/per_cpu)" \
			"cpu median average max p99 samples" || fail=1
		sed 1d $TB/$p/per_cpu | sort -n -k2 | awk -v n=10000 \
		    -v med="$(summary_key $p.median)" -v max="$(summary_key $p.max)" '
			$6 != n { print "# cpu " $1 ": " $6 " samples"; bad = 1 }
			$2 > $4 || $5 > $4 { print "# cpu " $1 ": " $0; bad = 1 }
			{ m[NR] = $2; if ($4 > top) top = $4 }
			END {
				mid = NR % 2 ? m[(NR + 1) / 2] : int((m[NR / 2] + m[NR / 2 + 1]) / 2)
				if (mid != med) { print "# median of medians " mid ", summary " med; bad = 1 }
				if (top != max) { print "# max of maxima " top ", summary " max; bad = 1 }
				exit bad
			}' || { diag "$p/per_cpu"; fail=1; }
		expect "$p/per_cpu rows" "$(sed 1d $TB/$p/per_cpu | cut -d' ' -f1 | tr '\n' ,)" \
			"$(expand_cpulist "$(online_cpus)" | tr '\n' ,)" || fail=1
	done
	return $fail
}

# logged_key KEY LOG: LOG has a line "KEY VALUE" with a numeric VALUE
logged_key()
{
	echo "$2" | awk -v k="$1" '$1 == k && NF == 2 && $2 ~ /^[0-9]+(\.[0-9][0-9][0-9])?$/ { found = 1 }
		END { exit !found }' && return 0
	diag "no '$1 VALUE' logged"
	return 1
}

# Module parameters run one benchmark at load and log its summary; bad
# ones refuse the load.
test_headless_load()
{
	local fail=0 log v
	unload || return 1
	insmod $MODULE run=1 nr_samples=1000 cpus=0-1 clock=ordered ||
		{ diag "insmod run=1 failed"; return 1; }
	log=$(dmesg | sed -n 's/^\[[^]]*\] tracerbench: //p')
	for v in "run 1" "cpus 0-1" "nr_samples 1000" "irq.samples 2000" \
		 "clock ordered"; do
		echo "$log" | grep -qxF "$v" || { diag "no '$v' logged"; fail=1; }
	done
	logged_key irq_save.p99.99 "$log" || fail=1
	expect "parameter" "$(cat /sys/module/tracerbench/parameters/nr_samples)" \
		1000 || fail=1
	expect "summary run" "$(runs)" 1 || fail=1
	expect "cpus" "$(cat $TB/cpus)" 0-1 || fail=1
	unload || fail=1
	for v in nr_samples=0 nr_highest=1025 do_work=2 cpus=abc cpus=4096 \
		 run=maybe clock=tsc batch=0 batch=10001; do
		insmod $MODULE $v 2>/dev/null &&
			{ diag "insmod $v loaded"; unload; fail=1; }
		[ -d $TB ] && { diag "insmod $v left a tree"; fail=1; }
	done
	load || fail=1
	test_defaults || fail=1
	return $fail
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

# The big run: 10^7 samples per CPU, the count users publish, or
# tb.big_samples= (tools/check.sh gives fewer where a long boot or the
# debug kernel's instrumentation makes 10^7 a cost that tests nothing new).
BIG_SAMPLES=$(cmdline_param big_samples 10000000)

# pow10_name N: "10^K" for a power of ten, N itself otherwise
pow10_name()
{
	local n=$1 k=0

	while [ "$n" -ge 10 ] && [ $((n % 10)) -eq 0 ]; do
		n=$((n / 10))
		k=$((k + 1))
	done
	if [ "$n" -eq 1 ] && [ $k -gt 0 ]; then
		echo "10^$k"
	else
		echo "$1"
	fi
}

test_big_run()
{
	local fail=0
	echo "$BIG_SAMPLES" >$TB/nr_samples || fail=1
	echo 1 >$TB/benchmark || fail=1
	diag "$(pow10_name "$BIG_SAMPLES") samples per CPU in $(summary_key duration_ns) ns"
	expect "samples" "$(summary_key irq.samples)" \
		$(($(expand_cpulist "$(online_cpus)" | wc -l) * BIG_SAMPLES)) ||
		fail=1
	check_results_sane || fail=1
	set_defaults
	return $fail
}

# Report markers, not words: "RCU lockdep checking is enabled" is no report.
# The lockup detectors' own, which the long run looks for as it ends:
LOCKUP_REPORTS='soft lockup|hard LOCKUP|rcu.*stall|blocked for more than'
DMESG_BAD="WARNING:|BUG:|Oops|$LOCKUP_REPORTS|Out of memory|oom-kill|Call Trace|sleeping function called"

# dmesg_without PATTERN: no kernel log line matches PATTERN; those that do
# go to the KTAP as diagnostics
dmesg_without()
{
	local bad

	bad=$(dmesg | grep -E "$1")
	[ -z "$bad" ] && return 0
	echo "$bad" | while read -r line; do diag "$line"; done
	return 1
}

test_dmesg_clean()
{
	dmesg_without "$DMESG_BAD"
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
	run_test "summary: every key, consistent with the files" test_summary
	run_test "summary: run counts benchmarks only" test_run_counter
	run_test "clock: ordered, ns and cycles each measure" test_clock_runs
	run_test "batch 7: per-pair figures in every file" test_batch_run
	run_test "histogram: every sample, levels and mean from it" test_histogram
	run_test "per_cpu: a row per CPU, medians and maxima agree" test_per_cpu
	run_test "cpus: a run measures exactly the CPUs listed" test_cpus_subset
	run_test "cpus: all listed CPUs offline is ENODEV, nothing changes" \
		test_cpus_offline
	run_test "concurrent writers are serialised" test_concurrent_writers
	run_test "reads and config writes during a run" test_read_during_run
	echo "$RUN_ENDINGS" | while IFS='|' read -r trigger event want; do
		[ -n "$trigger" ] || continue
		echo "$trigger|$event|$want"
	done >/tmp/endings
	while IFS='|' read -r trigger event want; do
		with=
		[ "$want" = - ] || with=" with $want"
		run_test "$event during the run of $trigger ends it$with, nothing changes" \
			test_run_ended "$trigger" "$event" "$want"
	done </tmp/endings
	run_test "a killed writer ends a run a thread never started" \
		test_killed_before_barrier
	run_test "an empty write to benchmark runs nothing" test_empty_write
	run_test "hotplug and a static-key toggle never wait for a run" \
		test_hotplug_during_run
	run_test "headless: parameters run at load, bad ones refuse it" \
		test_headless_load
	if [ -d $PREEMPTIRQ ]; then
		run_test "compare.sh --host measures off and on" \
			test_compare_host_runs
	else
		run_test "compare.sh --host refuses without tracepoints" \
			test_compare_host_refuses
	fi
	run_test "rmmod after a run" test_rmmod_after_run
	run_test "20 load/unload cycles" test_load_cycles
	run_test "$(pow10_name "$BIG_SAMPLES") samples per CPU" test_big_run
	run_test "unload" unload
}

# --- exact: under -icount shift=0,sleep=off -----------------------------------

test_identical_medians()
{
	echo 1 >$TB/benchmark || return 1
	first=$(medians)
	echo 1 >$TB/benchmark || return 1
	diag "medians ($PRIMS): $first"
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

# summary_medians: every primitive's summary median, per pair
summary_medians()
{
	for p in $PRIMS; do
		printf '%s ' "$(summary_key $p.median)"
	done
}

# Under icount a pair costs the same in every window, so timing 1000 back
# to back and dividing gives the batch-1 median, within a tick.
test_batch_agrees()
{
	local fail=0 one many
	echo 0 >$TB/cpus && echo 2000 >$TB/nr_samples || return 1
	echo 1 >$TB/batch && echo 1 >$TB/benchmark || fail=1
	one=$(summary_medians)
	echo 1000 >$TB/batch && echo 1 >$TB/benchmark || fail=1
	many=$(summary_medians)
	diag "medians ($PRIMS), batch 1: $one"
	diag "medians ($PRIMS), batch 1000: $many"
	set -- $many
	for m in $one; do
		awk -v a="$m" -v b="$1" 'BEGIN { d = a - b; exit !(d <= 1 && d >= -1) }' ||
			{ diag "batch 1 gives $m, batch 1000 gives $1"; fail=1; }
		shift
	done
	set_defaults
	return $fail
}

# The empty window is the calibration's, timed by the same loop: under
# icount it costs exactly the overhead, so its median is 0 with either
# counter read, with and without a batch.
test_none_zero()
{
	local fail=0 c b avg
	echo 2000 >$TB/nr_samples || return 1
	# batch 10000: the empty window costs more than the histogram's
	# exact range, and is calibrated exactly all the same. An overhead
	# too high would clamp every sample to 0: the average would then be
	# below 0, where interrupted windows can only raise it. Where a tick
	# is several instructions (TICK_SLACK), a window reads one tick more
	# or less by where it starts in a tick: the average may be below 0
	# by that much, per pair.
	for c in cycles ordered; do
		for b in 1 1000 $MAX_BATCH; do
			echo $c >$TB/clock && echo $b >$TB/batch &&
				echo 1 >$TB/benchmark || { fail=1; continue; }
			expect "none.median, clock $c, batch $b" \
				"$(summary_key none.median)" 0 || fail=1
			avg=$(summary_key none.average)
			awk -v a="$avg" -v s="$TICK_SLACK" -v b=$b \
			    'BEGIN { exit !(a != "" && a + 0 >= -s / b) }' ||
				{ diag "none.average, clock $c, batch $b: $avg"; fail=1; }
		done
	done
	set_defaults
	return $fail
}

group_exact()
{
	run_test "load" load
	run_test "none: median exactly 0 with cycles and ordered" \
		test_none_zero
	run_test "batch 1000 medians per pair within 1 of batch 1" \
		test_batch_agrees
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

# The long run's size, per CPU: tb.long_samples=, 10^8 by default (the
# count issue 6 names). tools/check.sh gives make check 2 x 10^7, as
# good a test with the watchdogs tightened below, and check-long 10^8.
LONG_SAMPLES=$(cmdline_param long_samples 100000000)

# The lockup detectors, tightened for the long run: a soft lockup is
# reported after 2 x watchdog_thresh s on a CPU that does not schedule, an
# RCU stall after rcu_cpu_stall_timeout s without a quiescent state, a hung
# task after hung_task_timeout_secs s in D state. Their defaults (20, 21
# and 120 s) would need a run of minutes to prove anything; tightened to 4,
# 4 and 6 s, 18 s of runs prove as much: khungtaskd looks every timeout
# and reports a task it saw stuck at two looks in a row, so a hang shows
# within twice its timeout, and 18 s leaves a third for margin. A
# vCPU the host stops for 4 s would be reported too: nothing on this rig
# does (no swap, a console to a file).
WATCHDOG_THRESH=/proc/sys/kernel/watchdog_thresh
RCU_STALL_TIMEOUT=/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
HUNG_TASK_TIMEOUT=/proc/sys/kernel/hung_task_timeout_secs
HUNG_TASK_SECONDS=6
WATCHDOGS="$WATCHDOG_THRESH:2 $RCU_STALL_TIMEOUT:4 $HUNG_TASK_TIMEOUT:$HUNG_TASK_SECONDS"
# how long the runs must go on, in all, for every detector to have looked
DETECTOR_WINDOW_NS=$((3 * HUNG_TASK_SECONDS * 1000000000))
# and what must hold for them to report at all
WATCHDOGS_ON="/proc/sys/kernel/soft_watchdog:1
/sys/module/rcupdate/parameters/rcu_cpu_stall_suppress:0"
HUNG_TASK_WARNINGS=/proc/sys/kernel/hung_task_warnings

test_tighten_watchdogs()
{
	local fail=0 w file want

	for w in $WATCHDOGS $WATCHDOGS_ON; do
		file=${w%:*}
		want=${w#*:}
		[ -w "$file" ] || { diag "no $file"; fail=1; continue; }
		echo "$want" >"$file"
		expect "$file" "$(cat "$file")" "$want" || fail=1
	done
	# -1 is no limit; 0 would silence the reports
	[ "$(cat $HUNG_TASK_WARNINGS)" != 0 ] ||
		{ diag "hung_task_warnings is 0"; fail=1; }
	return $fail
}

# cover_detectors SAMPLES [few]: runs of SAMPLES per CPU, doubled until one
# run alone lasts DETECTOR_WINDOW_NS, each checked (with few, as runs of a
# few samples, whose max may be 0): every phase of a run gives
# way to other tasks, so no detector may fire while it runs, and one run
# must last long enough that each would have. A fast host only makes the
# runs grow; a slow one ends at the first.
cover_detectors()
{
	local fail=0 ncpu ns=0 nr=0 samples=$1
	ncpu=$(expand_cpulist "$(cat $TB/cpus)" | wc -l)
	diag "$ncpu CPUs, $(sed -n 's/^MemTotal: *//p' /proc/meminfo) of memory"
	while [ "$ns" -lt $DETECTOR_WINDOW_NS ]; do
		[ "$samples" -le $MAX_SAMPLES ] ||
			{ diag "runs of $MAX_SAMPLES never lasted long enough"; fail=1; break; }
		echo "$samples" >$TB/nr_samples
		expect "benchmark" "$(write_errno $TB/benchmark 1)" OK ||
			{ fail=1; break; }
		nr=$((nr + 1))
		ns=$(summary_key duration_ns)
		diag "run $nr: $samples samples per CPU in $ns ns"
		[ "${ns:-0}" -gt 0 ] || { diag "duration_ns '$ns'"; fail=1; break; }
		for p in $PRIMS; do
			expect "$p.samples" "$(summary_key $p.samples)" \
				$((ncpu * samples)) || fail=1
		done
		check_results_sane ${2:-} || fail=1
		samples=$((samples * 2))
	done
	dmesg_without "$LOCKUP_REPORTS" || fail=1
	set_defaults
	return $fail
}

# LONG_SAMPLES per CPU at least: the memory of a run does not grow with
# them, so this fits a guest of 256 MiB.
test_huge_run()
{
	cover_detectors "$LONG_SAMPLES"
}

# The longest windows there are: batch 10000, with the preemptirq events
# on where the kernel has them, on the debug kernel (KASAN, lockdep). The
# thread still gives way between windows, at least after each one, so no
# detector reports however long a window takes.
test_slow_windows()
{
	local fail=0

	[ -d $PREEMPTIRQ ] && { events 1 || fail=1; }
	# one CPU: the guest's vCPUs may share a host thread, and the claim
	# is each CPU's own. The runs are of a few samples: max_avg of the
	# largest alone stays above the median, which the checks require.
	echo 0 >$TB/cpus && echo $MAX_BATCH >$TB/batch &&
		echo 1 >$TB/nr_highest || fail=1
	cover_detectors 1 few || fail=1
	[ -d $PREEMPTIRQ ] && { events 0 || fail=1; }
	return $fail
}

# test_slow_run_ended EVENT WANT: a signal ends a run of such windows as it
# ends any other, with the results and settings unchanged.
test_slow_run_ended()
{
	local fail=0

	[ -d $PREEMPTIRQ ] && { events 1 || fail=1; }
	echo $MAX_BATCH >$TB/batch
	test_run_ended benchmark "$1" "$2" || fail=1
	[ -d $PREEMPTIRQ ] && { events 0 || fail=1; }
	return $fail
}

group_long()
{
	run_test "load" load
	run_test "preemption model as booted" test_preempt_model
	run_test "lockup detectors tightened" test_tighten_watchdogs
	run_test "runs of $LONG_SAMPLES samples per CPU, outlasting the detectors, none reports" \
		test_huge_run
	run_test "unload" unload
}

# --- stall: batch 10000 with the events on, on the debug kernel ---------------

group_stall()
{
	run_test "load" load
	run_test "lockup detectors tightened" test_tighten_watchdogs
	run_test "batch $MAX_BATCH, events on: a run outlasts the detectors, none reports" \
		test_slow_windows
	run_test "batch $MAX_BATCH, events on: SIGINT ends the run with EINTR, nothing changes" \
		test_slow_run_ended SIGINT EINTR
	run_test "batch $MAX_BATCH, events on: SIGKILL ends the run, nothing changes" \
		test_slow_run_ended SIGKILL -
	run_test "unload" unload
}

# --- headless: booted with debugfs=off ----------------------------------------

# Without debugfs, run=1 still measures, and the kernel log is the output.
test_headless_locked()
{
	local fail=0 log v ncpu
	grep -q ' debugfs ' /proc/mounts && { diag "debugfs is mounted"; return 1; }
	insmod $MODULE run=1 nr_samples=1000 || { diag "insmod failed"; return 1; }
	ncpu=$(expand_cpulist "$(online_cpus)" | wc -l)
	log=$(dmesg | sed -n 's/^\[[^]]*\] tracerbench: //p')
	for v in "run 1" "nr_samples 1000" "irq.samples $((ncpu * 1000))"; do
		echo "$log" | grep -qxF "$v" || { diag "no '$v' logged"; fail=1; }
	done
	echo "$log" | grep -q '^no debugfs files (' ||
		{ diag "no word that debugfs is missing"; fail=1; }
	logged_key preempt.p99.9 "$log" && logged_key irq_save.max_avg "$log" ||
		fail=1
	[ -d /sys/module/tracerbench ] || { diag "not loaded"; fail=1; }
	rmmod tracerbench || fail=1
	return $fail
}

group_headless()
{
	run_test "headless: run=1 without debugfs logs the summary" \
		test_headless_locked
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

# The least on/off ratio the events must give irq and preempt: 5, or
# tb.tp_ratio=. On arm64 the hooks are dear even with the events off: the
# irqsoff tracer's CALLER_ADDR1 is return_address(1), a stack unwind there
# (a plain load on x86), so irq with the events off already costs ~75
# ticks of 62.5 MHz against 1 for raw_irq, and on comes to only ~2.2
# times off; arm64.conf asks for 2.
TP_RATIO=$(cmdline_param tp_ratio 5)

# expect_raised WHAT ON OFF: ON is at least TP_RATIO times OFF, and not 0
expect_raised()
{
	[ "$2" -gt 0 ] && [ "$2" -ge $((TP_RATIO * $3)) ] && return 0
	diag "$1: $2 with the events on, $3 off, want $TP_RATIO times"
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
	diag "medians ($PRIMS) off: $tp_off, on: $tp_on"
	set -- $tp_off $tp_on
	expect_raised irq "$8" "$1" || fail=1
	expect_raised preempt "$9" "$2" || fail=1
	# the raw forms and none call no hook: the events change nothing
	expect "raw and none medians, events on" "${11} ${12} ${13} ${14}" \
		"$4 $5 $6 $7" || fail=1
	return $fail
}

test_tracepoints_restore()
{
	events 0 && echo 1 >$TB/benchmark || return 1
	expect_ticks "medians with the events off again" "$(medians)" "$tp_off"
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
	# the ratio table's rows; the hook table's name the raw form second
	echo "$out" | awk -v min="$1" '($1 == "irq" || $1 == "preempt") &&
	    $2 !~ /^(raw_|preempt_notrace)/ {
		rows++
		if ($2 != "-" || $NF != "-" || $(NF - 2) != "-" ||
		    $(NF - 1) == "-" || $(NF - 1) < min)
			bad = 1
	} END { exit rows != 2 || bad }'
}

# Under icount the events' cost is exact: TP_RATIO times or more, as above.
test_compare_host()
{
	compare_host "$TP_RATIO"
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
	run_test "events on raise irq and preempt medians $TP_RATIO times or more" \
		test_tracepoints_raise
	run_test "events off again give the earlier medians, exactly (arm64: within a tick)" \
		test_tracepoints_restore
	run_test "compare.sh --host measures off and on" test_compare_host
	run_test "collect.sh on its own: two rounds, off and on, and the JSON" \
		test_collect_alone
	run_test "bench.sh --host: a results directory of the running kernel" \
		test_bench_host
	run_test "unload" unload
}

# tools/bench.sh --host, with bash as a real machine has it: the
# environment says host mode and the label, every run is there
test_bench_host()
{
	local out=/tmp/bench-host rc

	rm -rf $out
	/tb/tools/bench.sh --host --label box --rounds 1 --nr-samples 1000 \
		--out $out >/tmp/bench-host.log 2>&1 ||
		{ cat /tmp/bench-host.log; return 1; }
	expect "env mode" "$(sed -n 's/^mode //p' $out/env)" host &&
		expect "env kernels" "$(sed -n 's/^kernels //p' $out/env)" box &&
		expect "runs" "$(ls $out/runs | tr '\n' ' ')" "box.off.r1 box.on.r1 " &&
		grep -q '"box":{"label":"box"' $out/results.json
	rc=$?
	rm -rf $out
	return $rc
}

# collect.sh as a minimal machine runs it, busybox alone: every run of
# two rounds in both states with all its files, and results.json with
# four runs, the second round in reverse (ABBA: off, on, on, off) and
# meta saying so. The events were on before, as a user may have them:
# they are on after.
test_collect_alone()
{
	local out=/tmp/collect-alone d p n rc

	rm -rf $out
	echo 1 >$PREEMPTIRQ/enable
	/tests/collect.sh --rounds 2 --nr-samples 1000 --labels me $out \
		2>/tmp/collect-alone.log || { cat /tmp/collect-alone.log; return 1; }
	n=$(cat $PREEMPTIRQ/enable)
	echo 0 >$PREEMPTIRQ/enable
	expect "events after collect.sh" "$n" 1 || return 1
	for d in me.off.r1 me.on.r1 me.off.r2 me.on.r2; do
		[ -s $out/runs/$d/summary ] || { diag "no $d"; return 1; }
		for p in $PRIMS; do
			[ -s $out/runs/$d/$p.histogram ] &&
				[ -s $out/runs/$d/$p.per_cpu ] ||
				{ diag "$d lacks $p's files"; return 1; }
		done
	done
	expect "seq of me.on.r2" "$(sed -n 's/^seq //p' $out/runs/me.on.r2/meta)" 3 &&
		expect "me.on.r2 runs after" \
			"$(sed -n 's/^after //p' $out/runs/me.on.r2/meta)" me.on.r1 &&
		expect "order of round 2" \
			"$(sed -n 's/^order //p' $out/runs/me.off.r2/meta)" \
			"me.on me.off" &&
		expect "kernels/me.env states" \
			"$(sed -n 's/^states //p' $out/kernels/me.env)" "off on" ||
		return 1
	n=$(grep -o '"id":"me\.o[nf]*\.r[12]"' $out/results.json | wc -l)
	expect "runs in results.json" "$n" 4 &&
		expect "results.json starts" "$(head -c 33 $out/results.json)" \
			'{"format":"tracerbench-results 1"'
	rc=$?
	rm -rf $out
	return $rc
}

# --- baseline: traced against raw primitives, under icount ---------------------

# hook_costs: "irq - raw_irq", "irq_save - raw_irq_save" and "preempt -
# preempt_notrace" of the last run's summary medians (batch 1: integers)
hook_costs()
{
	echo $(($(summary_key irq.median) - $(summary_key raw_irq.median))) \
	     $(($(summary_key irq_save.median) - $(summary_key raw_irq_save.median))) \
	     $(($(summary_key preempt.median) - $(summary_key preempt_notrace.median)))
}

# Without the tracepoints the traced primitives are the raw ones: the
# same instructions, so under icount the same medians, exactly.
test_baseline_equal()
{
	echo 1 >$TB/benchmark || return 1
	diag "medians ($PRIMS): $(medians)"
	expect "irq, irq_save, preempt less their raw forms" "$(hook_costs)" \
		"0 0 0"
}

# With them compiled in and the events off, each hook still costs: irq
# and preempt above their raw forms, by the same amount in every run.
test_baseline_hooks()
{
	local fail=0 first
	events 0 && echo 1 >$TB/benchmark || return 1
	first=$(hook_costs)
	diag "medians ($PRIMS): $(medians)"
	diag "hook costs (irq irq_save preempt), events off: $first"
	set -- $first
	[ "$1" -gt 0 ] || { diag "irq - raw_irq is $1"; fail=1; }
	[ "$3" -gt 0 ] || { diag "preempt - preempt_notrace is $3"; fail=1; }
	echo 1 >$TB/benchmark || fail=1
	expect_ticks "hook costs of a second run" "$(hook_costs)" "$first" || fail=1
	return $fail
}

group_baseline()
{
	run_test "load" load
	if [ -d $PREEMPTIRQ ]; then
		run_test "events off: irq, preempt above raw, repeatably" \
			test_baseline_hooks
	else
		run_test "no tracepoints: irq = raw_irq, preempt = preempt_notrace" \
			test_baseline_equal
	fi
	run_test "unload" unload
}

# --- faults: fail-nth on every allocation of a load and of a run --------------

FAULT_LIMIT=3000
# The module area, START-END as tb.modules= gives it: the host knows it
# per architecture (tools/arch/ARCH.conf).
MODULES=$(cmdline_param modules "")
MODULES_START=${MODULES%-*}
MODULES_END=${MODULES#*-}

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

	[ -n "$MODULES" ] || { diag "no module area (tb.modules=)"; return 1; }
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
		snap_results
		results=$SNAPSHOT
		set -- $(/tests/tbio -f $n write $TB/$file $value)
		[ "$2" = missed ] && break
		if [ "$1" != OK ]; then
			expect "fault $n" "$1" ENOMEM || fail=1
			snap_results
			expect "results after fault $n" "$SNAPSHOT" \
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
	local rc

	dmesg_without 'WARNING:|BUG:|Oops|sleeping function called'
	rc=$?
	dmesg -c >/dev/null
	return $rc
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
		echo "$(cmdline_param do_work 0)" >$TB/do_work &&
		echo "$(cmdline_param batch 1)" >$TB/batch
}

group_compare()
{
	run_test "load" load
	run_test "configure" test_compare_setup
	run_test "measure" /tests/measure.sh "$(cmdline_param rounds 5)"
	run_test "unload" unload
}

# --- collect: for tools/bench.sh ---------------------------------------------

# One boot's share of tools/bench.sh's rounds: collect.sh's results as
# "# @@ PATH" blocks, for the host to put back together.
test_collect()
{
	/tests/collect.sh --emit --rounds "$(cmdline_param rounds 1)" \
		--first-round "$(cmdline_param round 1)" \
		--labels "$(cmdline_param labels host)" \
		--states "$(cmdline_param states '')" \
		--nr-samples "$(cmdline_param nr_samples 10000)" \
		--do-work "$(cmdline_param do_work 0)" \
		--batch "$(cmdline_param batch 1)" /tmp/results
}

group_collect()
{
	run_test "load" load
	run_test "collect" test_collect
	run_test "unload" unload
}

# --- scale: for tools/scale.sh ------------------------------------------------

mem_available()
{
	sed -n 's/^MemAvailable: *\([0-9]*\).*/\1/p' /proc/meminfo
}

# measure_scale N: one run of N samples per CPU; prints "# scale N ns KiB"
measure_scale()
{
	local before
	echo "$1" >$TB/nr_samples || return 1
	before=$(mem_available)
	rm -f /tmp/stop
	echo "$before" >/tmp/min
	( min=$before
	  while [ ! -e /tmp/stop ]; do
		v=$(mem_available)
		[ "$v" -lt "$min" ] && min=$v && echo "$min" >/tmp/min
		sleep 0.2
	  done ) &
	echo 1 >$TB/benchmark
	local rc=$?
	touch /tmp/stop
	wait
	echo "# scale $1 $(summary_key duration_ns) $((before - $(cat /tmp/min)))"
	return $rc
}

group_scale()
{
	diag "kernel $(uname -r)"
	run_test "load" load
	for n in $(cmdline_param sizes 100000 | tr , ' '); do
		run_test "$n samples per CPU" measure_scale "$n"
	done
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

# --- speed: for tools/scale.sh --against ----------------------------------------

AGAINST=/against.ko

# time_module KO N: load KO, time one benchmark of N samples per CPU by the
# wall clock (a module of another version may have no summary), unload
time_module()
{
	local t0 t1
	insmod "$1" || return 1
	echo "$2" >$TB/nr_samples || return 1
	t0=$EPOCHREALTIME
	echo 1 >$TB/benchmark || return 1
	t1=$EPOCHREALTIME
	rmmod tracerbench || return 1
	echo "# speed $(basename "$1" .ko) $t0 $t1"
}

# Both modules in turn, rounds times, so that drift hits both alike.
group_speed()
{
	local n r
	n=$(cmdline_param speed_samples 1000000)
	r=0
	unload
	while [ $r -lt "$(cmdline_param rounds 3)" ]; do
		run_test "round $r: the other module" time_module $AGAINST "$n"
		run_test "round $r: this module" time_module $MODULE "$n"
		r=$((r + 1))
	done
}

# --- cost: for tools/speed.sh, under icount ----------------------------------

# thread_runtime CPU: the ns tracerbench's thread on CPU has run, from
# its schedstat; "-" on a kernel without CONFIG_SCHED_INFO
thread_runtime()
{
	local pid t rest
	pid=$(thread_pid "$1") && read -r t rest <"/proc/$pid/schedstat" \
		2>/dev/null && echo "$t" || echo -
}

# measure_cost N: one run of N samples per CPU; prints
# "# cost N duration_ns counter_hz overhead batch runtime_ns MEDIAN..."
# (runtime_ns: what the measuring thread ran, without the other tasks
# the run's duration includes, or "-"; the medians per pair, in the order
# of PRIMS)
measure_cost()
{
	local p m= t0 t1 ran=-
	echo "$1" >$TB/nr_samples || return 1
	t0=$(thread_runtime 0)
	echo 1 >$TB/benchmark || return 1
	t1=$(thread_runtime 0)
	[ "$t0" != - ] && [ "$t1" != - ] && ran=$((t1 - t0))
	for p in $PRIMS; do
		m="$m $(summary_key $p.median)"
	done
	echo "# cost $1 $(summary_key duration_ns) $(summary_key counter_hz) $(summary_key overhead) $(summary_key batch) $ran$m"
}

group_cost()
{
	local n f
	diag "kernel $(uname -r)"
	# the mitigations decide what a call and a return cost
	for f in /sys/devices/system/cpu/vulnerabilities/*; do
		echo "# cost-vuln $(basename $f): $(cat $f)"
	done
	run_test "load" load
	run_test "batch $(cmdline_param batch 1)" \
		sh -c "echo $(cmdline_param batch 1) >$TB/batch"
	echo "# cost-prims $PRIMS"
	for n in $(cmdline_param cost_sizes 100000,200000 | tr , ' '); do
		run_test "$n samples per CPU" measure_cost "$n"
	done
	run_test "unload" unload
}

# --- timing: how long a run of the default settings takes ----------------------

group_timing()
{
	run_test "load" load
	run_test "default run" sh -c "echo 1 >$TB/benchmark"
	diag "default run: $(summary_key duration_ns) ns"
	run_test "unload" unload
}

# --- show: for make run -------------------------------------------------------

# Every figure of the summary in the run's unit, and median and average
# in nanoseconds too, at the counter_hz the run measured.
group_show()
{
	local hz unit p s v
	load || return 1
	echo 1 >$TB/benchmark || return 1
	echo 99 >$TB/percentile || return 1
	hz=$(summary_key counter_hz)
	unit=$(summary_key unit)
	echo "tracerbench on $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, nr_samples $(cat $TB/nr_samples), nr_highest $(cat $TB/nr_highest), do_work $(cat $TB/do_work), batch $(summary_key batch), clock $(summary_key clock)"
	echo "figures per pair in $unit, counter_hz $hz; percentile is p99 on one CPU"
	printf '%-16s' ""
	for s in $STATS median_ns average_ns; do
		printf '%12s' "$s"
	done
	echo
	for p in $PRIMS; do
		printf '%-16s' "$p"
		for s in median average max max_avg; do
			printf '%12s' "$(summary_key $p.$s)"
		done
		printf '%12s' "$(cat $TB/$p/percentile)"
		for s in median average; do
			v=$(summary_key $p.$s)
			printf '%12s' "$(awk -v v="$v" -v hz="$hz" \
				'BEGIN { if (hz > 0) printf "%.2f", v * 1e9 / hz }')"
		done
		echo
	done
}

echo "KTAP version 1"
[ "$1" = show ] || run_test "every present CPU online" test_all_cpus_online
# What the kernel reported before the module was loaded is not ours. The
# leaks group scans when it needs to: kmemleak's own thread, which would
# scan all memory a minute after boot and every ten, is stopped.
if [ -w $KMEMLEAK ]; then
	echo scan=off >$KMEMLEAK
	echo scan >$KMEMLEAK
	echo clear >$KMEMLEAK
fi
for group in "$@"; do
	case $group in
	functional)	group_functional ;;
	exact)		group_exact ;;
	long)		group_long ;;
	stall)		group_stall ;;
	headless)	group_headless ;;
	tracepoints)	group_tracepoints ;;
	baseline)	group_baseline ;;
	faults)		group_faults ;;
	leaks)		group_leaks ;;
	compare)	group_compare ;;
	collect)	group_collect ;;
	scale)		group_scale ;;
	cost)		group_cost ;;
	version)	group_version ;;
	kunit)		group_kunit ;;
	speed)		group_speed ;;
	timing)		group_timing ;;
	show)		group_show; exit ;;
	*)		diag "unknown group $group"; ktap_result 1 "group $group" ;;
	esac
done
run_test "dmesg: no warning, lockdep, lockup, stall or KASAN report" \
	test_dmesg_clean
echo "1..$nr_tests"
echo "# $((nr_tests - nr_failed)) passed, $nr_failed failed"
