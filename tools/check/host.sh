# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The host's own checks of make check: unit tests, style, the kernel
# cache's keys, installs, the guest's helpers, the scenario table and
# make check's refusals. Sourced by tools/check.sh.

# check_module_log: tb_module_log_clean on made-up build logs: modpost's
# lines of a build against a tree only prepared for modules (as 6.12's
# modpost words them) pass there and fail elsewhere; a compiler's
# warning, or modpost's section mismatch, fails both; a clean log passes
check_module_log()
{
	local d=$TB_OUT/module-log prep want1 want0 extra

	mkdir -p "$d" || return 1
	prep='WARNING: Module.symvers is missing.
         Modules may not have dependencies or modversions.
         You may get many unresolved symbol errors.
         You can set KBUILD_MODPOST_WARN=1 to turn errors into warning
         if you want to proceed at your own risk.
WARNING: modpost: "refcount_warn_saturate" [/m/tracerbench.ko] undefined!
WARNING: modpost: suppressed 85 unresolved symbol warnings because there were too many)'
	while IFS='|' read -r want1 want0 extra; do
		printf '  CC [M]  /m/run.o\n%s\n  LD [M]  /m/tracerbench.ko\n' \
			"$extra" >"$d/build.log"
		[ "$extra" != prepared ] ||
			printf '%s\n' "$prep" >>"$d/build.log"
		tb_module_log_clean "$d/build.log" 1
		{ [ $? = "$want1" ] &&
			{ tb_module_log_clean "$d/build.log" 0; [ $? = "$want0" ]; }; } ||
			{ echo "[module log] '$extra': not $want1 prepared, $want0 built"; return 1; }
	done <<'XLOGS'
0|0|
0|1|prepared
1|1|/m/run.c:12:5: warning: unused variable 'x' [-Wunused-variable]
1|1|WARNING: modpost: vmlinux: section mismatch in reference: foo
XLOGS
}

# Without the kernel's build tree, make names the package to install.
check_no_kdir()
{
	local out

	out=$(make -C "$TB_TOP" KDIR=/nonexistent KVER=0.0-tb modules 2>&1) &&
		return 1
	echo "$out" | grep -q 'apt install linux-headers-0.0-tb' &&
		echo "$out" | grep -q 'dnf install kernel-devel-0.0-tb' &&
		return 0
	# shellcheck disable=SC2001 # a prefix on every line
	echo "$out" | sed 's/^/[no kdir] /'
	return 1
}

# check_series_forms: a patch series as people send it: a format-patch
# directory with its cover letter (left out, and said so), an mbox of the
# series as mailed, given with ~; each list names the two patches in
# order, and they apply in that order to the files of linux-source-6.12
# they touch, copied aside (tb_source_files: the host part unpacks no
# source). A quilt series and a plain directory are bench.sh's own checks
# (check_bench_errors, the example patches).
check_series_forms()
{
	local d=$TB_OUT/series-forms p f list form src
	local pad=$TB_TOP/tools/patches/pad-irqoff irq=$TB_TOP/tools/patches/irqsoff-key

	rm -rf "$d" && mkdir -p "$d/fp" || return 1
	printf '%s\n' 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001' \
		'From: A Developer <dev@example.org>' \
		'Subject: [PATCH 0/2] tracing: two examples' '' \
		'*** BLURB HERE ***' '' ' kernel/trace/trace_irqsoff.c | 6 ++++++' \
		'' '-- ' '2.39.5' >"$d/fp/0000-cover-letter.patch"
	cp "$pad"/0001-*.patch "$d/fp/0001-pad.patch" &&
		cp "$irq"/0001-*.patch "$d/fp/0002-irqsoff-key.patch" &&
		cat "$d/fp/0000-cover-letter.patch" "$d"/fp/000[12]-*.patch \
			>"$d/series.mbox" || return 1
	# shellcheck disable=SC2046 # the files the patches touch, a word each
	src=$(tb_source_files $(sed -n 's|^+++ b/||p' "$d"/fp/000[12]-*.patch |
		sort -u)) || return 1
	for form in fp mbox; do
		case $form in
		fp)	list=$(tb_patch_list "$d/fp" 2>"$d/$form.err") ;;
		mbox)	# shellcheck disable=SC2088 # the ~ is the test
			list=$(HOME=$d tb_patch_list '~/series.mbox' \
				2>"$d/$form.err") ;;
		esac || { cat "$d/$form.err"; return 1; }
		if [ "$(echo "$list" | wc -l)" != 2 ] ||
		   ! grep -q 'changes nothing (a cover letter?): skipped' \
			"$d/$form.err"; then
			echo "$form: listed: $list"
			cat "$d/$form.err"
			return 1
		fi
		rm -rf "$d/src"
		for p in $list; do
			while read -r f; do
				[ -f "$d/src/$f" ] && continue
				{ mkdir -p "$d/src/$(dirname "$f")" &&
					cp "$src/$f" "$d/src/$f"; } || return 1
			done < <(sed -n 's|^+++ b/||p' "$p")
			patch -d "$d/src" -p1 -s --batch <"$p" ||
				{ echo "$form: $p does not apply"; return 1; }
		done
	done
	# a series of nothing but a cover letter is refused
	! tb_patch_list "$d/fp/0000-cover-letter.patch" 2>"$d/none.err" &&
		grep -q 'holds no patch that changes anything' "$d/none.err"
}

