#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# How a benchmark scales with nr_samples: boot a kernel under QEMU (TCG) in
# a guest of 2 CPUs and 256 MiB, run one benchmark at each size, and print
# its run time (the summary's duration_ns) and the peak memory it took
# (MemAvailable before the run less its lowest value during the run,
# sampled every 0.2 s, so a peak shorter than that can be missed).
#
#   tools/scale.sh [--kernel LABEL] [SAMPLES...]
#
# LABEL is a kernel of tools/lib.sh (default 6.12); SAMPLES default to
# 10^5 10^6 10^7 10^8 per CPU. The 10^8 run takes a few minutes.
set -u
. "$(dirname "$0")/lib.sh"

usage()
{
	echo "usage: tools/scale.sh [--kernel LABEL] [SAMPLES...]" >&2
	exit 2
}

k=6.12
if [ "${1:-}" = --kernel ]; then
	[ $# -ge 2 ] || usage
	k=$2
	shift 2
fi
sizes=${*:-100000 1000000 10000000 100000000}
for n in $sizes; do
	[[ $n =~ ^[1-9][0-9]{0,11}$ ]] || usage
done

TB_KERNELS=$k
tb_is_built "$k" && TB_KERNELS=
tb_install >&2 || exit 1
mkdir -p "$TB_OUT"
if tb_is_built "$k" && ! tb_build_kernel "$k"; then
	echo "tracerbench: building the $k kernel failed" >&2
	exit 1
fi
if ! tb_build_module "$k"; then
	cat "$TB_OUT/build-$k/build.log" >&2
	exit 1
fi
tb_make_initramfs "$k" "$TB_OUT/initrd-scale.cpio.gz" || exit 1
out=$TB_OUT/scale-$k
TB_CPUS=2 TB_MEM=256M tb_boot "$k" "$TB_OUT/initrd-scale.cpio.gz" scale \
	3600 "$out" "tb.sizes=$(echo $sizes | tr ' ' ,)"
if grep -q '^not ok' "$out.ktap" || ! grep -q '^1\.\.' "$out.ktap"; then
	cat "$out.ktap" >&2
	echo "tracerbench: the guest failed; see $out.console" >&2
	exit 1
fi

echo "tracerbench: one benchmark per size on $(sed -n 's/^# kernel //p' "$out.ktap"),"
echo "QEMU TCG, 2 CPUs, 256 MiB; samples are per CPU and per primitive"
echo
printf '%14s %12s %18s\n' "samples/CPU" "run time s" "peak memory KiB"
sed -n 's/^# scale //p' "$out.ktap" | while read -r n ns kib; do
	printf '%14s %12s %18s\n' "$n" \
		"$(awk -v ns="$ns" 'BEGIN { printf "%.2f", ns / 1e9 }')" "$kib"
done
