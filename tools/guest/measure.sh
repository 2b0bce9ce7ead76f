#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# measure.sh ROUNDS: run the benchmark ROUNDS times and print each run's
# medians as "# sample STATE PRIMITIVE MEDIAN", the raw forms' too, and its
# "# sample STATE counter_hz HZ". Where the kernel has the
# preemptirq tracepoints, every round is a run with them off and one with
# them on, interleaved so that drift hits both states alike; elsewhere the
# state is "out" (compiled out). Needs tracerbench loaded; used in the guest
# by jobs/compare.sh and on a real machine by tools/compare.sh --host.

TB=${TB:-/sys/kernel/debug/tracerbench}
TRACING=${TRACING:-/sys/kernel/tracing}
EVENTS=$TRACING/events/preemptirq/enable

rounds=${1:?usage: measure.sh ROUNDS}

# run STATE
run()
{
	echo 1 >"$TB/benchmark" || return 1
	# the summary's per-pair median keeps three decimals with a batch,
	# where PRIM/median rounds down (the same with batch 1)
	for prim in irq preempt irq_save raw_irq raw_irq_save preempt_notrace none; do
		echo "# sample $1 $prim $(sed -n "s/^$prim\.median //p" "$TB/summary")"
	done
	echo "# sample $1 counter_hz $(sed -n 's/^counter_hz //p' "$TB/summary")"
}

# events 0|1: switch the tracepoints and check that they switched
events()
{
	echo "$1" >"$EVENTS" && [ "$(cat "$EVENTS")" = "$1" ] && return 0
	echo "measure.sh: cannot set $EVENTS to $1" >&2
	return 1
}

r=0
while [ "$r" -lt "$rounds" ]; do
	if [ -e "$EVENTS" ]; then
		events 0 && run off && events 1 && run on && events 0 || exit 1
	else
		run out || exit 1
	fi
	r=$((r + 1))
done
