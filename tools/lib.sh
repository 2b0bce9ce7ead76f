# SPDX-License-Identifier: GPL-2.0-only
# Shared by the scripts in tools/: results, packages, target kernels, module
# builds, initramfs images and QEMU boots. Source it; it sets variables and
# defines functions, and runs nothing.

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
# Both lists can be narrowed from the environment, even to nothing.
TB_KERNELS=${TB_KERNELS-6.1 6.12 6.12-rt}
# Kernels built from linux-source-6.12 that differ only in tracing, and one
# with the kernel's bug detectors on top; see tools/kconfig/.
TB_BUILT_KERNELS=${TB_BUILT_KERNELS-notrace trace debug}

# The Debian kernel source, unpacked once into a cache that outlives the
# work tree, as are the kernels built from it.
TB_CACHE=${TB_CACHE:-/var/cache/tracerbench}
TB_SRC=$TB_CACHE/linux-source-6.12

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
	echo qemu-system-x86
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
	apt-get update -qq &&
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
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
		echo "$(tb_kernel_dir "$1")/arch/x86/boot/bzImage"
	else
		echo "/boot/vmlinuz-$(tb_release "$1")"
	fi
}

# Build tracerbench.ko for kernel $1 at W=1 in its own directory; the log is
# $TB_OUT/build-$1$2/build.log. Fails on a failed build or on any warning.
# $2, if given, names a variant built with the compiler flags TB_KCFLAGS.
tb_build_module()
{
	local dir=$TB_OUT/build-$1${2:-}

	rm -rf "$dir" && mkdir -p "$dir" || return 1
	make -s -C "$TB_TOP" stage DEST="$dir" || return 1
	make -C "$(tb_kdir "$1")" M="$dir" W=1 KCFLAGS="${TB_KCFLAGS:-}" \
		modules >"$dir/build.log" 2>&1 ||
		return 1
	! grep -qi 'warning' "$dir/build.log"
}

