#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check: install what is missing, run the host's checks (unit tests,
# make style, the tools' rules on made-up input), then, for each
# architecture of tools/arch/ and each of its kernels (Debian's, and
# the variants it builds from linux-source-6.12), build the
# module at W=1, disassemble its windows and run the kernel's lines of
# tools/scenarios: boots of the in-guest KTAP suites under QEMU, and
# host steps (DKMS, compare.sh, bench.sh and report.py, the tracepoint's
# NOP). Last, the documents: their pasted outputs against what the tools
# print now, their links, and the paths, options and lists they name.
#
# Each architecture's checks come in parts (tools/scenarios: debian,
# long, debug, rt, built), which run side by side, TB_JOBS (2) at a time,
# each into .out/check-ARCH-PART.log, whose lines are printed as they
# come, each whole, behind "[ARCH PART] ".
#
# Prints every result and, last, "N passed, N failed"; exits non-zero on any
# failure. TB_KERNELS="6.12" limits the Debian kernels, TB_BUILT_KERNELS the
# built ones, for a quicker loop; TB_ARCHS the architectures, all of
# tools/arch/ by default: TB_ARCHS=arm64 checks arm64 alone; TB_PARTS the
# parts, all by default: host (the host's checks) and the architectures'
# debian, long, debug, rt and built. Lists take commas or spaces. It takes
# no argument but -h/--help.
set -u
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

