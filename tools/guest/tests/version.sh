# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# version: the module carries the version it was built as, tb.version=

test_version()
{
	expect "/sys/module/tracerbench/version" \
		"$(cat /sys/module/tracerbench/version)" \
		"$(cmdline_param version "no tb.version=")"
}

group_version()
{
	run_test "load" load
	run_test "version in sysfs is tb.version=" test_version
	run_test "benchmark: results consistent" test_run_sane
	run_test "unload" unload
}
