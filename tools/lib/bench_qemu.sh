# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash disable=SC2154 # bench.sh's variables
# bench.sh's boots of QEMU guests, each with the boot's initramfs
# (bench_initrd) running the guest suite "bench" on the parameters of
# the boot, its KTAP split into runs/. Sourced by tools/bench.sh alone;
# guest_kargs serves bench --lava's jobs too (tools/lib/bench_lava.sh).

# guest_kargs FIRST N LABELS: the guest's parameters (guest_args) for
# the boot of LABELS in rounds FIRST..FIRST+N-1, its runs there before
# skipped, and the seconds it may take (guest_secs, tb_boot_timeout)
guest_kargs()
{
	local nstates=3 skip commas

	[ -z "$states" ] || nstates=$(tr ',' '\n' <<<"$states" | wc -l)
	guest_args=("tb.round=$1" "tb.rounds=$2" tb.labels="$3"
		"tb.nr_samples=$nr_samples" "tb.do_work=$do_work"
		"tb.batch=$batch")
	skip=$(runs_present "$1" "$2" "$3")
	[ -n "$skip" ] && guest_args+=(tb.skip="$skip")
	[ -n "$clock" ] && guest_args+=(tb.clock="$clock")
	[ -n "$states" ] && guest_args+=(tb.states="$states")
	commas=${3//[^,]/}
	guest_secs=$(tb_boot_timeout $(($2 * (${#commas} + 1) * nstates)) \
		"$nr_samples" "$batch" "$TB_CPUS")
}

# qemu_boot FIRST N POS IMAGE BOOT NBOOTS START: run_rounds's boot of a
# QEMU guest
qemu_boot()
{
	local first=$1 n=$2 pos=$3 labels=${boot_labels[$4]} l ktap

	l=${labels%%,*}
	boot_line "$first" "$n" "$labels" "$5" "$6" "$7" booting
	ktap=$out/boots/r$first-$l
	guest_kargs "$first" "$n" "$labels"
	TB_ICOUNT=$icount TB_TCG_THREAD=${TB_TCG_THREAD-single} \
		tb_boot_progress "$5" "$6" "$rounds" "$7" \
		"bench-$l" "$(bench_initrd "$l")" bench "$guest_secs" \
		"$ktap" "${guest_args[@]}"
	if ! tb_ktap_passed "$ktap"; then
		grep -v '^# ' "$ktap.ktap" | tail -n 20 >&2
		echo "bench.sh: the end of its console:" >&2
		tail -n 30 "$ktap.console" 2>/dev/null | sed 's/^/  /' >&2
		take_runs "$ktap.ktap" "$pos" 2>/dev/null
		die "the boot of $labels in round $first failed; see $ktap.console (the runs it gave are kept: bench.sh --resume $out goes on)"
	fi
	take_runs "$ktap.ktap" "$pos" ||
		die "no results from $labels in round $first; see $ktap.ktap"
}

run_qemu()
{
	prepare_kernels
	write_env
	run_rounds qemu_boot || exit 1
	finish
	echo "bench.sh: results in $out ($((SECONDS - started)) s)" >&2
}