# words_or WORD...: "a, b or c"
words_or()
{
	local joined=$* last=${*: -1}

	[ $# -le 1 ] && { echo "$joined"; return; }
	joined=${joined% "$last"}
	echo "${joined// /, } or $last"
}

usage()
{
	cat <<EOF
usage: tools/check.sh (make check)
Install what is missing, run the host's checks, then build and boot each
architecture's kernels under QEMU with the in-guest suites; print every
result and "N passed, N failed"; exit non-zero on any failure. It takes no
argument: the environment narrows it (lists with commas or spaces):
  TB_PARTS=LIST          parts: ${TB_ALL_PARTS// /,} (default all)
  TB_ARCHS=LIST          architectures: $(tb_all_archs | tr '\n' ' ')(default all)
  TB_KERNELS=LIST        Debian kernels (default the arch's: ${TB_ARCH_KERNELS// /,})
  TB_BUILT_KERNELS=LIST  built kernels (default the arch's: ${TB_ARCH_BUILT// /,})
  TB_JOBS=N              parts run side by side (default 2)
  TB_LONG_SAMPLES=N      samples per CPU of the long boots (default 20000000)
Every TB_* variable: doc/cli.md; what each part checks: doc/testing.md.
EOF
}

tb_cli_name=check.sh
tb_cli_parse "$@"
[ $# = 0 ] ||
	tb_usage_error "takes no argument, not '$*': see TB_PARTS and the others"

passed=0
failed=0
tb_failed_names=()

# refuse WHY [STATUS]: stop before anything runs, a failure saying why,
# as a result and on stderr
refuse()
{
	echo "check.sh: $1" >&2
	result 1 "$1"
	echo "$passed passed, $failed failed"
	exit "${2:-2}"
}

TB_JOBS=${TB_JOBS:-2}
[[ $TB_JOBS =~ ^[1-9][0-9]?$ ]] ||
	refuse "TB_JOBS is a count from 1, not '$TB_JOBS'"
# The parts to run: the host's checks and the architectures' (arch_parts).
TB_PARTS=$(tb_list "${TB_PARTS:-$TB_ALL_PARTS}")
# shellcheck disable=SC2086 # TB_ALL_PARTS, a word each
for part in $TB_PARTS; do
	case " $TB_ALL_PARTS " in
	*" $part "*)	;;
	*)	refuse "TB_PARTS names $(words_or $TB_ALL_PARTS), not '$part'" ;;
	esac
done
TB_LONG_SAMPLES=${TB_LONG_SAMPLES:-20000000}
[[ $TB_LONG_SAMPLES =~ ^[1-9][0-9]{0,11}$ ]] ||
	refuse "TB_LONG_SAMPLES is a count from 1, not '$TB_LONG_SAMPLES'"

# collect_summary LABEL LOG: a test program's log, behind "[LABEL] ",
# and its results counted (count_summary)
collect_summary()
{
	sed "s/^/[$1] /" "$2"
	count_summary "$@"
}

# Count a test program's "N passed, N failed" line; none is one failure.
count_summary()
{
	local label=$1 log=$2 line p f

	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		result 1 "$label: ran to its summary line"
		return
	fi
	read -r p _ f _ <<<"$line"
	passed=$((passed + p))
	failed=$((failed + f))
	time_mark
}

# Count a guest's KTAP lines. A missing plan, or fewer results than it
# announces, means the guest died part-way: one more failure, with the
# end of its console to say why.
collect_ktap()
{
	local label=$1 out=$2 ok notok plan

	touch "$out".ktap "$out".console
	sed "s/^/[$label] /" "$out".ktap
	ok=$(grep -c '^ok ' "$out".ktap)
	notok=$(grep -c '^not ok ' "$out".ktap)
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out".ktap | tail -n 1)
	passed=$((passed + ok))
	failed=$((failed + notok))
	if [ -z "$plan" ] || [ $((ok + notok)) -ne "$plan" ]; then
		result 1 "$label: suite ran to completion"
		tail -n 30 "$out".console | sed "s/^/[$label console] /"
	elif [ "$notok" -ne 0 ]; then
		grep -E 'WARNING|BUG|Call Trace|error' "$out".console |
			head -n 20 | sed "s/^/[$label console] /"
	fi
}

# boot_suite KERNEL SUITE ICOUNT TIMEOUT [kernel args]; the label and the
# output files name the kernel arguments too, and BOOT_OUT is left the
# prefix of those files, for what reads more of them. A scenario's clock
# "tcg" runs its vCPUs in one host thread (TB_TCG_THREAD=single): with a
# thread each ("tcg-mt"), two parts' guests of 4 vCPUs put 8 threads on these
# 2 host cores, and a vCPU that spins on a lock whose holder the host has
# descheduled burns a core for nothing. Measured with both debug kernels'
# parts side by side: 548 and 639 s with a thread per vCPU, 426 and 535 s
# with one. The suites decide by state, never by timing, so they hold
# either way; the icount boots always ran so.
boot_suite()
{
	local k=$1 suite=$2 n label out s=$SECONDS

	n=$(tb_name "$k")
	label="$n $2${5:+ ${*:5}}"
	out=$TB_OUT/$(echo "$label" | tr -c 'a-zA-Z0-9.=\n-' _)
	BOOT_OUT=$out
	shift 2
	TB_ICOUNT=$1 TB_TCG_THREAD=${TB_TCG_THREAD-single} \
		tb_boot "$k" "${TB_INITRD:-$TB_OUT/initrd-$n.cpio.gz}" \
		"$suite" "$2" \
		"$out" "${@:3}"
	collect_ktap "$label" "$out"
	echo "# $label: $((SECONDS - s)) s"
	time_mark
}

# big_run KERNEL: the functional suite's big run for KERNEL, as kernel
# arguments: 10^6 samples per CPU, 10^5 on debug, where KASAN makes each
# sample several times dearer, and on rt-debug, where lockdep does, and TB_BIG_SAMPLES where the arch's file
# says. The suite's own default is 10^7, the count users publish, and
# issue 2 asks that runs of 10^7 end without a lockup or stall on
# PREEMPT_NONE, voluntary and RT kernels: the long boots run longer than
# that on 6.12 with preempt=none and voluntary and on 6.12-rt, with the
# detectors tightened. Nothing else grows with the count (a run's memory
# does not). At 10^7 on every kernel, these runs took 17 of make check's
# 44 minutes.
big_run()
{
	case $1 in
	debug | rt-debug)	echo tb.big_samples=100000 ;;
	*)	echo tb.big_samples="${TB_BIG_SAMPLES:-1000000}" ;;
	esac
}

# The long runs (tools/scenarios: a small guest, and the preemption
# models in turn) boot from a module and initramfs of their own (-long),
# as the long part runs beside the debian part. TB_LONG_SAMPLES
# per CPU: 2 x 10^7 (about 31 s under TCG, so one run covers the 18 s the
# suite runs for: 3 x 10^7 took 45 to 47 s), or 10^8 (make check-long,
# the count issue 6 names: 137 to 151 s each).

# part_kernels PART: the kernels tools/scenarios gives PART on the
# architecture, in its order, of those asked for: TB_KERNELS for Debian's
# (debian, long), TB_BUILT_KERNELS for the built ones (debug, rt, built)
part_kernels()
{
	local asked k

	case $1 in
	debian | long)	asked=$TB_KERNELS ;;
	*)		asked=$TB_BUILT_KERNELS ;;
	esac
	for k in $(tb_scenario_lines | awk -v a="$TB_ARCH" -v p="$1" \
			'$1 == a && $2 == p && !seen[$3]++ { print $3 }'); do
		case " $asked " in
		*" $k "*)	echo "$k" ;;
		esac
	done
}