tb_module()
{
	echo "$TB_OUT/build-$1${2:-}/tracerbench.ko"
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
	local dir=$TB_OUT/kunit-$1

	rm -rf "$dir" && mkdir -p "$dir/tools/kunit" "$dir/tools/cases" ||
		return 1
	make -s -C "$TB_TOP" stage DEST="$dir" &&
		cp "$TB_TOP"/tools/kunit/Kbuild "$TB_TOP"/tools/kunit/*.[ch] \
			"$dir/tools/kunit/" &&
		cp "$TB_TOP"/tools/cases/*.h "$dir/tools/cases/" || return 1
	make -C "$(tb_kdir "$1")" M="$dir/tools/kunit" W=1 C=2 modules \
		>"$dir/build.log" 2>&1 || return 1
	! grep -Eqi 'warning|error' "$dir/build.log"
}

tb_kunit_module()
{
	echo "$TB_OUT/kunit-$1/tools/kunit/tracerbench_kunit.ko"
}

tb_kunit_log()
{
	echo "$TB_OUT/kunit-$1/build.log"
}

# Pack busybox, the guest scripts and the module for kernel $1 into $2,
# with bash, tools/compare.sh and tools/bench.sh under /tb, so that the
# guest can run them as a real machine would. A third argument packs that
# tracerbench.ko instead, e.g. one DKMS built, and any more go into / as
# they are.
tb_make_initramfs()
{
	local root

	root=$(mktemp -d) || return 1
	mkdir -p "$root"/bin "$root"/dev "$root"/proc "$root"/sys "$root"/tmp \
		"$root"/tests "$root"/tb/tools/guest
	gcc -static -O2 -Wall -Werror -o "$root"/tests/tbio \
		"$TB_TOP"/tools/guest/tbio.c &&
		cp /bin/busybox "$root"/bin/ &&
		cp /bin/bash-static "$root"/bin/bash &&
		cp "$TB_TOP"/tools/compare.sh "$TB_TOP"/tools/lib.sh \
			"$root"/tb/tools/ &&
		cp "$TB_TOP"/tools/bench.sh "$root"/tb/tools/ &&
		cp "$TB_TOP"/tools/guest/measure.sh "$TB_TOP"/tools/guest/collect.sh \
			"$TB_TOP"/tools/guest/json.sh "$root"/tb/tools/guest/ &&
		cp "$TB_TOP"/tools/guest/init "$root"/init &&
		cp "$TB_TOP"/tools/guest/*.sh "$root"/tests/ &&
		cp "${3:-$(tb_module "$1")}" "$root"/tracerbench.ko &&
		{ [ $# -le 3 ] || cp "${@:4}" "$root"/; } &&
		chmod +x "$root"/init "$root"/tests/*.sh &&
		(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$2"
	local rc=$?
	rm -rf "$root"
	return $rc
}

# Guest size; the long suite asks for a small one.
TB_CPUS=${TB_CPUS:-4}
TB_MEM=${TB_MEM:-1G}

# tb_boot KERNEL INITRD SUITES TIMEOUT OUTPREFIX [extra kernel args]
# Runs the guest suites SUITES (comma separated). The console goes to
# OUTPREFIX.console, the suites' KTAP output to OUTPREFIX.ktap. Set
# TB_ICOUNT=1 for a deterministic guest clock.
tb_boot()
{
	local kernel=$1 initrd=$2 suites=$3 secs=$4 out=$5
	local accel=(-accel tcg)

	shift 5
	# TCG at times runs a static key patch's transient int3 after the
	# patch is done, an Oops in sched_clock_cpu (seen on 6.12 and 6.12-rt)
	# when live code is patched while other vCPUs run it. Two such patches
	# come without a test asking for them:
	# - the clocksource watchdog marks a drifting TCG TSC unstable when
	#   the host is busy: tsc=reliable, the guests' figures need no
	#   watchdog;
	# - sched_clock_init_late() marks sched_clock stable at boot: boot
	#   with one CPU (maxcpus=1) and let the guest's init online the rest.
	#   This also keeps 6.1 under icount from hanging while it brings up
	#   secondary CPUs at boot.
	[ "${TB_ICOUNT:-0}" = 1 ] && accel+=(-icount shift=0,sleep=off)
	set -- "$@" maxcpus=1
	rm -f "$out".console "$out".ktap
	timeout --foreground -k 5 "$secs" qemu-system-x86_64 "${accel[@]}" \
		-smp "$TB_CPUS" -m "$TB_MEM" -display none -monitor none -no-reboot \
		-kernel "$(tb_vmlinuz "$kernel")" -initrd "$initrd" \
		-serial file:"$out".console -serial file:"$out".ktap \
		-append "console=ttyS0 loglevel=4 panic=-1 tsc=reliable tb.cpus=$TB_CPUS tb.suite=$suites $*" \
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

	case $1 in
	notrace)	echo "$d/base.config" ;;
	trace)		echo "$d/base.config $d/trace.config" ;;
	debug)		echo "$d/base.config $d/trace.config $d/debug.config" ;;
	esac
}

# Where variant $1 is built: keyed by its fragments, the source package's
# version and the compiler, so that a change to any of them rebuilds.
tb_kernel_dir()
{
	local key

	key=$({
		cat $(tb_fragments "$1")
		dpkg-query -W -f='${Version}\n' linux-source-6.12
		gcc --version | head -n 1
	} | sha256sum | cut -c 1-16)
	echo "$TB_CACHE/kernels/$1-$key"
}

# Every option the fragments set must be in the final .config, and the
# notrace kernel must not have the tracepoints.
tb_check_config()
{
	local config=$2/.config opt missing=0

	for opt in $(grep -h '^CONFIG_' $(tb_fragments "$1")); do
		grep -qx "$opt" "$config" && continue
		echo "tracerbench: $1 kernel lacks $opt" >&2
		missing=1
	done
	if [ "$1" = notrace ] &&
	   grep -q '^CONFIG_PREEMPTIRQ_TRACEPOINTS=y' "$config"; then
		echo "tracerbench: notrace kernel has the tracepoints" >&2
		missing=1
	fi
	return $missing
}

# Build kernel variant $1 unless the cache has it; the log is build.log in
# its directory.
tb_build_kernel()
{
	local dir

	dir=$(tb_kernel_dir "$1")
	[ -f "$dir/.tb-built" ] && return 0
	tb_kernel_source || return 1
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	echo "tracerbench: building the $1 kernel in $dir" >&2
	{
		make -C "$TB_SRC" O="$dir" tinyconfig &&
			"$TB_SRC"/scripts/kconfig/merge_config.sh -m -O "$dir" \
				"$dir/.config" $(tb_fragments "$1") &&
			make -C "$TB_SRC" O="$dir" olddefconfig &&
			tb_check_config "$1" "$dir" &&
			make -C "$TB_SRC" O="$dir" -j"$(nproc)" all
	} >"$dir/build.log" 2>&1 || return 1
	touch "$dir/.tb-built"
}

# --- Kernels of linux-source-6.12 with patches and extra fragments -------
#
# Such a kernel builds from a tree of its own: a hard-linked copy of the
# source (cp -al, cheap) with the build in its subdirectory b/. There kbuild
# uses the relative srctree "..", so that every path it records is relative
# and a copy of the whole tree builds incrementally where it lies. Each
# variant has one such base tree, built once; a patched kernel starts from a
# copy of it whose sources are hard links and whose build outputs are real
# copies (objtool rewrites objects in place, and must not write through a
# link into the base). GNU patch replaces the files it changes, so the links
# of patched files break and the base sources stay as they are; the new
# modification times make kbuild rebuild what depends on them.
TB_TREES=$TB_CACHE/trees

tb_tree_base_dir()
{
	echo "$TB_TREES/$(basename "$(tb_kernel_dir "$1")")"
}

# tb_tree_build TREE VARIANT [FRAGMENT...]: configure TREE/b as VARIANT
# plus the fragments, unless it has a configuration already, check that
# every option asked for is set, and build; the log is TREE/b/build.log.
tb_tree_build()
{
	local tree=$1 variant=$2 opt missing=0

	shift 2
	{
		if [ ! -f "$tree/b/.config" ]; then
			make -C "$tree" O="$tree/b" tinyconfig &&
				"$tree"/scripts/kconfig/merge_config.sh -m \
					-O "$tree/b" "$tree/b/.config" \
					$(tb_fragments "$variant") &&
				make -C "$tree" O="$tree/b" olddefconfig ||
				return 1
		fi
		if [ $# -gt 0 ]; then
			"$tree"/scripts/kconfig/merge_config.sh -m \
				-O "$tree/b" "$tree/b/.config" "$@" &&
				make -C "$tree" O="$tree/b" olddefconfig ||
				return 1
		fi
		for opt in $(grep -h '^CONFIG_' $(tb_fragments "$variant") "$@"); do
			grep -qx "$opt" "$tree/b/.config" && continue
			echo "tracerbench: $tree lacks $opt" >&2
			missing=1
		done
		[ $missing = 0 ] &&
			make -C "$tree" O="$tree/b" -j"$(nproc)" all
	} >>"$tree/b/build.log" 2>&1
}

# Build the base tree of variant $1 unless the cache has it.
tb_build_tree_base()
{
	local dir

	dir=$(tb_tree_base_dir "$1")
	[ -f "$dir/b/.tb-built" ] && return 0
	tb_kernel_source || return 1
	echo "tracerbench: building the $1 base tree in $dir" >&2
	rm -rf "$dir" && mkdir -p "$TB_TREES" &&
		cp -al "$TB_SRC" "$dir" && mkdir "$dir/b" &&
		tb_tree_build "$dir" "$1" || return 1
	touch "$dir/b/.tb-built"
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
# space-separated list) builds; keyed by the base tree and the contents,
# in order, of every patch and fragment.
tb_patched_dir()
{
	local key patches

	if [ -n "$2" ]; then
		patches=$(tb_patch_list "$2") || return 1
	fi
	key=$({
		basename "$(tb_tree_base_dir "$1")"
		for p in $patches; do
			sha256sum <"$p"
		done
		echo fragments
		for f in $3; do
			sha256sum <"$f"
		done
	} | sha256sum | cut -c 1-16)
	echo "$(tb_tree_base_dir "$1")-$key"
}

# tb_build_patched VARIANT PATCHES FRAGMENTS: build what tb_patched_dir
# names, unless the cache has it, from a copy of the variant's base tree;
# prints the tree's build directory (its kernel build tree).
tb_build_patched()
{
	local variant=$1 patches=$2 frags=$3 dir base p list

	for p in $frags; do
		[ -f "$p" ] || { echo "tracerbench: no such fragment: $p" >&2; return 1; }
	done
	dir=$(tb_patched_dir "$variant" "$patches" "$frags") || return 1
	if [ ! -f "$dir/b/.tb-built" ]; then
		list=
		if [ -n "$patches" ]; then
			list=$(tb_patch_list "$patches") || return 1
		fi
		tb_build_tree_base "$variant" || {
			echo "tracerbench: building the $variant base tree failed: $(tb_tree_base_dir "$variant")/b/build.log" >&2
			return 1
		}
		base=$(tb_tree_base_dir "$variant")
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
