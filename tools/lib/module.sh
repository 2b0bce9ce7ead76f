# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The module and its KUnit suites, built for a target kernel, including
# kernels known by a label of the caller's choosing. Sourced by tools/lib.sh.

# Kernels known by a label of the caller's choosing, such as the patched
# kernels and users' own builds of tools/bench.sh: tb_custom_kernel LABEL
# KDIR VMLINUZ makes tb_kdir and tb_vmlinuz, and so tb_build_module,
# tb_make_initramfs and tb_boot, take LABEL as a kernel.
declare -gA TB_CUSTOM_KDIR=() TB_CUSTOM_VMLINUZ=()

tb_custom_kernel()
{
	TB_CUSTOM_KDIR[$1]=$2
	TB_CUSTOM_VMLINUZ[$1]=$3
}

tb_custom_kdir()
{
	[ -n "${TB_CUSTOM_KDIR[$1]:-}" ] && echo "${TB_CUSTOM_KDIR[$1]}"
}

tb_custom_vmlinuz()
{
	[ -n "${TB_CUSTOM_VMLINUZ[$1]:-}" ] && echo "${TB_CUSTOM_VMLINUZ[$1]}"
}

tb_kdir()
{
	tb_custom_kdir "$1" && return
	if tb_is_built "$1"; then
		tb_kernel_dir "$1"
	else
		echo "/usr/src/linux-headers-$(tb_release "$1")"
	fi
}

tb_vmlinuz()
{
	tb_custom_vmlinuz "$1" && return
	if tb_is_built "$1"; then
		echo "$(tb_kernel_dir "$1")/$TB_KIMAGE"
	else
		echo "/boot/vmlinuz-$(tb_release "$1")"
	fi
}

# Build tracerbench.ko for kernel $1 at W=1 in its own directory; the log is
# $TB_OUT/build-$1$2/build.log (build-ARCH-$1$2 off x86-64). Fails on a
# failed build or on any warning, modpost's (an undefined __udivdi3, say)
# among them. $2, if given, names a variant built with the compiler flags
# TB_KCFLAGS.
#
# The build itself is kbuild's, incremental, in a directory of the cache
# kept for that kernel tree and variant (tb_module_work), and what it
# holds then is copied to the module's directory. make check builds the
# module some fifty times, from the same sources for a few kernels: a
# build in a new directory took 6.7 CPU-seconds (the BTF of Debian's
# headers among them), kbuild's run that finds nothing to do 0.9. A build
# that fails or warns hands back its log alone and empties that
# directory, so that the next starts afresh and says its warnings again.
# The compiler runs through ccache where it can (tb_ccache).
tb_build_module()
{
	local dir kdir work fd='' rc

	dir=$(dirname "$(tb_module "$@")")
	kdir=$(tb_kdir "$1")
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	make -s -C "$TB_TOP" stage DEST="$dir" || return 1
	# where the cache's directory cannot be had, the build is here alone
	if work=$(tb_module_work "$kdir" "${2:-}") &&
	   exec {fd}>"$work.lock" && flock -x "$fd" &&
	   tb_module_sync "$dir" "$work" "$kdir"; then
		tb_module_make "$kdir" "$work"
		rc=$?
		if [ $rc = 0 ]; then
			{ cp -a "$work/." "$dir/" &&
				rm -f "$dir/.tb-kdir" "$dir/.tb-stamp"; } || rc=1
		else
			# its log alone: the module there is an older one's
			cp "$work/build.log" "$dir/" 2>/dev/null
			tb_module_empty "$work"
		fi
	else
		tb_module_make "$kdir" "$dir"
		rc=$?
	fi
	[ -z "$fd" ] || exec {fd}>&-
	return $rc
}

