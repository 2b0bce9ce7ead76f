# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# stall: batch 10000 with the events on (the debug kernel): no detector
# reports, and signals end a run

# The longest windows there are: batch 10000, with the preemptirq events
# on where the kernel has them, on the debug kernel (KASAN, lockdep). The
# thread still gives way between windows, at least after each one, so no
# detector reports however long a window takes.
test_slow_windows()
{
	local fail=0

	[ -d "$PREEMPTIRQ" ] && { events 1 || fail=1; }
	# one CPU: the guest's vCPUs may share a host thread, and the claim
	# is each CPU's own. The runs are of a few samples: max_avg of the
	# largest alone stays above the median, which the checks require.
	# The first is of 16: a run of 1 is nearly all its fixed cost (TB_WARMUP
	# windows of each primitive), which says little of the next one's size.
	echo 0 >"$TB/cpus" && echo "$MAX_BATCH" >"$TB/batch" &&
		echo 1 >"$TB/nr_highest" || fail=1
	cover_detectors 16 || fail=1
	[ -d "$PREEMPTIRQ" ] && { events 0 || fail=1; }
	return $fail
}

# test_slow_run_ended EVENT WANT: a signal ends a run of such windows as it
# ends any other, with the results and settings unchanged.
test_slow_run_ended()
{
	local fail=0

	[ -d "$PREEMPTIRQ" ] && { events 1 || fail=1; }
	echo "$MAX_BATCH" >"$TB/batch"
	test_run_ended benchmark "$1" "$2" || fail=1
	[ -d "$PREEMPTIRQ" ] && { events 0 || fail=1; }
	return $fail
}

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
	run_test "lockup detectors as they were" test_restore_watchdogs
	run_test "unload" unload
}
