#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: machine.sh [options]
# What a reviewer asks of the machine a benchmark ran on, as "key value"
# lines for a results directory's env: its name, the CPU, its microcode,
# the CPUs and cores, SMT, the cpufreq governor and limits, turbo,
# isolated and nohz_full CPUs, the command line, the mitigations and the
# load. Then a "warning.WHAT TEXT" line (WHAT: governor, turbo, smt,
# load, boot) for each thing that makes figures noisier: a governor
# other than performance, turbo on, an SMT sibling of a measured CPU
# online, a load average above 0.5, a start-up of systemd's not ended
# (--settle). POSIX sh and awk (and coreutils' timeout for --settle,
# which a machine with systemd has): tools/bench.sh runs it on its own
# machine (--host) and on a test box (--target).
# options (--opt VALUE or --opt=VALUE):
#   --cpus LIST       the CPUs measured, as the module's cpus file takes
#                     them (default: all online)
#   --prefix P        put P before every key (default none)
#   --settle SECS     on a machine booted with systemd, wait first for its
#                     start-up to end (its services started), SECS at
#                     most; warn if it had not (default 0: no wait)
#   -h, --help        print this and exit

SYS=${SYS:-/sys/devices/system/cpu}
PROC=${PROC:-/proc}
RUN=${RUN:-/run}

usage()
{
	awk '/^# usage:/ { on = 1 } on { l = $0; sub(/^# ?/, "", l); print l } /^#   -h, --help/ { exit }' "$0"
}

usage_error()
{
	echo "machine.sh: $*" >&2
	usage | sed -n '1s/$/ (--help for more)/p' >&2
	exit 2
}

cpus=all prefix='' settle=0
while [ $# -gt 0 ]; do
	opt=$1 val='' has_val=0
	case $1 in
	--*=*)	opt=${1%%=*} val=${1#*=} has_val=1 ;;
	esac
	shift
	case $opt in
	--cpus | --prefix | --settle)
		if [ $has_val = 0 ]; then
			[ $# -gt 0 ] || usage_error "$opt wants a value"
			val=$1
			shift
		fi ;;
	-h | --help)
		usage
		exit 0 ;;
	*)	usage_error "unknown argument $opt" ;;
	esac
	case $opt in
	--cpus)		cpus=$val ;;
	--prefix)	prefix=$val ;;
	--settle)	settle=$val ;;
	esac
done
case $settle in
'' | *[!0-9]*)	usage_error "--settle wants whole seconds, not '$settle'" ;;
esac

# expand LIST: a CPU list (0-3,8) as numbers, one a line
expand()
{
	echo "$1" | tr ',' '\n' | awk -F- '
		/^[0-9]+$/ { print; next }
		/^[0-9]+-[0-9]+$/ { for (i = $1; i <= $2; i++) print i; next }
		NF { bad = 1 }
		END { exit bad }'
}

online=$(cat "$SYS/online" 2>/dev/null)
if [ "$cpus" = all ]; then
	measured=$online
else
	measured=$cpus
fi
list=$(expand "$measured") || usage_error "--cpus wants a CPU list such as 0-3,8, not '$cpus'"

# A box booted with systemd goes on starting its services after sshd
# answers: a run begun then shares the CPUs with them. Wait for the end
# of its start-up (running, or degraded: a unit failed), SECS at most;
# where there is no timeout to bound the wait, none.
boot_state=
if [ "$settle" -gt 0 ] && [ -d "$RUN/systemd/system" ]; then
	if command -v timeout >/dev/null 2>&1; then
		timeout "$settle" systemctl is-system-running --wait >/dev/null 2>&1
		waited="after waiting up to $settle s"
	else
		waited="not waited for (no timeout here)"
	fi
	boot_state=$(systemctl is-system-running 2>/dev/null)
fi

fact()
{
	printf '%s%s %s\n' "$prefix" "$1" "$2"
}

# readable FILE: a regular file this shell may read (a directory or an
# unreadable file stops some awks, and read fails on it)
readable()
{
	[ -f "$1" ] && [ -r "$1" ]
}

# first FILE...: the first line of the first readable FILE, or nothing.
# The shell's read, not head: running a program costs a box under QEMU
# about 20 ms, and this runs at every boot, twice for each online CPU.
first()
{
	for f in "$@"; do
		readable "$f" || continue
		line=
		IFS= read -r line <"$f"
		printf '%s\n' "$line"
		return 0
	done
	return 1
}

