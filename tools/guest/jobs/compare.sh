# SPDX-License-Identifier: GPL-2.0-only
#
# compare: no checks: measure.sh's samples, for tools/compare.sh; takes
# tb.rounds=, tb.nr_samples=, tb.do_work= and tb.batch=

test_compare_setup()
{
	echo "$(cmdline_param nr_samples 10000)" >$TB/nr_samples &&
		echo "$(cmdline_param do_work 0)" >$TB/do_work &&
		echo "$(cmdline_param batch 1)" >$TB/batch
}

group_compare()
{
	run_test "load" load
	run_test "configure" test_compare_setup
	run_test "measure" /tests/measure.sh "$(cmdline_param rounds 5)"
	run_test "unload" unload
}