# run_scenarios PART KERNEL: KERNEL's lines of tools/scenarios for the
# architecture and PART, in order: a host step, or a boot with the groups
# (and the KUnit module where kunit is one, its results read).
run_scenarios()
{
	local part=$1 k=$2 arch p kern groups clock cpus mem secs args
	local icount thread initrd n step t

	n=$(tb_name "$k")
	while read -r -u 3 arch p kern groups clock cpus mem secs args; do
		[ "$arch/$p/$kern" = "$TB_ARCH/$part/$k" ] || continue
		case $clock in
		host)
			# each step's time, as a boot's, for the budget's sake
			for step in ${groups//,/ }; do
				t=$SECONDS
				"step_${step//-/_}" "$k"
				echo "# $n $step: $((SECONDS - t)) s"
				time_mark
			done
			continue ;;
		icount)	icount=1 thread=single ;;
		tcg)	icount=0 thread=single ;;
		tcg-mt)	icount=0 thread= ;;
		esac
		args=${args//@big/$(big_run "$k")}
		args=${args//@long/tb.long_samples=$TB_LONG_SAMPLES}
		initrd=$TB_OUT/initrd-$n.cpio.gz
		[ "$part" = long ] && initrd=$TB_OUT/initrd-$n-long.cpio.gz
		case ,$groups, in
		*,kunit,*)
			build_kunit "$k" || groups=$(echo ",$groups," |
				sed 's/,kunit,/,/; s/^,//; s/,$//') ;;
		esac
		# shellcheck disable=SC2086 # args are words
		TB_CPUS=$cpus TB_MEM=$mem TB_TCG_THREAD=$thread \
			TB_INITRD=$initrd \
			boot_suite "$k" "$groups" $icount "$secs" $args
		case ,$groups, in
		*,kunit,*) collect_kunit "$n kunit" "$BOOT_OUT" ;;
		esac
	done 3< <(tb_scenario_lines)
}

start=$SECONDS
mkdir -p "$TB_OUT"

# the checks, by what they check
# shellcheck source=tools/check/host.sh
. "$TB_TOP/tools/check/host.sh"
# shellcheck source=tools/check/kernels.sh
. "$TB_TOP/tools/check/kernels.sh"
# shellcheck source=tools/check/benchmarks.sh
. "$TB_TOP/tools/check/benchmarks.sh"
# shellcheck source=tools/check/tree.sh
. "$TB_TOP/tools/check/tree.sh"
# shellcheck source=tools/check/parts.sh
. "$TB_TOP/tools/check/parts.sh"
# shellcheck source=tools/check/box.sh
. "$TB_TOP/tools/check/box.sh"
# shellcheck source=tools/check/box_target.sh
. "$TB_TOP/tools/check/box_target.sh"
# shellcheck source=tools/check/target.sh
. "$TB_TOP/tools/check/target.sh"
# shellcheck source=tools/check/lava.sh
. "$TB_TOP/tools/check/lava.sh"

# Each architecture's checks come in parts (tools/scenarios), which run
# as jobs, TB_JOBS at a time, each into .out/check-ARCH-PART.log:
#   debian	the Debian kernels: functional, exact, headless, DKMS
#   long	the long boots on the Debian kernels
#   debug	the debug kernel's suites and KUnit
#   rt		the PREEMPT_RT debug kernel's suites (rt-debug)
#   built	the other built kernels, compare.sh, then bench.sh and
#		report.py on the trace kernel and the example patches
# The architecture is loaded in each job's shell alone (run_part), and in
# subshells here, so that none depends on which another loaded last.
# No two parts build the same kernel or write the same file: the long
# boots have a module build of their own, and bench.sh's patched kernels
# are built by the built part alone.
arch_parts()
{
	local part

	for part in $TB_PARTS; do
		[ "$part" != host ] && [ -n "$(part_kernels "$part")" ] &&
			echo "$part"
	done
}

