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
	local before rc

	echo "$1" >"$TB/nr_samples" || return 1
	before=$(vmalloc_kib)
	rm -f /tmp/stop
	echo "$before" >/tmp/peak
	sample_peak &
	echo 1 >"$TB/benchmark"
	# shellcheck disable=SC2320 # the write's status: the run's
	rc=$?
	touch /tmp/stop
	wait
	echo "# scale $1 $(summary_key duration_ns) $(($(cat /tmp/peak) - before))"
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