# the first value of each cpuinfo key the facts want, a line each, in
# one awk: "model name" (x86), "CPU part" (arm64), microcode
{ IFS= read -r model; IFS= read -r part; IFS= read -r ucode; } <<EOF
$(awk 'function take(i, key,  rest) {
		if (v[i] != "" || index($0, key) != 1) return
		rest = substr($0, length(key) + 1)
		if (sub(/^[ \t]*: /, "", rest)) v[i] = rest
	}
	{ take(1, "model name"); take(2, "CPU part"); take(3, "microcode") }
	END { print v[1]; print v[2]; print v[3] }' "$PROC/cpuinfo" 2>/dev/null)
EOF
fact hostname "$(uname -n)"
fact cpu_model "${model:-${part:-unknown}}"
fact microcode "${ucode:-unknown}"
fact online_cpus "${online:-unknown}"
fact measured_cpus "$measured"
# cores: distinct (package, core) pairs of the online CPUs
cores=$(for c in $(expand "$online"); do
	t=$SYS/cpu$c/topology
	echo "$(first "$t/physical_package_id"):$(first "$t/core_id")"
done | sort -u | wc -l)
fact cores "$cores"
fact smt "$(first "$SYS/smt/control" || echo unknown)"
fact governor "$(first "$SYS/cpu0/cpufreq/scaling_governor" || echo none)"
fact freq_min_khz "$(first "$SYS/cpu0/cpufreq/scaling_min_freq" || echo unknown)"
fact freq_max_khz "$(first "$SYS/cpu0/cpufreq/scaling_max_freq" || echo unknown)"
# turbo: intel_pstate says it the other way round
turbo=unknown
if [ -r "$SYS/intel_pstate/no_turbo" ]; then
	case $(first "$SYS/intel_pstate/no_turbo") in
	0)	turbo=on ;;
	1)	turbo=off ;;
	esac
elif [ -r "$SYS/cpufreq/boost" ]; then
	case $(first "$SYS/cpufreq/boost") in
	0)	turbo=off ;;
	1)	turbo=on ;;
	esac
fi
fact turbo "$turbo"
fact isolated "$(first "$SYS/isolated" | grep . || echo none)"
fact nohz_full "$(first "$SYS/nohz_full" | grep -v '(null)' | grep . || echo none)"
fact cmdline "$(first "$PROC/cmdline")"
# the mitigations: each vulnerability the kernel names, and its state
# (the files awk can read: some awks stop at one they cannot)
set --
for v in "$SYS"/vulnerabilities/*; do
	readable "$v" && set -- "$@" "$v"
done
mit=$([ $# = 0 ] || awk 'FNR == 1 { n = FILENAME; sub(/.*\//, "", n)
		sub(/:.*/, ""); gsub(/ /, "_"); printf "%s=%s;", n, $0 }' "$@")
fact mitigations "${mit:-unknown}"
load=
read -r load _ <"$PROC/loadavg"
fact load "$load"

# The warnings, each once.
gov=$(first "$SYS/cpu0/cpufreq/scaling_governor")
[ -z "$gov" ] || [ "$gov" = performance ] ||
	fact warning.governor "the cpufreq governor is $gov, not performance: the clock speed may change under the runs"
[ "$turbo" = on ] &&
	fact warning.turbo "turbo/boost is on: the clock speed follows temperature and load"
for c in $list; do
	sib=$(first "$SYS/cpu$c/topology/thread_siblings_list")
	[ -n "$sib" ] || continue
	for s in $(expand "$sib"); do
		[ "$s" = "$c" ] && continue
		[ "$(first "$SYS/cpu$s/online" || echo 1)" = 1 ] &&
			echo "$s of $c"
	done
done | sort -u | head -n 1 | while read -r s _ c; do
	fact warning.smt "SMT sibling $s of measured CPU $c is online: it shares the core's pipeline"
done
awk -v l="$load" 'BEGIN { exit !(l > 0.5) }' &&
	fact warning.load "the load average was $load at the start, above 0.5: other work shares the CPUs"
case ${boot_state:-running} in
running | degraded)	;;
*)	fact warning.boot "systemd was $boot_state, not running, $waited: its services may share the CPUs" ;;
esac
exit 0
