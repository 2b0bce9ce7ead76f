#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What the preemptirq tracepoints cost: tools/bench.sh on the notrace and
# trace kernels, which it builds or takes from the cache, in every state
# (out: compiled out; off: compiled in, events off; on: events on), then
# tools/report.py against notrace.out, the first row. The hook column is
# the traced primitive less its raw form from the same runs. Every option
# is bench.sh's (--arch, --icount, --rounds, --nr-samples, --out, ...);
# with --host it measures the running kernel, off against on.
set -u -o pipefail
top=$(dirname "$0")
out= kernels=(notrace trace) args=("$@")
while [ $# -gt 0 ]; do
	case $1 in
	--out)	out=${2:-}; shift ;;
	--host)	kernels=() ;;
	--arch | --rounds | --states | --nr-samples | --label | --batch)
		shift ;;
	--*)	;;
	*)	echo "usage: tools/compare.sh [bench.sh options]" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$out" ] || args+=(--out "${TB_OUT:-$top/../.out}/compare-$(date -u +%Y%m%d-%H%M%S)")
out=$("$top/bench.sh" "${args[@]}" "${kernels[@]}" | tail -n 1) || exit 1
exec "$top/report.py" "$out"