# check_part PART: a part of the architecture run_part loaded: each of
# its kernels built where it is built here, the module for it, then its
# lines of tools/scenarios
check_part()
{
	local s=$SECONDS k n t

	for k in $(part_kernels "$1"); do
		n=$(tb_name "$k")
		case $1 in
		debug | rt | built)
			t=$SECONDS
			if ! tb_build_kernel "$k"; then
				tail -n 40 "$(tb_kernel_dir "$k")/build.log" |
					sed "s/^/[$n kernel] /"
				result 1 "$n: kernel builds from linux-source-6.12"
				continue
			fi
			result 0 "$n: kernel builds from linux-source-6.12"
			echo "# $n kernel: $((SECONDS - t)) s" ;;
		esac
		case $1 in
		long)	prepare_long "$k" ;;
		*)	prepare "$k" ;;
		esac || continue
		run_scenarios "$1" "$k"
	done
	echo "# $TB_ARCH $1 took $((SECONDS - s)) s"
}

# say_cpu PREFIX: PREFIX, then the CPU time of this shell and of the
# processes it waited for, user and system, in whole seconds (bash's
# times): with the CPUs busy, what a part costs the others, which its
# time alone does not say. Called as a command: times in a subshell ($(),
# a pipe) would count that subshell's alone.
say_cpu()
{
	local f=$TB_OUT/.times-$BASHPID

	times >"$f"
	awk -v prefix="$1" '{ for (i = 1; i <= NF; i++) { split($i, t, "m");
		s += t[1] * 60 + t[2] } }
		END { printf "%s CPU %d s\n", prefix, s }' "$f"
	rm -f "$f"
}

# run_part ARCH PART: check_part in a shell of its own, which counts its
# own results and ends with its "N passed, N failed" line; ARCH "host" is
# the host's checks. The cache's entries it uses are held until it ends
# (tools/lib/cache.sh), not until make check does.
run_part()
{
	# shellcheck disable=SC2034 # read by tools/lib/cache.sh
	TB_CACHE_OWNER=$BASHPID
	passed=0
	failed=0
	time_mark
	echo "# $1 $2"
	if [ "$1" = host ]; then
		local s=$SECONDS
		check_host
		echo "# host checks took $((SECONDS - s)) s"
	else
		tb_arch_load "$1" && check_part "$2"
	fi
	say_cpu "# $1 $2:"
	echo "$passed passed, $failed failed"
}

# The parts side by side, TB_JOBS at a time: one job's guests wait on
# timers and I/O and its kernel builds on the disk, while the other's
# use the CPUs. Packages are installed, and the kernel source unpacked,
# before any job starts. The parts start longest first (as measured on
# this project's machine), so that no CPU idles at the end while one
# long part runs alone; their lines are printed as they come
# (tools/check/parts.sh), and counted in the order asked.
TB_ARCHS=$(tb_list "${TB_ARCHS-$(tb_all_archs)}")

# Installed first, once, is what this run needs and nothing else
# (tools/lib/pkg.sh): the host part's packages, and those of each
# architecture that has a part to run: an architecture none of whose
# parts runs gets neither its cross compiler nor its guests' programs,
# and with none the kernel source is not unpacked.
#
# arch_needs PART...: what the architecture loaded needs for PARTs, as
# tb_packages takes it: its guests, kernels built and the checks' tools,
# and Debian's kernels for the parts that boot them
arch_needs()
{
	local k

	echo module guest kbuild source patch git check
	case " $* " in
	*" debian "* | *" long "*)
		for k in $TB_KERNELS; do
			echo "kernel=$k"
		done ;;
	esac
}

archs='' pkgs=''
case " $TB_PARTS " in
*" host "*)
	# shellcheck disable=SC2046 # needs are words
	pkgs=$(tb_packages host $(for k in $TB_KERNELS; do echo "headers=$k"; done)) ||
		refuse "host: no packages for its part" 1 ;;
