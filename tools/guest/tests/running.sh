# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# Runs under way, sourced by suite.sh after ktap.sh: started in the
# background, held from ending, ended from outside (functional, stall).

# Start a benchmark in the background, from CPU 0; $1 names its status
# file, which holds the write's errno once it returns. The writer's PID is
# left in writer_pid.
start_benchmark()
{
	start_call "$1" 0 write "$TB/benchmark" 1
}

# task_state PID: PID's state, the letter after its name in
# /proc/PID/stat (S, D, I for TASK_IDLE, Z, ...); nothing once it is gone
task_state()
{
	sed -n 's/.*) \(.\) .*/\1/p' "/proc/$1/stat" 2>/dev/null
}

# wait_in PID PATTERN [STATE]: until PID sleeps in the kernel with a stack
# that matches PATTERN, and in STATE if given (the letter of
# /proc/PID/stat: I for TASK_IDLE). The stack leaves out the scheduler's
# and the locks' own functions: a writer that waits for the run lock
# shows tb_benchmark on top. Tests act on what a process is doing, not on
# time: the bound (300 s) is for hangs only.
wait_in()
{
	local n=0
	while [ $n -lt 3000 ]; do
		grep -qE "$2" "/proc/$1/stack" 2>/dev/null &&
			{ [ -z "${3:-}" ] || [ "$(task_state "$1")" = "$3" ]; } &&
			return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
		n=$((n + 1))
	done
	diag "$1 never waited in $2${3:+ in state $3}: state $(task_state "$1"), $(head -n 4 "/proc/$1/stack" 2>/dev/null | tr '\n' ' ')"
	return 1
}

# wait_file FILE: until FILE has content; a bound for hangs only (300 s)
wait_file()
{
	n=0
	while [ ! -s "$1" ] && [ "$n" -lt 3000 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ -s "$1" ]
}

# wait_gone PID: until the process has ended; a bound for hangs only
wait_gone()
{
	n=0
	while kill -0 "$1" 2>/dev/null && [ "$n" -lt 3000 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	! kill -0 "$1" 2>/dev/null
}

# wait_run_lock PID: until the writer PID sleeps in tb_benchmark before its
# run, waiting for another's: on the run lock (an rtmutex on RT, whose
# frames then come first); a bound for hangs only (300 s).
wait_run_lock()
{
	local n=0 stack
	while [ $n -lt 3000 ]; do
		stack=$(cat "/proc/$1/stack" 2>/dev/null)
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
# them every RCU grace period. The hog ends itself after HOG_SECONDS, a
# bound for a suite that died, which no test comes near: tests that rely
# on the hold check that the hog still runs (hog_alive). The settings are
# read with cat: busybox's read takes a byte at a time, and these files
# return nothing at an offset past 0.
HOLD_CPU=2
# where the suite's shell goes meanwhile
SHELL_CPUS=0,1
HOG_SECONDS=600
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
	# On 6.12 a CPU onlined after boot (see tb_boot, tools/lib/qemu.sh)
	# has no fair server: runtime and period read 0 and stay so, and a
	# write fails with EINVAL. There is nothing to switch off then.
	[ "$saved_fair" = 0 ] && saved_fair=
	hog_pid=
	softirqd=$(pid_of "ksoftirqd/$HOLD_CPU")
	{ taskset -p -c $SHELL_CPUS $$ >/dev/null &&
		{ [ -z "$softirqd" ] || /tests/tbio setsched "$softirqd" fifo 2; } &&
		set_knob $RT_RUNTIME -1 &&
		{ [ -z "$saved_fair" ] || set_knob $FAIR_RUNTIME 0; }; } ||
		{ release_cpu; return 1; }
	rm -f /tmp/hog
	/tests/tbio hog $HOLD_CPU $HOG_SECONDS >/tmp/hog &
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
		[ "$(task_state $writer)" != Z ] || break
		# without /proc/PID/stack, this waits out its 60 s bound
		grep -q cpus_read_lock /proc/$writer/stack 2>/dev/null && break
		sleep 0.1
		n=$((n + 1))
	done
	if [ -n "$hog_pid" ]; then
		kill -9 "$hog_pid" 2>/dev/null
		wait "$hog_pid" 2>/dev/null
	fi
	wait $writer || diag "restoring $RT_RUNTIME to $saved_rt failed"
	# PREEMPT_RT runs ksoftirqd at SCHED_OTHER too
	[ -n "$softirqd" ] && /tests/tbio setsched "$softirqd" other 0
	taskset -p -c "$(online_cpus)" $$ >/dev/null
}

# wait_held: until CPU 0's thread waits at the start barrier: the run is
# under way and, with HOLD_CPU's thread kept away, cannot pass it. That
# wait is the thread's one TASK_IDLE sleep in tb_thread_fn() while the
# run is held (tb_measure_cpu() needs the barrier passed): its state and
# its stack tell it, where the top frames alone do not on i386, whose
# unwinder left one stale return address above tb_thread_fn() in one
# run, and two (finish_task_switch, __call_rcu_common) in another.
wait_held()
{
	wait_in "$(thread_pid 0)" '\] tb_thread_fn\+' I
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

# switch_cpu CPU 0|1: take CPU down or up, in the background, and wait
# for it; a bound for hangs only. Fails with the write's status.
switch_cpu()
{
	local rc
	rm -f /tmp/switch
	# shellcheck disable=SC2320 # the write's status
	( echo "$2" >"/sys/devices/system/cpu/cpu$1/online"; echo $? >/tmp/switch ) &
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

# A static key that a held cpus_read_lock() would block, and its file:
# the preemptirq events where the kernel has them, else another event's
# (every kernel here with tracing has sched_switch), else schedstats.
if [ -d "$PREEMPTIRQ" ]; then
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
	read -r was <"$STATIC_KEY"
	rm -f /tmp/toggle
	# shellcheck disable=SC2320 # the writes' status
	( echo 1 >"$STATIC_KEY" && echo "${was%X}" >"$STATIC_KEY"
	  echo $? >/tmp/toggle ) &
	wait_file /tmp/toggle || { diag "toggling $STATIC_KEY did not return"; return 1; }
	wait $!
	expect "toggle $STATIC_KEY" "$(cat /tmp/toggle)" 0
}

# hog_alive WHEN: the hog still holds HOLD_CPU, so that what a test sees
# of a held run is the hold's doing
hog_alive()
{
	[ -n "$hog_pid" ] && kill -0 "$hog_pid" 2>/dev/null && return 0
	diag "the hog had gone $1 (it ends itself after $HOG_SECONDS s)"
	return 1
}

# still_running WHEN: the writer has not returned, the run goes on
still_running()
{
	kill -0 "$writer_pid" 2>/dev/null && [ ! -s /tmp/a ] && return 0
	diag "the run ended $1: $(cat /tmp/a 2>/dev/null)"
	return 1
}

# test_run_ended TRIGGER EVENT ERRNO [CLOCK]: see RUN_ENDINGS in functional.sh
test_run_ended()
{
	local trigger=$1 event=$2 want=$3 clock=${4:-} fail=0 params results before

	[ -z "$clock" ] || echo "$clock" >"$TB/clock" || return 1
	echo 4294967296 >"$TB/nr_samples"
	snap_params
	params=$SNAPSHOT
	snap_results
	results=$SNAPSHOT
	before=$(runs)
	case $trigger in
	benchmark)	start_call /tmp/e 3 write "$TB/benchmark" 1 ;;
	percentile)	start_call /tmp/e 3 write "$TB/percentile" 50 ;;
	insmod)		unload || return 1
			start_call /tmp/e 3 insmod "$MODULE" \
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
	# a counter left held would make the next one another, or none: on
	# arm64, core_cycles reads only the cycle counter, which is one
	if [ -n "$clock" ]; then
		echo 1000 >"$TB/nr_samples"
		expect "clock $clock again" "$(write_errno "$TB/clock" "$clock")" OK ||
			fail=1
		set_defaults
	fi
	expect "next run" "$(write_errno "$TB/$trigger" 1)" OK || fail=1
	return $fail
}

