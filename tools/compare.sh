#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What the preemptirq tracepoints cost: tracerbench's medians in three states,
#   out	kernel built without CONFIG_PREEMPTIRQ_TRACEPOINTS
#   off	built with them, events/preemptirq disabled
#   on	built with them, events/preemptirq enabled
# and the ratios between them; then the hook cost from one boot, the traced
# primitive less its raw form (raw_irq, raw_irq_save, preempt_notrace) measured
# in the same runs, in ticks and ns. Off and on alternate within each round so that
# drift cannot pose as a difference.
#
# By default it builds (or takes from the cache) the notrace and trace
# kernels of x86-64, or of the architecture --arch names (tools/arch/),
# and measures in QEMU. With --host it measures the running kernel,
# which must have the tracepoints; "out" then needs another kernel and is
# left blank.
set -u
. "$(dirname "$0")/lib.sh"

usage()
{
	cat >&2 <<EOF
usage: tools/compare.sh [--arch ARCH] [--icount] [--do-work] [--batch N]
                        [--rounds N] [--nr-samples N]
       tools/compare.sh --host [--do-work] [--batch N] [--rounds N]
                        [--nr-samples N]
  --arch ARCH     the guests' architecture: $(tb_all_archs | tr '\n' ' ')
                  (default x86_64)
  --icount        deterministic guest clock (-icount shift=0,sleep=off)
  --do-work       time the simulated critical section inside each pair
  --batch N       time N pairs per window and show figures per pair
                  (default 1): a finer resolution where the counter is
                  coarse, as arm64's generic timer is
  --rounds N      runs per state (default 5)
  --nr-samples N  samples per primitive per CPU (default 10000)
  --host          measure this machine's kernel instead of QEMU guests
EOF
	exit 2
}

die()
{
	echo "tracerbench: $*" >&2
	exit 1
}

icount=0 do_work=0 rounds=5 nr_samples=10000 host=0 batch=1 arch=
while [ $# -gt 0 ]; do
	case $1 in
	--arch)		arch=${2:-}; shift ;;
	--batch)	batch=${2:-}; shift ;;
	--icount)	icount=1 ;;
	--do-work)	do_work=1 ;;
	--host)		host=1 ;;
	--rounds)	rounds=${2:-}; shift ;;
	--nr-samples)	nr_samples=${2:-}; shift ;;
	*)		usage ;;
	esac
	shift
done
for n in "$rounds" "$nr_samples" "$batch"; do
	[[ $n =~ ^[1-9][0-9]{0,8}$ ]] || usage
done
[ $host = 1 ] && [ $icount = 1 ] && die "--icount applies to QEMU guests only"
[ $host = 1 ] && [ -n "$arch" ] && die "--arch applies to QEMU guests only"
[ -z "$arch" ] || tb_arch_load "$arch" || usage
[ $host = 1 ] || tb_arch_builds notrace trace ||
	die "no notrace and trace kernels for $TB_ARCH"

samples=$(mktemp)
trap 'rm -f "$samples"' EXIT

measure_host()
{
	local tracing=/sys/kernel/tracing tb=/sys/kernel/debug/tracerbench
	local loaded=0 old_samples old_work old_batch rc

	[ "$(id -u)" = 0 ] || die "--host needs root"
	[ -d $tracing/events ] || tracing=/sys/kernel/debug/tracing
	[ -d $tracing/events/preemptirq ] ||
		die "$(uname -r) has no preemptirq tracepoints (it needs CONFIG_PREEMPTIRQ_TRACEPOINTS, from CONFIG_IRQSOFF_TRACER or CONFIG_PREEMPT_TRACER): nothing to compare"
	if [ ! -d $tb ]; then
		make -s -C "$TB_TOP" modules >&2 &&
			insmod "$TB_TOP/tracerbench.ko" || die "cannot load tracerbench"
		loaded=1
	fi
	old_samples=$(cat $tb/nr_samples)
	old_work=$(cat $tb/do_work)
	old_batch=$(cat $tb/batch)
	echo "$nr_samples" >$tb/nr_samples && echo "$do_work" >$tb/do_work &&
		echo "$batch" >$tb/batch
	TB=$tb TRACING=$tracing sh "$TB_TOP/tools/guest/measure.sh" "$rounds" |
		sed -n 's/^# sample //p' >"$samples"
	rc=${PIPESTATUS[0]}
	echo "$old_samples" >$tb/nr_samples
	echo "$old_work" >$tb/do_work
	echo "$old_batch" >$tb/batch
	[ $loaded = 1 ] && rmmod tracerbench
	[ "$rc" = 0 ] || die "measuring failed"
	where="host $(uname -r)"
}