esac
for arch in $TB_ARCHS; do
	if ! (tb_arch_load "$arch"); then
		result 1 "$arch: architecture and its packages"
		continue
	fi
	ap=$(tb_arch_load "$arch" && arch_parts)
	case " $archs " in
	*" $arch "*)	continue ;;
	esac
	[ -n "$ap" ] || continue
	# shellcheck disable=SC2046,SC2086 # needs and parts are words
	pkgs="$pkgs $(tb_arch_load "$arch" && tb_packages $(arch_needs $ap))" ||
		refuse "$arch: no packages for its parts" 1
	archs="$archs $arch"
done
# install_needed: what this run needs, each package once
install_needed()
{
	# shellcheck disable=SC2046 # package names are words
	tb_install_packages $(echo "$pkgs" | tr ' ' '\n' | awk 'NF && !seen[$0]++')
}
# Debian's kernels boot under QEMU with the rig's initramfs (the box
# makes its own, tb_box_initrd). On a host that boots from no /boot/grub
# (a container, CI), each one's initramfs for the host (update-initramfs,
# about 30 CPU-s and 35 MB; Debian's hook skips it for INITRD=No) would
# go unused; where GRUB is, the newest becomes its default, and needs it.
if [ -d /boot/grub ]; then
	install_needed
else
	INITRD=No install_needed
fi || refuse "install packages" 1
for arch in $archs; do
	(tb_arch_load "$arch" && tb_guest_debs >/dev/null) && continue
	result 1 "$arch: architecture and its packages"
	archs=$(echo " $archs " | sed "s/ $arch / /")
done
[ -z "$archs" ] || tb_kernel_source || result 1 "linux-source-6.12 unpacked"
parts=
case " $TB_PARTS " in
*" host "*)	parts=host:checks ;;
esac
for arch in $archs; do
	for part in $(tb_arch_load "$arch" && arch_parts); do
		parts="$parts $arch:$part"
	done
done
# part_seconds ARCH PART: how long PART of ARCH takes, roughly: what the
# arch's file says it takes with the kernels cached, and 600 s (a kernel
# build on this machine) for each kernel it must build first, so that on
# an empty cache the parts that build most start first. Patched kernels,
# which build incrementally, are left out.
part_seconds()
{
	local secs kernels='' k

	# the host's checks, as measured
	[ "$1" = host ] && { echo 157; return; }
	tb_arch_load "$1"
	secs=$(echo " $TB_PART_SECONDS " | sed -n "s/.* $2:\([0-9]*\) .*/\1/p")
	case $2 in
	debug | rt | built)	kernels=$(part_kernels "$2") ;;
	esac
	for k in $kernels; do
		[ -f "$(tb_kernel_dir "$k")/.tb-built" ] ||
			secs=$((${secs:-0} + 600))
	done
	echo "${secs:-0}"
}

[ -n "$parts" ] ||
	refuse "TB_PARTS=\"$TB_PARTS\" and TB_ARCHS=\"$TB_ARCHS\" leave nothing to run"
# the outputs of this run's host steps for check_docs (step_speed, ...),
# emptied only once this run is sure to run: the host's checks start
# make checks that refuse
rm -rf "$TB_OUT/docs-src" && mkdir "$TB_OUT/docs-src"
queue=$(for job in $parts; do
	echo "$(part_seconds "${job%%:*}" "${job#*:}") $job"
done | sort -s -k1,1nr | cut -d' ' -f2)
# shellcheck disable=SC2086 # the jobs, a word each
run_parts $queue
time_mark
for job in $parts; do
	count_summary "${job%%:*} ${job#*:}" "$(part_log "$job")"
done

# The rig's kernels are built as Debian's are where it changes the
# measured code (tools/kconfig/): under icount the notrace kernel's
# medians are exactly those of Debian's 6.12, which has no tracepoints
# either. Both come from this run, from the first benchmark at the
# defaults of the 6.12 exact suite and of the notrace baseline suite.
debian_medians()
{
	sed -n 's/^# medians (\(.*\)): \(.*\)$/\1: \2/p' "$1" 2>/dev/null |
		head -n 1 | sed 's/ *$//'
}
case " $parts " in
*" x86_64:debian "*" x86_64:built "*)
	if (tb_arch_load x86_64 && [[ " $TB_KERNELS " = *" 6.12 "* ]] &&
	    [[ " $TB_BUILT_KERNELS " = *" notrace "* ]]); then
		debian=$(debian_medians "$TB_OUT/6.12_exact.ktap")
		built=$(debian_medians "$TB_OUT/notrace_baseline.ktap")
		echo "# icount medians, Debian 6.12: $debian"
		echo "# icount medians, notrace:     $built"
		[ -n "$debian" ] && [ "$debian" = "$built" ]
		result $? "the notrace kernel's icount medians are exactly Debian 6.12's"
	fi ;;
