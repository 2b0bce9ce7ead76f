# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The kernels' parts of make check: the module built for each kernel and
# its windows disassembled, and the host steps of tools/scenarios
# (step_*): DKMS, the disassembly check's own check, the tracepoint's
# NOP; KUnit's module and results. Sourced by tools/check.sh.

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

# step_disasm_catches KERNEL: the disassembly check can fail: a build
# with a sample store moved into every window must be refused, for that
# store (on debug, with KASAN's checks allowed).
step_disasm_catches()
{
	local n log

	n=$(tb_name "$1")
	log=$TB_OUT/disasm-selftest-$n.log
	TB_KCFLAGS=-DTB_DISASM_SELFTEST tb_build_module "$1" -selftest &&
		! "$TB_TOP/tools/disasm.sh" "$(tb_module "$1" -selftest)" \
			>"$log" 2>&1 &&
		grep -q 'memory access in the window' "$log"
	result $? "$n: disasm: a store moved into the windows is caught"
	step_disasm_one_clock "$1"
}

# step_disasm_one_clock KERNEL: a module whose ns windows alone hold a
# store fails the check, but passes it held to the clocks a run uses
# (--clocks, as bench.sh asks through codesize.sh), saying which clock's
# windows do not check.
step_disasm_one_clock()
{
	local n log ko

	n=$(tb_name "$1")
	log=$TB_OUT/disasm-selftest-ns-$n.log
	ko=$(tb_module "$1" -selftest-ns)
	TB_KCFLAGS="-DTB_DISASM_SELFTEST -DTB_DISASM_SELFTEST_CLOCK=TB_CLOCK_NS" \
		tb_build_module "$1" -selftest-ns &&
		! "$TB_TOP/tools/disasm.sh" "$ko" >"$log" 2>&1 &&
		grep -q '_ns.*memory access in the window' "$log" &&
		! grep -v '_ns' "$log" | grep -q 'memory access' &&
		"$TB_TOP/tools/disasm.sh" --clocks cycles,ordered "$ko" \
			>>"$log" 2>&1 &&
		grep -q 'warning: .*clock ns do not check' "$log" &&
		"$TB_TOP/tools/codesize.sh" --clocks cycles "$ko" >>"$log" 2>&1 &&
		! "$TB_TOP/tools/codesize.sh" --clocks ns "$ko" >>"$log" 2>&1
	result $? "$n: disasm: windows of a clock not run are warnings, of one run failures (codesize.sh too)"
}

# step_disasm_minimal KERNEL: every window checks in the module built for
# KERNEL as a kernel built by hand from tinyconfig has it
# (tools/kconfig/minimal.config): -Os, no paravirt, no jump labels, where
# the register pressure differs from the rig's kernels'. The module is
# never loaded: its tree is only prepared for modules (tb_prepare_patched).
step_disasm_minimal()
{
	local n kdir frag=$TB_TOP/tools/kconfig/minimal.config

	n=$(tb_name "$1")-minimal
	if ! kdir=$(tb_prepare_patched "$1" "$frag" 2>"$TB_OUT/$n.log"); then
		sed "s/^/[$n kernel] /" "$TB_OUT/$n.log"
		result 1 "$n: kernel prepared for modules (minimal.config)"
		return
	fi
	tb_custom_kernel "$n" "$kdir" ""
	if ! tb_build_module "$n"; then
		sed "s/^/[$n module] /" "$(dirname "$(tb_module "$n")")/build.log"
		result 1 "$n: module builds against the prepared tree"
		return
	fi
	"$TB_TOP/tools/disasm.sh" "$(tb_module "$n")" >"$TB_OUT/disasm-$n.log" 2>&1
	result $? "$n: disasm: every window of every clock checks on a kernel as tinyconfig builds it"
	sed "s/^/[$n disasm] /" "$TB_OUT/disasm-$n.log"
}

# prepare_long KERNEL: the long boots' module, built apart (-long) so
# that this part runs beside the one that builds the plain module
prepare_long()
{
	local n

	n=$(tb_name "$1")
	tb_build_module "$1" -long &&
		tb_make_initramfs "$1" "$TB_OUT/initrd-$n-long.cpio.gz" \
			"$(tb_module "$1" -long)"
	result $? "$n: module and initramfs for the long boots"
}

