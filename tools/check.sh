#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check: install what is missing, run the host unit tests and make
# style (checkpatch, sparse), build the module for every target kernel at
# W=1, then boot each kernel under QEMU (TCG, 4 CPUs) and run the in-guest
# KTAP suites:
#
#   functional	plain TCG, the behaviour of the interface
#   exact	-icount shift=0,sleep=off, where the guest clock is exact
#   long	a long run (TB_LONG_SAMPLES per CPU, 2 x 10^7) with the
#		lockup detectors tightened, 2 CPUs, 256 MiB: 6.12 booted
#		with preempt=none and voluntary, and 6.12-rt
#   headless	6.12 booted with debugfs=off: insmod run=1 logs a summary
#   dkms	6.12 with the module "dkms add" and "dkms build" made
#
# Then the kernels built from linux-source-6.12 (cached across runs):
#
#   notrace	baseline: irq = raw_irq, preempt = preempt_notrace (icount)
#   trace	the preemptirq events raise the medians, reversibly, and the
#		hooks cost above the raw forms with the events off (icount)
#   debug	the functional suite under KASAN, lockdep, kmemleak and
#		might-sleep checks, then fault injection and a leak scan
#   kunit	tracerbench_kunit.ko on debug: each KUnit case a result
#   compare	tools/compare.sh --icount on notrace and trace
#   bench	tools/bench.sh and tools/report.py: the example patches under
#		icount, exactly; A/A and off/on in plain TCG, tested
#
# That is x86-64 (TB_ARCH=x86_64). Each other architecture of tools/arch/
# has its kernels built from linux-source-6.12 (tools/arch/ARCH.conf lists
# them): the module cross-built at W=1 and its windows disassembled, and
# the functional and exact suites on the kernels tools/scenarios names;
# on arm64 the trace and debug kernels as above, KUnit,
# compare.sh and bench.sh (pad-irqoff under icount) too; on i386 the
# functional suite on the notrace kernel. Each architecture's checks come
# in parts (arch_parts), which run side by side, TB_JOBS (2) at a time,
# each into .out/check-ARCH-PART.log.
#
# Prints every result and, last, "N passed, N failed"; exits non-zero on any
# failure. TB_KERNELS="6.12" limits the Debian kernels, TB_BUILT_KERNELS the
# built ones, for a quicker loop; TB_ARCHS the architectures, all of
# tools/arch/ by default: TB_ARCHS=arm64 checks arm64 alone; TB_PARTS the
# parts, all by default: host (the host's checks) and the architectures'
# debian, long, debug and built (arch_parts).
set -u
. "$(dirname "$0")/lib.sh"

passed=0
failed=0

# refuse WHY [STATUS]: stop before anything runs, a failure saying why
refuse()
{
	result 1 "$1"
	echo "$passed passed, $failed failed"
	exit "${2:-2}"
}

TB_JOBS=${TB_JOBS:-2}
[[ $TB_JOBS =~ ^[1-9][0-9]?$ ]] ||
	refuse "TB_JOBS is a count from 1, not '$TB_JOBS'"
# The parts to run: the host's checks and the architectures' (arch_parts).
TB_PARTS=${TB_PARTS:-host debian long debug built}
for part in $TB_PARTS; do
	case $part in
	host | debian | long | debug | built)	;;
	*)	refuse "TB_PARTS names host, debian, long, debug or built, not '$part'" ;;
	esac
done
TB_LONG_SAMPLES=${TB_LONG_SAMPLES:-20000000}
[[ $TB_LONG_SAMPLES =~ ^[1-9][0-9]{0,11}$ ]] ||
	refuse "TB_LONG_SAMPLES is a count from 1, not '$TB_LONG_SAMPLES'"

# Count a test program's "N passed, N failed" line; none is one failure.
collect_summary()
{
	local label=$1 log=$2 line

	sed "s/^/[$label] /" "$log"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		result 1 "$label: ran to its summary line"
		return
	fi
	set -- $line
	passed=$((passed + $1))
	failed=$((failed + $3))
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
# prefix of those files, for what reads more of them. The guest's vCPUs share one
# host thread (TB_TCG_THREAD, single unless the caller says otherwise):
# with a thread each, two parts' guests of 4 vCPUs put 8 threads on these
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
}

# big_run KERNEL: the functional suite's big run for KERNEL, as kernel
# arguments: 10^6 samples per CPU, 10^5 on debug, where KASAN makes each
# sample several times dearer, and TB_BIG_SAMPLES where the arch's file
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
	debug)	echo tb.big_samples=100000 ;;
	*)	echo tb.big_samples="${TB_BIG_SAMPLES:-1000000}" ;;
	esac
}

# The long runs (tools/scenarios: a small guest, and the preemption
# models in turn) boot from a module and initramfs of their own (-long),
# as check_long_boots runs beside check_debian_kernels. TB_LONG_SAMPLES
# per CPU: 2 x 10^7 (about 31 s under TCG, so one run covers the 18 s the
# suite runs for: 3 x 10^7 took 45 to 47 s), or 10^8 (make check-long,
# the count issue 6 names: 137 to 151 s each).

# boot_scenarios PART KERNEL: boot KERNEL as each line of tools/scenarios
# for the architecture and PART says, in order; a debug boot adds the
# kunit group where build_kunit built its module, and reads its results.
boot_scenarios()
{
	local part=$1 k=$2 arch p kern groups clock cpus mem secs args
	local icount thread initrd n

	n=$(tb_name "$k")
	while read -r -u 3 arch p kern groups clock cpus mem secs args; do
		[ "$arch" = "$TB_ARCH" ] && [ "$p" = "$part" ] &&
			[ "$kern" = "$k" ] || continue
		case $clock in
		icount)	icount=1 thread=single ;;
		tcg)	icount=0 thread=single ;;
		tcg-mt)	icount=0 thread= ;;
		*)	result 1 "tools/scenarios: no clock '$clock'"; continue ;;
		esac
		args=${args//@big/$(big_run "$k")}
		args=${args//@long/tb.long_samples=$TB_LONG_SAMPLES}
		initrd=$TB_OUT/initrd-$n.cpio.gz
		[ "$part" = long ] && initrd=$TB_OUT/initrd-$n-long.cpio.gz
		[ "$part" = debug ] && build_kunit "$k" && groups=$groups,kunit
		# shellcheck disable=SC2086 # args are words
		TB_CPUS=$cpus TB_MEM=$mem TB_TCG_THREAD=$thread \
			TB_INITRD=$initrd \
			boot_suite "$k" "$groups" $icount "$secs" $args
		case $groups in
		*,kunit) collect_kunit "$n kunit" "$BOOT_OUT" ;;
		esac
	done 3< <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' \
		"$TB_TOP/tools/scenarios")
}

# the architecture make check started with (TB_ARCH, x86-64 by default),
# whose Debian kernels make style checks
TB_HOST_ARCH=$TB_ARCH
start=$SECONDS
tb_install || refuse "install packages" 1
mkdir -p "$TB_OUT"

