# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# tracepoints: on a kernel with them, under icount: the preemptirq events
# raise the medians, exactly reversibly, by the clock that counts every
# instruction (EXACT_CLOCK, ktap.sh)

test_tracepoint_events()
{
	local fail=0
	for e in irq_disable irq_enable preempt_disable preempt_enable; do
		[ -d "$PREEMPTIRQ/$e" ] || { diag "no event $e"; fail=1; }
	done
	return $fail
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
	events 0 && echo 1 >"$TB/benchmark" || return 1
	tp_off=$(medians)
	events 1 && echo 1 >"$TB/benchmark" || fail=1
	tp_on=$(medians)
	events 0 || fail=1
	diag "medians ($PRIMS) off: $tp_off, on: $tp_on"
	# shellcheck disable=SC2086 # the medians, a word each
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
	events 0 && echo 1 >"$TB/benchmark" || return 1
	expect_ticks "medians with the events off again" "$(medians)" "$tp_off"
}

# Under icount the events' cost is exact: TP_RATIO times or more, as above.
test_compare_host()
{
	compare_host "$TP_RATIO" 2
}

group_tracepoints()
{
	run_test "load" load
	set_exact_clock
	run_test "preemptirq events exist" test_tracepoint_events
	run_test "events on raise irq and preempt medians $TP_RATIO times or more" \
		test_tracepoints_raise
	run_test "events off again give the earlier medians, exactly" \
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
	# shellcheck disable=SC2012 # the runs' names, which collect.sh made
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
	echo 1 >"$PREEMPTIRQ/enable"
	/tests/collect.sh --rounds 2 --nr-samples 1000 --labels me \
		--clock ns $out 2>/tmp/collect-alone.log ||
		{ cat /tmp/collect-alone.log; echo cycles >"$TB/clock"; return 1; }
	expect "the clock collect.sh set" "$(cat "$TB/clock")" ns || return 1
	echo cycles >"$TB/clock"
	n=$(cat "$PREEMPTIRQ/enable")
	echo 0 >"$PREEMPTIRQ/enable"
	expect "events after collect.sh" "$n" 1 || return 1
	for d in me.off.r1 me.on.r1 me.off.r2 me.on.r2; do
		[ -s $out/runs/$d/summary ] || { diag "no $d"; return 1; }
		for p in $PRIMS; do
			{ [ -s "$out/runs/$d/$p.histogram" ] &&
				[ -s "$out/runs/$d/$p.per_cpu" ]; } ||
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
			"$(sed -n 's/^states //p' $out/kernels/me.env)" "off on" &&
		expect "me.off.r1's clock" \
			"$(sed -n 's/^clock //p' $out/runs/me.off.r1/summary)" ns ||
		return 1
	/tests/collect.sh --rounds 1 --clock sundial $out-bad 2>/tmp/collect-bad.log &&
		{ diag "collect.sh took clock sundial"; return 1; }
	grep -q "refused clock 'sundial'" /tmp/collect-bad.log ||
		{ cat /tmp/collect-bad.log; return 1; }
	expect "the clock after a refused one" "$(cat "$TB/clock")" cycles ||
		return 1
	n=$(grep -o '"id":"me\.o[nf]*\.r[12]"' $out/results.json | wc -l)
	expect "runs in results.json" "$n" 4 &&
		expect "results.json starts" "$(head -c 33 $out/results.json)" \
			'{"format":"tracerbench-results 1"'
	rc=$?
	rm -rf $out
	return $rc
}
