#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# What the preemptirq tracepoints cost: tools/bench.sh on the notrace and
# trace kernels (out: compiled out; off: compiled in, events off; on:
# events on), then tools/report.py against notrace.out, whose hook column
# is each traced primitive less its raw form. The options are bench.sh's:
# --host measures the running kernel, off against on (without python3,
# the results are left for report.py on another machine).
set -u -o pipefail
top=$(dirname "$0") events=/sys/kernel/tracing/events/preemptirq out=
kernels=(notrace trace) args=("$@")
while [ $# -gt 0 ]; do
	case $1 in
	--out)	out=${2:-}; shift ;;
	--host)	kernels=() ;;
	--arch | --rounds | --states | --nr-samples | --label | --batch | --clock) shift ;;
	--help)	"$top/bench.sh" --help; exit 2 ;;
	--*)	;;
	*)	echo "usage: tools/compare.sh [bench.sh options]" >&2; exit 2 ;;
	esac
	shift
done
[ ${#kernels[@]} = 0 ] && [ ! -d $events ] && [ ! -d "${events/tracing/debug/tracing}" ] &&
	{ echo "tracerbench: $(uname -r) has no preemptirq tracepoints (CONFIG_IRQSOFF_TRACER or CONFIG_PREEMPT_TRACER): nothing to compare" >&2; exit 1; }
[ -n "$out" ] || args+=(--out "${TB_OUT:-$top/../.out}/compare-$(date -u +%Y%m%d-%H%M%S)")
out=$("$top/bench.sh" "${args[@]}" "${kernels[@]}" | tail -n 1) || exit 1
command -v python3 >/dev/null ||
	{ echo "tracerbench: no python3 here: run tools/report.py $out elsewhere" >&2; echo "$out"; exit 0; }
exec "$top/report.py" "$out"