# Without the kernel's build tree, make names the package to install.
check_no_kdir()
{
	local out

	out=$(make -C "$TB_TOP" KDIR=/nonexistent KVER=0.0-tb modules 2>&1) &&
		return 1
	echo "$out" | grep -q 'apt install linux-headers-0.0-tb' &&
		echo "$out" | grep -q 'dnf install kernel-devel-0.0-tb' &&
		return 0
	echo "$out" | sed 's/^/[no kdir] /'
	return 1
}

# check_tree_key: a kernel's cache key follows its fragments' options and
# not their comments: a copy of tools/kconfig/ keys the trace kernel as the
# real one does, still does with a comment added to base.config, and no
# longer does with an option added. The same for a patched kernel's extra
# fragment (tb_patched_dir), whose key follows its patches' contents too.
check_tree_key()
{
	local tmp real rc=1

	tmp=$(mktemp -d) || return 1
	real=$(tb_kernel_tree trace)
	mkdir -p "$tmp/tools" && cp -r "$TB_TOP/tools/kconfig" "$tmp/tools/" &&
		[ "$(TB_TOP=$tmp tb_kernel_tree trace)" = "$real" ] &&
		echo "# a comment, and a CONFIG_X=y in it" >>"$tmp/tools/kconfig/base.config" &&
		[ "$(TB_TOP=$tmp tb_kernel_tree trace)" = "$real" ] &&
		echo "CONFIG_PRINTK=y" >>"$tmp/tools/kconfig/base.config" &&
		[ "$(TB_TOP=$tmp tb_kernel_tree trace)" != "$real" ] &&
		check_patched_key "$tmp" && rc=0
	rm -rf "$tmp"
	return $rc
}

# patched_key PATCHES FRAGMENT: the patched trace kernel's key, or failure,
# never an empty key.
patched_key()
{
	local key

	key=$(tb_patched_dir trace "$1" "$2") && [ -n "$key" ] && echo "$key"
}

