# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# speed: no checks: runs of tb.cost_sizes= samples, under icount, for
# tools/speed.sh

# thread_runtime CPU: the ns tracerbench's thread on CPU has run, from
# its schedstat; "-" on a kernel without CONFIG_SCHED_INFO
thread_runtime()
{
	local pid t rest
	pid=$(thread_pid "$1") && read -r t rest 2>/dev/null \
		<"/proc/$pid/schedstat" && echo "$t" || echo -
}

# measure_cost N: one run of N samples per CPU; prints
# "# cost N duration_ns counter_hz overhead batch runtime_ns MEDIAN..."
# (runtime_ns: what the measuring thread ran, without the other tasks
# the run's duration includes, or "-"; the medians per pair, in the order
# of PRIMS)
measure_cost()
{
	local p m='' t0 t1 ran=-
	echo "$1" >"$TB/nr_samples" || return 1
	t0=$(thread_runtime 0)
	echo 1 >"$TB/benchmark" || return 1
	t1=$(thread_runtime 0)
	[ "$t0" != - ] && [ "$t1" != - ] && ran=$((t1 - t0))
	for p in $PRIMS; do
		m="$m $(summary_key "$p.median")"
	done
	echo "# cost $1 $(summary_key duration_ns) $(summary_key counter_hz) $(summary_key overhead) $(summary_key batch) $ran$m"
}

group_speed()
{
	local n f
	diag "kernel $(uname -r)"
	# the mitigations decide what a call and a return cost
	for f in /sys/devices/system/cpu/vulnerabilities/*; do
		echo "# cost-vuln $(basename "$f"): $(cat "$f")"
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
