# SPDX-License-Identifier: GPL-2.0-only
# Shared by the scripts in tools/: results, packages, target kernels, module
# builds, initramfs images and QEMU boots. Source it; it sets variables and
# defines functions, and runs nothing but loading the architecture TB_ARCH
# names (x86_64 by default, tb_arch_load).

TB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# result STATUS NAME: print one result, "ok - NAME" for a status of 0, and
# count it in the caller's passed and failed.
result()
{
	if [ "$1" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok - $2"
	else
		failed=$((failed + 1))
		echo "not ok - $2"
	fi
}
TB_OUT=${TB_OUT:-$TB_TOP/.out}

# Target kernels by label. Meta-packages keep image and headers in step.
# Both lists can be narrowed from the environment, even to nothing; each
# architecture has its own (tb_arch_load), and TB_BUILT_KERNELS narrows
# every architecture's, TB_KERNELS those of one with Debian kernels.
# Debian kernels: 6.1 6.12 6.12-rt on x86-64.
# Kernels built from linux-source-6.12 that differ only in tracing, and one
# with the kernel's bug detectors on top: notrace trace debug; see
# tools/kconfig/.
unset TB_KERNELS_ASKED TB_BUILT_ASKED
[ -n "${TB_KERNELS+set}" ] && TB_KERNELS_ASKED=$TB_KERNELS
[ -n "${TB_BUILT_KERNELS+set}" ] && TB_BUILT_ASKED=$TB_BUILT_KERNELS

# tb_arch_load ARCH: take ARCH's facts from tools/arch/ARCH.conf (kernel
# image, cross compiler, QEMU, console, kconfig fragment, module area; the
# only place that knows them) and its kernel lists, narrowed as asked.
tb_arch_load()
{
	local conf=$TB_TOP/tools/arch/$1.conf k

	if [ ! -f "$conf" ]; then
		echo "tracerbench: no architecture $1; tools/arch/ has:" \
			$(cd "$TB_TOP/tools/arch" && ls *.conf | sed 's/\.conf$//') >&2
		return 1
	fi
	# what an arch file may leave out
	TB_PART_SECONDS=
	TB_BIG_SAMPLES=
	. "$conf" || return 1
	export TB_ARCH=$1
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
	(cd "$TB_TOP/tools/arch" && ls *.conf) | sed 's/\.conf$//' |
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

# The Debian kernel source, unpacked once into a cache that outlives the
# work tree, as are the kernels built from it.
TB_CACHE=${TB_CACHE:-/var/cache/tracerbench}
TB_SRC=$TB_CACHE/linux-source-6.12

# busybox and bash for a guest of another Debian architecture, unpacked
# from Debian's own packages (tb_guest_debs).
TB_DEBS=$TB_CACHE/debs

tb_arch_load "${TB_ARCH:-x86_64}" || return 1

tb_is_built()
{
	case $1 in
	notrace | trace | debug)	return 0 ;;
	*)				return 1 ;;
	esac
}

tb_image_pkg()
{
	case $1 in
	6.1)		echo linux-image-amd64 ;;
	6.12)		echo linux-image-6.12-amd64 ;;
	6.12-rt)	echo linux-image-6.12-rt-amd64 ;;
	*)		echo "unknown kernel label: $1" >&2; return 1 ;;
	esac
}

tb_packages()
{
	local k img

	echo make gcc libc6-dev perl cpio gzip busybox-static bash-static
	echo $TB_ARCH_PACKAGES
	echo linux-source-6.12 xz-utils bc bison flex libelf-dev libssl-dev
	echo dkms sparse
	# tools/report.py
	echo python3 python3-scipy python3-matplotlib
	for k in $TB_KERNELS; do
		img=$(tb_image_pkg "$k")
		echo "$img" "${img/image/headers}"
	done
}