# check_patched_key DIR: in DIR, a patched trace kernel's key with an extra
# fragment stays with a comment added to it, and changes with an option
# added to it, with a line added to its patch, and with no patch at all. A
# missing fragment is refused, a blank fragment list keys as none, not as
# options read from stdin, and without patches the fragment still counts.
check_patched_key()
{
	local dir=$1 patch=$TB_TOP/tools/patches/irqsoff-key frag=$1/extra.config
	local key p

	cp -r "$patch" "$dir/patch" &&
		echo "CONFIG_BLK_DEV_INITRD=y" >"$frag" &&
		key=$(patched_key "$dir/patch" "$frag") &&
		[ "$(patched_key "$patch" "$frag")" = "$key" ] &&
		echo "# a comment, and a CONFIG_X=y in it" >>"$frag" &&
		[ "$(patched_key "$dir/patch" "$frag")" = "$key" ] &&
		p=$(patched_key "" "$frag") && [ "$p" != "$key" ] &&
		echo "CONFIG_PRINTK=y" >>"$frag" &&
		p=$(patched_key "$dir/patch" "$frag") && [ "$p" != "$key" ] &&
		sed -i '$d' "$frag" &&
		[ "$(patched_key "$dir/patch" "$frag")" = "$key" ] &&
		for p in "$dir"/patch/*.patch; do echo >>"$p"; done &&
		p=$(patched_key "$dir/patch" "$frag") && [ "$p" != "$key" ] &&
		! patched_key "$dir/patch" "$dir/missing.config" 2>/dev/null &&
		p=$(patched_key "$patch" "") &&
		[ "$(echo CONFIG_PRINTK=y | patched_key "$patch" " ")" = "$p" ] &&
		[ "$(patched_key "" "$frag")" != "$(patched_key "" "")" ]
}

# check_install_update_fails: tb_install still installs what is missing
# when apt-get update fails, as it does while a mirror is mid-sync. Fake
# dpkg-query (nothing installed) and apt-get (update fails, install logs
# its packages) come first in PATH.
check_install_update_fails()
{
	local tmp rc=1

	tmp=$(mktemp -d) || return 1
	printf '#!/bin/sh\nexit 1\n' >"$tmp/dpkg-query" &&
		printf '#!/bin/sh\n[ "$1" = update ] && exit 100\necho "$@" >>%s\n' \
			"$tmp/install.log" >"$tmp/apt-get" &&
		chmod +x "$tmp/dpkg-query" "$tmp/apt-get" &&
		(PATH=$tmp:$PATH tb_install) 2>"$tmp/err" &&
		grep -q 'apt-get update failed' "$tmp/err" &&
		[ "$(cat "$tmp/install.log")" = \
		  "install -y -qq --no-install-recommends $(echo $(tb_packages))" ] &&
		rc=0
	rm -rf "$tmp"
	return $rc
}

# check_now_us: the guest's now_us, under busybox as in the guest, turns
# each clock reading into microseconds, those of a clock that starts at 0
# (no leading zero read as octal) among them.
check_now_us()
{
	local case in want got rc=0

	for case in 0.898685:898685 0.000000:0 0.080000:80000 \
		    12.000009:12000009 1795432370.336724:1795432370336724; do
		in=${case%:*}
		want=${case#*:}
		got=$(busybox sh -c "$(sed -n '/^now_us()$/,/^}$/p' \
			"$TB_TOP/tools/guest/ktap.sh")
			unset EPOCHREALTIME
			EPOCHREALTIME=$in
			now_us t && echo \$t" 2>&1)
		[ "$got" = "$want" ] && continue
		echo "[now_us] $in: $got, not $want"
		rc=1
	done
	return $rc
}

# check_refusals: make check refuses what it cannot run, before running
# anything: exit status 2, the reason as its failure, no part started.
check_refusals()
{
	local vars want out rc fail=0

	while IFS="|" read -r vars want; do
		out=$(env $vars "$TB_TOP/tools/check.sh" 2>&1)
		rc=$?
		if [ $rc != 2 ] || ! echo "$out" | grep -qF "not ok - $want" ||
		   echo "$out" | grep -q ': started'; then
			echo "[refusals] $vars: exit $rc, want 2 and '$want':"
			echo "$out" | tail -n 3 | sed 's/^/[refusals] /'
			fail=1
		fi
	done <<-EOF
	TB_JOBS=0|TB_JOBS is a count from 1, not '0'
	TB_PARTS=host,long|TB_PARTS names host, debian, long, debug or built, not 'host,long'
	TB_LONG_SAMPLES=1e8|TB_LONG_SAMPLES is a count from 1, not '1e8'
	TB_PARTS=long TB_ARCHS=arm64|TB_PARTS="long" and TB_ARCHS="arm64" leave nothing to run
	EOF
	return $fail
}

# The host's own checks, the part "host" (a job beside the architectures'
# parts, see below): the unit tests, report.py's rules for exact and
# significant on made-up results, make without a kernel tree, and make
# style: checkpatch, and sparse at W=1 for each kernel, a result each (the
# KUnit module is built with the same checks for the debug kernel).
# check_scenarios [FILE]: every line of tools/scenarios (or FILE) names
# an architecture of tools/arch/, a part, one of that architecture's
# kernels, groups the guest suite has, a clock, and numbers; a line that
# does not is printed.
check_scenarios()
{
	local file=${1:-$TB_TOP/tools/scenarios} arch part k groups clock
	local cpus mem secs args g bad=0

	while read -r -u 3 arch part k groups clock cpus mem secs args; do
		local why=
		[ -f "$TB_TOP/tools/arch/$arch.conf" ] || why="no arch $arch"
		case $part in debian | long | debug | built) ;;
		*) why="no part $part" ;; esac
		[ -z "$why" ] && ! (tb_arch_load "$arch" &&
			case " $TB_ARCH_KERNELS $TB_ARCH_BUILT " in
			*" $k "*) ;; *) false ;; esac) && why="no kernel $k on $arch"
		for g in ${groups//,/ }; do
			grep -q "^group_$g()" "$TB_TOP"/tools/guest/tests/*.sh ||
				why="no group $g"
		done
		case $clock in tcg | tcg-mt | icount) ;;
		*) why="no clock $clock" ;; esac
		[[ $cpus =~ ^[1-9][0-9]*$ && $mem =~ ^[1-9][0-9]*[MG]$ &&
		   $secs =~ ^[1-9][0-9]*$ ]] || why="bad cpus, memory or timeout"
		[ -z "$why" ] && continue
		echo "[scenarios] $arch $part $k $groups: $why"
		bad=1
	done 3< <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$file")
	return $bad
}

check_host()
{
	local kernels

	make -s -C "$TB_TOP/tools/unit" check >"$TB_OUT/unit.log" 2>&1
	collect_summary unit "$TB_OUT/unit.log"
	/usr/bin/python3 "$TB_TOP/tools/unit/report_test.py" \
		>"$TB_OUT/report-unit.log" 2>&1
	collect_summary "report unit" "$TB_OUT/report-unit.log"
	/usr/bin/python3 "$TB_TOP/tools/unit/jump_nop_test.py" \
		>"$TB_OUT/jump-nop-unit.log" 2>&1
	collect_summary "jump_nop unit" "$TB_OUT/jump-nop-unit.log"
	check_no_kdir
	result $? "make without a kernel build tree names the headers package"
	check_tree_key
	result $? "a kernel's cache key follows its fragments' options, not their comments, and a patched kernel's its patches"
	check_install_update_fails
	result $? "packages install even when apt-get update fails"
	check_now_us
	result $? "guest now_us: microseconds from any clock, one that starts at 0 too"
	check_scenarios
	result $? "tools/scenarios: every boot names an arch, part, kernel, groups and clock there are"
	printf 'x86_64 built nokernel functional tcg 4 1G 900\nx86_64 built trace nogroup icount 4 1G 900\nx86_64 built trace baseline slow 4 1G 900\n' \
		>"$TB_OUT/scenarios-bad"
	[ "$(check_scenarios "$TB_OUT/scenarios-bad" | wc -l)" = 3 ]
	result $? "tools/scenarios: an unknown kernel, group or clock is caught"
	TB_STYLE_KUNIT=0 "$TB_TOP/tools/style.sh" >"$TB_OUT/style.log" 2>&1
	collect_summary style "$TB_OUT/style.log"
	# a result per Debian kernel of the architecture make check started
	# with, whatever architecture the parts' loop loaded last
	kernels=$(tb_arch_load "$TB_HOST_ARCH" && echo $TB_KERNELS)
	[ "$(grep -c ': sparse (C=2) and W=1 clean$' "$TB_OUT/style.log")" = \
	  "$(echo $kernels | wc -w)" ]
	result $? "make style: sparse on each of the kernels ($kernels)"
	check_refusals
	result $? "make check refuses a bad TB_JOBS, TB_PARTS or TB_LONG_SAMPLES, and a selection of nothing"
}

# prepare KERNEL: the module built for it and an initramfs holding it
prepare()
{
	local k=$1 n

	n=$(tb_name "$k")
	if ! tb_build_module "$k"; then
		sed "s/^/[$n build] /" "$(dirname "$(tb_module "$k")")/build.log"
		result 1 "$n: module builds at W=1 without warnings"
		return 1
	fi
	result 0 "$n: module builds at W=1 without warnings"
	[ "$(modinfo -F version "$(tb_module "$k")")" = "$(tb_version)" ]
	result $? "$n: modinfo reports version $(tb_version)"
	"$TB_TOP/tools/disasm.sh" "$(tb_module "$k")" >"$TB_OUT/disasm-$n.log" 2>&1
	result $? "$n: disasm: every timed window holds its primitive only"
	sed "s/^/[$n disasm] /" "$TB_OUT/disasm-$n.log"
	tb_make_initramfs "$k" "$TB_OUT/initrd-$n.cpio.gz"
	result $? "$n: initramfs"
}

# The disassembly check can fail: a build with a sample store moved into
# every window must be refused, for that store.
check_disasm_catches()
{
	local log=$TB_OUT/disasm-selftest-$(tb_name "$1").log

	TB_KCFLAGS=-DTB_DISASM_SELFTEST tb_build_module "$1" -selftest ||
		return 1
	! "$TB_TOP/tools/disasm.sh" "$(tb_module "$1" -selftest)" >"$log" 2>&1 &&
		grep -q 'memory access in the window' "$log"
}

# The Debian kernels of the architecture (x86-64's): the module for each,
# the plain suites, and the headless and DKMS checks on 6.12.
check_debian_kernels()
{
	local k

	for k in $TB_KERNELS; do
		check_disasm_catches "$k"
		result $? "$k: disasm: a store moved into the windows is caught"
		break
	done

	for k in $TB_KERNELS; do
		prepare "$k" || continue
		boot_scenarios debian "$k"
	done
	case " $TB_KERNELS " in
	*" 6.12 "*)	check_dkms ;;
	esac
}

# The long boots: TB_LONG_SAMPLES per CPU on 6.12 with preempt=none and
# with preempt=voluntary, and on 6.12-rt.
check_long_boots()
{
	local k n

	for k in $TB_KERNELS; do
		case $k in
		6.12 | 6.12-rt)	;;
		*)		continue ;;
		esac
		n=$(tb_name "$k")
		tb_build_module "$k" -long &&
			tb_make_initramfs "$k" "$TB_OUT/initrd-$n-long.cpio.gz" \
				"$(tb_module "$k" -long)"
		result $? "$n: module and initramfs for the long boots"
		boot_scenarios long "$k"
	done
}

# DKMS as a user's machine runs it: add and build a staged copy of the tree
# for the installed Debian 6.12 headers, then boot 6.12 with the module
# DKMS built. DKMS gets trees and a throwaway signing key of its own in a
# temporary directory, so that runs never collide and nothing outside it is
# touched.
check_dkms()
{
	local k=6.12 v rel tmp opts ko out=$TB_OUT/6.12-dkms rc

	v=$(tb_version)
	rel=$(tb_release $k)
	[ "$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TB_TOP/dkms.conf")" = \
	  "$(cat "$TB_TOP/VERSION")" ]
	result $? "dkms.conf: PACKAGE_VERSION is VERSION, $(cat "$TB_TOP/VERSION")"

	tmp=$(mktemp -d) || return 1
	mkdir -p "$tmp"/src "$tmp"/dkms "$tmp"/modules
	opts=(--sourcetree "$tmp/src" --dkmstree "$tmp/dkms"
	      --installtree "$tmp/modules")
	export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub
	{
		make -s -C "$TB_TOP" stage DEST="$tmp/src/tracerbench-$v" &&
			dkms add tracerbench/"$v" "${opts[@]}" &&
			dkms build tracerbench/"$v" -k "$rel" "${opts[@]}"
	} >"$TB_OUT/dkms.log" 2>&1
	rc=$?
	unset mok_signing_key mok_certificate
	ko=$(find "$tmp/dkms/tracerbench/$v/$rel" -name 'tracerbench.ko*' \
		2>/dev/null | head -n 1)
	if [ $rc != 0 ] || [ -z "$ko" ]; then
		rc=1
		cat "$TB_OUT/dkms.log" \
			"$tmp/dkms/tracerbench/$v/build/make.log" 2>/dev/null |
			sed 's/^/[dkms] /'
	fi
	result $rc "dkms: add and build $v for $rel from a staged copy"
	if [ $rc = 0 ]; then
		[ "$(modinfo -F version "$ko")" = "$v" ]
		result $? "dkms: modinfo reports version $v"
		mkdir -p "$TB_OUT/dkms"
		case $ko in
		*.xz)	xz -dc "$ko" >"$TB_OUT/dkms/tracerbench.ko" ;;
		*)	cp "$ko" "$TB_OUT/dkms/tracerbench.ko" ;;
		esac &&
			tb_make_initramfs $k "$TB_OUT/initrd-dkms.cpio.gz" \
				"$TB_OUT/dkms/tracerbench.ko"
		result $? "dkms: initramfs with the module DKMS built"
		tb_boot $k "$TB_OUT/initrd-dkms.cpio.gz" version 300 "$out" \
			tb.version="$v"
		collect_ktap "$k dkms" "$out"
	fi
	dkms remove tracerbench/"$v" --all "${opts[@]}" >/dev/null 2>&1
	[ -z "$(dkms status "${opts[@]}")" ]
	result $? "dkms: remove --all leaves nothing"
	rm -rf "$tmp"
}

# The KUnit suites tools/kunit/ builds: those of each NAME_kunit.c whose
# NAME.c the tree has (see tools/kunit/Kbuild).
kunit_suites()
{
	local f

	for f in "$TB_TOP"/tools/kunit/*_kunit.c; do
		[ -f "$TB_TOP/$(basename "$f" _kunit.c).c" ] || continue
		sed -n 's/^\t\.name = "\(tracerbench_[a-z_]*\)",$/\1/p' "$f"
	done
}

# Count the KTAP of KUnit that the guest passed on as "# kunit: " lines: a
# result per case, or per parameter of a parameterised case. A suite of
# tools/kunit/ that did not finish, or finished with fewer cases than it
# planned, is one more failure: it crashed, or the guest died in it.
collect_kunit()
{
	local label=$1 ktap=$2.kunit st name suite

	sed -n 's/^# kunit: //p' "$2".ktap >"$ktap"
	while IFS='|' read -r st name; do
		result "$st" "$label: $name"
	done < <(awk '
	function emit(st, name) { print st "|" name }
	/^    # Subtest: / { suite = substr($0, 16); plan = -1; cases = 0
		failed = 0; next }
	/^    1\.\.[0-9]+$/ { plan = substr($0, 8) + 0; next }
	/^        # Subtest: / { tcase = substr($0, 20); params = 0; next }
	/^        (not )?ok [0-9]+ / {
		st = /^        ok / ? 0 : 1
		sub(/^        (not )?ok [0-9]+ /, "")
		emit(st, suite ": " tcase ": " $0)
		params++; failed += st; next }
	/^    (not )?ok [0-9]+ / {
		st = /^    ok / ? 0 : 1
		sub(/^    (not )?ok [0-9]+ /, "")
		cases++
		if (!params)
			emit(st, suite ": " $0)
		else if (st && !failed)
			emit(1, suite ": " $0 ": failed")
		failed += st; params = 0; next }
	/^(not )?ok [0-9]+ / {
		st = /^ok / ? 0 : 1
		sub(/^(not )?ok [0-9]+ /, "")
		if ($0 != suite)
			next
		if (cases != plan)
			emit(1, suite ": " cases " of " plan " cases reported")
		else if (st && !failed)
			emit(1, suite ": failed")
		suite = ""; next }
	' "$ktap")
	for suite in $(kunit_suites); do
		grep -Eq "^(not )?ok [0-9]+ $suite\$" "$ktap" && continue
		result 1 "$label: suite $suite finished"
	done
}

# The KUnit suites of the pure helpers on kernel $1, which has CONFIG_KUNIT:
# the module built at W=1 with sparse, and put in the kernel's initramfs
# beside tracerbench.ko, for the kunit group of the debug boot.
build_kunit()
{
	local k=$1 n

	n=$(tb_name "$k")
	if ! tb_build_kunit "$k"; then
		sed "s/^/[$n kunit build] /" "$(tb_kunit_log "$k")"
		result 1 "$n: KUnit module builds at W=1 with sparse, cleanly"
		return 1
	fi
	result 0 "$n: KUnit module builds at W=1 with sparse, cleanly"
	tb_make_initramfs "$k" "$TB_OUT/initrd-$n.cpio.gz" \
		"$(tb_module "$k")" "$(tb_kunit_module "$k")"
	local rc=$?
	result $rc "$n: initramfs with the KUnit module"
	return $rc
}

# The kernels built from linux-source-6.12 for the architecture. Without
# Debian kernels (all but x86-64), the plain suites run on the one
# tools/arch/ARCH.conf names, TB_ARCH_PLAIN, and the disassembly check's
# own check with it.
check_built_kernels()
{
	local k n s

	for k in ${TB_BUILT_KERNELS}; do
		n=$(tb_name "$k")
		s=$SECONDS
		if ! tb_build_kernel "$k"; then
			tail -n 40 "$(tb_kernel_dir "$k")/build.log" |
				sed "s/^/[$n kernel] /"
			result 1 "$n: kernel builds from linux-source-6.12"
			continue
		fi
		result 0 "$n: kernel builds from linux-source-6.12"
		echo "# $n kernel: $((SECONDS - s)) s"
		prepare "$k" || continue
		if [ -z "$TB_KERNELS" ] && [ "$k" = "${TB_ARCH_PLAIN:-}" ]; then
			check_disasm_catches "$k"
			result $? "$n: disasm: a store moved into the windows is caught"
		fi
		case $k in
		debug)	check_disasm_catches "$k"
			result $? "$n: disasm: a store moved into the windows is caught, KASAN's checks allowed"
			boot_scenarios debug "$k" ;;
		*)	boot_scenarios built "$k" ;;
		esac
		[ "$k" = trace ] && check_tracepoint_nop "$k"
	done
}

# check_tracepoint_nop KERNEL: with CONFIG_JUMP_LABEL, the disabled
# irq_disable tracepoint in trace_hardirqs_off() is a NOP in the image, not
# a load and a test, as in the kernels users run.
check_tracepoint_nop()
{
	local n log

	n=$(tb_name "$1")
	log=$TB_OUT/jump-nop-$n.log
	/usr/bin/python3 "$TB_TOP/tools/jump_nop.py" --objdump "${TB_CROSS}objdump" \
		--nm "${TB_CROSS}nm" "$(tb_kernel_dir "$1")/vmlinux" \
		trace_hardirqs_off __tracepoint_irq_disable >"$log" 2>&1
	result $? "$n: the disabled irq_disable tracepoint in trace_hardirqs_off() is a NOP in vmlinux"
	sed "s/^/[$n jump_nop] /" "$log"
}

# The comparison tool, end to end: every state measured, and the events
# cost what the trace suite says they cost: on at least TP_RATIO (5, or
# the arch's tp_ratio) times off for irq and preempt; the hooks nothing
# where the tracepoints are compiled out, something where they are in.
check_compare()
{
	local name dir log ratio

	name=compare$([ "$TB_ARCH" = x86_64 ] || echo "-$TB_ARCH")
	dir=$TB_OUT/$name log=$TB_OUT/$name.log
	rm -rf "$dir"
	"$TB_TOP/tools/compare.sh" --arch "$TB_ARCH" --icount --rounds 2 \
		--out "$dir" >"$log" 2>&1
	local rc=$?

	ratio=$(tb_arch_param tp_ratio 5)
	sed "s/^/[$(tb_name compare)] /" "$log"
	[ $rc = 0 ] && report_json "$dir" notrace.out "$dir/report.json" || return 1
	$PY - "$dir/report.json" "$ratio" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
ratio = float(sys.argv[2])
bad = []
for t in d["tables"]:
    p = t["primitive"]
    rows = {r["row"]: r for r in t["rows"]}
    if set(rows) != {"notrace.out", "trace.off", "trace.on"}:
        bad.append(f"{p}: rows {sorted(rows)}")
        continue
    out, off, on = rows["notrace.out"], rows["trace.off"], rows["trace.on"]
    if out["hook"] != 0:
        bad.append(f"{p}: hook {out['hook']} compiled out")
    if p != "irq_save" and not off["hook"] > 0:
        bad.append(f"{p}: hook {off['hook']} with the events off")
    if p != "irq_save" and not on["median"] >= ratio * off["median"]:
        bad.append(f"{p}: on {on['median']} below {ratio} x off {off['median']}")
    print(f"[compare] {p}: out {out['median']}, off {off['median']}, "
          f"on {on['median']}; hooks {out['hook']}, {off['hook']}, {on['hook']}")
for b in bad:
    print(f"[compare] {b}")
sys.exit(1 if bad or len(d["tables"]) != 3 else 0)
PYEOF
}

# tools/bench.sh and tools/report.py, end to end. A patch series' question
# answered under icount: tools/patches/pad-irqoff adds exactly 16
# instructions to trace_hardirqs_off(), so irq and irq_save must read +16
# exactly and preempt 0; tools/patches/irqsoff-key skips the irqsoff
# tracer's hooks, so irq and irq_save must read less. Then plain TCG: the
# same kernel and state twice (A/A), in an order that gave each label each
# place as often, is not significant, events on against off is. The figures must be there and render. Under icount a window's
# count is the same every time, so 2000 samples per CPU give the medians
# 10^4 would, in a fifth of the time.
PY=/usr/bin/python3

# report_json DIR REF OUT [PRIMITIVES]: report.py's JSON of DIR against
# REF, of all primitives or those
report_json()
{
	"$TB_TOP/tools/report.py" --format json --primitives "${4:-all}" \
		--alpha 0.001 --reference "$2" "$1" >"$3" 2>"$3.err" &&
		return 0
	sed 's/^/[report] /' "$3.err"
	return 1
}

# expect_diff JSON ROW PRIM OP VALUE [exact]: the difference of ROW to the
# reference for PRIM compares so (eq, lt, gt; near, with VALUE as
# "V,TOLERANCE"), and is exact if asked
expect_diff()
{
	$PY - "$@" <<'PYEOF'
import json, operator, sys
path, row, prim, op, value = sys.argv[1:6]
want_exact = len(sys.argv) > 6
doc = json.load(open(path))
t = next(t for t in doc["tables"] if t["primitive"] == prim)
e = next(e for e in t["rows"] if e["row"] == row)
if op == "near":
    v, tol = map(float, value.split(","))
    ok = abs(e["diff"] - v) <= tol
else:
    ok = {"eq": operator.eq, "lt": operator.lt, "gt": operator.gt}[op](
        e["diff"], float(value))
if want_exact and not e.get("exact"):
    ok = False
print(f"[bench] {row} {prim}: diff {e['diff']} ({'exact' if e.get('exact') else 'p=%s' % e.get('p')}), want {op} {value}")
sys.exit(0 if ok else 1)
PYEOF
}

# expect_significant JSON ROW yes|no: for irq, preempt and irq_save
expect_significant()
{
	$PY - "$@" <<'PYEOF'
import json, sys
path, row, want = sys.argv[1:4]
doc = json.load(open(path))
bad = 0
for prim in ("irq", "preempt", "irq_save"):
    t = next(t for t in doc["tables"] if t["primitive"] == prim)
    e = next(e for e in t["rows"] if e["row"] == row)
    sig = bool(e.get("significant")) and not e.get("exact")
    lo, hi = e["ci"] if e.get("ci") else (None, None)
    print(f"[bench] {row} {prim}: diff {e['diff']} CI [{lo}, {hi}] p {e.get('p')} {e['mark']}")
    if e.get("p") is None or sig != (want == "yes"):
        bad = 1
    # a significant difference's interval must exclude 0
    if want == "yes" and not (lo > 0 or hi < 0):
        bad = 1
sys.exit(bad)
PYEOF
}

# expect_counterbalanced JSON ROW: the order meta recorded, as report.py
# read it, put ROW first of it and the reference in half the rounds, and
# first after an events toggle or the boot as often, give or take the
# boot's first run
expect_counterbalanced()
{
	$PY - "$@" <<'PYEOF'
import json, sys
path, row = sys.argv[1:3]
doc = json.load(open(path))
t = next(t for t in doc["tables"] if t["primitive"] == "irq")
o = next(e for e in t["rows"] if e["row"] == row).get("order")
print(f"[bench] {row} against {doc['reference']}: order {o}")
sys.exit(not o or o["before_ref"] * 2 != o["rounds"] or
         abs(o["leads"] - o["ref_leads"]) > 1)
PYEOF
}

# check_figures DIR ROWS...: cdf and per_cpu as SVG and PNG, a series of
# every row for every primitive in the SVGs, PNGs that load with sane sizes
# and are not blank
check_figures()
{
	local dir=$1 rc=0 what prim row

	shift
	for what in cdf per_cpu; do
		for prim in $(tb_prims); do
			for row in "$@"; do
				grep -q "id=\"$what-$prim-$row\"" "$dir/$what.svg" && continue
				echo "[bench] $dir/$what.svg lacks the series $what-$prim-$row"
				rc=1
			done
		done
	done
	$PY - "$dir"/cdf.png "$dir"/per_cpu.png <<'PYEOF' || rc=1
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.image as mpimg
bad = 0
for path in sys.argv[1:]:
    img = mpimg.imread(path)
    h, w = img.shape[:2]
    print(f"[bench] {path}: {w}x{h}, {img.shape[2]} channels, std {img.std():.3f}")
    if not (200 <= h <= 4000 and 600 <= w <= 6000 and img.shape[2] in (3, 4)
            and img.std() > 0.01):
        bad = 1
sys.exit(bad)
PYEOF
	return $rc
}

# check_report_forms DIR: a markdown table row per kernel and state for
# each primitive; DIR and a copy of it read together keep their rows apart
# under the directories' names
check_report_forms()
{
	local copy=$TB_OUT/bench-icount-copy n

	n=$("$TB_TOP/tools/report.py" --format markdown "$1" |
		grep -c '^| trace+pad-irqoff\.off | 1 | ')
	[ "$n" = 3 ] || { echo "[bench] markdown: $n rows of trace+pad-irqoff.off, want 3"; return 1; }
	rm -rf "$copy" && cp -r "$1" "$copy" || return 1
	n=$("$TB_TOP/tools/report.py" --reference bench-icount/trace.off \
		"$1" "$copy" | grep -Ec '^  bench-icount(-copy)?/trace\+pad-irqoff\.off +1 +[0-9]+ .* \+16 +exact')
	# irq and irq_save, from each directory
	[ "$n" = 4 ] || { echo "[bench] two directories: $n rows of */trace+pad-irqoff.off at +16, want 4"; return 1; }
	# two machines' results/ of the same name: told apart by their paths
	rm -rf "$copy" && mkdir -p "$copy/a" "$copy/b" &&
		cp -r "$1" "$copy/a/res" && cp -r "$1" "$copy/b/res" || return 1
	n=$(cd "$copy" && "$TB_TOP/tools/report.py" --reference a/res/trace.off \
		a/res b/res | grep -Ec '^  [ab]/res/trace\+pad-irqoff\.off +1 +[0-9]+ .* \+16 +exact')
	[ "$n" = 4 ] || { echo "[bench] two res/ directories: $n rows of */res/trace+pad-irqoff.off at +16, want 4"; return 1; }
	rm -rf "$copy"
}

