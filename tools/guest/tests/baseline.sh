# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# baseline: traced primitives against raw ones, under icount: equal
# without the tracepoints, above them, repeatably, with the events off;
# by the clock that counts every instruction (EXACT_CLOCK, ktap.sh)

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
	echo 1 >"$TB/benchmark" || return 1
	diag "medians ($PRIMS): $(medians)"
	expect "irq, irq_save, preempt less their raw forms" "$(hook_costs)" \
		"0 0 0"
}

# With them compiled in and the events off, each hook still costs: irq
# and preempt above their raw forms, by the same amount in every run.
test_baseline_hooks()
{
	local fail=0 first
	events 0 && echo 1 >"$TB/benchmark" || return 1
	first=$(hook_costs)
	diag "medians ($PRIMS): $(medians)"
	diag "hook costs (irq irq_save preempt), events off: $first"
	# shellcheck disable=SC2086 # the medians, a word each
	set -- $first
	[ "$1" -gt 0 ] || { diag "irq - raw_irq is $1"; fail=1; }
	[ "$3" -gt 0 ] || { diag "preempt - preempt_notrace is $3"; fail=1; }
	echo 1 >"$TB/benchmark" || fail=1
	expect_ticks "hook costs of a second run" "$(hook_costs)" "$first" || fail=1
	return $fail
}

group_baseline()
{
	run_test "load" load
	set_exact_clock
	if [ -d "$PREEMPTIRQ" ]; then
		run_test "events off: irq, preempt above raw, repeatably" \
			test_baseline_hooks
	else
		run_test "no tracepoints: irq = raw_irq, preempt = preempt_notrace" \
			test_baseline_equal
	fi
	run_test "unload" unload
}