measure_qemu()
{
	local k n out

	tb_install >&2 || die "cannot install the packages"
	mkdir -p "$TB_OUT"
	for k in notrace trace; do
		tb_build_kernel $k ||
			die "building the $k kernel failed: $(tb_kernel_dir $k)/build.log"
		tb_build_module $k ||
			die "building the module failed: $(dirname "$(tb_module $k)")/build.log"
		n=$(tb_name $k)
		tb_make_initramfs $k "$TB_OUT/initrd-$n.cpio.gz" ||
			die "cannot make the initramfs"
		out=$TB_OUT/compare-$n
		TB_ICOUNT=$icount TB_TCG_THREAD=${TB_TCG_THREAD-single} \
			tb_boot $k "$TB_OUT/initrd-$n.cpio.gz" compare 1800 "$out" \
			"tb.rounds=$rounds" \
			"tb.nr_samples=$nr_samples" "tb.do_work=$do_work" \
			"tb.batch=$batch"
		if ! grep -q '^1\.\.' "$out.ktap" || grep -q '^not ok' "$out.ktap"; then
			cat "$out.ktap" >&2
			die "measuring on the $k kernel failed; see $out.console"
		fi
		sed -n 's/^# sample //p' "$out.ktap" >>"$samples"
	done
	where="$TB_ARCH, QEMU TCG$([ $icount = 1 ] && echo ', -icount shift=0,sleep=off'), $TB_CPUS CPUs, kernels from linux-source-6.12"
}

# summary PRIM STATE: "median min max" of that state's per-run medians
summary()
{
	awk -v p="$1" -v s="$2" '$1 == s && $2 == p { print $3 }' "$samples" |
		sort -n | awk 'BEGIN { OFMT = "%.3f" } { v[NR] = $1 }
			END {
				if (!NR)
					exit
				m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				print m, v[1], v[NR]
			}'
}

cell()
{
	[ -n "$1" ] || { echo -; return; }
	set -- $1
	echo "$1 [$2-$3]"
}

ratio()
{
	[ -n "$1" ] && [ -n "$2" ] || { echo -; return; }
	awk -v a="${1%% *}" -v b="${2%% *}" \
		'BEGIN { if (b > 0) printf "%.2f\n", a / b; else print "-" }'
}

# each sets $where, or dies
if [ $host = 1 ]; then
	measure_host
else
	measure_qemu
fi
[ -s "$samples" ] || die "no samples"

echo "tracerbench: cost of the preemptirq tracepoints, median cycles per pair"
echo "over $rounds runs each [min-max of the runs]"
echo "$where; nr_samples $nr_samples, do_work $do_work, batch $batch"
echo
printf '%-10s %-18s %-18s %-18s %8s %8s %8s\n' primitive "compiled out" \
	"compiled in, off" "on" "off/out" "on/off" "on/out"
for prim in irq preempt irq_save; do
	out=$(summary $prim out)
	off=$(summary $prim off)
	on=$(summary $prim on)
	printf '%-10s %-18s %-18s %-18s %8s %8s %8s\n' $prim "$(cell "$out")" \
		"$(cell "$off")" "$(cell "$on")" "$(ratio "$off" "$out")" \
		"$(ratio "$on" "$off")" "$(ratio "$on" "$out")"
done

# hook PRIM RAW STATE: median over the runs of PRIM - RAW, each run's pair
# taken from the same benchmark, so the cost of the hooks from one boot
hook()
{
	awk -v p="$1" -v r="$2" -v s="$3" '$1 == s && $2 == p { a[++na] = $3 }
		$1 == s && $2 == r { b[++nb] = $3 }
		END { for (i = 1; i <= na && i <= nb; i++) print a[i] - b[i] }' \
		"$samples" | sort -n | awk '{ v[NR] = $1 }
		END {
			if (NR)
				print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		}'
}

# ns TICKS STATE: TICKS in nanoseconds at the state's median counter_hz
ns()
{
	local hz

	hz=$(summary counter_hz "$2")
	[ -n "$1" ] && [ -n "$hz" ] || return
	awk -v t="$1" -v hz="${hz%% *}" \
		'BEGIN { if (hz > 0) printf "%.2f\n", t * 1e9 / hz }'
}

# hook_cell TICKS STATE: "TICKS (NS ns)", or - without a figure
hook_cell()
{
	[ -n "$1" ] || { echo -; return; }
	echo "$1 ($(ns "$1" "$2") ns)"
}

echo
echo "hook cost: traced - raw median from the same runs, ticks (ns at the"
echo "measured counter_hz: $(for s in out off on; do
	hz=$(summary counter_hz $s)
	[ -n "$hz" ] && printf '%s %.0f Hz; ' $s "${hz%% *}"
done | sed 's/; $//'))"
printf '%-10s %-16s %-18s %-18s %s\n' primitive "raw form" "compiled out" \
	"compiled in, off" "on"
for pair in irq:raw_irq irq_save:raw_irq_save preempt:preempt_notrace; do
	prim=${pair%%:*}
	raw=${pair#*:}
	printf '%-10s %-16s %-18s %-18s %s\n' $prim $raw \
		"$(hook_cell "$(hook $prim $raw out)" out)" \
		"$(hook_cell "$(hook $prim $raw off)" off)" \
		"$(hook_cell "$(hook $prim $raw on)" on)"
done
