# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Target architectures (tools/arch/) and the kernels of each. Sourced by tools/lib.sh.

# Target kernels by label. Meta-packages keep image and headers in step.
# Both lists can be narrowed from the environment, even to nothing; each
# architecture has its own (tb_arch_load), and TB_BUILT_KERNELS narrows
# every architecture's, TB_KERNELS those of one with Debian kernels.
# Debian kernels: x86-64's alone (TB_ARCH_KERNEL_PKGS in tools/arch/).
# Kernels built from linux-source-6.12 that differ only in tracing, and
# ones with the kernel's bug detectors on top: the variants of
# tools/lib/kernel.sh, those each arch builds in TB_ARCH_BUILT. Either list
# is comma- or space-separated (tb_list).
unset TB_KERNELS_ASKED TB_BUILT_ASKED
[ -n "${TB_KERNELS+set}" ] && TB_KERNELS_ASKED=$(tb_list "$TB_KERNELS")
[ -n "${TB_BUILT_KERNELS+set}" ] && TB_BUILT_ASKED=$(tb_list "$TB_BUILT_KERNELS")

# tb_arch_load ARCH: take ARCH's facts from tools/arch/ARCH.conf (kernel
# image, cross compiler, QEMU, console, kconfig fragments, packages,
# Debian kernels, module area) and its kernel lists, narrowed as asked,
# into this shell: TB_ARCH is not exported, so that no script runs on the
# architecture its caller loaded unless told (--arch). What the rig reads
# off a file, not off the loaded architecture, is with the code that
# reads it: an ELF file's machine and its binutils (tb_elf_tools), an
# image's boot header and a .config's arch (tb_image_arch, tb_config_arch,
# and bench.sh's check_own_build, which pairs them), and x86-64's
# mitigation names before 6.9 (tb_tree_compat_fragments).
tb_arch_load()
{
	local conf=$TB_TOP/tools/arch/$1.conf k

	if [ ! -f "$conf" ]; then
		echo "tracerbench: no architecture $1; tools/arch/ has:" \
			"$(tb_list "$(tb_all_archs)")" >&2
		return 1
	fi
	# what an arch file may leave out; each sets the same names as
	# x86_64.conf, and tools/lib/ and tools/check/ read them
	# shellcheck disable=SC2034
	TB_PART_SECONDS=
	# shellcheck disable=SC2034
	TB_BIG_SAMPLES=
	# shellcheck disable=SC2034 # read by tools/lib/spec.sh
	TB_ARCH_TREE=
	# shellcheck disable=SC2034 # read by tools/unit/guest_cpu_test.sh
	TB_QEMU_CMPXCHG_STALE=
	# shellcheck source=tools/arch/x86_64.conf
	. "$conf" || return 1
	TB_ARCH=$1
	# the Debian kernels' labels, of LABEL:PACKAGE
	TB_ARCH_KERNELS=
	for k in $TB_ARCH_KERNEL_PKGS; do
		TB_ARCH_KERNELS="${TB_ARCH_KERNELS:+$TB_ARCH_KERNELS }${k%%:*}"
	done
	# shellcheck disable=SC2034 # read by tools/lib/module.sh and kernel.sh
	TB_KMAKE=(${TB_KARCH:+ARCH=$TB_KARCH} ${TB_CROSS:+CROSS_COMPILE=$TB_CROSS})
	TB_KERNELS=
	[ -n "$TB_ARCH_KERNELS" ] && TB_KERNELS=${TB_KERNELS_ASKED-$TB_ARCH_KERNELS}
	TB_BUILT_KERNELS=
	for k in ${TB_BUILT_ASKED-$TB_ARCH_BUILT}; do
		case " $TB_ARCH_BUILT " in
		*" $k "*)	TB_BUILT_KERNELS="${TB_BUILT_KERNELS:+$TB_BUILT_KERNELS }$k" ;;
		esac
	done
}

# tb_arch_builds KERNEL...: the architecture builds each of these kernels
# (the kernel spec's check, tools/lib/spec.sh)
tb_arch_builds()
{
	local k

	for k in "$@"; do
		case " $TB_ARCH_BUILT " in
		*" $k "*)	;;
		*)		return 1 ;;
		esac
	done
}

# tb_arch_param NAME DEFAULT: the value of tb.NAME= in the architecture's
# kernel arguments (TB_ARCH_APPEND), as the guest's cmdline_param reads it.
tb_arch_param()
{
	local v

	v=$(echo "$TB_ARCH_APPEND" | sed -n "s/.*tb\.$1=\([^ ]*\).*/\1/p")
	echo "${v:-$2}"
}

# Every architecture tools/arch/ describes, x86-64 first.
tb_all_archs()
{
	echo x86_64
	(cd "$TB_TOP/tools/arch" && ls -- *.conf) | sed 's/\.conf$//' |
		grep -vx x86_64
}

# tb_name KERNEL: the kernel's name in labels and file names: the label on
# x86-64, the architecture before it elsewhere.
tb_name()
{
	if [ "$TB_ARCH" = x86_64 ]; then
		echo "$1"
	else
		echo "$TB_ARCH-$1"
	fi
}
