# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# timing: no checks: how long a run of the default settings takes

group_timing()
{
	run_test "load" load
	run_test "default run" sh -c "echo 1 >$TB/benchmark"
	diag "default run: $(summary_key duration_ns) ns"
	run_test "unload" unload
}
