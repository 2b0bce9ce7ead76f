# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# show: no tests: run one benchmark and print every result file, for
# make run

# Every figure of the summary in the run's unit, and median and average
# in nanoseconds too, at the counter_hz the run measured.
group_show()
{
	local hz unit p s v
	load || return 1
	echo 1 >"$TB/benchmark" || return 1
	echo 99 >"$TB/percentile" || return 1
	hz=$(summary_key counter_hz)
	unit=$(summary_key unit)
	echo "tracerbench on $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, nr_samples $(cat "$TB/nr_samples"), nr_highest $(cat "$TB/nr_highest"), do_work $(cat "$TB/do_work"), batch $(summary_key batch), clock $(summary_key clock)"
	echo "figures per pair in $unit, counter_hz $hz; percentile is p99 on one CPU"
	printf '%-16s' ""
	for s in $STATS median_ns average_ns; do
		printf '%12s' "$s"
	done
	echo
	for p in $PRIMS; do
		printf '%-16s' "$p"
		for s in median average max max_avg; do
			printf '%12s' "$(summary_key "$p.$s")"
		done
		printf '%12s' "$(cat "$TB/$p/percentile")"
		for s in median average; do
			v=$(summary_key "$p.$s")
			printf '%12s' "$(awk -v v="$v" -v hz="$hz" \
				'BEGIN { if (hz > 0) printf "%.2f", v * 1e9 / hz }')"
		done
		echo
	done
}
