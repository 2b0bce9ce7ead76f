# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# functional: the tree, results, bad input, concurrency, hotplug, unload

# the summary's tail levels, in order
LEVELS="p50 p90 p99 p99.9 p99.99"

test_zero_before_run()
{
	local fail=0
	for p in $PRIMS; do
		for s in $STATS; do
			expect "$p/$s" "$(cat "$TB/$p/$s")" 0 || fail=1
		done
		expect "$p/histogram" "$(cat "$TB/$p/histogram")" "" || fail=1
		expect "$p/per_cpu" "$(cat "$TB/$p/per_cpu")" \
			"cpu median average max p99 samples pmu" || fail=1
		expect "summary $p.samples" "$(summary_key "$p.samples")" 0 ||
			fail=1
	done
	expect "summary run" "$(runs)" 0 || fail=1
	return $fail
}

test_run_any_input()
{
	expect "benchmark 'go'" "$(write_errno "$TB/benchmark" go)" OK
}

test_percentile_run()
{
	local fail=0
	for pct in 1 50 100; do
		expect "percentile $pct" "$(write_errno "$TB/percentile" $pct)" OK ||
			fail=1
	done
	# each a fresh run: no relation holds between them, and a primitive
	# that costs under a tick may read 0 even at 100 (check_results_sane)
	for p in $PRIMS; do
		is_number "$(cat "$TB/$p/percentile")" || fail=1
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
	expect "errno" "$(write_errno "$TB/$file" "$value
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

	read -r before <"$TB/$1"
	expect "errno" "$(write_errno "$TB/$1" 5)" EACCES || fail=1
	read -r after <"$TB/$1"
	expect "value" "$after" "$before" || fail=1
	return $fail
}

# test_read_write_only FILE ERRNO: reading the trigger FILE fails so
test_read_write_only()
{
	expect "errno" "$(read_errno "$TB/$1")" "$2"
}