# Install whatever is missing; a no-op on a machine that has it all.
tb_install()
{
	local missing=() p

	for p in $(tb_packages); do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q ' installed$' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "tracerbench: run as root to install: ${missing[*]}" >&2
		return 1
	fi
	echo "tracerbench: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	# A mirror caught mid-sync fails one index (seen: bookworm-security's
	# i386 Packages) while the rest, and the packages, are fine: go on
	# with what updated, and let the install say what is really missing.
	apt-get update -qq ||
		echo "tracerbench: apt-get update failed; installing from the package lists it left" >&2
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# The guest's busybox and bash: the host's own on amd64; otherwise Debian's
# static ones for the guest's architecture (multiarch), downloaded and
# unpacked once into TB_DEBS/ARCH. Prints the directory they are under.
TB_GUEST_DEBS="busybox-static bash-static"
tb_guest_debs()
{
	local a=$TB_DEB_ARCH dir=$TB_DEBS/$TB_DEB_ARCH p deb

	if [ "$a" = amd64 ]; then
		echo /
		return 0
	fi
	if [ ! -f "$dir/.tb-unpacked" ]; then
		[ "$(id -u)" = 0 ] || {
			echo "tracerbench: run as root to fetch $TB_GUEST_DEBS for $a" >&2
			return 1
		}
		if ! dpkg --print-foreign-architectures | grep -qx "$a"; then
			echo "tracerbench: adding the $a architecture to dpkg" >&2
			dpkg --add-architecture "$a" || return 1
			# a mirror out of step on one index need not stop us:
			# the download below fails if what it needs is missing
			apt-get update -qq >&2
		fi
		rm -rf "$dir" && mkdir -p "$dir/root" || return 1
		# apt's sandbox user cannot write to the cache: download as root
		for p in $TB_GUEST_DEBS; do
			(cd "$dir" && apt-get download -q \
				-o APT::Sandbox::User=root "$p:$a" >&2) || return 1
		done
		for deb in "$dir"/*.deb; do
			dpkg-deb -x "$deb" "$dir/root" || return 1
		done
		touch "$dir/.tb-unpacked"
	fi
	echo "$dir/root"
}

# The kernel release a meta-package currently points at.
tb_release()
{
	dpkg-query -W -f='${Depends}\n' "$(tb_image_pkg "$1")" |
		grep -o 'linux-image-[^ ,]*' | head -n 1 | sed 's/^linux-image-//'
}

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
tb_build_module()
{
	local dir

	dir=$(dirname "$(tb_module "$@")")
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	make -s -C "$TB_TOP" stage DEST="$dir" || return 1
	make -C "$(tb_kdir "$1")" "${TB_KMAKE[@]}" M="$dir" W=1 \
		KCFLAGS="${TB_KCFLAGS:-}" modules >"$dir/build.log" 2>&1 ||
		return 1
	! grep -qi 'warning' "$dir/build.log"
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

# Pack busybox, the guest scripts and the module for kernel $1 into $2,
# with bash, tools/compare.sh and tools/bench.sh under /tb, so that the
# guest can run them as a real machine would. A third argument packs that
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
		"$root"/tests "$root"/tb/tools/guest "$root"/tb/tools/arch
	$TB_GUEST_CC -static -O2 -Wall -Werror \
		-DTB_SPIN_HINT="\"$TB_GUEST_SPIN_HINT\"" -o "$root"/tests/tbio \
		"$TB_TOP"/tools/guest/tbio.c &&
		cp "$debs"/bin/busybox "$root"/bin/ &&
		cp "$debs"/bin/bash-static "$root"/bin/bash &&
		cp "$TB_TOP"/tools/compare.sh "$TB_TOP"/tools/lib.sh \
			"$root"/tb/tools/ &&
		cp "$TB_TOP"/prims.h "$root"/tb/ &&
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

# tb_prims: the primitives' names, in the module's order (prims.h)
tb_prims()
{
	sed -n 's/^TB_PRIM([A-Z_]*, \([a-z_]*\))$/\1/p' "$TB_TOP/prims.h"
}

# Guest size; the long suite asks for a small one.
TB_CPUS=${TB_CPUS:-4}
TB_MEM=${TB_MEM:-1G}

# tb_boot KERNEL INITRD SUITES TIMEOUT OUTPREFIX [extra kernel args]
# Runs the guest suites SUITES (comma separated). The console goes to
# OUTPREFIX.console, the suites' KTAP output to OUTPREFIX.ktap. Set
# TB_ICOUNT=1 for a deterministic guest clock, TB_TCG_THREAD=single to run
# every vCPU in one host thread (QEMU's default is a thread each; icount
# always runs them in one).
tb_boot()
{
	local kernel=$1 initrd=$2 suites=$3 secs=$4 out=$5
	local accel=(-accel tcg${TB_TCG_THREAD:+,thread=$TB_TCG_THREAD})

	shift 5
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
	[ "${TB_ICOUNT:-0}" = 1 ] && accel+=(-icount shift=0,sleep=off)
	[ "$TB_ONE_CPU" = 1 ] && set -- "$@" maxcpus=1
	rm -f "$out".console "$out".ktap
	tb_arch_outputs "$out"
	timeout --foreground -k 5 "$secs" "$TB_QEMU" "${TB_QEMU_MACHINE[@]}" \
		"${accel[@]}" \
		-smp "$TB_CPUS" -m "$TB_MEM" -display none -monitor none -no-reboot \
		-kernel "$(tb_vmlinuz "$kernel")" -initrd "$initrd" \
		"${TB_QEMU_OUT[@]}" \
		-append "console=$TB_CONSOLE loglevel=4 panic=-1 ${TB_ARCH_APPEND:+$TB_ARCH_APPEND }tb.cpus=$TB_CPUS ${TB_MODULES_START:+tb.modules=$TB_MODULES_START-$TB_MODULES_END }tb.suite=$suites $*" \
		</dev/null
	local rc=$?

	# the guest's serial lines end in CR LF
	touch "$out".console "$out".ktap
	sed -i 's/\r$//' "$out".console "$out".ktap
	return $rc
}

tb_kernel_source()
{
	[ -x "$TB_SRC/scripts/checkpatch.pl" ] && return 0
	mkdir -p "$TB_CACHE" &&
		tar -C "$TB_CACHE" -xf /usr/src/linux-source-6.12.tar.xz &&
		[ -x "$TB_SRC/scripts/checkpatch.pl" ]
}

tb_fragments()
{
	local d=$TB_TOP/tools/kconfig

	local a

	a=$(for f in $TB_ARCH_FRAGMENTS; do echo "$d/$f"; done)
	case $1 in
	notrace)	echo "$d/base.config" $a ;;
	trace)		echo "$d/base.config" $a "$d/trace.config" ;;
	debug)		echo "$d/base.config" $a "$d/trace.config $d/debug.config" ;;
	esac
}

# tb_prepare KERNEL: what booting KERNEL with the module takes, for the
# tools that boot one kernel (scale.sh, speed.sh): the packages (a Debian
# kernel's own among them), the kernel if it is built from
# linux-source-6.12, and the module. Sets TB_KERNELS to what it installed.
tb_prepare()
{
	local k=$1

	TB_KERNELS=$k
	tb_is_built "$k" && TB_KERNELS=
	tb_install >&2 || return 1
	mkdir -p "$TB_OUT"
	if tb_is_built "$k" && ! tb_build_kernel "$k"; then
		echo "tracerbench: building the $k kernel failed" >&2
		return 1
	fi
	if ! tb_build_module "$k"; then
		cat "$(dirname "$(tb_module "$k")")/build.log" >&2
		return 1
	fi
}

# --- Kernels of linux-source-6.12 -----------------------------------------
#
# Each kernel builds in a tree of its own: a hard-linked copy of the source
# (cp -al, cheap) with the build in its subdirectory b/. There kbuild uses
# the relative srctree "..", so that every path it records is relative and
# a copy of the whole tree builds incrementally where it lies: a patched
# kernel (below) starts from a copy of its variant's tree, and the variant
# itself is never built twice.
TB_TREES=$TB_CACHE/trees

# tb_options FRAGMENT...: the options the fragments set or unset, in
# order, without the comments: what a kernel's cache key is made of.
tb_options()
{
	# no files would be grep reading stdin
	[ $# -gt 0 ] || return 0
	grep -h -e '^CONFIG_' -e '^# CONFIG_.* is not set$' "$@"
}

# tb_fragment_options VARIANT [FRAGMENT...]: the options the variant's
# fragments and the extra ones set or unset, in the order merged.
tb_fragment_options()
{
	local variant=$1

	shift
	tb_options $(tb_fragments "$variant") "$@"
}

# The tree of variant $1: keyed by its fragments' options, the source
# package's version and the compiler, so that a change to any of them
# rebuilds, and a change to a comment does not; off x86-64, by the
# architecture too.
tb_kernel_tree()
{
	local key

	key=$({
		tb_fragment_options "$1"
		dpkg-query -W -f='${Version}\n' linux-source-6.12
		${TB_CROSS}gcc --version | head -n 1
		[ "$TB_ARCH" = x86_64 ] || echo "$TB_ARCH"
	} | sha256sum | cut -c 1-16)
	echo "$TB_TREES/$(tb_name "$1")-$key"
}

# Where variant $1 is built (its kernel build tree): b/ in its tree.
tb_kernel_dir()
{
	echo "$(tb_kernel_tree "$1")/b"
}

# tb_check_config VARIANT DIR [FRAGMENT...]: every option the variant's
# fragments and the extra ones set, or unset, must be so in DIR/.config, and
# the notrace kernel must not have the tracepoints.
tb_check_config()
{
	local variant=$1 config=$2/.config opt name missing=0

	shift 2
	while read -r opt; do
		grep -qxF "$opt" "$config" && continue
		# kconfig writes no "is not set" line for an option whose
		# dependencies are not met: unset all the same
		case $opt in
		"# CONFIG_"*" is not set")
			name=${opt#\# }
			name=${name%% *}
			grep -q "^$name=" "$config" || continue ;;
		esac
		echo "tracerbench: $variant kernel in $(dirname "$config") lacks $opt" >&2
		missing=1
	done < <(tb_fragment_options "$variant" "$@")
	if [ "$variant" = notrace ] &&
	   grep -q '^CONFIG_PREEMPTIRQ_TRACEPOINTS=y' "$config"; then
		echo "tracerbench: notrace kernel has the tracepoints" >&2
		missing=1
	fi
	return $missing
}

# tb_configure SRC OUT VARIANT: OUT/.config of tinyconfig and the variant's
# fragments, for the architecture loaded.
tb_configure()
{
	make -C "$1" O="$2" "${TB_KMAKE[@]}" tinyconfig &&
		"$1"/scripts/kconfig/merge_config.sh -m -O "$2" "$2/.config" \
			$(tb_fragments "$3") &&
		make -C "$1" O="$2" "${TB_KMAKE[@]}" olddefconfig
}

# tb_tree_build TREE VARIANT [FRAGMENT...]: configure TREE/b as VARIANT
# plus the fragments, unless it has a configuration already, check that
# every option asked for is set, and build; the log is TREE/b/build.log.
tb_tree_build()
{
	local tree=$1 variant=$2

	shift 2
	{
		if [ ! -f "$tree/b/.config" ]; then
			tb_configure "$tree" "$tree/b" "$variant" || return 1
		fi
		if [ $# -gt 0 ]; then
			"$tree"/scripts/kconfig/merge_config.sh -m \
				-O "$tree/b" "$tree/b/.config" "$@" &&
				make -C "$tree" O="$tree/b" "${TB_KMAKE[@]}" \
					olddefconfig || return 1
		fi
		tb_check_config "$variant" "$tree/b" "$@" &&
			make -C "$tree" O="$tree/b" "${TB_KMAKE[@]}" -j"$(nproc)" all
	} >>"$tree/b/build.log" 2>&1
}

# Build kernel variant $1 unless the cache has it; the log is build.log in
# its build directory.
tb_build_kernel()
{
	local tree

	tree=$(tb_kernel_tree "$1")
	[ -f "$tree/b/.tb-built" ] && return 0
	tb_kernel_source || return 1
	echo "tracerbench: building the $TB_ARCH $1 kernel in $tree/b" >&2
	rm -rf "$tree" && mkdir -p "$TB_TREES" &&
		cp -al "$TB_SRC" "$tree" && mkdir "$tree/b" &&
		tb_tree_build "$tree" "$1" || return 1
	touch "$tree/b/.tb-built"
}

# tb_patch_list PATH: the patches PATH names, one path a line, in order: a
# quilt series file (or a directory holding one), whose names are relative
# to its directory, or else a directory's *.patch files in name order, as
# git format-patch numbers them.
tb_patch_list()
{
	local path=$1 series dir name opts

	if [ -d "$path" ] && [ -f "$path/series" ]; then
		series=$path/series
	elif [ -d "$path" ]; then
		ls "$path"/*.patch 2>/dev/null | LC_ALL=C sort
		[ -n "$(ls "$path"/*.patch 2>/dev/null)" ] && return 0
		echo "tracerbench: no *.patch files and no series in $path" >&2
		return 1
	elif [ -f "$path" ]; then
		series=$path
	else
		echo "tracerbench: no such patch series: $path" >&2
		return 1
	fi
	dir=$(dirname "$series")
	sed -e 's/#.*//' "$series" | while read -r name opts; do
		[ -n "$name" ] || continue
		if [ -n "$opts" ] && [ "$opts" != -p1 ]; then
			echo "tracerbench: $series: $name: only -p1 is supported, not $opts" >&2
			return 1
		fi
		if [ ! -f "$dir/$name" ]; then
			echo "tracerbench: $series names $name, which $dir lacks" >&2
			return 1
		fi
		echo "$dir/$name"
	done
}

# tb_patched_dir VARIANT PATCHES FRAGMENTS: where VARIANT with the patch
# series PATCHES (a path, or empty) and the kconfig fragments FRAGMENTS (a
# space-separated list) builds; keyed by the variant's tree, the contents,
# in order, of every patch, and the fragments' options (as the variant's
# tree is: a comment in a fragment does not rebuild).
tb_patched_dir()
{
	local tree key patches= p f

	if [ -n "$2" ]; then
		patches=$(tb_patch_list "$2") || return 1
	fi
	for f in $3; do
		[ -f "$f" ] || { echo "tracerbench: no such fragment: $f" >&2; return 1; }
	done
	tree=$(tb_kernel_tree "$1")
	key=$({
		basename "$tree"
		for p in $patches; do
			sha256sum <"$p"
		done
		echo fragments
		tb_options $3
	} | sha256sum | cut -c 1-16)
	echo "$tree-$key"
}

# tb_build_patched VARIANT PATCHES FRAGMENTS: build what tb_patched_dir
# names, unless the cache has it, from a copy of the variant's tree: its
# sources as hard links, its build outputs as real copies (objtool rewrites
# objects in place, and must not write through a link into the variant's
# tree). GNU patch replaces the files it changes, so the links of patched
# files break and the variant's sources stay as they are; the new
# modification times make kbuild rebuild what depends on them. Prints the
# tree's build directory (its kernel build tree).
tb_build_patched()
{
	local variant=$1 patches=$2 frags=$3 dir base p list

	dir=$(tb_patched_dir "$variant" "$patches" "$frags") || return 1
	if [ ! -f "$dir/b/.tb-built" ]; then
		list=
		if [ -n "$patches" ]; then
			list=$(tb_patch_list "$patches") || return 1
		fi
		tb_build_kernel "$variant" || {
			echo "tracerbench: building the $variant kernel failed: $(tb_kernel_dir "$variant")/build.log" >&2
			return 1
		}
		base=$(tb_kernel_tree "$variant")
		rm -rf "$dir" && mkdir "$dir" || return 1
		# the sources as links, the build as copies
		(cd "$base" && find . -mindepth 1 -maxdepth 1 ! -name b \
			-exec cp -al {} "$dir/" \;) &&
			cp -a "$base/b" "$dir/b" && rm -f "$dir/b/.tb-built" || return 1
		echo "# $variant $patches $frags" >"$dir/b/build.log"
		for p in $list; do
			if ! patch -d "$dir" -p1 -N -s --batch \
				--no-backup-if-mismatch -r - <"$p" \
				>"$dir/b/patch.log" 2>&1; then
				echo "tracerbench: patch $p does not apply to linux-source-6.12:" >&2
				sed 's/^/  /' "$dir/b/patch.log" >&2
				rm -rf "$dir"
				return 1
			fi
		done
		echo "tracerbench: building $variant${patches:+ + $patches}${frags:+ + $frags} in $dir" >&2
		local start=$SECONDS
		if ! tb_tree_build "$dir" "$variant" $frags; then
			echo "tracerbench: building $dir failed: $dir/b/build.log" >&2
			return 1
		fi
		echo "tracerbench: built in $((SECONDS - start)) s" >&2
		touch "$dir/b/.tb-built"
	fi
	echo "$dir/b"
}
