# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Guests: the initramfs, a QEMU boot, and what booting one kernel takes. Sourced by tools/lib.sh.

# Pack busybox, the guest scripts and the module for kernel $1 into $2,
# with bash, tools/compare.sh and tools/bench.sh under /tb, so that the
# guest can run them as a real machine would, and the module's facts from
# its C, which a guest without Python reads from /tb/.cfacts.sh (tb_cfacts). A third argument packs that
# tracerbench.ko instead, e.g. one DKMS built, and any more go into / as
# they are. The programs are the guest architecture's (tb_guest_debs,
# TB_GUEST_CC).
tb_make_initramfs()
{
	local root debs

	debs=$(tb_guest_debs) || return 1
	[ -n "$TB_GUEST_SPIN_HINT" ] || {
		echo "tracerbench: tools/arch/$TB_ARCH.conf sets no TB_GUEST_SPIN_HINT" >&2
		return 1
	}
	root=$(mktemp -d) || return 1
	mkdir -p "$root"/bin "$root"/dev "$root"/proc "$root"/sys "$root"/tmp \
		"$root"/tests "$root"/tb/tools/guest "$root"/tb/tools/arch \
		"$root"/tb/tools/lib
	$TB_GUEST_CC -static -O2 -Wall -Werror \
		-DTB_SPIN_HINT="\"$TB_GUEST_SPIN_HINT\"" -o "$root"/tests/tbio \
		"$TB_TOP"/tools/guest/tbio.c &&
		cp "$debs"/bin/busybox "$root"/bin/ &&
		cp "$debs"/bin/bash-static "$root"/bin/bash &&
		cp "$TB_TOP"/tools/compare.sh "$TB_TOP"/tools/lib.sh \
			"$root"/tb/tools/ &&
		cp "$TB_TOP"/tools/lib/*.sh "$root"/tb/tools/lib/ &&
		/usr/bin/python3 "$TB_TOP"/tools/cfacts.py >"$root"/tb/.cfacts.sh &&
		cp "$TB_TOP"/tools/arch/*.conf "$root"/tb/tools/arch/ &&
		cp "$TB_TOP"/tools/bench.sh "$root"/tb/tools/ &&
		cp "$TB_TOP"/tools/guest/collect.sh \
			"$TB_TOP"/tools/guest/json.sh "$root"/tb/tools/guest/ &&
		cp "$TB_TOP"/tools/guest/init "$root"/init &&
		cp "$TB_TOP"/tools/guest/*.sh "$root"/tests/ &&
		cp -R "$TB_TOP"/tools/guest/tests "$TB_TOP"/tools/guest/jobs \
			"$root"/tests/ &&
		cp "${3:-$(tb_module "$1")}" "$root"/tracerbench.ko &&
		{ [ $# -le 3 ] || cp "${@:4}" "$root"/; } &&
		chmod +x "$root"/init "$root"/tests/*.sh &&
		(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$2"
	local rc=$?
	rm -rf "$root"
	return $rc
}

# QEMU's -icount of an exact guest clock (bench.sh --icount): a tick per
# instruction, and no sleeping while the vCPUs idle
TB_ICOUNT_ARG=shift=0,sleep=off
# Guest size; the long suite asks for a small one.
TB_CPUS=${TB_CPUS:-4}
TB_MEM=${TB_MEM:-1G}
# tb_ktap_passed OUT: the boot whose KTAP is OUT.ktap printed its plan
# and no "not ok"
tb_ktap_passed()
{
	grep -q '^1\.\.' "$1.ktap" && ! grep -q '^not ok' "$1.ktap"
}

# tb_boot_checked TOOL KERNEL INITRD GROUP TIMEOUT OUT [KERNEL_ARG...]:
# tb_boot, then, unless it passed, its KTAP on stderr, where its console
# is, and false
tb_boot_checked()
{
	local tool=$1

	shift
	tb_boot "$@"
	tb_ktap_passed "$5" && return 0
	cat "$5.ktap" >&2
	echo "$tool: the guest failed; see $5.console" >&2
	return 1
}


# TCG's translation cache, in MiB (QEMU's is 1 GiB). What TCG translated
# stays there until the cache fills and QEMU empties it whole, and while
# a page holds any of it, each write to that page takes TCG's slow path.
# A kernel that kexecs into another leaves all its code there: with
# QEMU's size, six kexecs of the box into Debian's 6.12 answered ssh in
# 10 to 28 s; with this one, which fills sooner, in 8.8 to 9.2 s.
TB_TCG_CACHE_MIB=128

# tb_tcg_accel THREAD: QEMU's -accel for TCG, with the vCPUs in one host
# thread if THREAD is single (a thread each if empty)
tb_tcg_accel()
{
	echo "tcg${1:+,thread=$1},tb-size=$TB_TCG_CACHE_MIB"
}

# tb_boot KERNEL INITRD SUITES TIMEOUT OUTPREFIX [extra kernel args]
# Runs the guest suites SUITES (comma separated). The console goes to
# OUTPREFIX.console, the suites' KTAP output to OUTPREFIX.ktap. Set
# TB_ICOUNT=1 for a deterministic guest clock, TB_TCG_THREAD=single to run
# every vCPU in one host thread (QEMU's default is a thread each; icount
# always runs them in one).
tb_boot()
{
	local kernel=$1 initrd=$2 suites=$3 secs=$4 out=$5
	local accel=(-accel "$(tb_tcg_accel "${TB_TCG_THREAD-}")") lpj

	shift 5
	lpj=$(tb_guest_lpj "$kernel")
	# TCG at times runs a static key patch's transient int3 after the
	# patch is done, an Oops in sched_clock_cpu (seen on 6.12 and 6.12-rt)
	# when live code is patched while other vCPUs run it. Two such patches
	# come without a test asking for them:
	# - the clocksource watchdog marks a drifting TCG TSC unstable when
	#   the host is busy: tsc=reliable, the guests' figures need no
	#   watchdog (x86, TB_ARCH_APPEND);
	# - sched_clock_init_late() marks sched_clock stable at boot: boot
	#   with one CPU (maxcpus=1) and let the guest's init online the rest.
	#   This also keeps 6.1 under icount from hanging while it brings up
	#   secondary CPUs at boot.
	#   Both are x86's (text_poke_bp()'s int3): arm64 patches under
	#   stop_machine(), and its guests boot every CPU (TB_ONE_CPU=0), so
	#   that each CPU's fair server gets its parameters at boot.
	# The tools that turn the preemptirq events on and off while every
	# vCPU runs (bench.sh, compare.sh) boot with TB_TCG_THREAD=single,
	# where one host thread runs the vCPUs in turn and no stale int3 is
	# run: with a thread each, 300 on/off pairs of the trace kernel's
	# events beside four busy vCPUs gave "Oops: int3" in trace_preempt_on
	# within 12 s; with one, all 300 ended clean.
	[ "${TB_ICOUNT:-0}" = 1 ] && accel+=(-icount "$TB_ICOUNT_ARG")
	rm -f "$out".console "$out".ktap
	tb_arch_outputs "$out"
	timeout --foreground -k 5 "$secs" "$TB_QEMU" "${TB_QEMU_MACHINE[@]}" \
		"${accel[@]}" \
		-smp "$TB_CPUS" -m "$TB_MEM" -display none -monitor none -no-reboot \
		-kernel "$(tb_vmlinuz "$kernel")" -initrd "$initrd" \
		"${TB_QEMU_OUT[@]}" \
		-append "console=$TB_CONSOLE $(tb_guest_append "$suites" ${lpj:+"$lpj"} "$@")" \
		</dev/null
	local rc=$?

	# the guest's serial lines end in CR LF
	touch "$out".console "$out".ktap
	sed -i 's/\r$//' "$out".console "$out".ktap
	return $rc
}

# tb_guest_append SUITES [KERNEL_ARG...]: a guest's kernel command line
# but its console: the suites its init runs (tools/guest/init), the
# guest's size and module area, the PMU's clocks the accelerator serves
# (TB_ICOUNT), then KERNEL_ARGs
tb_guest_append()
{
	local suites=$1 pmu=$TB_PMU_CLOCKS_TCG

	shift
	[ "${TB_ICOUNT:-0}" = 1 ] && pmu=$TB_PMU_CLOCKS_ICOUNT
	[ "$TB_ONE_CPU" = 1 ] && set -- "$@" maxcpus=1
	echo "loglevel=4 panic=-1 ${TB_ARCH_APPEND:+$TB_ARCH_APPEND }tb.cpus=$TB_CPUS ${TB_MODULES_START:+tb.modules=$TB_MODULES_START-$TB_MODULES_END }tb.suite=$suites $* tb.pmu=${pmu:-none}"
}

# tb_guest_lpj KERNEL: lpj=N, KERNEL's delay loop rate in a guest, where
# the arch's CPUs count TSC cycles in it (TB_DELAY_TSC): without it each
# secondary CPU calibrates the loop when first onlined, about 2 s under
# TCG (an x86-64 boot of 4 vCPUs took 9 s, 5 s with it; of 64, 83 s and
# 30 s). Under -icount the TSC runs at the virtual clock's 1 GHz, as the
# boot CPU measures it (999.99 MHz). Under TCG it runs at the host's
# TSC's rate, which /proc/cpuinfo's "cpu MHz" gives on a virtual host
# like this one; on a host whose cpufreq varies the clock it is the
# clock's, and the guest's delays scale by the two's ratio, which only
# QEMU's devices see, and they need no delay. Nothing when the rate or
# the kernel's HZ is unknown. Callers put it before their KERNEL_ARGs:
# the kernel takes the last lpj=, so a caller's own wins.
tb_guest_lpj()
{
	local kdir hz mhz

	[ "${TB_DELAY_TSC:-0}" = 1 ] && kdir=$(tb_kdir "$1" 2>/dev/null) || return 0
	hz=$(sed -n 's/^CONFIG_HZ=//p' "$kdir/.config" 2>/dev/null)
	if [ "${TB_ICOUNT:-0}" = 1 ]; then
		mhz=1000
	else
		mhz=$(sed -n 's/^cpu MHz[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)
	fi
	[[ $hz =~ ^[1-9][0-9]*$ && $mhz =~ ^[1-9][0-9]*(\.[0-9]*)?$ ]] || return 0
	awk -v mhz="$mhz" -v hz="$hz" 'BEGIN { printf "lpj=%d\n", mhz * 1e6 / hz + 0.5 }'
}

# tb_boot_timeout RUNS SAMPLES BATCH VCPUS [SECS]: the seconds a boot that
# runs RUNS benchmarks of SAMPLES samples per CPU, of BATCH pairs each, on
# VCPUS vCPUs gets before it is taken for hung (bench.sh; doc/bench.md,
# "Rounds"): SECS (600 unless given) to boot, load and run what is not
# counted in samples, and 0.5 ms per pair per vCPU per run, the vCPUs
# taking turns in one host thread (TB_TCG_THREAD=single). That is some 17
# times what x86-64's trace kernel took under TCG, events off and on (16
# rounds of 2 states of 2 labels, 2000 samples, 4 vCPUs: 15 s), so that a
# debug kernel's, or arm64's events, fit too. A bound for hangs only, of
# a week at most.
tb_boot_timeout()
{
	awk -v r="$1" -v n="$2" -v b="$3" -v c="$4" -v base="${5:-600}" 'BEGIN {
		s = base + r * n * b * c / 2000
		printf "%d\n", s < 604800 ? s : 604800 }'
}

# tb_guest_param NAME GROUP [KERNEL_ARG...]: tb.NAME= as the guest suite's
# GROUP reads it (cmdline_param, tools/guest/ktap.sh): the last of the
# KERNEL_ARGs that sets it, else the default GROUP's file gives it
tb_guest_param()
{
	local name=$1 group=$2 a v=

	shift 2
	for a; do
		[[ $a == "tb.$name="* ]] && v=${a#*=}
	done
	[ -n "$v" ] || v=$(sed -n "s/.*cmdline_param $name \([^ )]*\).*/\1/p" \
		"$TB_TOP"/tools/guest/tests/"$group".sh \
		"$TB_TOP"/tools/guest/jobs/"$group".sh 2>/dev/null | head -n 1)
	echo "$v"
}

