#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check: install what is missing, run the host unit tests and
# checkpatch, build the module for every target kernel at W=1, then boot
# each kernel under QEMU (TCG, 4 CPUs) and run the in-guest KTAP suites:
#
#   functional	plain TCG, the behaviour of the interface
#   exact	-icount shift=0,sleep=off, where the guest clock is exact
#   long	10^8 samples per CPU, 2 CPUs, 256 MiB: 6.12 booted with
#		preempt=none and voluntary, and 6.12-rt
#   headless	6.12 booted with debugfs=off: insmod run=1 logs a summary
#
# Then the kernels built from linux-source-6.12 (cached across runs):
#
#   notrace	baseline: irq = raw_irq, preempt = preempt_notrace (icount)
#   trace	the preemptirq events raise the medians, reversibly, and the
#		hooks cost above the raw forms with the events off (icount)
#   debug	the functional suite under KASAN, lockdep, kmemleak and
#		might-sleep checks, then fault injection and a leak scan
#   compare	tools/compare.sh --icount on notrace and trace
#
# Prints every result and, last, "N passed, N failed"; exits non-zero on any
# failure. TB_KERNELS="6.12" limits the kernels, for a quicker loop.
set -u
. "$(dirname "$0")/lib.sh"

passed=0
failed=0

result()
{
	if [ "$1" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok - $2"
	else
		failed=$((failed + 1))
		echo "not ok - $2"
	fi
}

# Count a test program's "N passed, N failed" line; none is one failure.
collect_summary()
{
	local label=$1 log=$2 line

	sed "s/^/[$label] /" "$log"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		result 1 "$label: ran to its summary line"
		return
	fi
	set -- $line
	passed=$((passed + $1))
	failed=$((failed + $3))
}

# Count a guest's KTAP lines. A missing plan, or fewer results than it
# announces, means the guest died part-way: one more failure, with the
# end of its console to say why.
collect_ktap()
{
	local label=$1 out=$2 ok notok plan

	touch "$out".ktap "$out".console
	sed "s/^/[$label] /" "$out".ktap
	ok=$(grep -c '^ok ' "$out".ktap)
	notok=$(grep -c '^not ok ' "$out".ktap)
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out".ktap | tail -n 1)
	passed=$((passed + ok))
	failed=$((failed + notok))
	if [ -z "$plan" ] || [ $((ok + notok)) -ne "$plan" ]; then
		result 1 "$label: suite ran to completion"
		tail -n 30 "$out".console | sed "s/^/[$label console] /"
	elif [ "$notok" -ne 0 ]; then
		grep -E 'WARNING|BUG|Call Trace|error' "$out".console |
			head -n 20 | sed "s/^/[$label console] /"
	fi
}

# boot_suite KERNEL SUITE ICOUNT TIMEOUT [kernel args]; the label and the
# output files name the kernel arguments too.
boot_suite()
{
	local k=$1 suite=$2 label="$1 $2${5:+ ${*:5}}" out

	out=$TB_OUT/$(echo "$label" | tr -c 'a-zA-Z0-9.=\n-' _)
	shift 2
	TB_ICOUNT=$1 tb_boot "$k" "$TB_OUT/initrd-$k.cpio.gz" "$suite" "$2" \
		"$out" "${@:3}"
	collect_ktap "$label" "$out"
}

# The long runs: a small guest, and the preemption models in turn.
boot_long()
{
	TB_CPUS=2 TB_MEM=256M boot_suite "$1" long 0 900 "${@:2}"
}

start=$SECONDS
tb_install || { result 1 "install packages"; echo "$passed passed, $failed failed"; exit 1; }
mkdir -p "$TB_OUT"

make -s -C "$TB_TOP/tools/unit" check >"$TB_OUT/unit.log" 2>&1
collect_summary unit "$TB_OUT/unit.log"

if tb_kernel_source >"$TB_OUT/source.log" 2>&1; then
	"$TB_SRC/scripts/checkpatch.pl" --strict --no-tree --quiet -f \
		"$TB_TOP"/tracerbench.c "$TB_TOP"/heap.c "$TB_TOP"/heap.h \
		"$TB_TOP"/stats.c "$TB_TOP"/tools/unit/*.[ch] \
		"$TB_TOP"/tools/guest/tbio.c \
		>"$TB_OUT/checkpatch.log" 2>&1
	rc=$?
	sed 's/^/[checkpatch] /' "$TB_OUT/checkpatch.log"
	result $rc "checkpatch --strict"
else
	cat "$TB_OUT/source.log"
	result 1 "checkpatch --strict (no kernel source)"
fi

# prepare KERNEL: the module built for it and an initramfs holding it
prepare()
{
	local k=$1

	if ! tb_build_module "$k"; then
		sed "s/^/[$k build] /" "$TB_OUT/build-$k/build.log"
		result 1 "$k: module builds at W=1 without warnings"
		return 1
	fi
	result 0 "$k: module builds at W=1 without warnings"
	"$TB_TOP/tools/disasm.sh" "$(tb_module "$k")" >"$TB_OUT/disasm-$k.log" 2>&1
	result $? "$k: disasm: every timed window holds its primitive only"
	sed "s/^/[$k disasm] /" "$TB_OUT/disasm-$k.log"
	tb_make_initramfs "$k" "$TB_OUT/initrd-$k.cpio.gz"
	result $? "$k: initramfs"
}

# The disassembly check can fail: a build with a sample store moved into
# every window must be refused, for that store.
check_disasm_catches()
{
	local log=$TB_OUT/disasm-selftest.log

	TB_KCFLAGS=-DTB_DISASM_SELFTEST tb_build_module "$1" -selftest ||
		return 1
	! "$TB_TOP/tools/disasm.sh" "$(tb_module "$1" -selftest)" >"$log" 2>&1 &&
		grep -q 'memory access in the window' "$log"
}
for k in $TB_KERNELS; do
	check_disasm_catches "$k"
	result $? "$k: disasm: a store moved into the windows is caught"
	break
done

for k in $TB_KERNELS; do
	prepare "$k" || continue
	boot_suite "$k" functional 0 900
	boot_suite "$k" exact 1 600
	case $k in
	6.12)
		boot_long "$k" preempt=none
		boot_long "$k" preempt=voluntary
		boot_suite "$k" headless 0 300 debugfs=off
		;;
	6.12-rt)
		boot_long "$k"
		;;
	esac
done

for k in ${TB_BUILT_KERNELS}; do
	if ! tb_build_kernel "$k"; then
		tail -n 40 "$(tb_kernel_dir "$k")/build.log" |
			sed "s/^/[$k kernel] /"
		result 1 "$k: kernel builds from linux-source-6.12"
		continue
	fi
	result 0 "$k: kernel builds from linux-source-6.12"
	prepare "$k" || continue
	case $k in
	notrace) boot_suite "$k" baseline 1 300 ;;
	trace)	boot_suite "$k" tracepoints,baseline 1 600 ;;
	debug)	boot_suite "$k" functional,faults,leaks 0 2400 ;;
	esac
done

# The comparison tool, end to end: every state measured, and the events
# cost what the trace suite says they cost.
check_compare()
{
	local log=$TB_OUT/compare.log

	"$TB_TOP/tools/compare.sh" --icount --rounds 2 >"$log" 2>&1
	local rc=$?
	sed 's/^/[compare] /' "$log"
	[ $rc = 0 ] || return 1
	awk '($1 == "irq" || $1 == "preempt" || $1 == "irq_save") &&
	    $2 ~ /^(raw_|preempt_notrace)/ {
		# the hook table: none without the tracepoints, some with
		hooks++
		if ($3 != 0 || $6 == "-" || ($1 != "irq_save" && $6 <= 0))
			bad = 1
		next
	}
	$1 == "irq" || $1 == "preempt" || $1 == "irq_save" {
		rows++
		if ($(NF - 2) == "-" || $(NF - 1) == "-" || $NF == "-")
			bad = 1
		if ($1 != "irq_save" && $(NF - 1) < 5)
			bad = 1
	} END { exit rows != 3 || hooks != 3 || bad }' "$log"
}
if [ -n "$TB_BUILT_KERNELS" ]; then
	check_compare
	result $? "compare.sh --icount: all three states, events on 5 times off, hook costs"
fi

echo "# make check took $((SECONDS - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
