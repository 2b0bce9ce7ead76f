#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The development loop: build what KERNEL needs (the module, and the
# kernel itself for a variant of linux-source-6.12), boot it under QEMU
# with the guest suite's GROUPs (default functional) and print their KTAP.
# Exits non-zero when the guest printed no plan or a test failed.
#
#   tools/boot.sh [--arch ARCH] [--icount] [--vcpus N] [--mem SIZE]
#                 [--timeout SECS] KERNEL [GROUP...] [-- KERNEL_ARG...]
#
# KERNEL is a kernel spec, as bench.sh takes it (doc/bench.md, "Kernels"):
# a Debian kernel of the arch (6.12), a variant (trace), one with
# patches=, config= or tree=, or your own build; GROUPs are
# tools/guest/suite.sh's, as
# words or a comma-separated list; KERNEL_ARGs reach the guest's command
# line (tb.*= settings of the suite). --icount runs the guest clock by
# instructions, -icount shift=0,sleep=off. The boot is taken for hung
# after --timeout SECS, by default the seconds its work asks
# (tb_suite_timeout: the groups' timeouts in tools/scenarios, and the
# samples of their big runs, tb.big_samples= and the like).
set -u
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	cat <<EOF
usage: tools/boot.sh [options] KERNEL [GROUP...] [-- KERNEL_ARG...]
Build KERNEL (unless it is Debian's) and the module, boot it under QEMU
with the guest suite's GROUPs (default functional; words or a
comma-separated list) and print their KTAP; exit 1 on a failure.
KERNEL is a kernel spec, as bench.sh takes it: 6.12 (Debian's), trace,
trace,patches=DIR, trace,tree=PATH@REV, ... (doc/bench.md, "Kernels").
KERNEL_ARGs (tb.NAME=VALUE) reach the guest's command line.
options (--opt VALUE or --opt=VALUE):
  --arch ARCH      the guest's architecture: $(tb_all_archs | tr '\n' ' ')
                   (default x86_64)
  --vcpus N        the guest's vCPUs (default \$TB_CPUS, or 4); --cpus N,
                   the old spelling, is still accepted
  --mem SIZE       the guest's memory: 512M, 2G, ... (default \$TB_MEM, or 1G)
  --icount         exact guest clock: -icount shift=0,sleep=off
  --timeout SECS   stop the guest as hung after SECS (default: what the
                   groups and the samples their runs ask take at most)
  -h, --help       print this and exit
The kernels and their grammar: doc/bench.md; the conventions: doc/cli.md.
EOF
}

tb_cli_name=boot.sh
tb_cli_values="--arch --vcpus --mem --timeout"
tb_cli_switches="--icount"
tb_cli_aliases="--cpus=--vcpus"
tb_cli_keep_dashdash=1
tb_cli_parse "$@"
set -- "${tb_cli_argv[@]}"
icount=0 secs=
while [ "$1" != -- ]; do
	case $1 in
	--arch)		tb_arch_load "$2" || exit 2 ;;
	--icount)	icount=1 ;;
	--vcpus)	[[ $2 =~ ^[1-9][0-9]?$ ]] ||
				tb_usage_error "--vcpus wants a count from 1 to 99, not '$2'"
			TB_CPUS=$2 ;;
	--mem)		[[ $2 =~ ^[1-9][0-9]*[MG]$ ]] ||
				tb_usage_error "--mem wants a size in M or G, such as 512M or 2G, not '$2'"
			TB_MEM=$2 ;;
	--timeout)	[[ $2 =~ ^[1-9][0-9]{0,6}$ ]] ||
				tb_usage_error "--timeout wants seconds from 1, not '$2'"
			secs=$2 ;;
	esac
	shift 2
done
shift
{ [ $# -ge 1 ] && [ "$1" != -- ]; } || tb_usage_error "no KERNEL given"
spec=$1 groups=
shift
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	[[ $1 =~ ^[a-z]+(,[a-z]+)*$ ]] ||
		tb_usage_error "'$1' is no GROUP of the guest suite (tools/guest/tests/, jobs/)"
	groups=${groups:+$groups,}$1
	shift
done
[ $# -gt 0 ] && shift
tb_spec_add "$spec"
k=${TB_SPECS[$TB_SPEC_LAST.name]}

tb_spec_prepare "$TB_SPEC_LAST" || exit 1
out=$TB_OUT/boot-$(tb_name "$k")
tb_make_initramfs "$k" "$out.cpio.gz" || exit 1
groups=${groups:-functional}
[ -n "$secs" ] || secs=$(tb_suite_timeout "$TB_CPUS" "$groups" "$@")
TB_ICOUNT=$icount TB_TCG_THREAD=${TB_TCG_THREAD-single} \
	tb_boot "$k" "$out.cpio.gz" "$groups" "$secs" "$out" "$@"
cat "$out.ktap"
if ! tb_ktap_passed "$out"; then
	echo "boot.sh: see $out.console" >&2
	exit 1
fi
