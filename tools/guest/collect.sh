#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: collect.sh [options] OUTDIR
# Run tracerbench's benchmark in rounds and keep every run's summary,
# histograms and per-CPU rows in the results directory OUTDIR, with the
# environment, and write OUTDIR/results.json. Needs only a POSIX shell and
# awk (busybox will do), and tracerbench loaded: tools/bench.sh runs it in
# its QEMU guests, and it runs as it is on a real machine (bench.sh --host,
# or by hand on one that has no bash). See doc/bench.md and doc/cli.md.
# options (--opt VALUE or --opt=VALUE; lists comma-separated):
#   --rounds N        rounds (default 12)
#   --first-round N   number of the first round (default 1)
#   --label L[,L..]   the kernel's labels: each round measures every state
#                     once per label, in an order that rotates from round
#                     to round (see round_order; default: host); --labels,
#                     the old spelling, is still accepted
#   --states S[,S..]  among out, off, on: the states to measure, where the
#                     kernel has them (default: every one it has)
#   --nr-samples N    samples per primitive per CPU (default: as it is
#                     set; the module loads with its default, defaults.h)
#   --do-work         the simulated critical section inside the windows
#                     (--do-work=0|1, and the old --do-work 0|1, work too)
#   --batch N         pairs per timed window (default 1): sub-tick figures
#                     on a coarse counter, such as arm64's
#   --cpus LIST       the CPUs to measure, as the module's cpus file takes
#                     them (default: all); not a guest's vCPUs (--vcpus)
#   --clock CLOCK     the module's clock (default: as it is set)
#   --emit            also print the run files, and a line as each run
#                     starts, on stdout, for the guest
#   --stop-file FILE  stop before the next run once FILE exists, the
#                     runs done kept (tools/bench.sh --target on Ctrl-C)
#   --skip R[,R..]    runs done already (LABEL.STATE.rROUND): not run
#                     again, their places in the order kept
#   -h, --help        print this and exit
#
# A run is OUTDIR/runs/LABEL.STATE.rROUND/: summary, P.histogram and
# P.per_cpu for each primitive P, and meta. OUTDIR/kernels/LABEL.env
# describes the kernel; OUTDIR/env the rest when collect.sh runs on a host.

TB=${TB:-/sys/kernel/debug/tracerbench}
CLOCKSOURCE=${CLOCKSOURCE:-/sys/devices/system/clocksource/clocksource0/current_clocksource}
TRACING=${TRACING:-/sys/kernel/tracing}
[ -d "$TRACING/events" ] || TRACING=/sys/kernel/debug/tracing
EVENTS=$TRACING/events/preemptirq/enable
HERE=$(dirname "$0")

die()
{
	echo "collect.sh: $*" >&2
	exit 1
}

# The head of this file, from its usage line to the last option's.
usage()
{
	awk '/^# usage:/ { on = 1 } on { l = $0; sub(/^# ?/, "", l); print l } /^#   -h, --help/ { exit }' "$0"
}

usage_error()
{
	echo "collect.sh: $*" >&2
	usage | sed -n '1s/$/ (--help for more)/p' >&2
	exit 2
}