esac

# fresh_report NAME DIR ARG...: report.py ARGs on DIR into the fresh
# output NAME, where a step of this run left results in DIR; where it left
# none, that step failed on its own account, and the page is skipped
# rather than compared with an empty output
fresh_report()
{
	local name=$1 dir=$2

	shift 2
	[ -f "$dir/results.json" ] || return 0
	"$TB_TOP/tools/report.py" "$@" "$dir" >"$TB_OUT/docs/$name.txt"
}

# The pasted outputs of README.md and doc/ against what the tools print
# now (tools/docs.py): those of the parts this run ran, and make run, a
# minute's boot, with x86-64's Debian kernels; the links between the
# documents; and the tools/ paths, the tools' options and the lists of
# clocks, primitives and variants they name, against the tree.
# tools/unit/docs_test.py shows each check can fail.
check_docs()
{
	local d=$TB_OUT/docs docs

	docs=("$TB_TOP/README.md" "$TB_TOP"/doc/*.md)
	rm -rf "$d" && mkdir -p "$d" || return
	/usr/bin/python3 "$TB_TOP/tools/unit/docs_test.py" >"$d/unit.log" 2>&1
	collect_summary "docs unit" "$d/unit.log"
	/usr/bin/python3 "$TB_TOP/tools/docs.py" links "${docs[@]}" | sed 's/^/[docs] /'
	result "${PIPESTATUS[0]}" "docs: no dead link between README.md and doc/"
	# the paths, options and lists they name, against the tree
	/usr/bin/python3 "$TB_TOP/tools/docs.py" facts "${docs[@]}" \
		>"$d/facts.log" 2>&1
	collect_summary "docs facts" "$d/facts.log"
	case " $parts " in
	*" x86_64:debian "*)
		# x86-64's, as the README shows it
		(cd "$TB_TOP" && make --no-print-directory run TB_ARCH=) \
			>"$d/make-run.txt" 2>"$d/make-run.err" ;;
	esac
	# what this run's host steps printed (step_speed, step_tree, ...)
	cp "$TB_OUT"/docs-src/*.txt "$d/" 2>/dev/null
	case " $parts " in
	*" x86_64:built "*)
		fresh_report bench-icount "$TB_OUT/bench-icount" \
			--code --reference trace.off
		fresh_report bench-lkml "$TB_OUT/bench-icount" \
			--format lkml --reference trace --primitives irq
		fresh_report bench-tcg "$TB_OUT/bench-tcg" --alpha 0.001
		fresh_report compare "$TB_OUT/compare" ;;
	esac
	case " $parts " in
	*" arm64:built "*)
		fresh_report compare-arm64 "$TB_OUT/compare-arm64" ;;
	esac
	/usr/bin/python3 "$TB_TOP/tools/docs.py" outputs "$d" "${docs[@]}" \
		>"$d/outputs.log" 2>&1
	collect_summary docs "$d/outputs.log"
}
check_docs

# The failures again, last, where the tail of a long log (a CI's) shows
# them: each "not ok" line of the parts' and the documents' logs, behind
# any prefixes their programs gave it, and this shell's own
failures()
{
	local job f

	for job in $parts; do
		f=$(part_log "$job")
		[ -f "$f" ] || continue
		grep -E '^(\[[^]]*\] )*not ok ' "$f" | sed "s/^/[${job%%:*} ${job#*:}] /"
	done
	for f in "$TB_OUT"/docs/*.log; do
		[ -f "$f" ] || continue
		grep -E '^(\[[^]]*\] )*not ok ' "$f" | sed 's/^/[docs] /'
	done
	[ ${#tb_failed_names[@]} = 0 ] ||
		printf 'not ok - %s\n' "${tb_failed_names[@]}"
}
if [ "$failed" -ne 0 ]; then
	echo "# the failures (the first 40):"
	failures | awk '!seen[$0]++' | head -n 40 | sed 's/^/# /'
fi
say_cpu "# make check took $((SECONDS - start)) s,"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