# The functional group's tests of runs held, ended from outside, and
# raced by hotplug (group_functional runs them).

# Two writers: the second waits for the first. The second asks for CPUs
# the held run does not block on, so had it not waited it would be done.
test_concurrent_writers()
{
	local fail=0 before
	before=$(runs)
	echo 100 >"$TB/nr_samples"
	start_held_run /tmp/a || return 1
	echo 0-1 >"$TB/cpus"
	start_benchmark /tmp/b
	# it waits for the first writer's run, on the run lock
	wait_run_lock "$writer_pid" || fail=1
	hog_alive "while the second writer waited" || fail=1
	[ -s /tmp/b ] && { diag "the second writer ran: $(cat /tmp/b)"; fail=1; }
	expect "runs while held" "$(runs)" "$before" || fail=1
	release_cpu
	{ wait_file /tmp/a && wait_file /tmp/b; } ||
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
	echo 1 >"$TB/benchmark"
	before=$(snapshot_results)
	summary=$(cat "$TB/summary")
	echo 100 >"$TB/nr_samples"
	start_held_run /tmp/a || return 1
	during=$(snapshot_results)
	params=$(snapshot_params)
	expect "results during the run" "$during" "$before" || fail=1
	expect "summary during the run" "$(cat "$TB/summary")" "$summary" ||
		fail=1
	hog_alive "while the results were read" || fail=1
	echo 777 >"$TB/nr_samples" ||
		{ diag "config write during the run failed"; fail=1; }
	expect "params read during the run" "$params" \
		"nr_samples=100 nr_highest=100 do_work=0 batch=1 cpus=$(online_cpus) clock=cycles " ||
		fail=1
	release_cpu
	wait_file /tmp/a || { diag "writer did not return"; fail=1; }
	wait
	expect "writer" "$(cat /tmp/a)" OK || fail=1
	expect "nr_samples after the run" "$(cat "$TB/nr_samples")" 777 || fail=1
	expect "the run's nr_samples" "$(summary_key nr_samples)" 100 || fail=1
	set_defaults
	return $fail
}