is_count()
{
	case $1 in
	'' | *[!0-9]* | 0*)	return 1 ;;
	esac
	[ ${#1} -le 9 ]
}

rounds=12 first=1 labels=host states='' nr_samples='' do_work=0 cpus=all
batch=1 clock='' stop_file='' skip=''
emit=0 out=
while [ $# -gt 0 ]; do
	opt=$1 val='' has_val=0
	case $1 in
	--*=*)	opt=${1%%=*} val=${1#*=} has_val=1 ;;
	esac
	shift
	case $opt in
	--rounds | --first-round | --label | --labels | --states | --nr-samples | \
	--batch | --cpus | --clock | --stop-file | --skip)
		if [ $has_val = 0 ]; then
			[ $# -gt 0 ] || usage_error "$opt wants a value"
			case $1 in -?*) usage_error "$opt wants a value" ;; esac
			val=$1
			shift
		fi ;;
	--do-work)
		# a switch, as bench.sh's; the old --do-work 0|1 still works
		if [ $has_val = 0 ]; then
			val=1
			case ${1:-} in 0 | 1) val=$1; shift ;; esac
		fi ;;
	--emit | -h | --help)
		[ $has_val = 0 ] || usage_error "$opt takes no value" ;;
	--)	[ $# = 0 ] && break
		{ [ $# = 1 ] && [ -z "$out" ]; } || usage_error "one OUTDIR"
		out=$1
		break ;;
	-?*)	usage_error "unknown option $opt" ;;
	*)	[ -z "$out" ] || usage_error "one OUTDIR"
		out=$opt
		continue ;;
	esac
	case $opt in
	--rounds)	rounds=$val ;;
	--first-round)	first=$val ;;
	--label | --labels)	labels=$val ;;
	--states)	states=$val ;;
	--nr-samples)	nr_samples=$val ;;
	--do-work)	do_work=$val ;;
	--batch)	batch=$val ;;
	--cpus)		cpus=$val ;;
	--clock)	clock=$val ;;
	--stop-file)	stop_file=$val ;;
	--skip)		skip=$val ;;
	--emit)		emit=1 ;;
	-h | --help)	usage; exit 0 ;;
	esac
done
[ -n "$out" ] || usage_error "no OUTDIR given"
is_count "$rounds" || usage_error "--rounds wants a count from 1, not '$rounds'"
is_count "$first" || usage_error "--first-round wants a count from 1, not '$first'"
[ -z "$nr_samples" ] || is_count "$nr_samples" || usage_error "--nr-samples wants a count from 1, not '$nr_samples'"
case $do_work in 0 | 1) ;; *) usage_error "--do-work wants 0 or 1, not '$do_work'" ;; esac
is_count "$batch" || usage_error "--batch wants a count from 1, not '$batch'"
labels=$(echo "$labels" | tr , ' ')
for l in $labels; do
	case $l in
	*[!A-Za-z0-9_+-]* | '') usage_error "a label is letters, digits, _, + and -, not '$l'" ;;
	esac
done
[ -n "$labels" ] || usage_error "--label names no kernel"

# The states this kernel has, then those of them asked for. A kernel with
# the tracepoints whose events cannot be found (tracefs not mounted) must
# not pass for one without them.
if [ -e "$EVENTS" ]; then
	have="off on"
elif grep -qx 'preemptirq_tracepoints yes' "$TB/summary"; then
	die "$(uname -r) has the preemptirq tracepoints, but not $EVENTS: is tracefs mounted?"
else
	have=out
fi
[ -n "$states" ] || states=$(echo "$have" | tr ' ' ,)
want=
for s in $(echo "$states" | tr , ' '); do
	case $s in
	out | off | on) ;;
	*) usage_error "a state is out, off or on, not '$s'" ;;
	esac
	case " $have " in
	*" $s "*)	want="$want $s" ;;
	*)		echo "collect.sh: $(uname -r) has no state '$s' (it has: $have): skipped" >&2 ;;
	esac
done
[ -n "$want" ] || die "none of the states '$states' exists on $(uname -r), which has: $have"

[ -d "$TB" ] || die "no $TB: load tracerbench.ko first (and mount debugfs)"
# the primitives, in the module's order: its summary's
PRIMS=$(sed -n 's/^\([a-z_]*\)\.median .*/\1/p' "$TB/summary")
[ -n "$PRIMS" ] || die "no primitives in $TB/summary"
[ -w "$TB/benchmark" ] || die "cannot write $TB/benchmark: run as root"
# the clock first: a refused one leaves every setting as it was
if [ -n "$clock" ] && ! echo "$clock" 2>/dev/null >"$TB/clock"; then
	die "tracerbench refused clock '$clock' (see doc/interface.md)"
fi
{ { [ -z "$nr_samples" ] || echo "$nr_samples" >"$TB/nr_samples"; } &&
	echo "$do_work" >"$TB/do_work" &&
	echo "$batch" >"$TB/batch" &&
	echo "$cpus" >"$TB/cpus"; } || die "cannot configure tracerbench (--cpus '$cpus', --batch '$batch'?)"