check_bench()
{
	local icount=$TB_OUT/bench-icount tcg=$TB_OUT/bench-tcg start
	local pad=trace+pad-irqoff key=trace+irqsoff-key

	start=$SECONDS
	rm -rf "$icount" "$tcg"
	"$TB_TOP/tools/bench.sh" --icount --rounds 1 --nr-samples 2000 \
		--out "$icount" trace \
		trace,patches="$TB_TOP/tools/patches/pad-irqoff" \
		trace,patches="$TB_TOP/tools/patches/irqsoff-key/series" \
		>"$TB_OUT/bench-icount.log" 2>&1
	result $? "bench.sh --icount: trace and the two example patch series"
	sed 's/^/[bench icount] /' "$TB_OUT/bench-icount.log"
	"$TB_TOP/tools/report.py" "$icount" | sed 's/^/[report icount] /'
	if report_json "$icount" trace.off "$icount/report.json"; then
		expect_diff "$icount/report.json" $pad.off irq eq 16 exact &&
			expect_diff "$icount/report.json" $pad.off irq_save eq 16 exact &&
			expect_diff "$icount/report.json" $pad.off preempt eq 0 exact &&
			expect_diff "$icount/report.json" $pad.off raw_irq eq 0 exact
		result $? "report: pad-irqoff costs irq and irq_save exactly 16, preempt nothing"
		expect_diff "$icount/report.json" $key.off irq lt 0 exact &&
			expect_diff "$icount/report.json" $key.off irq_save lt 0 exact
		result $? "report: irqsoff-key saves on irq and irq_save, events off"
	else
		result 1 "report.py reads the icount results"
	fi
	check_report_forms "$icount"
	result $? "report: markdown tables, and two directories with the same labels kept apart"
	"$TB_TOP/tools/report.py" --primitives all --plot "$icount/fig" \
		"$icount" >/dev/null 2>&1 &&
		check_figures "$icount/fig" trace.off trace.on $pad.off $pad.on \
			$key.off $key.on
	result $? "report --plot: CDFs and per-CPU medians of every row, SVG and PNG"

	# 2000 samples per CPU a round: the tests compare rounds' medians,
	# and a shorter round leaves less time for the host's load to drift.
	# 16 paired rounds, four turns of the rotation: the smallest p is
	# 2/2^16, below 0.001 after Holm over the 9 tests of the three
	# primitives tested.
	"$TB_TOP/tools/bench.sh" --rounds 16 --nr-samples 2000 --out "$tcg" \
		a=trace b=trace >"$TB_OUT/bench-tcg.log" 2>&1
	result $? "bench.sh, plain TCG: trace twice, 16 rounds in one boot"
	sed 's/^/[bench tcg] /' "$TB_OUT/bench-tcg.log"
	"$TB_TOP/tools/report.py" --alpha 0.001 "$tcg" | sed 's/^/[report tcg] /'
	if report_json "$tcg" a.off "$tcg/report.json" irq,preempt,irq_save; then
		expect_counterbalanced "$tcg/report.json" b.off &&
			expect_counterbalanced "$tcg/report.json" a.on &&
			expect_significant "$tcg/report.json" b.off no
		result $? "report: A/A (the same kernel and state twice), each first as often, is not significant"
		expect_significant "$tcg/report.json" a.on yes
		result $? "report: events on against off is significant"
	else
		result 1 "report.py reads the plain TCG results"
	fi
	echo "[bench] the comparisons took $((SECONDS - start)) s"
}
# expect_error WORDS COMMAND...: COMMAND fails, and its stderr says WORDS
expect_error()
{
	local words=$1 log=$TB_OUT/bench-error.log

	shift
	if "$@" >/dev/null 2>"$log"; then
		echo "[bench] succeeded: $*"
		return 1
	fi
	grep -q -- "$words" "$log" && return 0
	echo "[bench] '$*' did not say '$words':"
	sed 's/^/[bench]   /' "$log"
	return 1
}

