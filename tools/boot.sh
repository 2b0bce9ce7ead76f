#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The development loop: build what KERNEL needs (the module, and the
# kernel itself for a variant of linux-source-6.12), boot it under QEMU
# with the guest suite's GROUPs (default functional) and print their KTAP.
# Exits non-zero when the guest printed no plan or a test failed.
#
#   tools/boot.sh [--arch ARCH] [--icount] [--cpus N] KERNEL [GROUP...]
#                 [-- KERNEL_ARG...]
#
# KERNEL is one of tools/lib.sh's labels (6.12, 6.1, 6.12-rt; notrace,
# trace, debug); GROUPs are tools/guest/suite.sh's; KERNEL_ARGs reach the
# guest's command line (tb.*= settings of the suite). --icount runs the
# guest clock by instructions, -icount shift=0,sleep=off.
set -u
. "$(dirname "$0")/lib.sh"

usage()
{
	echo "usage: tools/boot.sh [--arch ARCH] [--icount] [--cpus N] KERNEL [GROUP...] [-- KERNEL_ARG...]" >&2
	exit 2
}

icount=0
while [ $# -gt 0 ]; do
	case $1 in
	--arch)		[ $# -ge 2 ] && tb_arch_load "$2" || usage; shift 2 ;;
	--icount)	icount=1; shift ;;
	--cpus)		[[ ${2:-} =~ ^[1-9][0-9]?$ ]] || usage
			TB_CPUS=$2; shift 2 ;;
	-*)		usage ;;
	*)		break ;;
	esac
done
[ $# -ge 1 ] || usage
k=$1 groups=
shift
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	[[ $1 =~ ^[a-z]+$ ]] || usage
	groups=${groups:+$groups,}$1
	shift
done
[ $# -gt 0 ] && shift
case " $TB_ARCH_KERNELS $TB_ARCH_BUILT " in
*" $k "*)	;;
*)		echo "boot.sh: $TB_ARCH has no kernel '$k': $TB_ARCH_KERNELS $TB_ARCH_BUILT" >&2
		exit 2 ;;
esac

tb_prepare "$k" || exit 1
out=$TB_OUT/boot-$(tb_name "$k")
tb_make_initramfs "$k" "$out.cpio.gz" || exit 1
TB_ICOUNT=$icount TB_TCG_THREAD=${TB_TCG_THREAD-single} \
	tb_boot "$k" "$out.cpio.gz" "${groups:-functional}" 1800 "$out" "$@"
cat "$out.ktap"
if ! grep -q '^1\.\.' "$out.ktap" || grep -q '^not ok' "$out.ktap"; then
	echo "boot.sh: see $out.console" >&2
	exit 1
fi
