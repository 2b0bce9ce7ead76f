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
# shellcheck source=tools/lib/cli.sh
. "$top/lib/cli.sh" || exit 1

usage()
{
	echo "usage: tools/compare.sh [options]"
	echo "tools/bench.sh on the notrace and trace kernels, or with --host on the"
	echo "running kernel, then tools/report.py on its results. The options are"
	echo "bench.sh's; it names the kernels itself:"
	"$top/bench.sh" --help | sed -n '/^options/,$p'
}

tb_cli_name=compare.sh
tb_bench_options
tb_cli_parse "$@"
set -- "${tb_cli_argv[@]}"
kernels=(notrace trace) args=()
while [ "$1" != -- ]; do
	case $1 in
	--out)	out=$2 ;;
	--host)	kernels=() ;;
	# its kernels boot QEMU's guests and no box's userland
	--target | --cmdline | --resume | --box-config | --lava | --device-type | \
	--artifacts | --artifacts-dir | --lava-dry-run)
		tb_usage_error "$1 is bench.sh's: compare.sh's kernels are QEMU's or --host's" ;;
	esac
	# as bench.sh's parser gave it: --opt=VALUE, or a switch
	if tb_cli_has "$tb_cli_values" "$1"; then
		args+=("$1=$2")
	else
		args+=("$1")
	fi
	shift 2
done
shift
[ $# = 0 ] || tb_usage_error "no KERNEL: compare.sh names them (notrace, trace)"
[ ${#kernels[@]} = 0 ] && [ ! -d $events ] && [ ! -d "${events/tracing/debug/tracing}" ] &&
	{ echo "tracerbench: $(uname -r) has no preemptirq tracepoints (CONFIG_IRQSOFF_TRACER or CONFIG_PREEMPT_TRACER): nothing to compare" >&2; exit 1; }
[ -n "$out" ] || args+=(--out "${TB_OUT:-$top/../.out}/compare-$(date -u +%Y%m%d-%H%M%S)")
# bench.sh's exit status, 2 for a usage error (pipefail)
out=$("$top/bench.sh" "${args[@]}" "${kernels[@]}" | tail -n 1) || exit
command -v python3 >/dev/null ||
	{ echo "tracerbench: no python3 here: run tools/report.py $out elsewhere" >&2; echo "$out"; exit 0; }
exec "$top/report.py" "$out"
