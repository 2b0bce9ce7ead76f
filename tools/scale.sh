#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# How a benchmark scales with nr_samples: boot a kernel under QEMU (TCG) in
# a guest of 2 CPUs and 256 MiB, run one benchmark at each size, and print
# its run time (the summary's duration_ns) and the peak memory it took
# (the kernel's VmallocUsed, which holds all of a run's memory: its peak
# during the run less its value before, sampled every 0.1 s, so a peak
# shorter than that can be missed).
#
#   tools/scale.sh [--arch x86_64] [--kernel KERNEL] [SAMPLES...]
#   tools/scale.sh [--arch x86_64] [--kernel KERNEL] --against REV [--rounds N] [SAMPLES]
#
# KERNEL is a kernel spec, as bench.sh takes it (default 6.12, Debian's;
# doc/bench.md, "Kernels"); SAMPLES (words or
# a comma-separated list) default to 10^5 10^6 10^7 10^8 per CPU. x86-64
# only (why_x86_64). The 10^8 run takes a few minutes.
#
# With --against, the module as built from git revision REV, or from the
# module source in directory REV (such as a clone of the reference module,
# walac/tracer-benchmark; tools/compat/ supplies what it needs of later
# kernels), and this one are loaded in turn in the same boot, N rounds
# (default 3) of one benchmark of SAMPLES (default 10^6) each, timed by
# the guest's wall clock; it prints each round, the medians and the
# medians per primitive-sample (the run's time over SAMPLES times the
# primitives the module measures: each CPU samples its own), and their
# ratio.
set -u
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	cat <<EOF
usage: tools/scale.sh [options] [SAMPLES...]
       tools/scale.sh [options] --against REV [--rounds N] [SAMPLES]
Boot a kernel under QEMU TCG (2 CPUs, 256 MiB) and print one benchmark's
run time and peak memory at each size, SAMPLES per CPU (words or a
comma-separated list; default 100000,1000000,10000000,100000000). With
--against, time the module of git revision or directory REV and this one
in turns, N rounds (default 3) of SAMPLES (default 1000000).
options (--opt VALUE or --opt=VALUE):
  --arch ARCH      x86_64 alone (below)
  --kernel KERNEL  the kernel to boot (default 6.12, Debian's), a kernel
                   spec as bench.sh takes it (doc/bench.md, "Kernels")
  --against REV    a git revision or a directory of another module's source
  --rounds N       rounds with --against (default 3)
  -h, --help       print this and exit
EOF
	echo "x86-64 only: $why_x86_64. See doc/bench.md, \"Scaling\"." | fold -s -w 72 | sed 's/ *$//'
}

why_x86_64="its default kernel and the module --against builds are x86-64's, and make check checks it there alone"
k=6.12 against='' rounds=3
tb_cli_name=scale.sh
tb_cli_values="--arch --kernel --against --rounds"
tb_cli_parse "$@"
set -- "${tb_cli_argv[@]}"
while [ "$1" != -- ]; do
	case $1 in
	--arch)		tb_x86_64_only scale.sh "$why_x86_64" "$2" ;;
	--kernel)	k=$2 ;;
	--against)	against=$2 ;;
	--rounds)	rounds=$2 ;;
	esac
	shift 2
done
shift
[[ $rounds =~ ^[1-9][0-9]?$ ]] ||
	tb_usage_error "--rounds wants a count from 1 to 99, not '$rounds'"
sizes=$(tb_list "$*")
if [ -n "$against" ]; then
	sizes=${sizes:-1000000}
	[[ $sizes != *" "* ]] || tb_usage_error "--against takes one SAMPLES"
else
	sizes=${sizes:-100000 1000000 10000000 100000000}
fi
for n in $sizes; do
	[[ $n =~ ^[1-9][0-9]{0,11}$ ]] ||
		tb_usage_error "SAMPLES are counts from 1, not '$n'"
done
tb_spec_add "$k"
k=${TB_SPECS[$TB_SPEC_LAST.name]}

against_needs=
[ -z "$against" ] || [ -d "$against" ] || against_needs=git
# shellcheck disable=SC2086 # none, or one need
tb_spec_prepare "$TB_SPEC_LAST" $against_needs || exit 1