# A killed writer ends a run while a thread has not reached the start
# barrier, and never will until its CPU is released: the writer takes its
# place.
test_killed_before_barrier()
{
	local fail=0 pid before
	before=$(runs)
	echo 100 >"$TB/nr_samples"
	hold_cpu || return 1
	taskset -c 0 /tests/tbio write "$TB/benchmark" 1 >/tmp/a &
	pid=$!
	wait_held || { diag "the run was not held: $(cat /tmp/a)"; fail=1; }
	kill -9 $pid
	wait_gone $pid ||
		{ diag "the killed writer hangs with its CPU held"; fail=1; }
	{ wait $pid; } 2>/dev/null
	# the writer ended, not the hold: the hog ends itself only after
	# HOG_SECONDS
	kill -0 "$hog_pid" 2>/dev/null ||
		{ diag "the writer ended only once the hog had gone"; fail=1; }
	expect "runs while held" "$(runs)" "$before" || fail=1
	release_cpu
	expect "next run" "$(write_errno "$TB/benchmark" 1)" OK || fail=1
	expect "runs" "$(runs)" $((before + 1)) || fail=1
	set_defaults
	return $fail
}

# stime PID: the clock ticks PID has spent in the kernel
stime()
{
	awk '{ print $15 }' "/proc/$1/stat" 2>/dev/null
}

# A killed writer returns at once while a thread of its run measures and
# a real-time task keeps that thread off its CPU: the thread finishes
# with the run when it runs again, and the last one out frees what the
# run holds (the leaks group finds nothing left on the debug kernel).
# The run is HOLD_CPU's alone, and the shell on SHELL_CPUS (as
# hold_cpu puts it) from the start: under TCG, where one host thread
# runs the vCPUs in turn, each vCPU that measures makes every command of
# this test wait for its turn (with all four measuring, the test took a
# minute on arm64; with two, 21 s).
test_killed_while_starved()
{
	local fail=0 pid before thread t0 n=0
	before=$(runs)
	{ echo 4294967296 >"$TB/nr_samples" &&
		echo "$HOLD_CPU" >"$TB/cpus" &&
		taskset -p -c $SHELL_CPUS $$ >/dev/null; } || { set_defaults; return 1; }
	taskset -c 0 /tests/tbio write "$TB/benchmark" 1 >/tmp/a &
	pid=$!
	thread=$(pid_of "tracerbench/$HOLD_CPU")
	t0=$(stime "$thread")
	# measuring: ten ticks in the kernel since the run began, far more
	# than taking its part and passing the barrier take
	while [ "$(stime "$thread")" -lt $((t0 + 10)) ] && [ $n -lt 3000 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	if [ -s /tmp/a ]; then
		diag "the run ended: $(cat /tmp/a)"
		taskset -p -c "$(online_cpus)" $$ >/dev/null
		set_defaults
		return 1
	fi
	hold_cpu || { kill -9 $pid; wait; set_defaults; return 1; }
	kill -9 $pid
	wait_gone $pid ||
		{ diag "the killed writer waits for its starved thread"; fail=1; }
	{ wait $pid; } 2>/dev/null
	hog_alive "when the killed writer returned" || fail=1
	expect "runs while starved" "$(runs)" "$before" || fail=1
	release_cpu
	echo 100 >"$TB/nr_samples"
	expect "next run" "$(write_errno "$TB/benchmark" 1)" OK || fail=1
	expect "runs" "$(runs)" $((before + 1)) || fail=1
	set_defaults
	return $fail
}

# A run ended from outside: TRIGGER|EVENT|ERRNO, during a run of 2^32
# samples per CPU (hours, and no more memory than 100), started from CPU
# 3, which a benchmark of all CPUs, the percentile and the run at load
# (insmod run=1) all measure. offline takes CPU 3 down; SIGINT is Ctrl-C
# (tbio catches it, so the call returns its errno); SIGKILL leaves no
# errno to read ("-"). Each ends the run at its threads' next checkpoint:
# nothing is published, and a load fails. |CLOCK: the run's is that PMU
# clock, where the guest's PMU serves it, and its counters must be free
# again after.
# shellcheck disable=SC2034 # read by functional.sh
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
benchmark|SIGKILL|-|core_cycles
benchmark|offline|EAGAIN|core_cycles
benchmark|SIGINT|EINTR|instructions
"

CPU3=/sys/devices/system/cpu/cpu3/online

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
	echo 4294967296 >"$TB/nr_samples" && echo 0-2 >"$TB/cpus" || return 1
	start_benchmark /tmp/a
	wait_in "$writer_pid" tb_run_cpus || fail=1
	# shellcheck disable=SC2320 # the write's status
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
	expect "next run" "$(write_errno "$TB/benchmark" 1)" OK || fail=1
	expect "CPUs of the run" "$(summary_key cpus)" 0-3 || fail=1
	return $fail
}

