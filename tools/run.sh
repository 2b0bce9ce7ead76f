#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make run: build the module, boot the Debian 6.12 kernel under QEMU with
# it, run one benchmark with the defaults and print the results as a table.
# TCG emulates the CPU, so the cycle counts only compare with each other.
# With --arch arm64 (make run TB_ARCH=arm64), or another arch without
# Debian kernels, the kernel built from linux-source-6.12 that
# tools/arch/ARCH.conf names instead; --kernel KERNEL, any kernel spec
# (doc/bench.md, "Kernels"). It installs what that kernel needs alone.
set -u
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	cat <<EOF
usage: tools/run.sh [--arch ARCH] [--kernel KERNEL]
make run: build the module, boot a kernel with it under QEMU, run one
benchmark with the defaults and print the results.
options (--opt VALUE or --opt=VALUE):
  --arch ARCH      the guest's architecture: $(tb_all_archs | tr '\n' ' ')
                   (default x86_64, with Debian's 6.12; make run TB_ARCH=ARCH)
  --kernel KERNEL  the kernel to boot, a kernel spec as bench.sh takes it
                   (default 6.12, or the arch's built kernel: trace on arm64)
  -h, --help       print this and exit
EOF
}

tb_cli_name=run.sh
tb_cli_values="--arch --kernel"
tb_cli_parse "$@"
set -- "${tb_cli_argv[@]}"
spec=
while [ "$1" != -- ]; do
	case $1 in
	--arch)		tb_arch_load "$2" || exit 2 ;;
	--kernel)	spec=$2 ;;
	esac
	shift 2
done
shift
[ $# = 0 ] || tb_usage_error "unexpected operand '$1'"

tb_spec_add "${spec:-${TB_ARCH_PLAIN:-6.12}}"
k=${TB_SPECS[$TB_SPEC_LAST.name]}
tb_spec_prepare "$TB_SPEC_LAST" || exit 1
tb_make_initramfs "$k" "$TB_OUT/initrd-run.cpio.gz" || exit 1
tb_boot "$k" "$TB_OUT/initrd-run.cpio.gz" show \
	"$(tb_suite_timeout "$TB_CPUS" show)" "$TB_OUT/run"
if ! grep -q '^irq_save' "$TB_OUT/run.ktap" 2>/dev/null; then
	echo "tracerbench: the guest printed no results; its console:" >&2
	tail -n 30 "$TB_OUT/run.console" >&2
	exit 1
fi
grep -v '^KTAP' "$TB_OUT/run.ktap"
