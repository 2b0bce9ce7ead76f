# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# Checks and helpers that more than one group uses, sourced by suite.sh
# after ktap.sh.

# The snapshots read with the builtin read, not a cat per file: on a slow
# debug kernel, spawning 15 processes outlasts a run. snap_params and
# snap_results leave theirs in SNAPSHOT, for callers that would otherwise
# fork a subshell to take it, four a bad-input test.
snap_params()
{
	local p v

	SNAPSHOT=
	for p in $PARAMS; do
		read -r v <"$TB/$p"
		SNAPSHOT="$SNAPSHOT$p=$v "
	done
}

snap_results()
{
	local p s v

	SNAPSHOT=
	for p in $PRIMS; do
		for s in $STATS; do
			read -r v <"$TB/$p/$s"
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

# sorted WORD...: the words in the order of a glob, each with a blank after
sorted()
{
	printf '%s\n' "$@" | sort | tr '\n' ' '
}

# What test_tree finds in a primitive's directory and at the top, worked
# out once: the faults group reads the tree after each of some 300 loads
# shellcheck disable=SC2086 # lists, a word each
TREE_PRIM_ENTRIES=$(sorted $STATS histogram per_cpu)
# shellcheck disable=SC2086 # lists, a word each
TREE_TOP_ENTRIES=$(sorted $PARAMS benchmark percentile summary $PRIMS)

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
	local fail=0 want='' names='' f got v

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
	# shellcheck disable=SC2086 # the file names, a word each
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
		[ -d "$TB/$p" ] || { diag "no $p/"; fail=1; }
		dir_entries "$TB/$p"
		expect "entries of $p/" "$ENTRIES" "$TREE_PRIM_ENTRIES" ||
			fail=1
	done
	dir_entries "$TB"
	expect "entries at the top" "$ENTRIES" "$TREE_TOP_ENTRIES" || fail=1
	expect "world-writable files" "$(find "$TB" -perm -o+w)" "" || fail=1
	return $fail
}

test_defaults()
{
	expect defaults "$(snapshot_params)" \
		"nr_samples=$TB_C_DEFAULT_SAMPLES nr_highest=$TB_C_DEFAULT_HIGHEST do_work=0 batch=1 cpus=$(online_cpus) clock=cycles "
}

# What every run's figures hold, whatever the clock: median, average and
# max_avg not above max; max_avg not below the median (the top nr_highest
# include every CPU's upper half). Not that a max is above 0: a primitive
# may cost less than a tick of the clock (preempt_notrace is two
# instructions, arm64's counter ticks every 16), and a run of it may see
# no window cross a tick's edge; test_costs_something shows each costs.
# The average is a whole number, of either sign, and no figure of the
# samples: a window is less the mean of its round's empty windows, not
# the median the samples are less, and where the mean is the lower (under
# TCG, whose counter moves in steps, an empty window reads a step or 0),
# it can be above every sample.
check_results_sane()
{
	local fail=0
	for p in $PRIMS; do
		med=$(cat "$TB/$p/median")
		avg=$(cat "$TB/$p/average")
		max=$(cat "$TB/$p/max")
		top=$(cat "$TB/$p/max_avg")
		[ "$avg" -eq "$avg" ] 2>/dev/null ||
			{ diag "$p/average is '$avg'"; fail=1; }
		expect_le "$p median <= max" "$med" "$max" || fail=1
		expect_le "$p max_avg <= max" "$top" "$max" || fail=1
		expect_le "$p median <= max_avg" "$med" "$top" || fail=1
	done
	return $fail
}

test_run_sane()
{
	expect "benchmark" "$(write_errno "$TB/benchmark" 1)" OK &&
		check_results_sane
}

