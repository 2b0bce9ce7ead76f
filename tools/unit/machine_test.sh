#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/guest/machine.sh on made-up machines (SYS and PROC pointed at a
# temporary tree): the facts it reads, and a warning for each of the
# governor, turbo, an online SMT sibling of a measured CPU and the load,
# each on its own and none on a quiet machine; --settle's wait for
# systemd's start-up, through a stand-in systemctl. Prints "ok - ..." or
# "not ok - ..." a check, then "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
# shellcheck source=tools/lib/harness.sh
. "$top/tools/lib/harness.sh"

# machine GOVERNOR NO_TURBO SIBLING_ONLINE LOAD: a made-up machine of
# four CPUs, two cores of two threads each (0,2 and 1,3), in $tmp/m
machine()
{
	local s=$tmp/m/sys c

	rm -rf "$tmp/m"
	mkdir -p "$s/smt" "$s/intel_pstate" "$s/vulnerabilities" "$tmp/m/proc"
	echo 0-3 >"$s/online"
	echo on >"$s/smt/control"
	echo "$2" >"$s/intel_pstate/no_turbo"
	echo 2 >"$s/isolated"
	echo "(null)" >"$s/nohz_full"
	echo "Mitigation: PTI" >"$s/vulnerabilities/meltdown"
	echo "Not affected" >"$s/vulnerabilities/l1tf"
	for c in 0 1 2 3; do
		mkdir -p "$s/cpu$c/topology" "$s/cpu$c/cpufreq"
		echo 0 >"$s/cpu$c/topology/physical_package_id"
		echo $((c % 2)) >"$s/cpu$c/topology/core_id"
		echo "$((c % 2)),$((c % 2 + 2))" >"$s/cpu$c/topology/thread_siblings_list"
		echo 1 >"$s/cpu$c/online"
		echo "$1" >"$s/cpu$c/cpufreq/scaling_governor"
	done
	echo "$3" >"$s/cpu2/online"
	echo 800000 >"$s/cpu0/cpufreq/scaling_min_freq"
	echo 3500000 >"$s/cpu0/cpufreq/scaling_max_freq"
	printf 'processor\t: 0\nmodel name\t: Made-up CPU 9000\nmicrocode\t: 0x2a\n' \
		>"$tmp/m/proc/cpuinfo"
	echo "root=/dev/sda1 isolcpus=2" >"$tmp/m/proc/cmdline"
	echo "$4 0.30 0.20 1/100 42" >"$tmp/m/proc/loadavg"
}

facts()
{
	SYS=$tmp/m/sys PROC=$tmp/m/proc sh "$top/tools/guest/machine.sh" "$@"
}

machine performance 1 0 0.10
out=$(facts --cpus 0)
want="hostname $(uname -n)
cpu_model Made-up CPU 9000
microcode 0x2a
online_cpus 0-3
measured_cpus 0
cores 2
smt on
governor performance
freq_min_khz 800000
freq_max_khz 3500000
turbo off
isolated 2
nohz_full none
cmdline root=/dev/sda1 isolcpus=2
mitigations l1tf=Not_affected;meltdown=Mitigation;
load 0.10"
[ "$out" = "$want" ]
result $? "a quiet machine: its facts, and no warning"
[ "$out" = "$want" ] || diff <(echo "$want") <(echo "$out")

# each warning alone: ARGS of machine, --cpus, the warning's words
while IFS='|' read -r args cpus words; do
	# shellcheck disable=SC2086 # the made-up machine's words
	machine $args
	out=$(facts --cpus "$cpus" | grep '^warning\.')
	[ "$(echo "$out" | grep -c .)" = 1 ] && echo "$out" | grep -q "$words"
	result $? "warns of $words, and of nothing else: $out"
done <<'EOF'
powersave 1 0 0.10|0|governor is powersave
performance 0 0 0.10|0|turbo/boost is on
performance 1 1 0.10|0|SMT sibling 2 of measured CPU 0 is online
performance 1 1 0.10|1|SMT sibling 3 of measured CPU 1 is online
performance 1 0 0.51|0|load average was 0.51
EOF
machine performance 1 1 0.10
out=$(facts --cpus 1 --prefix box_ | grep -c '^box_warning.smt SMT sibling 3')
[ "$out" = 1 ]
result $? "--prefix names every key, the warnings' too"
# an arm64 machine of few files: no cpufreq, SMT control, turbo, isolated
# list, mitigations or microcode; its model is the CPU part, whose line
# ends without a newline
machine performance 1 1 0.10
rm -r "$tmp/m/sys/cpu0/cpufreq" "$tmp/m/sys/smt" "$tmp/m/sys/intel_pstate" \
	"$tmp/m/sys/isolated" "$tmp/m/sys/vulnerabilities"