# Leave the events as they were found, also when a run fails or the
# user interrupts: on a real machine they may have been on by choice.
# A mix of events on and off ("X") is left at the last run's state.
if [ -e "$EVENTS" ]; then
	events_were=$(cat "$EVENTS")
	trap 'case $events_were in 0 | 1) echo "$events_were" >"$EVENTS" ;; esac' EXIT
	trap 'exit 1' INT TERM
fi

mkdir -p "$out/runs" "$out/kernels" || die "cannot create $out"

# events 0|1: switch the tracepoints and check that they switched
events()
{
	echo "$1" >"$EVENTS" && [ "$(cat "$EVENTS")" = "$1" ] && return 0
	echo "collect.sh: cannot set $EVENTS to $1" >&2
	return 1
}

summary_run()
{
	sed -n 's/^run //p' "$TB/summary"
}

# run LABEL STATE ROUND SEQ POS AFTER ORDER: one benchmark, its files kept
# together; the summary's run counter must not change while they are
# read. meta keeps the run's place: POS in its round's ORDER, after the
# run AFTER of this invocation (- for none).
run()
{
	d=$out/runs/$1.$2.r$3
	rm -rf "$d" && mkdir -p "$d" || return 1
	case $2 in
	off)	events 0 || return 1 ;;
	on)	events 1 || return 1 ;;
	esac
	# the load as the run starts (a warning above 0.5, tools/report.py)
	load=$(cut -d ' ' -f 1 /proc/loadavg)
	echo 1 >"$TB/benchmark" || return 1
	cat "$TB/summary" >"$d/summary" || return 1
	for p in $PRIMS; do
		cat "$TB/$p/histogram" >"$d/$p.histogram" &&
			cat "$TB/$p/per_cpu" >"$d/$p.per_cpu" || return 1
	done
	[ "$(summary_run)" = "$(sed -n 's/^run //p' "$d/summary")" ] || {
		echo "collect.sh: another benchmark ran while reading $d" >&2
		return 1
	}
	printf 'kernel %s\nstate %s\nround %s\nseq %s\npos %s\nafter %s\norder %s\ntime %s\nrelease %s\nversion %s\nload %s\n' \
		"$1" "$2" "$3" "$4" "$5" "$6" "$7" \
		"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(uname -r)" "$(uname -v)" \
		"$load" >"$d/meta"
}

# round_order ROUND: the round's runs, LABEL.STATE in order. Even rounds
# run the states in reverse (ABBA), so that drift within a round lands on
# both states alike, and the labels rotate by one every other round: a
# round then begins in the state the previous one ended in, and over
# 2 x (number of labels) rounds each label runs first after each toggle
# of the events equally often (the boot's first run aside), and first
# and last of each pair of labels equally often. A first-after-toggle
# effect does not follow the label; meta records the order for
# tools/report.py to show.
round_order()
{
	ro_states=$want
	if [ $(($1 % 2)) = 0 ]; then
		ro_states=
		for ro_s in $want; do
			ro_states="$ro_s $ro_states"
		done
	fi
	ro_k=$((($1 - 1) / 2 % nlabels))
	ro_labels=
	ro_i=0
	for ro_l in $labels; do
		[ $ro_i -ge $ro_k ] && ro_labels="$ro_labels $ro_l"
		ro_i=$((ro_i + 1))
	done
	ro_i=0
	for ro_l in $labels; do
		[ $ro_i -lt $ro_k ] && ro_labels="$ro_labels $ro_l"
		ro_i=$((ro_i + 1))
	done
	ro_out=
	for ro_s in $ro_states; do
		for ro_l in $ro_labels; do
			ro_out="$ro_out $ro_l.$ro_s"
		done
	done
	# shellcheck disable=SC2086 # the runs, a word each, blanks squeezed
	echo $ro_out
}

# emit FILE...: the files as "# @@ PATH" and their lines behind "# ", for
# the host to split again (tools/bench.sh); KTAP takes them as comments.
emit()
{
	for f in "$@"; do
		echo "# @@ ${f#"$out"/}"
		sed 's/^/# /' "$f"
	done
}

