#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tb-cli: guest-only: the guest's init runs it (tools/lib/qemu.sh)
#
# In-guest tests of tracerbench, in KTAP. Run as root in a guest whose
# initramfs has /tracerbench.ko, with debugfs mounted:
#
#	suite.sh GROUP...
#
# A GROUP is the function group_GROUP of a file below this one's
# directory, whose head says what it does: tests/GROUP.sh, a group of
# tests (functional, exact, long, stall, headless, tracepoints, baseline,
# faults, leaks, memory, version, kunit; cost and speed time runs and
# check nothing), or jobs/GROUP.sh, the guest side of a host tool, which
# checks nothing (collect, scale, show). What they share is in
# ktap.sh, tests/common.sh and tests/running.sh; the functional group's
# tests of the clocks are in tests/clocks.sh.
#
# Groups take parameters from the kernel command line (tb.NAME=). The run
# ends by checking dmesg. The plan line comes last, so a guest that dies
# part-way leaves no plan and the host counts that as a failure.

# Every file is read at the start, so that any boot fails on a file the
# shell cannot parse, whichever groups it runs.
GUEST=${0%/*}
for f in "$GUEST"/ktap.sh "$GUEST"/tests/*.sh "$GUEST"/jobs/*.sh; do
	# shellcheck source=/dev/null # every group's file, by a glob
	. "$f"
done

# All the CPUs QEMU was given (tb.cpus=) are online: runs measure on all.
test_all_cpus_online()
{
	cpus=$(cmdline_param cpus 1)
	want=0
	[ "$cpus" -gt 1 ] && want="0-$((cpus - 1))"
	expect "present CPUs" "$(cat /sys/devices/system/cpu/present)" $want &&
		expect "online CPUs" "$(cat /sys/devices/system/cpu/online)" $want
}

echo "KTAP version 1"
# a board's (bench.sh --lava) has no tb.cpus: as many CPUs as it has
[ "$1" = show ] || [ -z "$(cmdline_param cpus '')" ] ||
	run_test "every present CPU online" test_all_cpus_online
# What the kernel reported before the module was loaded is not ours. The
# leaks group scans when it needs to: kmemleak's own thread, which would
# scan all memory a minute after boot and every ten, is stopped.
if [ -w "$KMEMLEAK" ]; then
	echo scan=off >"$KMEMLEAK"
	echo scan >"$KMEMLEAK"
	echo clear >"$KMEMLEAK"
fi
for group in "$@"; do
	if ! command -v "group_$group" >/dev/null; then
		diag "unknown group $group"
		ktap_result 1 "group $group"
		continue
	fi
	"group_$group"
	group_rc=$?
	# show prints its table alone
	[ "$group" != show ] || exit $group_rc
done
run_test "dmesg: no warning, lockdep, lockup, stall or KASAN report" \
	test_dmesg_clean
# shellcheck disable=SC2154 # ktap.sh's counts
echo "1..$nr_tests"
# shellcheck disable=SC2154 # ktap.sh's counts
echo "# $((nr_tests - nr_failed)) passed, $nr_failed failed"