printf 'processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c' >"$tmp/m/proc/cpuinfo"
out=$(facts --cpus 0 | grep -v '^hostname \|^cmdline \|^load \|^warning\.')
want="cpu_model 0xd0c
microcode unknown
online_cpus 0-3
measured_cpus 0
cores 2
smt unknown
governor none
freq_min_khz unknown
freq_max_khz unknown
turbo unknown
isolated none
nohz_full none
mitigations unknown"
[ "$out" = "$want" ]
result $? "a machine without the optional files: each fact unknown or none"
[ "$out" = "$want" ] || diff <(echo "$want") <(echo "$out")
# a directory first among the vulnerabilities, which awk cannot read, and no
# loadavg, with a load in the caller's environment: the other
# vulnerabilities still named, the load empty and not warned of. Under
# mawk, Debian's awk (a box's), which stops at a file it cannot read
# where gawk goes on.
machine performance 1 1 0.10
mkdir "$tmp/m/sys/vulnerabilities/gather_data_sampling" "$tmp/mawk"
ln -s "$(command -v mawk)" "$tmp/mawk/awk"
rm "$tmp/m/proc/loadavg"
out=$(PATH=$tmp/mawk:$PATH load=7.5 facts --cpus 0 2>/dev/null |
	grep '^mitigations \|^load\|^warning\.load')
want="mitigations l1tf=Not_affected;meltdown=Mitigation;
load "
[ "$out" = "$want" ]
result $? "an unreadable vulnerability skipped, a missing loadavg an empty load"
[ "$out" = "$want" ] || diff <(echo "$want") <(echo "$out")
facts --cpus 0-x >/dev/null 2>&1
[ $? = 2 ]
result $? "a bad --cpus list is a usage error (exit 2)"

# --settle SECS on a machine booted with systemd (RUN/systemd/system):
# a stand-in systemctl whose start-up ends after STAND_IN_SECS seconds,
# or never (its state then STAND_IN_STATE), logging its calls
machine performance 1 0 0.10
mkdir -p "$tmp/m/run/systemd/system" "$tmp/bin"
cat >"$tmp/bin/systemctl" <<'SH'
#!/bin/sh
echo "$*" >>"$STAND_IN_LOG"
if [ "$*" = "is-system-running --wait" ]; then
	sleep "$STAND_IN_SECS"
	echo "waited $STAND_IN_SECS s" >>"$STAND_IN_LOG"
fi
echo "$STAND_IN_STATE"
SH
chmod +x "$tmp/bin/systemctl"
# settle SECS STATE [STAND_IN_SECS]: machine.sh --settle SECS's warnings
settle()
{
	: >"$tmp/calls"
	PATH=$tmp/bin:$PATH RUN=$tmp/m/run STAND_IN_LOG=$tmp/calls \
		STAND_IN_STATE=$2 STAND_IN_SECS=${3:-0} \
		facts --cpus 0 --settle "$1" | grep '^warning\.'
}
while IFS='|' read -r secs state stand_in want; do
	out=$(settle "$secs" "$state" "$stand_in")
	[ "$out" = "$want" ]
	result $? "--settle $secs, systemd $state after ${stand_in:-0} s: warns '$want'"
done <<'EOF'
5|running|0|
5|degraded|0|
1|starting|30|warning.boot systemd was starting, not running, after waiting up to 1 s: its services may share the CPUs
EOF
settle 5 running >/dev/null
grep -qx 'is-system-running --wait' "$tmp/calls"
result $? "--settle waits for systemd's start-up"
# the wait cut at SECS: the stand-in never said it ended
settle 1 starting 30 >/dev/null
! grep -q '^waited' "$tmp/calls"
result $? "--settle 1 ends the wait after a second"
# without timeout(1): no wait, and the warning says so
mkdir -p "$tmp/notimeout"
for p in sh awk sed grep cat sort wc tr head uname; do
	ln -sf "$(command -v $p)" "$tmp/notimeout/$p"
done
out=$(PATH=$tmp/bin:$tmp/notimeout RUN=$tmp/m/run STAND_IN_LOG=$tmp/calls \
	STAND_IN_STATE=starting STAND_IN_SECS=30 \
	SYS=$tmp/m/sys PROC=$tmp/m/proc "$tmp/notimeout/sh" "$top/tools/guest/machine.sh" \
	--cpus 0 --settle 5 | grep '^warning\.boot')
[ "$out" = "warning.boot systemd was starting, not running, not waited for (no timeout here): its services may share the CPUs" ]
result $? "--settle where timeout(1) is missing: no wait, and the warning says so: $out"
settle 0 starting 30 >/dev/null
[ ! -s "$tmp/calls" ]
result $? "no --settle: no wait, no warning"
rm -r "$tmp/m/run/systemd"
out=$(settle 5 starting 30)
[ -z "$out" ] && [ ! -s "$tmp/calls" ]
result $? "--settle on a machine not booted with systemd (systemctl there all the same): no wait"
facts --settle 1x >/dev/null 2>&1
[ $? = 2 ]
result $? "a bad --settle is a usage error (exit 2)"

echo "$passed passed, $failed failed"
[ $failed = 0 ]
