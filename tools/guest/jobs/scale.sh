# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# scale: no checks: run time and memory against nr_samples, for
# tools/scale.sh

# measure_scale N: one run of N samples per CPU; prints "# scale N ns
# KiB", KiB the peak of VmallocUsed during the run less its value before:
# a run's memory is all vmalloc (doc/interface.md, "Memory use"), and
# this counter, unlike MemAvailable, is not moved by the page cache
measure_scale()
{
	local rc=0

	echo "$1" >"$TB/nr_samples" || return 1
	peak_run || rc=1
	echo "# scale $1 $(summary_key duration_ns) $PEAK_KIB"
	return $rc
}

group_scale()
{
	diag "kernel $(uname -r)"
	run_test "load" load
	for n in $(cmdline_param sizes 100000 | tr , ' '); do
		run_test "$n samples per CPU" measure_scale "$n"
	done
	run_test "unload" unload
}