test_limits_accepted()
{
	local fail=0 p max
	for p in nr_samples:$MAX_SAMPLES nr_highest:$MAX_HIGHEST batch:$MAX_BATCH; do
		max=${p#*:}
		p=${p%%:*}
		expect "$p max" "$(write_errno "$TB/$p" "$max")" OK || fail=1
		expect "$p reads back" "$(cat "$TB/$p")" "$max" || fail=1
		expect "$p 1" "$(write_errno "$TB/$p" 1)" OK || fail=1
	done
	expect "do_work 1" "$(write_errno "$TB/do_work" 1)" OK || fail=1
	expect "do_work reads back" "$(cat "$TB/do_work")" 1 || fail=1
	set_defaults
	return $fail
}

test_highest_clamped()
{
	local fail=0
	echo 50 >"$TB/nr_samples"
	echo 1000 >"$TB/nr_highest"
	expect "benchmark" "$(write_errno "$TB/benchmark" 1)" OK || fail=1
	check_results_sane || fail=1
	expect "nr_highest kept" "$(cat "$TB/nr_highest")" 1000 || fail=1
	set_defaults
	return $fail
}

test_one_sample()
{
	local fail=0
	echo 1 >"$TB/nr_samples"
	expect "benchmark" "$(write_errno "$TB/benchmark" 1)" OK || fail=1
	check_results_sane || fail=1
	expect "percentile" "$(write_errno "$TB/percentile" 50)" OK || fail=1
	set_defaults
	return $fail
}

test_do_work_run()
{
	echo 1 >"$TB/do_work"
	expect "benchmark" "$(write_errno "$TB/benchmark" 1)" OK &&
		check_results_sane
	rc=$?
	set_defaults
	return $rc
}

# An empty write asks for nothing: no run happens.
test_empty_write()
{
	local fail=0 results before

	echo 1 >"$TB/benchmark"
	results=$(snapshot_results)
	before=$(runs)
	expect "empty write" "$(write_errno "$TB/benchmark" '')" OK || fail=1
	expect "runs" "$(runs)" "$before" || fail=1
	expect "results" "$(snapshot_results)" "$results" || fail=1
	expect "a write of one byte runs" "$(write_errno "$TB/benchmark" x)" OK ||
		fail=1
	expect "runs after it" "$(runs)" $((before + 1)) || fail=1
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

# Elsewhere (the debug kernels, arm64's trace), only that on costs more
# than off, in one round: a run of the debug kernels' costs seconds, and
# the tracepoints group checks the rounds on the kernels that measure.
test_compare_host_runs()
{
	compare_host 1.01 1
}

# A benchmark on a subset measures exactly those CPUs.
test_cpus_subset()
{
	local fail=0 p n want
	for list in 1,3 0-1 2 "0,2-3"; do
		expect "cpus $list" "$(write_errno "$TB/cpus" "$list")" OK || fail=1
		want=$(expand_cpulist "$list" | tr '\n' ,)
		expect "cpus reads back" "$(cat "$TB/cpus")" "$list" || fail=1
		expect "run on $list" "$(write_errno "$TB/benchmark" 1)" OK ||
			fail=1
		n=$(expand_cpulist "$list" | wc -l)
		expect "summary cpus" "$(summary_key cpus)" "$list" || fail=1
		for p in $PRIMS; do
			expect "$p/per_cpu CPUs" \
				"$(sed 1d "$TB/$p/per_cpu" | cut -d' ' -f1 | tr '\n' ,)" \
				"$want" || fail=1
			expect "$p.samples" "$(summary_key "$p.samples")" \
				$((n * 10000)) || fail=1
		done
	done
	expect "cpus all" "$(write_errno "$TB/cpus" all)" OK || fail=1
	expect "all reads back as the online CPUs" "$(cat "$TB/cpus")" \
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
	{ echo 3 >"$TB/cpus" && echo 0 >"$CPU3"; } || { diag "set-up failed"; return 1; }
	expect "benchmark" "$(write_errno "$TB/benchmark" 1)" ENODEV || fail=1
	expect "runs" "$(runs)" "$before" || fail=1
	expect "results" "$(snapshot_results)" "$results" || fail=1
	expect "cpus kept" "$(cat "$TB/cpus")" 3 || fail=1
	echo 1 >"$CPU3" || fail=1
	expect "benchmark with cpu3 back" "$(write_errno "$TB/benchmark" 1)" OK ||
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
		{ [ ${#1} -gt 4 ] && [ "${1%.???}" != "$1" ]; } ||
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
	expect "benchmark" "$(write_errno "$TB/benchmark" 1)" OK || return 1
	ncpu=$(expand_cpulist "$(online_cpus)" | wc -l)
	for k in version run kernel preemption preemptirq_tracepoints cpus \
		 nr_samples nr_highest do_work batch clock unit counter_hz overhead \
		 duration_ns; do
		[ -n "$(summary_key $k)" ] || { diag "no $k"; fail=1; }
	done
	expect kernel "$(summary_key kernel)" "$(uname -r)" || fail=1
	expect cpus "$(summary_key cpus)" "$(online_cpus)" || fail=1
	expect nr_samples "$(summary_key nr_samples)" "$TB_C_DEFAULT_SAMPLES" ||
		fail=1
	expect nr_highest "$(summary_key nr_highest)" "$TB_C_DEFAULT_HIGHEST" ||
		fail=1
	expect do_work "$(summary_key do_work)" 0 || fail=1
	expect clock "$(summary_key clock)" cycles || fail=1
	expect batch "$(summary_key batch)" 1 || fail=1
	expect unit "$(summary_key unit)" cycles || fail=1
	v=no
	[ -d "$PREEMPTIRQ" ] && v=yes
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
			is_number "$(summary_key "$p.$k")" || fail=1
		done
		is_signed "$(summary_key "$p.average")" || fail=1
		expect "$p.median" "$(summary_key "$p.median")" \
			"$(cat "$TB/$p/median")" || fail=1
		# the legacy file: rounded down, below 0 as well (-0.407: -1)
		v=$(summary_key "$p.average")
		case $v in
		-*.000)	v=${v%.*} ;;
		-*)	v=$((${v%.*} - 1)) ;;
		*)	v=${v%.*} ;;
		esac
		expect "$p.average" "$v" "$(cat "$TB/$p/average")" || fail=1
		expect "$p.max" "$(summary_key "$p.max")" "$(cat "$TB/$p/max")" ||
			fail=1
		expect "$p.max_avg" "$(summary_key "$p.max_avg" | cut -d. -f1)" \
			"$(cat "$TB/$p/max_avg")" || fail=1
		expect "$p.samples" "$(summary_key "$p.samples")" \
			$((ncpu * 10000)) || fail=1
		prev=0
		for k in $LEVELS max; do
			v=$(summary_key "$p.$k")
			expect_le "$p: previous level <= $k" "$prev" "$v" || fail=1
			prev=$v
		done
	done
	return $fail
}

# A batch of 7 pairs per window: the legacy files show the summary's
# figures rounded down, and summary, per_cpu and histogram are numbers with
# no or three decimals, whose histogram counts add up to the samples.
test_batch_run()
{
	local fail=0 p v ncpu
	echo 1000 >"$TB/nr_samples"
	expect "batch 7" "$(write_errno "$TB/batch" 7)" OK || fail=1
	expect "run" "$(write_errno "$TB/benchmark" 1)" OK || fail=1
	expect "summary batch" "$(summary_key batch)" 7 || fail=1
	ncpu=$(expand_cpulist "$(online_cpus)" | wc -l)
	for p in $PRIMS; do
		for k in median max; do
			v=$(summary_key "$p.$k")
			is_number "$v" || fail=1
			expect "$p/$k is $p.$k rounded down" "$(cat "$TB/$p/$k")" \
				"${v%.*}" || fail=1
		done
		expect "$p.samples" "$(summary_key "$p.samples")" \
			$((ncpu * 1000)) || fail=1
		sed 1d "$TB/$p/per_cpu" | while read -r _ med avg max p99 n; do
			for v in $med $max $p99; do
				is_number "$v" || echo bad
			done
			is_signed "$avg" || echo bad
		done | grep -q bad && { diag "$p/per_cpu: $(cat "$TB/$p/per_cpu")"; fail=1; }
		v=$(awk '{ n += $2 } $1 !~ /^[0-9]+(\.[0-9][0-9][0-9])?$/ { bad = 1 }
			END { print bad ? "bad" : n }' "$TB/$p/histogram")
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
	echo 1 >"$TB/benchmark" && echo 1 >"$TB/benchmark" || fail=1
	expect "two benchmarks" "$(runs)" $((before + 2)) || fail=1
	echo 90 >"$TB/percentile" || fail=1
	expect "a percentile run" "$(runs)" $((before + 2)) || fail=1
	return $fail
}

# The histogram holds every sample of the run, in ascending buckets, and
# its nearest ranks are the summary's levels.
test_histogram()
{
	local fail=0 p
	echo 1 >"$TB/benchmark" || return 1
	for p in $PRIMS; do
		# no bound ties the average to the histogram here: its windows
		# are less the mean of their round's empty windows, which under
		# TCG may lie either side of the median the samples are less
		# (the exact suite bounds it under icount)
		awk -v n="$(summary_key "$p.samples")" -v max="$(summary_key "$p.max")" \
		    -v p50="$(summary_key "$p.p50")" -v p99="$(summary_key "$p.p99")" '
			NF != 2 || $1 !~ /^[0-9]+$/ || $2 !~ /^[1-9][0-9]*$/ {
				print "# bad line: " $0; bad = 1
			}
			NR > 1 && $1 + 0 <= last { print "# not ascending at " $1; bad = 1 }
			{ last = $1; low[NR] = $1; c[NR] = $2; total += $2 }
			END {
				if (total != n) { print "# counts " total ", samples " n; bad = 1 }
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
			}' "$TB/$p/histogram" || { diag "$p/histogram"; fail=1; }
	done
	return $fail
}

# One row per CPU of the run; their medians and maxima give the summary's.
test_per_cpu()
{
	local fail=0 p
	echo 1 >"$TB/benchmark" || return 1
	for p in $PRIMS; do
		expect "$p/per_cpu header" "$(head -n 1 "$TB/$p/per_cpu")" \
			"cpu median average max p99 samples pmu" || fail=1
		sed 1d "$TB/$p/per_cpu" | sort -n -k2 | awk -v n=10000 \
		    -v med="$(summary_key "$p.median")" -v max="$(summary_key "$p.max")" '
			$6 != n { print "# cpu " $1 ": " $6 " samples"; bad = 1 }
			$7 != "-" { print "# cpu " $1 ": pmu " $7 " with clock=cycles"; bad = 1 }
			$2 > $4 || $5 > $4 { print "# cpu " $1 ": " $0; bad = 1 }
			{ m[NR] = $2; if ($4 > top) top = $4 }
			END {
				mid = NR % 2 ? m[(NR + 1) / 2] : int((m[NR / 2] + m[NR / 2 + 1]) / 2)
				if (mid != med) { print "# median of medians " mid ", summary " med; bad = 1 }
				if (top != max) { print "# max of maxima " top ", summary " max; bad = 1 }
				exit bad
			}' || { diag "$p/per_cpu"; fail=1; }
		expect "$p/per_cpu rows" "$(sed 1d "$TB/$p/per_cpu" | cut -d' ' -f1 | tr '\n' ,)" \
			"$(expand_cpulist "$(online_cpus)" | tr '\n' ,)" || fail=1
	done
	return $fail
}

# Module parameters run one benchmark at load and log its summary; bad
# ones refuse the load.
test_headless_load()
{
	local fail=0 log v
	unload || return 1
	insmod "$MODULE" run=1 nr_samples=1000 cpus=0-1 clock=ordered ||
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
	expect "cpus" "$(cat "$TB/cpus")" 0-1 || fail=1
	unload || fail=1
	for v in nr_samples=0 nr_highest=1025 do_work=2 cpus=abc cpus=4096 \
		 run=maybe clock=tsc batch=0 batch=10001; do
		insmod "$MODULE" $v 2>/dev/null &&
			{ diag "insmod $v loaded"; unload; fail=1; }
		[ -d "$TB" ] && { diag "insmod $v left a tree"; fail=1; }
	done
	load || fail=1
	test_defaults || fail=1
	return $fail
}

test_rmmod_after_run()
{
	echo 1 >"$TB/benchmark" && rmmod tracerbench && [ ! -d "$TB" ] &&
		insmod "$MODULE" && [ -d "$TB" ] && test_zero_before_run
}

test_load_cycles()
{
	i=0
	while [ $i -lt 20 ]; do
		unload || { diag "rmmod $i failed"; return 1; }
		insmod "$MODULE" || { diag "insmod $i failed"; return 1; }
		test_defaults || return 1
		if [ $((i % 5)) -eq 0 ]; then
			echo 100 >"$TB/nr_samples"
			echo 1 >"$TB/benchmark" || { diag "run $i"; return 1; }
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
	echo "$BIG_SAMPLES" >"$TB/nr_samples" || fail=1
	echo 1 >"$TB/benchmark" || fail=1
	diag "$(pow10_name "$BIG_SAMPLES") samples per CPU in $(summary_key duration_ns) ns"
	expect "samples" "$(summary_key irq.samples)" \
		$(($(expand_cpulist "$(online_cpus)" | wc -l) * BIG_SAMPLES)) ||
		fail=1
	check_results_sane || fail=1
	set_defaults
	return $fail
}

group_functional()
{
	run_test "load" insmod "$MODULE"
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
	# benchmark has no read method (the VFS says EINVAL); percentile's
	# simple_attr, no get (EACCES)
	for f in benchmark:EINVAL percentile:EACCES; do
		run_test "read of write-only ${f%:*} is ${f#*:}" \
			test_read_write_only ${f%:*} ${f#*:}
	done
	run_test "limits accepted" test_limits_accepted
	run_test "nr_highest above nr_samples is clamped" test_highest_clamped
	run_test "nr_samples 1" test_one_sample
	run_test "do_work run" test_do_work_run
	run_test "summary: every key, consistent with the files" test_summary
	run_test "summary: run counts benchmarks only" test_run_counter
	run_test "clock: ordered, ns and cycles each measure" test_clock_runs
	run_test "clock: instructions and core_cycles where the PMU serves them, else ENODEV" \
		test_pmu_clocks
	run_test "a PMU counter moved mid-block costs that block, not the run" \
		test_counter_move
	run_test "batch 7: per-pair figures in every file" test_batch_run
	run_test "histogram: every sample, levels from it" test_histogram
	run_test "per_cpu: a row per CPU, medians and maxima agree" test_per_cpu
	run_test "cpus: a run measures exactly the CPUs listed" test_cpus_subset
	run_test "cpus: all listed CPUs offline is ENODEV, nothing changes" \
		test_cpus_offline
	run_test "concurrent writers are serialised" test_concurrent_writers
	run_test "reads and config writes during a run" test_read_during_run
	# the endings of a PMU clock's run, where the guest's PMU serves it
	echo "$RUN_ENDINGS" | while IFS='|' read -r trigger event want clock; do
		[ -n "$trigger" ] || continue
		case $clock in
		"")	;;
		*)	case ",$PMU_CLOCKS," in
			*",$clock,"*)	;;
			*)		continue ;;
			esac ;;
		esac
		echo "$trigger|$event|$want|$clock"
	done >/tmp/endings
	while IFS='|' read -r trigger event want clock; do
		with=
		[ "$want" = - ] || with=" with $want"
		[ -z "$clock" ] || with="$with, its counters released"
		run_test "$event during the run of $trigger${clock:+ by $clock} ends it$with, nothing changes" \
			test_run_ended "$trigger" "$event" "$want" "$clock"
	done </tmp/endings
	run_test "a killed writer ends a run a thread never started" \
		test_killed_before_barrier
	run_test "a killed writer returns at once while a thread of its run is starved" \
		test_killed_while_starved
	run_test "an empty write to benchmark runs nothing" test_empty_write
	run_test "hotplug and a static-key toggle never wait for a run" \
		test_hotplug_during_run
	run_test "headless: parameters run at load, bad ones refuse it" \
		test_headless_load
	run_test "a counter with an erratum: cycles and ordered refused, ns runs" \
		test_counter_erratum
	if [ -d "$PREEMPTIRQ" ]; then
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