# tb_group_pairs GROUP [KERNEL_ARG...]: the pairs per CPU the runs of the
# guest suite's GROUP ask, with those kernel arguments: its runs whose
# size a kernel argument sets (0 for a group without), as tb_boot_timeout
# counts them. In awk, whose doubles take any product of counts.
tb_group_pairs()
{
	local g=$1 n=0 m=1

	shift
	case $g in
	functional)	n=$(tb_guest_param big_samples "$g" "$@") ;;
	long)		n=$(tb_guest_param long_samples "$g" "$@") ;;
	speed)		n=$(tb_guest_param cost_sizes "$g" "$@")
			m=$(tb_guest_param batch "$g" "$@") ;;
	scale)		n=$(tb_guest_param sizes "$g" "$@") ;;
	against)	n=$(tb_guest_param speed_samples "$g" "$@")
			m=$((2 * $(tb_guest_param rounds "$g" "$@"))) ;;
	show)		tb_cfacts && n=$TB_C_DEFAULT_SAMPLES ;;
	esac
	awk -v n="$n" -v m="$m" 'BEGIN {
		k = split(n, v, ","); for (i = 1; i <= k; i++) s += v[i]
		printf "%.0f\n", s * m }'
}

# tb_suite_timeout VCPUS GROUPS [KERNEL_ARG...]: the seconds a boot of the
# guest suite's GROUPS (comma separated) on VCPUS vCPUs gets: for each
# group, the longest timeout tools/scenarios gives a boot that runs it
# (make check's, whose big runs are small), added up, or tb_boot_timeout's
# boot where none does; and the pairs their sized runs ask, at
# tb_boot_timeout's rate
tb_suite_timeout()
{
	local vcpus=$1 groups=$2 g secs pairs=0

	shift 2
	secs=$(tb_scenario_lines | awk -v want="$groups" '
		BEGIN { n = split(want, w, ","); for (i = 1; i <= n; i++) asked[w[i]] = 1 }
		$5 != "host" {
			n = split($4, g, ",")
			for (i = 1; i <= n; i++)
				if (g[i] in asked && $8 > s[g[i]])
					s[g[i]] = $8
		}
		END { for (g1 in s) t += s[g1]; if (t) print t }')
	for g in $(tr ',' '\n' <<<"$groups" | sort -u); do
		pairs=$(awk -v a="$pairs" -v b="$(tb_group_pairs "$g" "$@")" \
			'BEGIN { printf "%.0f\n", a + b }')
	done
	tb_boot_timeout 1 "$pairs" 1 "$vcpus" "$secs"
}
