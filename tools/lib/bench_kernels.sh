# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash disable=SC2154 # bench.sh's variables
# bench.sh's kernels: each built (or taken from the cache) with its
# module, described in kernels/LABEL.host.env, checked against the
# directory's first run on --resume, and grouped into boots by image
# (boots, boot_labels), which every mode's boots read. Sourced by
# tools/bench.sh alone.

# prepare_kernel LABEL: build the kernel (or take it from the cache) and
# register it as kernel bench-LABEL, for the module built for it
prepare_kernel()
{
	tb_spec_build "$1" "bench-$1" || die "kernel $1: see above"
}

# The kernels that share an image share a boot, and its module.
declare -A boot_labels=()
boots=()

# kernel_env LABEL: what the host knows of a kernel, for kernels/LABEL.env
kernel_env()
{
	local l=$1 cfg=${TB_SPECS[$1.kdir]}/.config p=${TB_SPECS[$1.patches]}
	local tree=${TB_SPECS[$1.tree]} hash

	echo "spec ${TB_SPECS[$l.spec]}"
	echo "kind ${TB_SPECS[$l.kind]}"
	echo "build_tree ${TB_SPECS[$l.kdir]}"
	if [ -f "$cfg" ]; then
		echo "config_hash $(sha256sum <"$cfg" | cut -c 1-16)"
	fi
	if [ "${TB_SPECS[$l.kind]}" = installed ]; then
		# the box's own, read there
		echo "image $TB_TARGET_HOST:${TB_SPECS[$l.image]}"
		# none if it lacks it, which the check before any is sent
		# says; a box that does not answer is no kernel described
		hash=$(tb_ssh "if [ -e ${TB_SPECS[$l.image]} ]; then sha256sum <${TB_SPECS[$l.image]}; fi" </dev/null) ||
			return 1
		echo "image_hash ${hash:0:16}"
	else
		echo "image ${TB_SPECS[$l.image]}"
		echo "image_hash $(sha256sum <"${TB_SPECS[$l.image]}" | cut -c 1-16)"
	fi
	[ -n "$p" ] && echo "patches $p" &&
		echo "patch_files $(tb_patch_list "$p" quiet | xargs -n 1 basename | tr '\n' ' ')"
	[ -n "${TB_SPECS[$l.frags]}" ] && echo "fragments ${TB_SPECS[$l.frags]}"
	[ -n "$tree" ] && echo "tree $tree" &&
		echo "tree_state $(tb_tree_state "$tree" "${TB_SPECS[$l.commit]}")"
	return 0
}

# code_env LABEL MODULE: the code sizes of kernel LABEL and of its build
# of the module (tools/codesize.sh), where its build tree has a vmlinux
# against the first kernel's, for the functions a patch added. A Debian
# kernel's headers hold a vmlinux for its BTF alone: only a kernel built
# here, or your own build, is sized, and compared with another such.
code_env()
{
	local l=$1 first=${TB_SPEC_LABELS[0]} vmlinux base

	vmlinux=${TB_SPECS[$l.kdir]}/vmlinux
	base=${TB_SPECS[$first.kdir]}/vmlinux
	case ${TB_SPECS[$l.kind]} in
	debian | installed)	vmlinux= ;;
	esac
	case ${TB_SPECS[$first.kind]} in
	debian | installed)	base= ;;
	esac
	[ -f "$vmlinux" ] || vmlinux=
	{ [ -n "$vmlinux" ] && [ -f "$base" ] && [ "$l" != "$first" ]; } || base=
	"$TB_TOP/tools/codesize.sh" --clocks "${clock:-cycles}" "$2" \
		${vmlinux:+"$vmlinux"} ${base:+"$base"}
}

# bench_initrd LABEL: the initramfs of the boot LABEL leads, in the
# results directory: two runs in one clone, of the same labels, must not
# rewrite each other's while they boot
bench_initrd()
{
	echo "$out/boots/initrd-$(tb_name "bench-$1").cpio.gz"
}

# bench_module LABEL [build]: the module built for kernel LABEL, in the
# results directory too (tb_module is TB_OUT's), or with build, build it;
# one built by a run that stopped stands, for --resume, if it is of the
# same sources, for the same kernel, and clean
bench_module()
{
	local ko dir tmp f same=1

	ko=$(TB_OUT=$out/boots tb_module "bench-$1")
	[ "${2:-}" = build ] || { echo "$ko"; return 0; }
	dir=$(dirname "$ko")
	if [ -n "$resume" ] && [ -f "$ko" ] && ! grep -qi warning "$dir/build.log" &&
	   [ "$ko" -nt "$(tb_kdir "bench-$1")/Module.symvers" ] &&
	   tmp=$(mktemp -d); then
		make -s -C "$TB_TOP" stage DEST="$tmp" >/dev/null || same=0
		for f in "$tmp"/*; do
			cmp -s "$f" "$dir/${f##*/}" || same=0
		done
		rm -rf "$tmp"
		if [ $same = 1 ]; then
			echo "bench.sh: the module built for $1 before stands" >&2
			return 0
		fi
	fi
	TB_OUT=$out/boots tb_build_module "bench-$1"
}

# prepare_kernels: every kernel built (or taken from the cache) with
# its module, and described in kernels/LABEL.host.env; the boots
# grouped by image
prepare_kernels()
{
	local l b k

	mkdir -p "$TB_OUT"
	for l in "${TB_SPEC_LABELS[@]}"; do
		prepare_kernel "$l"
		b=${TB_SPECS[$l.image]}
		if [ -z "${boot_labels[$b]:-}" ]; then
			boots+=("$b")
			boot_labels[$b]=$l
		else
			boot_labels[$b]="${boot_labels[$b]},$l"
		fi
	done
	for b in "${boots[@]}"; do
		l=${boot_labels[$b]%%,*}
		bench_module "$l" build ||
			die "building the module for $l failed: $(dirname "$(bench_module "$l")")/build.log"
		[ -n "$target" ] || tb_make_initramfs "bench-$l" "$(bench_initrd "$l")" \
			"$(bench_module "$l")" ||
			die "cannot make the initramfs for $l"
		for k in ${boot_labels[$b]//,/ }; do
			{ kernel_env "$k" &&
				code_env "$k" "$(bench_module "$l")"; } \
				>"$out/kernels/$k.host.env.new" ||
				die "cannot describe kernel $k"
			[ -z "$resume" ] || same_kernel "$k"
			mv "$out/kernels/$k.host.env.new" "$out/kernels/$k.host.env"
		done
	done
}

# same_kernel LABEL: --resume's kernel LABEL is the one the directory
# began with: the same image and configuration (its description from
# the first run, kernels/LABEL.env, or LABEL.host.env if that stopped)
same_kernel()
{
	local k=$1 was now f

	for f in "$out/kernels/$k.host.env" "$out/kernels/$k.env"; do
		[ -f "$f" ] || continue
		was=$(grep -E '^(image_hash|config_hash) ' "$f" | sort)
		now=$(grep -E '^(image_hash|config_hash) ' "$out/kernels/$k.host.env.new" | sort)
		[ "$was" = "$now" ] && return 0
		rm -f "$out/kernels/$k.host.env.new"
		die "--resume: kernel $k is not the one $out began with: ${was//$'\n'/ } then, ${now//$'\n'/ } now"
	done
}