# Every bad input gets a clear message and a non-zero exit.
check_bench_errors()
{
	local bad tmp=$TB_OUT/bench-bad bench=$TB_TOP/tools/bench.sh rc=0
	local report=$TB_TOP/tools/report.py collect=$TB_TOP/tools/guest/collect.sh

	rm -rf "$tmp" && mkdir -p "$tmp/series" "$tmp/empty" || return 1
	bad=$tmp/series/0001-tracing-a-patch-that-does-not-apply.patch
	printf '%s\n' '--- a/kernel/trace/trace_preemptirq.c' \
		'+++ b/kernel/trace/trace_preemptirq.c' '@@ -1,3 +1,3 @@' \
		'-// no such line in linux-source-6.12' '+// nor this one' \
		' /*' ' * preemptoff and irqoff tracepoints' >"$bad"
	echo "missing.patch" >"$tmp/series/series.bad"
	expect_error "patch $bad does not apply" "$bench" --out "$tmp/o1" \
		trace,patches="$tmp/series" || rc=1
	expect_error "names missing.patch" "$bench" --out "$tmp/o2" \
		trace,patches="$tmp/series/series.bad" || rc=1
	expect_error "no \\*.patch files" "$bench" --out "$tmp/o2" \
		trace,patches="$tmp/empty" || rc=1
	expect_error "no such patch series" "$bench" trace,patches=/nonexistent || rc=1
	expect_error "no such kconfig fragment" "$bench" trace,config=/nonexistent || rc=1
	expect_error "is no kernel variant" "$bench" nosuch || rc=1
	expect_error "two kernels are labelled" "$bench" trace trace || rc=1
	expect_error "give your own build a label" "$bench" bzimage=/etc/hostname || rc=1
	expect_error "build=DIR" "$bench" me=bzimage=/etc/hostname || rc=1
	expect_error "want a count" "$bench" --rounds 0 trace || rc=1
	expect_error "list of out, off and on" "$bench" --states of trace || rc=1
	expect_error "unknown option" "$bench" --frobnicate trace || rc=1
	expect_error "no architecture nosuch" "$bench" --arch nosuch trace || rc=1
	expect_error "applies to QEMU guests only" "$bench" --host --arch arm64 || rc=1
	expect_error "want a count from 1, not '0x10'" "$bench" --batch 0x10 trace || rc=1
	expect_error "wants a count from 1, not '0'" sh "$collect" --batch 0 "$tmp/o3" || rc=1
	expect_error "no such directory" "$report" /nonexistent || rc=1
	expect_error "no results.json" "$report" "$tmp" || rc=1
	expect_error "no row nosuch.off" "$report" --reference nosuch.off \
		"$TB_OUT/bench-icount" || rc=1
	expect_error "invalid choice" "$report" --format xml "$TB_OUT/bench-icount" || rc=1
	expect_error "given twice" "$report" "$TB_OUT/bench-icount" \
		"$TB_OUT/bench-icount/" || rc=1
	# report.py's refusals of results it cannot read or compare: the
	# icount results at another counter rate, as another machine's,
	# broken JSON, and an unknown schema
	mkdir -p "$tmp/hz" "$tmp/json" "$tmp/schema" || return 1
	sed 's/"counter_hz":[0-9]*/"counter_hz":62500000/g' \
		"$TB_OUT/bench-icount/results.json" >"$tmp/hz/results.json"
	expect_error "cannot subtract ticks across hz/trace.off" "$report" \
		--reference bench-icount/trace.off "$TB_OUT/bench-icount" \
		"$tmp/hz" || rc=1
	echo '{"format":' >"$tmp/json/results.json"
	expect_error "not JSON" "$report" "$tmp/json" || rc=1
	sed 's/"schema":2,/"schema":99,/' "$TB_OUT/bench-icount/results.json" \
		>"$tmp/schema/results.json"
	expect_error "schema 99" "$report" "$tmp/schema" || rc=1
	expect_error "wants a count" sh "$collect" --rounds 0 "$tmp/o3" || rc=1
	expect_error "a state is out, off or on" sh "$collect" --states up "$tmp/o3" || rc=1
	return $rc
}