# step_dkms KERNEL: DKMS as a user's machine runs it: add and build a
# staged copy of the tree for the installed headers of Debian's KERNEL,
# then boot KERNEL with the module DKMS built. DKMS gets trees and a
# throwaway signing key of its own in a temporary directory, so that
# runs never collide and nothing outside it is touched.
step_dkms()
{
	local k=$1 v rel tmp opts ko out rc

	out=$TB_OUT/$k-dkms
	v=$(tb_version)
	rel=$(tb_release "$k")
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
			tb_make_initramfs "$k" "$TB_OUT/initrd-dkms.cpio.gz" \
				"$TB_OUT/dkms/tracerbench.ko"
		result $? "dkms: initramfs with the module DKMS built"
		tb_boot "$k" "$TB_OUT/initrd-dkms.cpio.gz" version 300 "$out" \
			tb.version="$v"
		collect_ktap "$k dkms" "$out"
	fi
	dkms remove tracerbench/"$v" --all "${opts[@]}" >/dev/null 2>&1
	[ -z "$(dkms status "${opts[@]}")" ]
	result $? "dkms: remove --all leaves nothing"
	rm -rf "$tmp"
	check_module_work "$k"
	result $? "module: kbuild's directory of the cache compiles again what changed alone; a build that warns empties it"
}

# module_compiled KERNEL VARIANT: how many objects the last build of the
# module's VARIANT for KERNEL compiled
module_compiled()
{
	grep -c '^ *CC \[M\]' "$(dirname "$(tb_module "$1" "$2")")/build.log"
}

# same_module KO1 KO2: the two modules are the same but for their BTF,
# which pahole's threads encode in an order of their own each time
same_module()
{
	local a b rc

	a=$(mktemp) && b=$(mktemp) || return 1
	objcopy --remove-section=.BTF "$1" "$a" &&
		objcopy --remove-section=.BTF "$2" "$b" && cmp -s "$a" "$b"
	rc=$?
	rm -f "$a" "$b"
	return $rc
}

# check_module_work KERNEL: the module's builds for KERNEL in the
# cache's directory (tb_build_module), as variant -work, from none: the
# first compiles every object (as many as the module has .c files at
# least); the second none, for the same module (same_module); with one
# source there unlike the module's, that one alone, for the same module;
# with the directory's stamp changed, every object again. With -Wpadded,
# which warns, a build fails, twice, each saying its warnings, with no
# module, and empties the directory; the next compiles every object
# again, for the same module. The module's own directory holds none of
# the cache's marks.
check_module_work()
{
	local k=$1 work ko log all i

	work=$(tb_module_work "$(tb_kdir "$k")" -work) && rm -rf "$work" || return 1
	ko=$(tb_module "$k" -work)
	log=$(dirname "$ko")/build.log
	module_work_build "$k" && cp "$ko" "$TB_OUT/module-work.ko" || return 1
	all=$(module_compiled "$k" -work)
	[ "$all" -ge "$(find "$(dirname "$ko")" -maxdepth 1 -name '*.c' | wc -l)" ] ||
		{ echo "[module] the first build compiled $all objects"; return 1; }
	module_work_again "$k" 0 "the same build again" || return 1
	echo '/* differs */' >>"$work/heap.c" &&
		module_work_again "$k" 1 "heap.c there changed" || return 1
	echo x >"$work/.tb-stamp" &&
		module_work_again "$k" "$all" "the stamp there changed" || return 1
	for i in 1 2; do
		if TB_KCFLAGS=-Wpadded tb_build_module "$k" -work ||
		   ! grep -q warning "$log" || [ -e "$ko" ] ||
		   [ -e "$work/.tb-stamp" ]; then
			echo "[module] a build that warns ($i) passed, said no warning, gave a module, or left its objects"
			return 1
		fi
	done
	module_work_again "$k" "$all" "the build after those that warned" || return 1
	! ls "$(dirname "$ko")"/.tb-* 2>/dev/null ||
		{ echo "[module] the cache's marks in the module's directory"; return 1; }
}

# module_work_build KERNEL: the module's -work variant built for KERNEL;
# its log, should it fail
module_work_build()
{
	tb_build_module "$1" -work && return 0
	sed 's/^/[module] /' "$(dirname "$(tb_module "$1" -work)")/build.log"
	return 1
}

# module_work_again KERNEL N WHAT: after WHAT, the module's -work
# variant for KERNEL builds, compiling N objects, the same module as the
# first build's (check_module_work)
module_work_again()
{
	local n

	module_work_build "$1" || { echo "[module] $3: the build failed"; return 1; }
	n=$(module_compiled "$1" -work)
	[ "$n" = "$2" ] || { echo "[module] $3: $n objects compiled, not $2"; return 1; }
	same_module "$(tb_module "$1" -work)" "$TB_OUT/module-work.ko" ||
		{ echo "[module] $3: another module"; return 1; }
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

# step_jump_nop KERNEL: with CONFIG_JUMP_LABEL, the disabled
# irq_disable tracepoint in trace_hardirqs_off() is a NOP in the image, not
# a load and a test, as in the kernels users run.
step_jump_nop()
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