config_hash()
{
	for c in /proc/config.gz "/boot/config-$(uname -r)"; do
		[ -r "$c" ] || continue
		case $c in
		*.gz)	gzip -dc "$c" ;;
		*)	cat "$c" ;;
		esac | sha256sum | cut -c 1-16
		return
	done
	echo unknown
}

for l in $labels; do
	{
		echo "label $l"
		echo "release $(uname -r)"
		echo "version $(uname -v)"
		echo "machine $(uname -m)"
		echo "config_hash $(config_hash)"
		echo "module_version $(cat /sys/module/tracerbench/version 2>/dev/null)"
		echo "preemptirq_tracepoints $(sed -n 's/^preemptirq_tracepoints //p' "$TB/summary")"
		echo "preemption $(sed -n 's/^preemption //p' "$TB/summary")"
		echo "states$want"
		echo "online_cpus $(cat /sys/devices/system/cpu/online)"
	} >"$out/kernels/$l.env"
	[ $emit = 1 ] && emit "$out/kernels/$l.env"
done

# The kernel's clock settled first. x86 boots on tsc-early, the TSC at
# the frequency a short calibration found, and a second or two later
# switches to tsc, refined against the HPET or the PM timer, stopping
# every CPU to switch. A run before that dates its counter by the early
# frequency (a QEMU guest's first run was 779 ppm off the others'
# counter_hz, which report.py refuses past 2000), and the switch may
# stall one of its windows.
n=0
while [ "$(cat "$CLOCKSOURCE" 2>/dev/null)" = tsc-early ]; do
	[ $n != 0 ] ||
		echo "collect.sh: the kernel's clocksource is tsc-early: waiting for the calibrated tsc, 30 s at most" >&2
	if [ $n = 300 ]; then
		echo "collect.sh: warning: the clocksource is still tsc-early: the runs' ns and counter_hz follow its early calibration" >&2
		break
	fi
	sleep 0.1
	n=$((n + 1))
done

start=$(date +%s)
nlabels=$(echo "$labels" | wc -w)
total=$((rounds * nlabels * $(echo "$want" | wc -w)))
seq=0
prev=-
r=$first
last=$((first + rounds - 1))
while [ "$r" -le "$last" ]; do
	order=$(round_order "$r")
	pos=0
	for run in $order; do
		if [ -n "$stop_file" ] && [ -e "$stop_file" ]; then
			echo "collect.sh: stopped as asked, before round $r's $run" >&2
			[ $emit = 1 ] && echo "# stopped"
			exit 0
		fi
		l=${run%.*}
		s=${run##*.}
		seq=$((seq + 1))
		pos=$((pos + 1))
		# a run made before keeps its place in the order; the run
		# made after it follows no run of this invocation
		case ,$skip, in
		*",$run.r$r,"*)
			continue ;;
		esac
		now=$(date +%s)
		left=
		[ $seq -gt 1 ] &&
			left=", about $(( (now - start) * (total - seq + 1) / (seq - 1) )) s left"
		echo "collect.sh: round $r of $first-$last: $l $s (run $seq of $total$left)" >&2
		# the same for the host to show while the guest runs
		# (tools/lib/progress.sh): the guest's clock is no host's
		[ $emit = 1 ] &&
			echo "# progress round $r state $s label $l run $seq/$total"
		run "$l" "$s" "$r" "$seq" "$pos" "$prev" "$order" ||
			die "the run of $l $s in round $r failed"
		# meta last: a run cut short in its output has none, and is
		# not taken for done (tools/bench.sh --resume)
		if [ $emit = 1 ]; then
			for f in "$out/runs/$l.$s.r$r"/*; do
				[ "${f##*/}" = meta ] || emit "$f"
			done
			emit "$out/runs/$l.$s.r$r/meta"
		fi
		prev=$l.$s.r$r
	done
	r=$((r + 1))
done

# the guest's host writes the JSON of everything it gathers
[ $emit = 1 ] && exit 0
{ sh "$HERE/json.sh" "$out" >"$out/results.json.tmp" &&
	mv "$out/results.json.tmp" "$out/results.json"; } ||
	die "cannot write $out/results.json"