# build_against: the module of revision $against, as $TB_OUT/against/against.ko
build_against()
{
	local dir=$TB_OUT/against

	rm -rf "$dir" && mkdir -p "$dir" || return 1
	if [ -d "$against" ]; then
		cp -R "$against"/. "$dir"/ || return 1
	else
		git -C "$TB_TOP" archive "$against" | tar -x -C "$dir" || return 1
	fi
	make -C "$(tb_kdir "$k")" M="$dir" \
		KCFLAGS="-include $TB_TOP/tools/compat/min_heap_inline.h" \
		modules >"$dir/build.log" 2>&1 ||
		{ cat "$dir/build.log" >&2; return 1; }
	mv "$dir/tracerbench.ko" "$dir/against.ko"
}

if [ -n "$against" ]; then
	build_against || exit 1
	tb_make_initramfs "$k" "$TB_OUT/initrd-against.cpio.gz" "$(tb_module "$k")" \
		"$TB_OUT/against/against.ko" || exit 1
	out=$TB_OUT/against-$k
	args=("tb.speed_samples=$sizes" "tb.rounds=$rounds")
	TB_CPUS=2 TB_MEM=256M tb_boot_checked scale.sh "$k" \
		"$TB_OUT/initrd-against.cpio.gz" against \
		"$(tb_suite_timeout 2 against "${args[@]}")" "$out" \
		"${args[@]}" || exit 1
	echo "tracerbench: one benchmark of $sizes samples per CPU, in turns, on $k,"
	echo "QEMU TCG, 2 CPUs, 256 MiB; wall-clock seconds per run"
	echo
	name=${against%/}
	sed -n 's/^# against //p' "$out.ktap" | awk -v rev="${name##*/}" -v n="$sizes" '
		# NAME T0 T1 PRIMITIVES
		{ t = $3 - $2
		  if ($1 == "against") { a[++na] = t; pa = $4 } else { b[++nb] = t; pb = $4 } }
		function median(v, n,   i, j, x) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
					x = v[j]; v[j] = v[j - 1]; v[j - 1] = x
				}
			return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		}
		END {
			if (!pa || !pb) {
				print "tracerbench: a module measured no primitive" > "/dev/stderr"
				exit 1
			}
			printf "%-8s %14s %14s\n", "round", rev, "this tree"
			for (i = 1; i <= na; i++)
				printf "%-8d %14.3f %14.3f\n", i, a[i], b[i]
			ma = median(a, na); mb = median(b, nb)
			printf "%-8s %14.3f %14.3f\n", "median", ma, mb
			printf "%-8s %14s %14s\n", "prims", pa, pb
			printf "%-8s %14.1f %14.1f\n", "ns/prim", ma * 1e9 / (n * pa), mb * 1e9 / (n * pb)
			printf "\nthis tree takes %.2f of the time of %s per primitive-sample\n", (mb / pb) / (ma / pa), rev
		}'
	exit 0
fi

tb_make_initramfs "$k" "$TB_OUT/initrd-scale.cpio.gz" || exit 1
out=$TB_OUT/scale-$k
TB_CPUS=2 TB_MEM=256M tb_boot_checked scale.sh "$k" \
	"$TB_OUT/initrd-scale.cpio.gz" scale \
	"$(tb_suite_timeout 2 scale "tb.sizes=${sizes// /,}")" "$out" \
	"tb.sizes=${sizes// /,}" || exit 1

echo "tracerbench: one benchmark per size on $(sed -n 's/^# kernel //p' "$out.ktap"),"
echo "QEMU TCG, 2 CPUs, 256 MiB; samples are per CPU and per primitive"
echo
printf '%14s %12s %18s\n' "samples/CPU" "run time s" "peak memory KiB"
sed -n 's/^# scale //p' "$out.ktap" | while read -r n ns kib; do
	printf '%14s %12s %18s\n' "$n" \
		"$(awk -v ns="$ns" 'BEGIN { printf "%.2f", ns / 1e9 }')" "$kib"
done
