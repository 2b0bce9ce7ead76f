# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# long: a long run (tb.long_samples= per CPU, 10^8 by default) in a small
# guest, with the lockup detectors tightened

# With preempt=MODEL on the command line, that model is the one in force.
test_preempt_model()
{
	model=$(cat /sys/kernel/debug/sched/preempt 2>/dev/null)
	diag "preemption: ${model:-fixed at build time}"
	want=$(sed -n 's/.*preempt=\([a-z]*\).*/\1/p' /proc/cmdline)
	[ -z "$want" ] && return 0
	case $model in
	*"($want)"*)	return 0 ;;
	esac
	diag "booted with preempt=$want"
	return 1
}

# The long run's size, per CPU: tb.long_samples=, 10^8 by default (the
# count issue 6 names). tools/check.sh gives make check 2 x 10^7, as
# good a test with the watchdogs tightened
# (test_tighten_watchdogs), and check-long 10^8.
LONG_SAMPLES=$(cmdline_param long_samples 100000000)

# LONG_SAMPLES per CPU at least: the memory of a run does not grow with
# them, so this fits a guest of 256 MiB.
test_huge_run()
{
	cover_detectors "$LONG_SAMPLES"
}

group_long()
{
	run_test "load" load
	run_test "preemption model as booted" test_preempt_model
	run_test "lockup detectors tightened" test_tighten_watchdogs
	run_test "runs of $LONG_SAMPLES samples per CPU, outlasting the detectors, none reports" \
		test_huge_run
	run_test "lockup detectors as they were" test_restore_watchdogs
	run_test "unload" unload
}