# check_own_build_refused: bench.sh refuses your own build, before
# anything is built or booted, where the guest cannot use it: a .config
# without CONFIG_DEBUG_FS (named, with the fragment to merge), an image
# of another architecture, a kernel older than 6.1.
check_own_build_refused()
{
	local d=$TB_OUT/own-build b rc=0
	local bench=$TB_TOP/tools/bench.sh

	b=$d/build
	rm -rf "$d" && mkdir -p "$b/include/config" || return 1
	# a stand-in for a built x86-64 tree with all the guest needs but
	# CONFIG_DEBUG_FS, and for its image, a bzImage's header magic
	touch "$b/Makefile" "$b/Module.symvers"
	{
		echo CONFIG_X86_64=y
		# shellcheck disable=SC2046 # a list of files
		tb_options $(tb_guest_config) | grep -v '^CONFIG_DEBUG_FS='
	} >"$b/.config"
	echo 6.12.0 >"$b/include/config/kernel.release"
	printf 'HdrS' | dd of="$d/bzImage" bs=1 seek=514 2>/dev/null
	expect_error '^  CONFIG_DEBUG_FS=y$' \
		"$bench" --out "$d/o" "me=bzimage=$d/bzImage,build=$b" &&
		grep -q 'merge_config.sh' "$TB_OUT/bench-error.log" || rc=1
	expect_error 'an x86 image, not one for arm64' "$bench" --arch arm64 \
		--out "$d/o" "me=bzimage=$d/bzImage,build=$b" || rc=1
	echo 5.15.0 >"$b/include/config/kernel.release"
	expect_error '5.15.0 is older than 6.1' \
		"$bench" --out "$d/o" "me=bzimage=$d/bzImage,build=$b" || rc=1
	[ ! -e "$d/o" ] || { echo "[bench] a refused build wrote $d/o"; rc=1; }
	return $rc
}

