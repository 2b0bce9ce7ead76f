# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# kunit: on a kernel with KUnit, load tracerbench_kunit.ko, which runs the
# KUnit suites of the pure helpers, and pass their KTAP on as "# kunit: "
# lines

KUNIT_MODULE=/tracerbench_kunit.ko
KUNIT_MARK="tracerbench: loading the KUnit suites"
KUNIT_END="tracerbench: the KUnit suites are loaded"

# Loading the module runs its suites, which print KTAP to the kernel log.
# Follow /dev/kmsg meanwhile and pass the log between the two marks on as
# "# kunit: " diagnostics, which the host counts case by case. They go out
# line by line, so that a guest that dies in a suite still reports what ran
# before it. A record is "level,seq,time,flags;text"; lines that start with
# a space continue the record before.
test_kunit_load()
{
	local rc cat_pid awk_pid n=0

	rm -f /tmp/kmsg && mkfifo /tmp/kmsg || return 1
	cat /dev/kmsg >/tmp/kmsg &
	cat_pid=$!
	awk -v mark="$KUNIT_MARK" -v end="$KUNIT_END" '
	!/^[0-9]+,[0-9]+,[0-9]+,[^;]*;/ { next }
	{ msg = $0; sub(/^[^;]*;/, "", msg) }
	msg == end { exit }
	on { print "# kunit: " msg; fflush() }
	msg == mark { on = 1 }' </tmp/kmsg &
	awk_pid=$!
	echo "$KUNIT_MARK" >/dev/kmsg
	insmod $KUNIT_MODULE
	rc=$?
	echo "$KUNIT_END" >/dev/kmsg
	# a bound for hangs only (300 s)
	while kill -0 $awk_pid 2>/dev/null && [ $n -lt 3000 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	kill $cat_pid $awk_pid 2>/dev/null
	wait $cat_pid $awk_pid 2>/dev/null
	[ $n -lt 3000 ] || { diag "the end of the KUnit log never came"; rc=1; }
	return $rc
}

group_kunit()
{
	run_test "kunit: the module loads and runs its suites" test_kunit_load
	run_test "kunit: the module unloads" rmmod tracerbench_kunit
}
