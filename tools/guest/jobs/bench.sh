# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# bench: no checks: collect.sh's results, for tools/bench.sh

# One boot's share of tools/bench.sh's rounds: collect.sh's results as
# "# @@ PATH" blocks, for the host to put back together.
test_collect()
{
	/tests/collect.sh --emit --rounds "$(cmdline_param rounds 1)" \
		--first-round "$(cmdline_param round 1)" \
		--label "$(cmdline_param labels host)" \
		--states "$(cmdline_param states '')" \
		--nr-samples "$(cmdline_param nr_samples "$TB_C_DEFAULT_SAMPLES")" \
		--do-work="$(cmdline_param do_work 0)" \
		--batch "$(cmdline_param batch 1)" \
		--clock "$(cmdline_param clock '')" \
		--skip "$(cmdline_param skip '')" /tmp/results
}

group_bench()
{
	run_test "load" load
	run_test "collect" test_collect
	run_test "unload" unload
}
