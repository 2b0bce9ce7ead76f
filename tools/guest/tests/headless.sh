# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=dash # busybox ash, as dash with local
#
# headless: insmod run=1, booted with debugfs=off: the summary in the
# kernel log

# Without debugfs, run=1 still measures, and the kernel log is the output.
test_headless_locked()
{
	local fail=0 log v ncpu
	grep -q ' debugfs ' /proc/mounts && { diag "debugfs is mounted"; return 1; }
	insmod "$MODULE" run=1 nr_samples=1000 || { diag "insmod failed"; return 1; }
	ncpu=$(expand_cpulist "$(online_cpus)" | wc -l)
	log=$(dmesg | sed -n 's/^\[[^]]*\] tracerbench: //p')
	for v in "run 1" "nr_samples 1000" "irq.samples $((ncpu * 1000))"; do
		echo "$log" | grep -qxF "$v" || { diag "no '$v' logged"; fail=1; }
	done
	echo "$log" | grep -q '^no debugfs files (' ||
		{ diag "no word that debugfs is missing"; fail=1; }
	logged_key preempt.p99.9 "$log" && logged_key irq_save.max_avg "$log" ||
		fail=1
	[ -d /sys/module/tracerbench ] || { diag "not loaded"; fail=1; }
	rmmod tracerbench || fail=1
	return $fail
}

group_headless()
{
	run_test "headless: run=1 without debugfs logs the summary" \
		test_headless_locked
}
