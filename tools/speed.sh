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
#   tools/speed.sh [--arch x86_64] [--kernel KERNEL] [--batch B] [N [STEP]]
#
# x86-64 only (why_x86_64). KERNEL is a kernel spec, as bench.sh takes
# it (default 6.12, Debian's, which needs no build; doc/bench.md,
# "Kernels"); B is the pairs per window (default 1); N defaults to 10^5,
# STEP to 10^5. Both should be multiples of the module's block of 1000
# samples, so that the runs differ by whole rounds. Durations are turned
# into counter ticks at the run's counter_hz: under icount the TSC (clock
# cycles, the default) advances 1 per instruction, as the empty window's
# overhead shows.
set -u
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	cat <<EOF
usage: tools/speed.sh [options] [N [STEP]]
Boot a kernel under QEMU with -icount shift=0,sleep=off and one vCPU, run
one benchmark of N and one of N + STEP samples per CPU (default 100000
each) and print the instructions a sample costs, in its window and out.
options (--opt VALUE or --opt=VALUE):
  --arch ARCH      x86_64 alone (below)
  --kernel KERNEL  the kernel to boot (default 6.12, Debian's), a kernel
                   spec as bench.sh takes it (doc/bench.md, "Kernels")
  --batch B        pairs per timed window (default 1)
  -h, --help       print this and exit
EOF
	echo "x86-64 only: $why_x86_64. See doc/bench.md, \"Speed\"." | fold -s -w 72 | sed 's/ *$//'
}

why_x86_64="it counts instructions by the TSC, which under -icount advances one per instruction (arm64's counter one per 16), and make check checks it there alone"
k=6.12 batch=1
tb_cli_name=speed.sh
tb_cli_values="--arch --kernel --batch"
tb_cli_parse "$@"
set -- "${tb_cli_argv[@]}"
while [ "$1" != -- ]; do
	case $1 in
	--arch)		tb_x86_64_only speed.sh "$why_x86_64" "$2" ;;
	--kernel)	k=$2 ;;
	--batch)	batch=$2 ;;
	esac
	shift 2
done
shift
[ $# -le 2 ] || tb_usage_error "N and STEP at most"
n=${1:-100000}
step=${2:-100000}
for v in "$n" "$step" "$batch"; do
	[[ $v =~ ^[1-9][0-9]{0,9}$ ]] ||
		tb_usage_error "N, STEP and --batch are counts from 1, not '$v'"
done
tb_spec_add "$k"
k=${TB_SPECS[$TB_SPEC_LAST.name]}

tb_spec_prepare "$TB_SPEC_LAST" || exit 1

tb_make_initramfs "$k" "$TB_OUT/initrd-speed.cpio.gz" || exit 1
out=$TB_OUT/speed-$k
args=("tb.cost_sizes=$n,$((n + step))" "tb.batch=$batch")
TB_ICOUNT=1 TB_CPUS=1 TB_MEM=256M tb_boot_checked speed.sh "$k" \
	"$TB_OUT/initrd-speed.cpio.gz" speed \
	"$(tb_suite_timeout 1 speed "${args[@]}")" "$out" "${args[@]}" || exit 1

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