# The runner's JSON is the same from busybox's sh and awk as from the host's.
# On a copy whose env holds a backslash, quotes and a tab, as a Windows
# path or a quoted command line would: both JSON documents must parse and
# give those characters back.
check_json_busybox()
{
	local dir=$TB_OUT/bench-icount copy=$TB_OUT/bench-json
	local bin=$TB_OUT/busybox-bin tricky

	tricky=$(printf 'C:\\tb "quoted"\tend\\')
	rm -rf "$bin" "$copy" && mkdir -p "$bin" &&
		ln -s /bin/busybox "$bin/awk" && ln -s /bin/busybox "$bin/sh" &&
		cp -r "$dir" "$copy" &&
		echo "note $tricky" >>"$copy/env" || return 1
	PATH=$bin:$PATH busybox sh "$TB_TOP/tools/guest/json.sh" "$copy" \
		>"$copy/busybox.json" &&
		sh "$TB_TOP/tools/guest/json.sh" "$copy" >"$copy/host.json" &&
		cmp "$copy/busybox.json" "$copy/host.json" &&
		$PY - "$copy/host.json" "$tricky" <<'PYEOF' && rm -rf "$copy"
import json, sys
note = json.load(open(sys.argv[1]))["env"]["note"]
print(f"[bench] env note read back as {note!r}")
sys.exit(note != sys.argv[2])
PYEOF
}