# check_guest_config: the rig's kernels have all that guest.config and
# the architecture's guest fragment ask of any kernel: every
# architecture's notrace fragments set each option as they do.
check_guest_config()
{
	local arch rc=0 opt

	for arch in $(tb_all_archs); do
		# shellcheck disable=SC2046 # a list of files, a word each
		while read -r opt; do
			(tb_arch_load "$arch" && tb_fragment_options notrace) |
				grep -qxF "$opt" ||
				{ echo "$arch: the rig's fragments lack $opt"; rc=1; }
		done < <(tb_arch_load "$arch" && tb_options $(tb_guest_config))
	done
	return $rc
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
	# shellcheck disable=SC2016 # the fake's own $1 and $@
	printf '#!/bin/sh\nexit 1\n' >"$tmp/dpkg-query" &&
		printf '#!/bin/sh\n[ "$1" = update ] && exit 100\necho "$@" >>%s\n' \
			"$tmp/install.log" >"$tmp/apt-get" &&
		chmod +x "$tmp/dpkg-query" "$tmp/apt-get" &&
		(PATH=$tmp:$PATH tb_install) 2>"$tmp/err" &&
		grep -q 'apt-get update failed' "$tmp/err" &&
		[ "$(cat "$tmp/install.log")" = \
		  "install -y -qq --no-install-recommends $(tb_list "$(tb_packages)")" ] &&
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
	local vars want out rc fail=0 envs

	# shellcheck disable=SC2086 # TB_ALL_PARTS, a word each
	while IFS="|" read -r vars want; do
		read -ra envs <<<"$vars"
		out=$(env "${envs[@]}" "$TB_TOP/tools/check.sh" 2>&1)
		rc=$?
		if [ $rc != 2 ] || ! echo "$out" | grep -qF "not ok - $want" ||
		   echo "$out" | grep -q ': started'; then
			echo "[refusals] $vars: exit $rc, want 2 and '$want':"
			echo "$out" | tail -n 3 | sed 's/^/[refusals] /'
			fail=1
		fi
	done <<-EOF
	TB_JOBS=0|TB_JOBS is a count from 1, not '0'
	TB_PARTS=host,lng|TB_PARTS names $(words_or $TB_ALL_PARTS), not 'lng'
	TB_LONG_SAMPLES=1e8|TB_LONG_SAMPLES is a count from 1, not '1e8'
	TB_PARTS=long TB_ARCHS=arm64|TB_PARTS="long" and TB_ARCHS="arm64" leave nothing to run
	TB_PARTS=long,rt TB_ARCHS=arm64,i386|TB_PARTS="long rt" and TB_ARCHS="arm64 i386" leave nothing to run
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
# kernels, and groups the guest suite has with a clock and numbers, or
# host steps (step_*) alone; a line that does not is printed.
check_scenarios()
{
	local file=${1:-} arch part k groups clock
	local cpus mem secs args g kernels bad=0

	while read -r -u 3 arch part k groups clock cpus mem secs args; do
		local why=
		[ -f "$TB_TOP/tools/arch/$arch.conf" ] || why="no arch $arch"
		case " $TB_ARCH_PARTS " in *" $part "*) ;;
		*) why="no part $part" ;; esac
		# the part's kernels: Debian's, or the built ones (debug
		# and rt-debug each alone in its part)
		[ -z "$why" ] && ! (tb_arch_load "$arch" &&
			case $part in
			debian | long)	kernels=$TB_ARCH_KERNELS ;;
			debug)		kernels=debug ;;
			rt)		kernels=rt-debug ;;
			built)		kernels=$(echo " $TB_ARCH_BUILT " |
					sed 's/ debug / /; s/ rt-debug / /') ;;
			esac
			case " $kernels " in
			*" $k "*) ;; *) false ;; esac) &&
			why="no kernel $k in the $part part on $arch"
		case $clock in
		host)
			for g in ${groups//,/ }; do
				declare -F "step_${g//-/_}" >/dev/null ||
					why="no host step $g"
			done
			[ -z "$cpus$mem$secs$args" ] ||
				why="a host step has no cpus, memory or timeout" ;;
		tcg | tcg-mt | icount)
			for g in ${groups//,/ }; do
				grep -q "^group_$g()" "$TB_TOP"/tools/guest/tests/*.sh ||
					why="no group $g"
			done
			[[ $cpus =~ ^[1-9][0-9]*$ && $mem =~ ^[1-9][0-9]*[MG]$ &&
			   $secs =~ ^[1-9][0-9]*$ ]] ||
				why="bad cpus, memory or timeout" ;;
		*)	why="no clock $clock" ;;
		esac
		[ -z "$why" ] && continue
		echo "[scenarios] $arch $part $k $groups: $why"
		bad=1
	done 3< <(tb_scenario_lines "$file")
	return $bad
}

# unit_suite NAME LOG COMMAND...: a host suite's results, into
# $TB_OUT/LOG, counted as NAME's
unit_suite()
{
	local name=$1 log=$TB_OUT/$2

	shift 2
	"$@" >"$log" 2>&1
	collect_summary "$name" "$log"
}

check_host()
{
	local kernels py=/usr/bin/python3 unit=$TB_TOP/tools/unit

	make -s -C "$TB_TOP/tools/unit" check >"$TB_OUT/unit.log" 2>&1
	collect_summary unit "$TB_OUT/unit.log"
	unit_suite "report unit" report-unit.log "$py" "$unit/report_test.py"
	unit_suite "report code unit" reportcode-unit.log "$py" "$unit/reportcode_test.py"
	unit_suite "report lkml unit" reportlkml-unit.log "$py" "$unit/reportlkml_test.py"
	unit_suite "jump_nop unit" jump-nop-unit.log "$py" "$unit/jump_nop_test.py"
	unit_suite "disasm unit" disasm-unit.log "$py" "$unit/disasm_test.py"
	# the one reader of the module's C, on reformatted headers
	unit_suite "cfacts unit" cfacts-unit.log "$py" "$unit/cfacts_test.py"
	# every tool's --help and a bad option (doc/cli.md)
	unit_suite "cli unit" cli-unit.log "$py" "$unit/cli_test.py"
	# bench.sh --lava's jobs and logs, on made-up ones
	unit_suite "lava unit" lava-unit.log "$py" "$unit/lava_test.py"
	# make check's parts, a guest's runs and a kernel build shown as
	# they come (tools/lib/progress.sh), read from short made-up runs
	unit_suite "progress unit" progress-unit.log "$py" "$unit/progress_test.py"
	# the cache's locks, processes side by side (tools/lib/cache.sh)
	unit_suite "cache unit" cache-unit.log "$unit/cache_test.sh"
	# a measured machine's facts and warnings, on made-up ones
	unit_suite "machine unit" machine-unit.log "$unit/machine_test.sh"
	# the x86 guests' CPU against QEMU 7.2's compare-exchange flags
	unit_suite "guest cpu unit" guest-cpu-unit.log "$unit/guest_cpu_test.sh"
	# collect.sh's runs, --skip and --stop-file, on a made-up module
	unit_suite "collect unit" collect-unit.log "$unit/collect_test.sh"
	check_no_kdir
	result $? "make without a kernel build tree names the headers package"
	check_module_log
	result $? "a module's build log: any warning fails it; against a prepared tree, all but modpost's unresolved symbols"
	check_tree_key
	result $? "a kernel's cache key follows its fragments' options, not their comments, and a patched kernel's its patches"
	check_series_forms
	result $? "patch series as mailed: a format-patch directory with its cover letter, an mbox given with ~: the cover skipped, said so, the rest apply in order"
	check_own_build_refused
	result $? "bench.sh refuses your own build, naming each option the guest lacks, an image of another arch, a kernel before 6.1"
	check_guest_config
	result $? "every arch's rig kernels set what guest.config and the arch's guest fragment ask of any kernel"
	check_tree_refusals
	result $? "bench.sh refuses a tree= it cannot build: no such commit, no kernel tree, before 6.1, @REV without git, no variant, a patch that does not apply"
	check_install_update_fails
	result $? "packages install even when apt-get update fails"
	# the kernel spec's grammar, a boot's timeout, what each tool installs
	unit_suite "spec unit" spec-unit.log "$unit/spec_test.sh"
	check_now_us
	result $? "guest now_us: microseconds from any clock, one that starts at 0 too"
	check_scenarios
	result $? "tools/scenarios: every line names an arch, part, kernel, and groups and clock, or host steps, there are"
	printf '%s\n' "x86_64 built nokernel functional tcg 4 1G 900" \
		"x86_64 built trace nogroup icount 4 1G 900" \
		"x86_64 built trace baseline slow 4 1G 900" \
		"x86_64 debian notrace functional tcg 4 1G 900" \
		"x86_64 built debug functional tcg 4 1G 900" \
		"x86_64 built trace nostep host" \
		"x86_64 built trace dkms host 4 1G 900" \
		>"$TB_OUT/scenarios-bad"
	[ "$(check_scenarios "$TB_OUT/scenarios-bad" | wc -l)" = 7 ]
	result $? "tools/scenarios: an unknown kernel, group, host step or clock, a host step with a guest's columns, or a kernel of another part, is caught"
	TB_STYLE_KUNIT=0 "$TB_TOP/tools/style.sh" >"$TB_OUT/style.log" 2>&1
	collect_summary style "$TB_OUT/style.log"
	# a result per Debian kernel of x86-64, which this job loaded
	kernels=$TB_KERNELS
	[ "$(grep -c ': sparse (C=2) and W=1 clean$' "$TB_OUT/style.log")" = \
	  "$(wc -w <<<"$kernels")" ]
	result $? "make style: sparse on each of the kernels ($kernels)"
	check_refusals
	result $? "make check refuses a bad TB_JOBS, TB_PARTS or TB_LONG_SAMPLES, and a selection of nothing, its lists with commas or spaces"
}
