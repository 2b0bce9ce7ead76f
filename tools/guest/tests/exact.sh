# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# exact: checks that need -icount shift=0,sleep=off: exact medians, by
# the clock that counts every instruction (EXACT_CLOCK, ktap.sh)

test_identical_medians()
{
	echo 1 >"$TB/benchmark" || return 1
	first=$(medians)
	echo 1 >"$TB/benchmark" || return 1
	diag "medians ($PRIMS): $first"
	expect "second run" "$(medians)" "$first"
}

test_percentile_order()
{
	local fail=0
	echo 50 >"$TB/percentile" || return 1
	p50=$(for p in $PRIMS; do printf '%s ' "$(cat "$TB/$p/percentile")"; done)
	echo 99 >"$TB/percentile" || return 1
	# shellcheck disable=SC2086 # the medians, a word each
	set -- $p50
	for p in $PRIMS; do
		expect_le "$p p50 <= p99" "$1" "$(cat "$TB/$p/percentile")" ||
			fail=1
		shift
	done
	return $fail
}

# The simulated work is calibrated and subtracted: medians barely move.
test_do_work_subtracted()
{
	local fail=0
	echo 1 >"$TB/benchmark" || return 1
	plain=$(medians)
	echo 1 >"$TB/do_work"
	echo 1 >"$TB/benchmark" || fail=1
	work=$(medians)
	echo 0 >"$TB/do_work"
	diag "medians without work: $plain, with: $work"
	# shellcheck disable=SC2086 # the medians, a word each
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
		printf '%s ' "$(summary_key "$p.median")"
	done
}

# Under icount a pair costs the same in every window, so timing 1000 back
# to back and dividing gives the batch-1 median, within a tick: by the
# counter (cycles), whose tick is what a batch resolves. Where a tick is
# several instructions (TICK_SLACK), a window and the calibration each
# read a tick more or less by their phase: the batch-1 median is within
# 2 ticks of the truth, strictly, and the batch-1000 figure within 2/1000
# of it, so the two are within 1 + 2 x TICK_SLACK. (By the instructions
# clock, arm64's preempt read 10 at batch 1 and 8.992 at batch 1000: what
# a window runs besides its pairs' loop is not all in the empty window's,
# and batch 1 lays it on each pair.)
test_batch_agrees()
{
	local fail=0 one many tol=$((1 + 2 * TICK_SLACK))
	echo 0 >"$TB/cpus" && echo 2000 >"$TB/nr_samples" && echo cycles >"$TB/clock" ||
		return 1
	echo 1 >"$TB/batch" && echo 1 >"$TB/benchmark" || fail=1
	one=$(summary_medians)
	echo 1000 >"$TB/batch" && echo 1 >"$TB/benchmark" || fail=1
	many=$(summary_medians)
	diag "medians ($PRIMS), batch 1: $one"
	diag "medians ($PRIMS), batch 1000: $many"
	# shellcheck disable=SC2086 # the medians, a word each
	set -- $many
	for m in $one; do
		awk -v a="$m" -v b="$1" -v t=$tol \
		    'BEGIN { d = a - b; exit !(d <= t && d >= -t) }' ||
			{ diag "batch 1 gives $m, batch 1000 gives $1, more than $tol apart"; fail=1; }
		shift
	done
	set_defaults
	set_exact_clock
	return $fail
}

# The empty window is the calibration's, timed by the same loop: under
# icount it costs exactly the overhead, so its median is 0 with the PMU
# clocks the guest serves, and with either counter read where a tick is
# an instruction, with and without a batch. Where a tick is several
# (TICK_SLACK), a window and the calibration each read a tick more or
# less by where they start in one: the median is within a tick of 0.
# Its average is its mean window less the mean of the calibration's empty
# windows, 0 but for what lands in windows (interrupts; another vCPU's
# turn, whose instructions the clock counts too), which may land in
# either, and take it below 0 as readily as above: shown, not asserted
# (tools/unit's synthetic windows hold the estimator to known answers).
test_none_zero()
{
	local fail=0 c b avg batches slack m
	echo 2000 >"$TB/nr_samples" || return 1
	# batch 10000: the empty window costs more than the histogram's
	# exact range, and is calibrated exactly all the same
	# the PMU clocks run the same calibration: batch 1 shows their reads
	for c in cycles ordered $(echo "$PMU_CLOCKS" | tr , ' ' | sed 's/none//'); do
		batches="1 1000 $MAX_BATCH"
		pmu_clock "$c" && batches=1
		for b in $batches; do
			{ echo "$c" >"$TB/clock" && echo "$b" >"$TB/batch" &&
				echo 1 >"$TB/benchmark"; } || { fail=1; continue; }
			slack=$TICK_SLACK
			pmu_clock "$c" && slack=0
			m=$(summary_key none.median)
			awk -v m="$m" -v s="$slack" -v b="$b" \
			    'BEGIN { exit !(m != "" && m * b <= s) }' ||
				{ diag "none.median, clock $c, batch $b: $m"; fail=1; }
			avg=$(summary_key none.average)
			diag "none, clock $c, batch $b: median $m, average $avg"
		done
	done
	set_defaults
	set_exact_clock
	return $fail
}

# Every primitive costs something, by each clock that counts time. A pair
# is two instructions or more (a disable and an enable) that the empty
# window has not, so at batch 1000 a window runs 2000 instructions more
# than the calibration's. Under icount that is 2000 ns of the guest's
# time: 2000 ticks where a tick is an instruction (x86's counter), 125 of
# arm64's 62.5 MHz counter, well past a window's phase against it. (Under
# plain TCG an instruction has no fixed cost: i386's cheapest pair, the
# preempt count's, once read 0 by ordered against its empty window's.)
test_costs_something()
{
	local fail=0 c p
	echo 20 >"$TB/nr_samples" && echo 1000 >"$TB/batch" || return 1
	for c in $TIME_CLOCKS; do
		{ echo "$c" >"$TB/clock" &&
			expect "run with clock $c" "$(write_errno "$TB/benchmark" 1)" OK; } ||
			{ fail=1; continue; }
		for p in $PRIMS; do
			[ "$p" = none ] && continue
			[ "$(summary_key "$p.median")" != 0 ] ||
				{ diag "$p.median by $c at batch 1000 is 0"; fail=1; }
		done
		diag "clock $c, batch 1000: medians $(summary_medians)"
	done
	set_defaults
	set_exact_clock
	return $fail
}

group_exact()
{
	run_test "load" load
	set_exact_clock
	diag "exact clock: $EXACT_CLOCK"
	run_test "none: median 0 with the PMU's clocks, within a tick with cycles and ordered" \
		test_none_zero
	run_test "batch 1000 medians per pair within a tick of batch 1 (x86: 1)" \
		test_batch_agrees
	run_test "every primitive costs something by each clock, at batch 1000" \
		test_costs_something
	run_test "two runs give identical medians" test_identical_medians
	run_test "percentile 50 <= percentile 99" test_percentile_order
	run_test "do_work medians within 2 cycles" test_do_work_subtracted
	run_test "unload" unload
}
