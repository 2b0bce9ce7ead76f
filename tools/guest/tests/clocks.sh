# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# The functional group's tests of the clocks (group_functional runs them):
# each runs and says so, the PMU clocks where the guest's PMU serves them,
# and a counter's refusal. That each primitive costs something by each
# clock is exact.sh's test_costs_something: it needs icount.

# Each clock reads back, measures, and says so in the summary; ns ticks at
# exactly 10^9 per second, by definition.
test_clock_runs()
{
	local fail=0 c unit
	echo 1000 >"$TB/nr_samples"
	for c in $TIME_CLOCKS; do
		expect "clock $c" "$(write_errno "$TB/clock" "$c")" OK || fail=1
		expect "clock reads back" "$(cat "$TB/clock")" "$c" || fail=1
		expect "run with clock $c" "$(write_errno "$TB/benchmark" 1)" OK ||
			fail=1
		expect "summary clock" "$(summary_key clock)" "$c" || fail=1
		unit=cycles
		[ "$c" = ns ] && unit=ns
		expect "summary unit" "$(summary_key unit)" $unit || fail=1
		check_results_sane || fail=1
		[ "$(summary_key counter_hz)" -gt 0 ] ||
			{ diag "counter_hz with $c"; fail=1; }
		[ "$c" = ns ] && { expect "counter_hz of ns" \
			"$(summary_key counter_hz)" 1000000000 || fail=1; }
		diag "clock $c: medians $(medians)"
	done
	set_defaults
	return $fail
}

# The PMU clocks. Each that this guest's PMU serves (tb.pmu=, from
# tools/arch/) measures, says its unit, and names the PMU of each CPU in
# per_cpu; counter_hz is 0 for instructions, and a rate for core cycles.
# Any other is refused with ENODEV, and every setting and result stays as
# it was.
test_pmu_clocks()
{
	local fail=0 c
	echo 1000 >"$TB/nr_samples"
	for c in $TB_C_PMU_CLOCKS; do
		case ",$PMU_CLOCKS," in
		*",$c,"*)	;;
		*)	diag "clock $c: not served here"
			test_bad_input clock "$c" ENODEV || fail=1
			continue ;;
		esac
		expect "clock $c" "$(write_errno "$TB/clock" "$c")" OK || fail=1
		expect "run with clock $c" "$(write_errno "$TB/benchmark" 1)" OK ||
			fail=1
		expect "summary clock" "$(summary_key clock)" "$c" || fail=1
		expect "summary unit" "$(summary_key unit)" "$c" || fail=1
		check_results_sane || fail=1
		if [ "$c" = instructions ]; then
			expect "counter_hz of instructions" \
				"$(summary_key counter_hz)" 0 || fail=1
		else
			[ "$(summary_key counter_hz)" -gt 0 ] ||
				{ diag "counter_hz with $c"; fail=1; }
		fi
		for p in $PRIMS; do
			awk 'NR > 1 && (NF != 7 || $7 == "-") { bad = 1 }
			     END { exit bad || NR < 2 }' "$TB/$p/per_cpu" ||
				{ diag "$p/per_cpu names no PMU"; fail=1; }
		done
		diag "clock $c: medians $(medians), PMU $(awk 'NR == 2 { print $7 }' "$TB/none/per_cpu")"
	done
	set_defaults
	return $fail
}

# A CPU whose counter has an erratum (forced: no CPU here has one): cycles
# and ordered are refused with ENODEV, written or left as the default, and
# nothing changes; ns, which reads through the kernel's workaround, runs.
test_counter_erratum()
{
	local fail=0 before

	unload || return 1
	insmod "$MODULE" force_counter_erratum=1 nr_samples=100 ||
		{ diag "insmod force_counter_erratum=1 failed"; return 1; }
	expect "clock at load" "$(cat "$TB/clock")" cycles || fail=1
	expect "run by cycles" "$(write_errno "$TB/benchmark" 1)" ENODEV || fail=1
	expect "runs" "$(runs)" 0 || fail=1
	echo ns >"$TB/clock" || fail=1
	for c in ordered cycles; do
		snap_params
		before=$SNAPSHOT
		expect "write $c" "$(write_errno "$TB/clock" $c)" ENODEV || fail=1
		expect "settings after $c" "$(snapshot_params)" "$before" || fail=1
	done
	expect "run by ns" "$(write_errno "$TB/benchmark" 1)" OK || fail=1
	expect "runs" "$(runs)" 1 || fail=1
	expect "summary clock" "$(summary_key clock)" ns || fail=1
	unload || fail=1
	insmod "$MODULE" run=1 force_counter_erratum=1 nr_samples=100 2>/dev/null &&
		{ diag "a headless run by cycles loaded"; unload; fail=1; }
	[ -d "$TB" ] && { diag "a refused load left a tree"; fail=1; }
	load || fail=1
	test_defaults || fail=1
	return $fail
}

# A PMU counter that perf stops and restarts in the middle of a block, as
# it does to move it (forced, force_counter_move=N: N blocks): each such
# block is timed again, on the counter the event has then, and the run
# completes with every sample; each CPU's line in the kernel log counts
# its blocks timed again, N at least (perf may move the event on its own
# too). Where no PMU clock is served, cycles takes none of the moves.
test_counter_move()
{
	local fail=0 c moved ncpu left=0
	c=${PMU_CLOCKS%%,*}
	[ "$c" != none ] || { diag "no PMU clock served here: cycles"; c=cycles left=3; }
	unload || return 1
	dmesg -c >/dev/null
	insmod "$MODULE" force_counter_move=3 nr_samples=3000 clock="$c" ||
		{ diag "insmod force_counter_move=3 failed"; return 1; }
	expect "run by $c" "$(write_errno "$TB/benchmark" 1)" OK || fail=1
	ncpu=$(expand_cpulist "$(online_cpus)" | wc -l)
	expect "irq samples" "$(summary_key irq.samples)" $((ncpu * 3000)) ||
		fail=1
	check_results_sane || fail=1
	expect "moves left to force" \
		"$(cat /sys/module/tracerbench/parameters/force_counter_move)" \
		$left || fail=1
	moved=$(dmesg | sed -n 's/.*: \([0-9]*\) blocks timed again: .*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }')
	diag "$moved blocks timed again"
	if [ $left -eq 0 ]; then
		[ "$moved" -ge 3 ] || { diag "fewer than the 3 moves forced"; fail=1; }
	else
		expect "blocks timed again" "$moved" 0 || fail=1
	fi
	unload || fail=1
	load || fail=1
	return $fail
}
