# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# memory: what a run takes per CPU, from the kernel's vmalloc counter, as
# doc/interface.md ("Memory use") states it: on a guest of 64 vCPUs or
# more, at most MEMORY_PER_CPU_KIB per CPU, and nothing left after the run
# but its report

MEMORY_PER_CPU_KIB=256
MEMORY_CPUS=64

# A first run publishes a report, which then stays: its size is what
# VmallocUsed grew by. A second run takes, at its peak, a report besides
# the published one, and its CPUs' buffers and chunks: the rest, per CPU.
test_memory_per_cpu()
{
	local ncpu v0 m1 report peak per_cpu

	ncpu=$(expand_cpulist "$(online_cpus)" | wc -l)
	[ "$ncpu" -ge $MEMORY_CPUS ] ||
		{ diag "$ncpu CPUs, $MEMORY_CPUS wanted"; return 1; }
	echo 1000 >"$TB"/nr_samples || return 1
	v0=$(vmalloc_kib)
	echo 1 >"$TB"/benchmark || { diag "the first run failed"; return 1; }
	report=$(($(vmalloc_kib) - v0))
	cmdline_param memory_samples 500000 >"$TB"/nr_samples || return 1
	peak_run || { diag "the second run failed"; return 1; }
	m1=$PEAK_BEFORE peak=$PEAK_KIB
	per_cpu=$(((peak - report) / ncpu))
	diag "$ncpu CPUs: report $report KiB, the run's peak $peak KiB," \
	     "$per_cpu KiB per CPU besides the report;" \
	     "$(cat /tmp/samples) samples in $(summary_key duration_ns) ns"
	[ "$(cat /tmp/samples)" -ge 3 ] ||
		{ diag "too few samples to see the peak"; return 1; }
	[ "$per_cpu" -le $MEMORY_PER_CPU_KIB ] ||
		{ diag "more than $MEMORY_PER_CPU_KIB KiB per CPU"; return 1; }
	# the new report in the place of the last, and nothing else: a CPU's
	# buffer is 160 KiB, a slab 16; the forks of this test cache a few
	# kernel stacks (vmalloc too)
	[ $(($(vmalloc_kib) - m1)) -lt $((ncpu * 8)) ] ||
		{ diag "$(($(vmalloc_kib) - m1)) KiB more after the run"; return 1; }
}

group_memory()
{
	run_test "load" load
	run_test "memory: at most $MEMORY_PER_CPU_KIB KiB per CPU of the run" \
		test_memory_per_cpu
	run_test "unload" unload
}
