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
# The compiler runs through ccache where it can (tb_ccache).
tb_build_module()
{
	local dir kdir

	dir=$(dirname "$(tb_module "$@")")
	kdir=$(tb_kdir "$1")
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	make -s -C "$TB_TOP" stage DEST="$dir" || return 1
	tb_ccache "$kdir"
	CCACHE_DIR=$TB_CACHE/ccache CCACHE_MAXSIZE=1G \
		make -C "$kdir" "${TB_KMAKE[@]}" "${TB_MODULE_CC[@]}" M="$dir" W=1 \
		KCFLAGS="${TB_KCFLAGS:-}" modules >"$dir/build.log" 2>&1 ||
		return 1
	! grep -qi 'warning' "$dir/build.log"
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
