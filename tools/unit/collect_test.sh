#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/collect.sh on the host, against a made-up tracerbench
# (TB: a directory of its files, whose summary never changes) and
# tracefs (TRACING: the events' enable file): the runs of every label,
# state and round with their meta; --skip leaves the runs it names
# alone and every other run in its place; --stop-file stops before the
# next run. Prints "ok - ..." or "not ok - ..." a check, then "N
# passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
# shellcheck source=tools/lib/harness.sh
. "$top/tools/lib/harness.sh"
export TB=$tmp/tb TRACING=$tmp/tracing CLOCKSOURCE=$tmp/clocksource
echo tsc >"$CLOCKSOURCE"

mkdir -p "$TB/irq" "$TB/preempt" "$TRACING/events/preemptirq"
printf '%s\n' "run 7" "irq.median 75" "preempt.median 105" \
	"preemptirq_tracepoints yes" "preemption full" >"$TB/summary"
for p in irq preempt; do
	echo "0 1" >"$TB/$p/histogram"
	echo "cpu 0" >"$TB/$p/per_cpu"
done
for f in benchmark nr_samples do_work batch cpus clock; do
	: >"$TB/$f"
done
echo 0 >"$TRACING/events/preemptirq/enable"

# collect OUT ARG...: collect.sh of two labels, two rounds into OUT
collect()
{
	local out=$1

	shift
	sh "$top/tools/guest/collect.sh" --label a,b --rounds 2 "$@" "$out"
}

collect "$tmp/all" >/dev/null 2>"$tmp/all.err"
runs=$(cd "$tmp/all/runs" && printf '%s ' *)
[ "$runs" = "a.off.r1 a.off.r2 a.on.r1 a.on.r2 b.off.r1 b.off.r2 b.on.r1 b.on.r2 " ]
result $? "every label, state and round: $runs"
m=$tmp/all/runs/b.on.r2/meta
grep -qx "release $(uname -r)" "$m" && grep -qx "version $(uname -v)" "$m" &&
	grep -q '^load [0-9.]*$' "$m" && grep -qx "state on" "$m"
result $? "a run's meta: its kernel's release and version, the load as it began"
[ "$(cat "$TRACING/events/preemptirq/enable")" = 0 ]
result $? "the events left as they were found"

collect "$tmp/skip" --skip a.off.r1,b.on.r2 >/dev/null 2>&1
runs=$(cd "$tmp/skip/runs" && printf '%s ' *)
[ "$runs" = "a.off.r2 a.on.r1 a.on.r2 b.off.r1 b.off.r2 b.on.r1 " ]
result $? "--skip: the runs it names are not made: $runs"
same=0
for r in a.off.r2 a.on.r1 a.on.r2 b.off.r1 b.off.r2 b.on.r1; do
	for k in pos seq order; do
		[ "$(grep "^$k " "$tmp/skip/runs/$r/meta")" = \
		  "$(grep "^$k " "$tmp/all/runs/$r/meta")" ] || same=1
	done
done
[ $same = 0 ]
result $? "--skip: every other run in the place and of the sequence number it has in a whole invocation"
# the runs as made: round 1 is a.off b.off a.on b.on, a.off.r1 skipped
after=$(for r in b.off.r1 a.on.r1 b.on.r1; do
	sed -n 's/^after //p' "$tmp/skip/runs/$r/meta"; done | tr '\n' ' ')
[ "$after" = "- b.off.r1 a.on.r1 " ]
result $? "--skip: each run after the run this invocation made before it: $after"
# meta last in --emit: a run cut short is not taken for done
last=$(collect "$tmp/emit" --emit 2>/dev/null | sed -n 's|^# @@ runs/a.off.r1/||p' | tail -n 1)
[ "$last" = meta ]
result $? "--emit: a run's meta comes last ($last)"

touch "$tmp/stop"
out=$(collect "$tmp/stopped" --emit --stop-file "$tmp/stop" 2>"$tmp/stop.err")
rc=$?
[ $rc = 0 ] && [ -z "$(find "$tmp/stopped/runs" -name meta)" ] &&
	echo "$out" | grep -qx '# stopped' && grep -q "stopped as asked" "$tmp/stop.err"
result $? "--stop-file: no run once the file is there; exit 0, said so"
rm "$tmp/stop"
collect "$tmp/going" --stop-file "$tmp/stop" >/dev/null 2>&1
[ "$(find "$tmp/going/runs" -name meta | wc -l)" = 8 ]
result $? "--stop-file: every run while the file is not there"

# a kernel still on tsc-early: no run until its clocksource is tsc,
# which this shell sets once collect.sh says it waits
echo tsc-early >"$CLOCKSOURCE"
collect "$tmp/early" >/dev/null 2>"$tmp/early.err" &
pid=$!
n=0
until grep -q "clocksource is tsc-early: waiting" "$tmp/early.err" 2>/dev/null ||
	! kill -0 $pid 2>/dev/null || [ $n -ge 600 ]; do
	sleep 0.05
	n=$((n + 1))
done
sleep 0.3
runs=$(cd "$tmp/early/runs" 2>/dev/null && printf '%s ' *)
echo tsc >"$CLOCKSOURCE"
wait $pid
rc=$?
{ [ "$runs" = "* " ] || [ -z "$runs" ]; } && [ $rc = 0 ] &&
	[ -f "$tmp/early/runs/b.on.r2/meta" ] &&
	! grep -q warning "$tmp/early.err"
result $? "a clocksource still tsc-early: no run until it is tsc (runs before: '$runs', exit $rc)"

echo "$passed passed, $failed failed"
[ $failed = 0 ]