# logged_key KEY LOG: LOG has a line "KEY VALUE" with a numeric VALUE
logged_key()
{
	echo "$2" | awk -v k="$1" '$1 == k && NF == 2 && $2 ~ /^[0-9]+(\.[0-9][0-9][0-9])?$/ { found = 1 }
		END { exit !found }' && return 0
	diag "no '$1 VALUE' logged"
	return 1
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

# events 0|1
events()
{
	echo "$1" >"$PREEMPTIRQ/enable" && [ "$(cat "$PREEMPTIRQ/enable")" = "$1" ]
}

# compare_host MIN_RATIO ROUNDS: tools/compare.sh --host, as on a real
# machine with the tracepoints but without python3, which leaves the
# results for report.py elsewhere: a run of each of ROUNDS off and on,
# none "out", and for irq and preempt, on's median at least MIN_RATIO
# times off's in each round.
compare_host()
{
	local out rc log=/tmp/compare-host.log r s p off on fail=0 want=

	# stdout: the results directory where report.py cannot run
	out=$(/tb/tools/compare.sh --host --rounds "$2" --nr-samples 2000 2>$log)
	rc=$?
	while read -r line; do diag "$line"; done <$log
	[ $rc = 0 ] && [ -d "$out/runs" ] || return 1
	for s in off on; do
		r=1
		while [ $r -le "$2" ]; do
			want="${want}host.$s.r$r "
			r=$((r + 1))
		done
	done
	# shellcheck disable=SC2012 # the runs' names, which collect.sh made
	expect "runs" "$(ls "$out/runs" | tr '\n' ' ')" "$want" || fail=1
	r=1
	while [ $r -le "$2" ]; do
		for p in irq preempt; do
			off=$(sed -n "s/^$p.median //p" "$out/runs/host.off.r$r/summary")
			on=$(sed -n "s/^$p.median //p" "$out/runs/host.on.r$r/summary")
			diag "round $r, $p: off $off, on $on"
			awk -v off="$off" -v on="$on" -v min="$1" \
				'BEGIN { exit !(off > 0 && on >= min * off) }' || fail=1
		done
		r=$((r + 1))
	done
	rm -rf "$out"
	return $fail
}

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

	WATCHDOGS_SAVED=
	for w in $WATCHDOGS $WATCHDOGS_ON; do
		file=${w%:*}
		want=${w#*:}
		[ -w "$file" ] || { diag "no $file"; fail=1; continue; }
		WATCHDOGS_SAVED="$WATCHDOGS_SAVED $file:$(cat "$file")"
		echo "$want" >"$file"
		expect "$file" "$(cat "$file")" "$want" || fail=1
	done
	# -1 is no limit; 0 would silence the reports
	[ "$(cat $HUNG_TASK_WARNINGS)" != 0 ] ||
		{ diag "hung_task_warnings is 0"; fail=1; }
	return $fail
}

# The detectors as they were, once their groups are done: tightened, a
# vCPU that the host kept off its CPU for a few seconds, under a later
# group, would be reported as a lockup.
test_restore_watchdogs()
{
	local fail=0 w file was

	for w in $WATCHDOGS_SAVED; do
		file=${w%:*}
		was=${w#*:}
		echo "$was" >"$file"
		expect "$file" "$(cat "$file")" "$was" || fail=1
	done
	return $fail
}

# cover_detectors SAMPLES: runs of SAMPLES per CPU, growing until one run
# alone lasts DETECTOR_WINDOW_NS, each checked: every phase of a run gives
# way to other tasks, so no detector may fire while it runs, and one run
# must last long enough that each would have. A fast host only makes the
# runs grow; a slow one ends at the first. Each run is sized to pass the
# window by a quarter: from the last two, or after the first as if a
# run's time were all its samples', which falls short by its fixed cost
# (its calibrations and warm-ups: 11 of arm64's debug kernel's 17 s of a
# run of 16 windows of 10000 pairs), never over. A run is 2 to 16 times
# the last: enough to move on, and not so many that two runs close in
# time (a slope that looks flat) size a run of hours.
cover_detectors()
{
	local fail=0 ncpu ns=0 nr=0 samples=$1 last=0 last_ns=0 next
	ncpu=$(expand_cpulist "$(cat "$TB/cpus")" | wc -l)
	diag "$ncpu CPUs, $(sed -n 's/^MemTotal: *//p' /proc/meminfo) of memory"
	while [ "$ns" -lt $DETECTOR_WINDOW_NS ]; do
		[ "$samples" -le "$MAX_SAMPLES" ] ||
			{ diag "runs of $MAX_SAMPLES never lasted long enough"; fail=1; break; }
		echo "$samples" >"$TB/nr_samples"
		expect "benchmark" "$(write_errno "$TB/benchmark" 1)" OK ||
			{ fail=1; break; }
		nr=$((nr + 1))
		ns=$(summary_key duration_ns)
		diag "run $nr: $samples samples per CPU in $ns ns"
		[ "${ns:-0}" -gt 0 ] || { diag "duration_ns '$ns'"; fail=1; break; }
		for p in $PRIMS; do
			expect "$p.samples" "$(summary_key "$p.samples")" \
				$((ncpu * samples)) || fail=1
		done
		check_results_sane || fail=1
		next=$((samples * 2))
		# (below 2^28 samples, each product stays in 64 bits)
		if [ "$last" -gt 0 ] && [ "$ns" -gt "$last_ns" ] &&
		   [ $((samples - last)) -lt 268435456 ]; then
			next=$((samples + (DETECTOR_WINDOW_NS * 5 / 4 - ns) * \
				(samples - last) / (ns - last_ns)))
		elif [ "$last" = 0 ] && [ "$samples" -lt 268435456 ]; then
			next=$((samples * (DETECTOR_WINDOW_NS * 5 / 4) / ns))
		fi
		[ "$next" -ge $((samples * 2)) ] || next=$((samples * 2))
		[ "$next" -le $((samples * 16)) ] || next=$((samples * 16))
		# past MAX_SAMPLES only when doubling would be
		[ "$next" -le "$MAX_SAMPLES" ] || [ "$samples" -ge "$MAX_SAMPLES" ] ||
			next=$MAX_SAMPLES
		last=$samples last_ns=$ns samples=$next
	done
	dmesg_without "$LOCKUP_REPORTS" || fail=1
	set_defaults
	return $fail
}

# VmallocUsed, in KiB, into VMALLOC_KIB: a run's memory is all vmalloc,
# and this counts it to the page as it is taken and given back. The
# builtin read, and no $( ) around the call where it samples a run: a
# fork would wait for a CPU the run's threads hold, and take a kernel
# stack, vmalloc too, in what it measures.
read_vmalloc()
{
	local key kib

	while read -r key kib _; do
		[ "$key" = VmallocUsed: ] && VMALLOC_KIB=$kib && return 0
	done </proc/meminfo
	return 1
}

# vmalloc_kib: VmallocUsed, in KiB, on stdout
vmalloc_kib()
{
	read_vmalloc && echo "$VMALLOC_KIB"
}

# The largest VmallocUsed until /tmp/stop appears, in /tmp/peak, which
# holds the value before the run to start from; sampled every 0.1 s
# (their count in /tmp/samples): peak_run's sampler.
sample_peak()
{
	local peak n=0

	read -r peak </tmp/peak || return 1
	while [ ! -e /tmp/stop ]; do
		read_vmalloc || return 1
		n=$((n + 1))
		[ "$VMALLOC_KIB" -gt "$peak" ] && peak=$VMALLOC_KIB &&
			echo "$peak" >/tmp/peak
		echo "$n" >/tmp/samples
		sleep 0.1
	done
}

# peak_run: one benchmark run with VmallocUsed sampled through it
# (sample_peak), for the memory group and the scale job: the write's
# status; PEAK_BEFORE, VmallocUsed before the run, PEAK_KIB, its peak
# less that, and /tmp/samples, how many samples looked
peak_run()
{
	local rc=0

	read_vmalloc || return 1
	PEAK_BEFORE=$VMALLOC_KIB
	rm -f /tmp/stop
	echo "$PEAK_BEFORE" >/tmp/peak
	echo 0 >/tmp/samples
	sample_peak &
	echo 1 >"$TB/benchmark" || rc=1
	touch /tmp/stop
	wait
	read -r PEAK_KIB </tmp/peak || return 1
	PEAK_KIB=$((PEAK_KIB - PEAK_BEFORE))
	return $rc
}