# On another architecture, the example patch under icount: its 16 nops
# take 16 ns, which the counter shows as 16 ns at its own rate (arm64's
# 62.5 MHz: one tick), on irq and irq_save, and nothing elsewhere. A
# median on a tick's edge (arm64's irq, events off: 75.5 ticks) reads
# as either neighbour, so batch 50 gives figures per pair to 1/50 of a
# tick, and keeps the windows with the events off (about 3800 ticks)
# below 4096, where the histogram is exact: each figure within 0.02 of
# the truth, the difference within 0.04, whichever neighbour the median
# of 2000 samples per CPU lands on.
check_bench_arch()
{
	local dir=$TB_OUT/bench-$TB_ARCH-icount pad=trace+pad-irqoff ticks

	rm -rf "$dir"
	"$TB_TOP/tools/bench.sh" --arch "$TB_ARCH" --icount --rounds 1 \
		--nr-samples 2000 --batch 50 --out "$dir" trace \
		trace,patches="$TB_TOP/tools/patches/pad-irqoff" \
		>"$dir.log" 2>&1
	result $? "bench.sh --arch $TB_ARCH --icount: trace and pad-irqoff"
	sed "s/^/[bench $TB_ARCH] /" "$dir.log"
	"$TB_TOP/tools/report.py" "$dir" | sed "s/^/[report $TB_ARCH] /"
	report_json "$dir" trace.off "$dir/report.json" || return 1
	ticks=$($PY -c 'import json, sys
t = json.load(open(sys.argv[1]))["tables"][0]
print(round(16e-9 * t["rows"][0]["counter_hz"]))' "$dir/report.json") || return 1
	expect_diff "$dir/report.json" $pad.off irq near "$ticks,0.04" &&
		expect_diff "$dir/report.json" $pad.off irq_save near "$ticks,0.04" &&
		expect_diff "$dir/report.json" $pad.off preempt near 0,0.04 &&
		expect_diff "$dir/report.json" $pad.off raw_irq near 0,0.04
}

# Each architecture's checks come in parts, which run as jobs, TB_JOBS
# at a time, each into .out/check-ARCH-PART.log:
#   debian	the Debian kernels: functional, exact, headless, DKMS
#   long	the long boots on the Debian kernels
#   debug	the debug kernel's suites and KUnit
#   built	the other built kernels, compare.sh, then bench.sh and
#		report.py on the trace kernel and the example patches
# No two parts build the same kernel or write the same file: the long
# boots have a module build of their own, and bench.sh's patched kernels
# are built by the built part alone.
arch_parts()
{
	local part all=

	[ -n "$TB_KERNELS" ] && all="debian long"
	case " $TB_BUILT_KERNELS " in
	*" debug "*)	all="$all debug" ;;
	esac
	[ -n "$TB_BUILT_KERNELS" ] && all="$all built"
	for part in $all; do
		case " $TB_PARTS " in
		*" $part "*)	echo "$part" ;;
		esac
	done
}

