#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What a sample costs, in instructions: boot a kernel under QEMU with
# -icount shift=0,sleep=off (the guest clock advances 1 ns per
# instruction) and one vCPU, time one benchmark of N and one of N + STEP
# samples per CPU by their duration_ns, and print the difference per
# sample of each primitive: everything a sample costs, its timed window,
# its bookkeeping, and its share of the calibrations, warm-ups and
# checkpoints. The windows' own part is what they measured: the overhead
# (the empty window) plus each primitive's median, times batch. The rest is
# what lies outside the windows. A benchmark, not a test: it prints
# figures and passes no judgement on them.
#
#   tools/speed.sh [--kernel LABEL] [--batch B] [N [STEP]]
#
# LABEL is a kernel of tools/lib.sh (default 6.12, Debian's, which needs
# no build); B is the pairs per window (default 1); N defaults to 10^5,
# STEP to 10^5. Both should be multiples of the module's block of 1000
# samples, so that the runs differ by whole rounds. Durations are turned
# into counter ticks at the run's counter_hz: under icount the TSC (clock
# cycles, the default) advances 1 per instruction, as the empty window's
# overhead shows.
set -u
. "$(dirname "$0")/lib.sh"

usage()
{
	echo "usage: tools/speed.sh [--kernel LABEL] [--batch B] [N [STEP]]" >&2
	exit 2
}

k=6.12 batch=1
while [ $# -gt 0 ]; do
	case $1 in
	--kernel)	[ $# -ge 2 ] || usage; k=$2; shift 2 ;;
	--batch)	[ $# -ge 2 ] || usage; batch=$2; shift 2 ;;
	--*)		usage ;;
	*)		break ;;
	esac
done
[ $# -le 2 ] || usage
n=${1:-100000}
step=${2:-100000}
for v in "$n" "$step" "$batch"; do
	[[ $v =~ ^[1-9][0-9]{0,9}$ ]] || usage
done

tb_prepare "$k" || exit 1

tb_make_initramfs "$k" "$TB_OUT/initrd-cost.cpio.gz" || exit 1
out=$TB_OUT/cost-$k
TB_ICOUNT=1 TB_CPUS=1 TB_MEM=256M tb_boot "$k" "$TB_OUT/initrd-cost.cpio.gz" \
	cost 1800 "$out" "tb.cost_sizes=$n,$((n + step))" "tb.batch=$batch"
if grep -q '^not ok' "$out.ktap" || ! grep -q '^1\.\.' "$out.ktap"; then
	cat "$out.ktap" >&2
	echo "tracerbench: the guest failed; see $out.console" >&2
	exit 1
fi

echo "tracerbench: instructions per sample on $(sed -n 's/^# kernel //p' "$out.ktap"),"
echo "QEMU TCG -icount shift=0,sleep=off, 1 vCPU: runs of $n and $((n + step)) samples"
echo
{
	sed -n 's/^# cost-prims //p' "$out.ktap"
	sed -n 's/^# cost //p' "$out.ktap"
} | awk -v step="$step" '
	NR == 1 { np = split($0, prim, " "); next }
	{ nr++; ns[nr] = $2; hz = $3; over = $4; batch = $5; ran[nr] = $6
	  for (i = 1; i <= np; i++) med[i] = $(6 + i) }
	END {
		if (nr != 2) {
			print "tracerbench: expected two runs, got " nr > "/dev/stderr"
			exit 1
		}
		printf "%-16s %10s %12s\n", "primitive", "median", "in window"
		for (i = 1; i <= np; i++) {
			w = over + med[i] * batch
			in_win += w
			printf "%-16s %10s %12.1f\n", prim[i], med[i], w
		}
		in_win /= np
		# the thread that measured, where its run time is known: other
		# tasks of the guest take a share of the duration of the runs
		if (ran[1] != "-" && ran[2] != "-") {
			spent = ran[2] - ran[1]
			what = "the run time of the measuring thread (schedstat)"
		} else {
			spent = ns[2] - ns[1]
			what = "the duration of the runs (no schedstat: other tasks included)"
		}
		all = spent * hz / 1e9 / (step * np)
		printf "\nbatch %d, overhead (the empty window) %d, counter_hz %d\n", batch, over, hz
		printf "run of the first size: %d ns, of the second: %d ns\n", ns[1], ns[2]
		if (ran[1] != "-" && ran[2] != "-")
			printf "the measuring thread ran %d ns and %d ns of them\n", ran[1], ran[2]
		printf "the cost from %s\n", what
		printf "\ninstructions per sample, the mean over the %d primitives:\n", np
		printf "  all            %8.1f\n", all
		printf "  in the window  %8.1f\n", in_win
		printf "  outside it     %8.1f\n", all - in_win
	}'