# tb_module_make KDIR DIR: kbuild's build of the module in DIR against
# the kernel tree KDIR, its log DIR/build.log; 1 on a failure or warning.
# Against a tree only prepared for modules (tb_prepare_patched), which has
# no Module.symvers, modpost cannot resolve a symbol: it warns of each,
# and of the file, and those warnings alone are let pass.
tb_module_make()
{
	local prepared=()

	[ -f "$1/.tb-prepared" ] && prepared=(KBUILD_MODPOST_WARN=1)
	tb_ccache "$1"
	CCACHE_DIR=$TB_CACHE/ccache CCACHE_MAXSIZE=1G \
		make -C "$1" "${TB_KMAKE[@]}" "${TB_MODULE_CC[@]}" M="$2" W=1 \
		KCFLAGS="${TB_KCFLAGS:-}" "${prepared[@]}" modules \
		>"$2/build.log" 2>&1 || return 1
	tb_module_log_clean "$2/build.log" ${#prepared[@]}
}

# tb_module_log_clean LOG PREPARED: the module's build log LOG says no
# warning; with PREPARED not 0 (a build against a tree without
# Module.symvers), none but modpost's of the symbols it could not resolve
# and of the missing file
tb_module_log_clean()
{
	if [ "$2" != 0 ]; then
		! grep -i 'warning' "$1" |
			grep -q -v -e '^WARNING: Module\.symvers is missing\.$' \
			-e 'You can set KBUILD_MODPOST_WARN=1 to turn errors into warning$' \
			-e '^WARNING: modpost: "[^"]*" \[[^]]*\] undefined!$' \
			-e '^WARNING: modpost: suppressed [0-9]* unresolved symbol warnings'
	else
		! grep -qi 'warning' "$1"
	fi
}

# tb_module_work KDIR VARIANT: the path of the cache's build directory of
# the module for the kernel tree KDIR and VARIANT (TB_CACHE/modules/),
# whose lock file is beside it; 1 if the cache cannot be written. The
# directories of trees that are gone (a directory's tree is in its
# .tb-kdir) go first, each once nobody holds its lock (which stays).
tb_module_work()
{
	local top=$TB_CACHE/modules kdir d

	kdir=$(realpath "$1") || return 1
	mkdir -p "$top" 2>/dev/null && [ -w "$top" ] || return 1
	for d in "$top"/*/; do
		d=${d%/}
		if [ -f "$d/.tb-kdir" ] && [ ! -d "$(cat "$d/.tb-kdir")" ]; then
			(exec {l}>"$d.lock" && flock -n "$l" && rm -rf "$d")
		fi
	done
	echo "$top/$(printf '%s\n' "$kdir" "$2" "$TB_ARCH" | sha256sum | cut -c 1-16)"
}

# tb_module_sync SRC WORK KDIR: under WORK's lock, WORK (made if need be)
# holds SRC's files (the module's, as make stage leaves them), each
# copied only if it differs, so that kbuild rebuilds what changed alone.
# Should the list of files differ, or KDIR's .config or Module.symvers
# (a kernel rebuilt or reinstalled, whose files kbuild may find older
# than the objects), or the compiler or pahole, WORK is emptied first.
tb_module_sync()
{
	local f stamp

	mkdir -p "$2" && realpath "$3" >"$2/.tb-kdir" || return 1
	stamp=$(cd "$1" && LC_ALL=C ls -A) || return 1
	# (a tree that lacks either builds, or fails, as kbuild says)
	stamp+=$'\n'$(cd "$3" &&
		stat -c '%n %s %Y %i' .config Module.symvers 2>/dev/null
		cat .kernelvariables 2>/dev/null
		"${TB_CROSS:-}gcc" --version 2>/dev/null | head -n 1
		pahole --version 2>/dev/null)
	if [ "$stamp" != "$(cat "$2/.tb-stamp" 2>/dev/null)" ]; then
		tb_module_empty "$2" && echo "$stamp" >"$2/.tb-stamp" || return 1
	fi
	for f in "$1"/* "$1"/.[!.]*; do
		[ -f "$f" ] || continue
		cmp -s "$f" "$2/${f##*/}" || cp "$f" "$2/" || return 1
	done
}

# tb_module_empty WORK: the cache's build directory WORK emptied but for
# its .tb-kdir: the next build there compiles every object
tb_module_empty()
{
	find "$1" -mindepth 1 ! -name .tb-kdir -delete
}

# tb_ccache KDIR: in TB_MODULE_CC (an array), make's words for a module
# build against KDIR through ccache, its cache in TB_CACHE/ccache; none
# where ccache is not installed or that directory cannot be written, as
# ccache then fails every compilation. make check builds the module some
# fifty times, from the same sources for a few kernels: 4 to 5
# CPU-seconds each, under one through the cache. A hit replays what the
# compiler printed, so the check for warnings stands; ccache's key is the
# compiler, its flags and every file the compilation read. Debian's
# headers name their own compiler (gcc-12, in .kernelvariables) and put
# ccache before it when asked; any other kernel's builds take the
# default, $(CROSS_COMPILE)gcc.
tb_ccache()
{
	TB_MODULE_CC=()
	command -v ccache >/dev/null && mkdir -p "$TB_CACHE/ccache" 2>/dev/null &&
		[ -w "$TB_CACHE/ccache" ] || return 0
	if [ -f "$1/.kernelvariables" ]; then
		TB_MODULE_CC=(DEBIAN_KERNEL_USE_CCACHE=1)
	else
		TB_MODULE_CC=("CC=ccache ${TB_CROSS:-}gcc")
	fi
}

tb_module()
{
	echo "$TB_OUT/build-$(tb_name "$1")${2:-}/tracerbench.ko"
}

# The version string the module carries; see version.mk.
tb_version()
{
	make -s --no-print-directory -C "$TB_TOP" version
}

# Build the KUnit module, tools/kunit/, for kernel $1 (one with
# CONFIG_KUNIT) at W=1 with sparse, beside a staged copy of the sources and
# of the case tables, tools/cases/, it #includes; the log is tb_kunit_log
# $1. Fails on any warning.
tb_build_kunit()
{
	local dir

	dir=$TB_OUT/kunit-$(tb_name "$1")
	rm -rf "$dir" && mkdir -p "$dir/tools/kunit" "$dir/tools/cases" ||
		return 1
	make -s -C "$TB_TOP" stage DEST="$dir" &&
		cp "$TB_TOP"/tools/kunit/Kbuild "$TB_TOP"/tools/kunit/*.[ch] \
			"$dir/tools/kunit/" &&
		cp "$TB_TOP"/tools/cases/*.h "$dir/tools/cases/" || return 1
	make -C "$(tb_kdir "$1")" "${TB_KMAKE[@]}" M="$dir/tools/kunit" W=1 C=2 \
		modules \
		>"$dir/build.log" 2>&1 || return 1
	! grep -Eqi 'warning|error' "$dir/build.log"
}

tb_kunit_module()
{
	echo "$TB_OUT/kunit-$(tb_name "$1")/tools/kunit/tracerbench_kunit.ko"
}

tb_kunit_log()
{
	echo "$TB_OUT/kunit-$(tb_name "$1")/build.log"
}