# check_part PART: a part of the architecture tb_arch_load last loaded
check_part()
{
	local s=$SECONDS all=$TB_BUILT_KERNELS k

	case $1 in
	debian)	check_debian_kernels ;;
	long)	check_long_boots ;;
	debug)	TB_BUILT_KERNELS=debug check_built_kernels ;;
	built)
		TB_BUILT_KERNELS=
		for k in $all; do
			[ "$k" = debug ] ||
				TB_BUILT_KERNELS="${TB_BUILT_KERNELS:+$TB_BUILT_KERNELS }$k"
		done
		check_built_kernels
		# as before arm64: any built kernel asked for, and the arch
		# has both
		if tb_arch_builds notrace trace; then
			check_compare
			result $? "$(tb_name compare.sh) --icount: all three states, events raise the medians, hook costs"
		fi
		# the example patches are against linux-source-6.12's trace
		# kernel
		case " $all " in
		*" trace "*)	check_bench_part ;;
		esac
		;;
	esac
	echo "# $TB_ARCH $1 took $((SECONDS - s)) s"
}

# bench.sh and report.py on the architecture: the whole of it on
# x86-64, the example patch under icount elsewhere
check_bench_part()
{
	if [ "$TB_ARCH" = x86_64 ]; then
		check_bench
		check_json_busybox
		result $? "json.sh: busybox and the host awk write the same JSON, escaped"
		check_bench_errors
		result $? "bench.sh, report.py and collect.sh refuse bad input, saying why"
	else
		check_bench_arch
		result $? "report: on $TB_ARCH pad-irqoff costs irq and irq_save 16 ns in counter ticks (batch 50: within 0.04), preempt nothing"
	fi
}

# run_part ARCH PART: check_part in a shell of its own, which counts its
# own results and ends with its "N passed, N failed" line; ARCH "host" is
# the host's checks.
run_part()
{
	passed=0
	failed=0
	echo "# $1 $2"
	if [ "$1" = host ]; then
		# as make check started: the arch files loaded since, the
		# last i386, must not choose style.sh's kernels
		tb_arch_load "$TB_HOST_ARCH" && check_host
	else
		tb_arch_load "$1" && check_part "$2"
	fi
	echo "$passed passed, $failed failed"
}

# The parts side by side, TB_JOBS at a time: one job's guests wait on
# timers and I/O and its kernel builds on the disk, while the other's
# use the CPUs. Packages are installed, and the kernel source unpacked,
# before any job starts. The parts start longest first (as measured on
# this project's machine), so that no CPU idles at the end while one
# long part runs alone; their results are read in the order asked.
TB_ARCHS=${TB_ARCHS-$(tb_all_archs)}
archs=
for arch in $TB_ARCHS; do
	if ! tb_arch_load "$arch" || ! tb_install || ! tb_guest_debs >/dev/null; then
		result 1 "$arch: architecture and its packages"
		continue
	fi
	case " $archs " in
	*" $arch "*)	;;
	*)		archs="$archs $arch" ;;
	esac
done
[ -z "$archs" ] || tb_kernel_source || result 1 "linux-source-6.12 unpacked"
parts=
case " $TB_PARTS " in
*" host "*)	parts=host:checks ;;
esac
for arch in $archs; do
	tb_arch_load "$arch"
	for part in $(arch_parts); do
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
	local secs kernels= k

	# the host's checks, as measured
	[ "$1" = host ] && { echo 40; return; }
	tb_arch_load "$1"
	secs=$(echo " $TB_PART_SECONDS " | sed -n "s/.* $2:\([0-9]*\) .*/\1/p")
	case $2 in
	debug)	kernels=debug ;;
	built)	kernels=$(echo " $TB_BUILT_KERNELS " | sed 's/ debug / /') ;;
	esac
	for k in $kernels; do
		[ -f "$(tb_kernel_dir "$k")/.tb-built" ] ||
			secs=$((${secs:-0} + 600))
	done
	echo "${secs:-0}"
}

[ -n "$parts" ] ||
	refuse "TB_PARTS=\"$TB_PARTS\" and TB_ARCHS=\"$TB_ARCHS\" leave nothing to run"
queue=$(for job in $parts; do
	echo "$(part_seconds "${job%%:*}" "${job#*:}") $job"
done | sort -s -k1,1nr | cut -d' ' -f2)
# Each job in a process group of its own (set -m), so that an interrupt
# or a CI's TERM stops its kernel builds and guests too: without job
# control, background jobs ignore SIGINT.
part_jobs=()
stop_part_jobs()
{
	local pid

	for pid in "${part_jobs[@]}"; do
		kill -TERM -- -"$pid" 2>/dev/null
	done
	wait
}
trap 'stop_part_jobs; exit 130' INT TERM
set -m
running=0
for job in $queue; do
	if [ $running -ge "$TB_JOBS" ]; then
		wait -n
		running=$((running - 1))
	fi
	running=$((running + 1))
	log=$TB_OUT/check-${job%%:*}-${job#*:}.log
	echo "# ${job%%:*} ${job#*:}: started, log in $log"
	run_part "${job%%:*}" "${job#*:}" >"$log" 2>&1 &
	part_jobs+=($!)
done
wait
set +m
trap - INT TERM
for job in $parts; do
	collect_summary "${job%%:*} ${job#*:}" \
		"$TB_OUT/check-${job%%:*}-${job#*:}.log"
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

# The pasted outputs of README.md and doc/ against what the tools print
# now (tools/docs.py): those of the parts this run ran, and make run, a
# minute's boot, with x86-64's Debian kernels; and the links between the
# documents. tools/unit/docs_test.py shows the comparison can fail.
check_docs()
{
	local d=$TB_OUT/docs docs

	docs="$TB_TOP/README.md $(ls "$TB_TOP"/doc/*.md)"
	rm -rf "$d" && mkdir -p "$d" || return
	/usr/bin/python3 "$TB_TOP/tools/unit/docs_test.py" >"$d/unit.log" 2>&1
	collect_summary "docs unit" "$d/unit.log"
	/usr/bin/python3 "$TB_TOP/tools/docs.py" links $docs | sed 's/^/[docs] /'
	result "${PIPESTATUS[0]}" "docs: no dead link between README.md and doc/"
	case " $parts " in
	*" x86_64:debian "*)
		(cd "$TB_TOP" && make --no-print-directory run) \
			>"$d/make-run.txt" 2>"$d/make-run.err" ;;
	esac
	case " $parts " in
	*" x86_64:built "*)
		"$TB_TOP/tools/report.py" --reference trace.off \
			"$TB_OUT/bench-icount" >"$d/bench-icount.txt"
		"$TB_TOP/tools/report.py" --alpha 0.001 "$TB_OUT/bench-tcg" \
			>"$d/bench-tcg.txt"
		"$TB_TOP/tools/report.py" "$TB_OUT/compare" >"$d/compare.txt" ;;
	esac
	case " $parts " in
	*" arm64:built "*)
		"$TB_TOP/tools/report.py" "$TB_OUT/compare-arm64" \
			>"$d/compare-arm64.txt" ;;
	esac
	/usr/bin/python3 "$TB_TOP/tools/docs.py" outputs "$d" $docs \
		>"$d/outputs.log" 2>&1
	collect_summary docs "$d/outputs.log"
}
check_docs

echo "# make check took $((SECONDS - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
