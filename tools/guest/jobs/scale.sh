# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# scale: no checks: run time and memory against nr_samples, for
# tools/scale.sh

mem_available()
{
	sed -n 's/^MemAvailable: *\([0-9]*\).*/\1/p' /proc/meminfo
}

# measure_scale N: one run of N samples per CPU; prints "# scale N ns KiB"
measure_scale()
{
	local before
	echo "$1" >"$TB/nr_samples" || return 1
	before=$(mem_available)
	rm -f /tmp/stop
	echo "$before" >/tmp/min
	( min=$before
	  while [ ! -e /tmp/stop ]; do
		v=$(mem_available)
		[ "$v" -lt "$min" ] && min=$v && echo "$min" >/tmp/min
		sleep 0.2
	  done ) &
	echo 1 >"$TB/benchmark"
	# shellcheck disable=SC2320 # the write's status: the run's
	local rc=$?
	touch /tmp/stop
	wait
	echo "# scale $1 $(summary_key duration_ns) $((before - $(cat /tmp/min)))"
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
