#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make run: build the module, boot the Debian 6.12 kernel under QEMU with
# it, run one benchmark with the defaults and print the results as a table.
# TCG emulates the CPU, so the cycle counts only compare with each other.
# With --arch arm64 (make run TB_ARCH=arm64), or another arch without
# Debian kernels, the kernel built from linux-source-6.12 that
# tools/arch/ARCH.conf names instead.
set -u
. "$(dirname "$0")/lib.sh"

case ${1:-} in
--arch)	[ $# = 2 ] && tb_arch_load "$2" || exit 2 ;;
"")	;;
*)	echo "usage: tools/run.sh [--arch ARCH]" >&2; exit 2 ;;
esac

k=${TB_ARCH_PLAIN:-6.12}
tb_prepare $k || exit 1
tb_make_initramfs $k "$TB_OUT/initrd-run.cpio.gz" || exit 1
tb_boot $k "$TB_OUT/initrd-run.cpio.gz" show 300 "$TB_OUT/run"
if ! grep -q '^irq_save' "$TB_OUT/run.ktap" 2>/dev/null; then
	echo "tracerbench: the guest printed no results; its console:" >&2
	tail -n 30 "$TB_OUT/run.console" >&2
	exit 1
fi
grep -v '^KTAP' "$TB_OUT/run.ktap"
