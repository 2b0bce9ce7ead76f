# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# faults: fail-nth on every allocation of a load and of a run, in turn

FAULT_LIMIT=3000
# A load's points past the first that leaves a file out are all in
# tb_create_files, init's last step, which checks its top directory
# alone: each leaves a file or directory out, which the module never
# reads, and debugfs_remove_recursive takes any subset. 128 of the 144
# points a debug kernel counts (kmemleak's rejected, see fault_setup),
# some 0.4 s each: past the first FAULT_TREE_EACH of them, one in
# FAULT_TREE_STRIDE is tried, and once past the end, each of those
# skipped since the last one tried. A load failed among them would mean
# a checked step after the tree began: that is an error. Such a step
# after the tree has its points last, which are all tried; one inside
# the tree would be tried one point in FAULT_TREE_STRIDE.
FAULT_TREE_EACH=4
FAULT_TREE_STRIDE=8
# The module area, START-END as tb.modules= gives it: the host knows it
# per architecture (tools/arch/ARCH.conf).
MODULES=$(cmdline_param modules "")
MODULES_START=${MODULES%-*}
MODULES_END=${MODULES#*-}

# in_modules ADDRESS: within the module area
in_modules()
{
	[ "$(printf '%s\n%s\n' "$1" "$MODULES_START" | sort | head -n 1)" = \
	  "$MODULES_START" ] &&
	[ "$(printf '%s\n%s\n' "$1" "$MODULES_END" | sort | head -n 1)" = "$1" ]
}

# text_extent SYMS NAME: START END, the address of the kernel's one text
# symbol NAME in SYMS (a copy of /proc/kallsyms) and the next symbol's
# (the end, not in it, as reject-end takes it); 1 if NAME is not one
# symbol or none follows
text_extent()
{
	local a n

	a=$(grep " [tT] $2\$" "$1" | cut -d' ' -f1)
	[ -n "$a" ] && [ "$a" = "${a%%[!0-9a-f]*}" ] || return 1
	n=$(awk -v a="$a" '$1 > a && (n == "" || $1 < n) { n = $1 }
		END { print n }' "$1")
	[ -n "$n" ] && echo "0x$a 0x$n"
}

# Let fail-nth reach GFP_KERNEL and order-0 allocations, quietly, but only
# those with a caller in the module area: tracerbench's own, not the module
# loader's or those of the rest of the kernel.
#
# kmemleak tracks each of the module's allocations with an object that it
# allocates in __alloc_object (6.12), the module on the stack; should that
# fail, it takes one from its pool (which frees return to) and nothing
# else changes. Such a point tests kmemleak, not the module, at the cost
# of a whole load and unload: 128 of the 289 points of a load on
# x86-64's debug kernel, 75 s of its 145. The stacks through it are
# rejected where kmemleak is built in and the function is found, once.
fault_setup()
{
	local text stext reject="" syms=/tmp/kallsyms

	[ -n "$MODULES" ] || { diag "no module area (tb.modules=)"; return 1; }
	load || return 1
	# read once, not at each look: a debug kernel has many symbols
	cat /proc/kallsyms >$syms ||
		{ diag "cannot copy /proc/kallsyms"; rm -f $syms; return 1; }
	stext=0x$(grep ' _stext$' $syms | cut -d' ' -f1)
	if grep -q ' [tT] kmemleak_alloc$' $syms; then
		reject=$(text_extent $syms __alloc_object) ||
			diag "kmemleak's __alloc_object not found once: its objects' points counted"
	fi
	rm -f $syms
	text=$(cat /sys/module/tracerbench/sections/.text)
	in_modules "$text" || { diag "module text $text not in the area"; return 1; }
	in_modules "$stext" && { diag "kernel text $stext in the area"; return 1; }
	for f in failslab fail_page_alloc; do
		d=/sys/kernel/debug/$f
		[ -d $d ] || { diag "no $d"; return 1; }
		echo N >$d/ignore-gfp-wait && echo 0 >$d/verbose &&
			echo "$MODULES_START" >$d/require-start &&
			echo "$MODULES_END" >$d/require-end || return 1
		[ -z "$reject" ] || { echo "${reject% *}" >$d/reject-start &&
			echo "${reject#* }" >$d/reject-end; } || return 1
	done
	echo N >/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem &&
		echo 0 >/sys/kernel/debug/fail_page_alloc/min-order
}

# tree_count: the files and directories under $TB, in TREE_COUNT; no
# process forked, as it runs after each of some 300 loads on a debug
# kernel (test_tree took 0.6 s a load there, more than the insmod)
tree_count()
{
	local f

	TREE_COUNT=0
	for f in "$TB"/* "$TB"/*/*; do
		[ -e "$f" ] && TREE_COUNT=$((TREE_COUNT + 1))
	done
}

# A failed call must give a plain errno, not a garbled one.
is_errno()
{
	case $1 in
	E[A-Z]*)	return 0 ;;
	esac
	diag "not an errno: $1"
	return 1
}

# Fail the 1st, 2nd, ... allocation of insmod until none is left, those
# of the tree sampled (FAULT_TREE_STRIDE).
test_fault_load()
{
	local fail=0 partial=0 whole whole_loads=0 tried=0 last=0 backfill=0

	test_tree || return 1
	tree_count
	whole=$TREE_COUNT
	unload || return 1
	n=1
	while :; do
		# shellcheck disable=SC2046,SC2153 # tbio's words; ktap.sh's MODULE
		set -- $(/tests/tbio -f $n insmod "$MODULE")
		if [ "$2" = missed ]; then
			# past the end, loaded: those skipped before it, each
			[ $n -gt $((last + 1)) ] || break
			unload || { diag "fault $n: rmmod failed"; return 1; }
			n=$((last + 1)) backfill=1
			continue
		fi
		if [ "$1" = OK ]; then
			# something that may fail did: a file of the tree, whose
			# creation is not checked, as debugfs asks (only the
			# directory's is); what is there reads
			tree_count
			if [ "$TREE_COUNT" = "$whole" ]; then
				whole_loads=$((whole_loads + 1))
			else
				partial=$((partial + 1))
			fi
			[ ! -e "$TB/summary" ] || cat "$TB/summary" >/dev/null ||
				{ diag "fault $n: summary unreadable"; fail=1; }
		else
			is_errno "$1" || fail=1
			[ -d "$TB" ] && { diag "fault $n: $1 left a tree"; fail=1; }
			[ "$partial" = 0 ] ||
				{ diag "fault $n: $1 after the tree began: a checked step follows tb_create_files, whose points are sampled"; fail=1; }
		fi
		unload || { diag "fault $n: rmmod failed"; return 1; }
		tried=$((tried + 1)) last=$n n=$((n + 1))
		[ "$partial" -lt $FAULT_TREE_EACH ] || [ $backfill = 1 ] ||
			n=$((n + FAULT_TREE_STRIDE - 1))
		[ $n -le $FAULT_LIMIT ] || { diag "no end of faults"; return 1; }
	done
	diag "insmod reached $last fault points, $tried tried: $partial loaded short of a file, $whole_loads whole"
	expect "load past the last fault point" "$1" OK || fail=1
	test_defaults || fail=1
	return $fail
}

# test_fault_run FILE VALUE [CLOCK]: the same for a benchmark or percentile
# write, or a clock's, with CLOCK set first if given. A failed write is
# -ENOMEM and publishes nothing; the next one succeeds.
test_fault_run()
{
	local file=$1 value=$2 clock=${3:-} fail=0 n=1
	load || return 1
	echo 100 >"$TB/nr_samples"
	[ -z "$clock" ] || echo "$clock" >"$TB/clock" || return 1
	while :; do
		snap_results
		results=$SNAPSHOT
		# shellcheck disable=SC2046 # tbio's words: errno, missed
		set -- $(/tests/tbio -f $n write "$TB/$file" "$value")
		[ "$2" = missed ] && break
		if [ "$1" != OK ]; then
			expect "fault $n" "$1" ENOMEM || fail=1
			snap_results
			expect "results after fault $n" "$SNAPSHOT" \
				"$results" || fail=1
		fi
		expect "run after fault $n" "$(write_errno "$TB/$file" "$value")" OK ||
			fail=1
		n=$((n + 1))
		[ $n -le $FAULT_LIMIT ] || { diag "no end of faults"; return 1; }
	done
	diag "$file reached $((n - 1)) fault points"
	expect "$file past the last fault point" "$1" OK || fail=1
	set_defaults
	return $fail
}

# Allocation failures print their own reports; only real bugs count here.
test_dmesg_after_faults()
{
	local rc

	dmesg_without 'WARNING:|BUG:|Oops|sleeping function called'
	rc=$?
	dmesg -c >/dev/null
	return $rc
}

group_faults()
{
	run_test "dmesg clean before injecting" test_dmesg_clean
	dmesg -c >/dev/null
	run_test "fault injection set up" fault_setup
	run_test "every fault on load fails it cleanly" test_fault_load
	run_test "every fault in a benchmark run fails it cleanly" \
		test_fault_run benchmark 1
	run_test "every fault in a percentile run fails it cleanly" \
		test_fault_run percentile 50
	# the PMU clocks the guest serves: perf's allocations for the
	# module's counters fail too, as the module calls them
	for c in $(echo "$PMU_CLOCKS" | tr , ' ' | sed 's/none//'); do
		run_test "every fault in a write of clock $c fails it cleanly" \
			test_fault_run clock "$c"
		run_test "every fault in a benchmark run by $c fails it cleanly" \
			test_fault_run benchmark 1 "$c"
	done
	run_test "unload" unload
	run_test "no WARNING, BUG, KASAN or lockdep report under injection" \
		test_dmesg_after_faults
}
