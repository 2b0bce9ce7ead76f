# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Kernel specs: how every tool that boots a kernel names it (bench.sh's
# KERNELs, boot.sh's KERNEL, --kernel of run.sh, scale.sh and speed.sh),
# in the one grammar of doc/bench.md, "Kernels":
#
#   [LABEL=]DEBIAN                    a Debian kernel of the arch: 6.12
#   [LABEL=]VARIANT[,KEY=VALUE]...    a variant the arch builds (trace),
#                                     KEY patches=, config= or tree=
#   LABEL=bzimage=FILE,build=DIR      your own build
#   [LABEL=]installed:RELEASE[,build=DIR]
#                                     a kernel installed on the test box
#                                     (bench.sh --target), the module
#                                     built against DIR or the host's
#                                     headers of RELEASE
#
# Then what a kernel needs installed (tb_spec_needs), the checks that
# need those packages (tb_spec_check) and its build (tb_spec_build): a
# tool parses every kernel first, so that a wrong one is refused before
# anything is installed or built. Sourced by tools/lib.sh.
#
# tb_spec_parse keeps each kernel under its label: TB_SPEC_LABELS lists
# them in order, TB_SPECS[LABEL.FIELD] holds, by FIELD:
#   label	the label: LABEL=, or made of the base and the names of
#		the tree, patches and fragments (trace+my-series)
#   spec	the spec as given
#   kind	debian, builtin (a variant of linux-source-6.12), patched
#		(one with patches= or config=), tree (of your own tree), own
#		or installed (on the test box: image and kdir are its
#		/boot/vmlinuz-RELEASE and the build tree on this host)
#   base	the Debian kernel's label or the variant
#   name	the kernel's name in the tools' files (tb_module, ...): the
#		base for a bare DEBIAN or VARIANT, its label otherwise
#   patches	the patch series' path; frags, the extra fragments' paths
#   tree rev	your tree's directory and the revision asked for
#   commit	the commit REV names (tb_spec_check)
#   image kdir	the image to boot and the kernel's build tree (your own
#		build's; the others' once built, tb_spec_build)
# A label holds letters, digits, _, + and - only: report.py's rows are
# LABEL.STATE.

declare -gA TB_SPECS=()
TB_SPEC_LABELS=()
# shellcheck disable=SC2034 # the last label parsed, for the tools
TB_SPEC_LAST=
TB_SPEC_ERR=

# tb_spec_bad STATUS MESSAGE: a refusal, MESSAGE in TB_SPEC_ERR; STATUS 2
# for a spec the grammar refuses, 1 for what it names that is not there
tb_spec_bad()
{
	TB_SPEC_ERR=$2
	return "$1"
}

# tb_spec_base KERNEL: the architecture loaded has the Debian kernel or
# builds the variant KERNEL; if not, prints why, naming both
tb_spec_base()
{
	local k=$1 has

	has=$(tb_list "$TB_ARCH_BUILT $TB_ARCH_KERNELS")
	if tb_is_built "$k"; then
		tb_arch_builds "$k" && return 0
		echo "$TB_ARCH has no kernel '$k': it builds ${TB_ARCH_BUILT// /, } alone (tools/arch/$TB_ARCH.conf)"
	elif case " $TB_ARCH_KERNELS " in *" $k "*) true ;; *) false ;; esac; then
		return 0
	elif grep -qsE "^TB_ARCH_KERNEL_PKGS=.*[\" ]$k:" "$TB_TOP"/tools/arch/*.conf; then
		echo "$TB_ARCH has no kernel '$k': Debian's kernels are x86_64's; $TB_ARCH has ${has// /, }"
	else
		echo "$TB_ARCH has no kernel '$k': it is no kernel variant ($TB_VARIANTS) nor Debian kernel; $TB_ARCH has ${has// /, }"
	fi
	return 1
}

# tb_spec_tree_archs: the architectures that build your own tree
tb_spec_tree_archs()
{
	local a

	for a in $(tb_all_archs); do
		grep -q '^TB_ARCH_TREE=1' "$TB_TOP/tools/arch/$a.conf" && echo "$a"
	done | paste -sd, | sed 's/,/, /g'
}

# tb_spec_tree_split VALUE: tree=VALUE's directory and revision, in
# tb_spec_path and tb_spec_rev: PATH@REV splits at the last @ whose left
# side is a directory, so that a revision may hold / (for-next/core,
# origin/master) and @, and a path @; a directory, @ and all, is taken
# whole. Fails where no directory is named.
tb_spec_tree_split()
{
	local left=$1

	tb_spec_path=$1 tb_spec_rev=
	[ -d "$1" ] && return 0
	while [[ $left == *@* ]]; do
		left=${left%@*}
		if [ -d "$left" ]; then
			tb_spec_path=$left
			tb_spec_rev=${1:${#left}+1}
			return 0
		fi
	done
	return 1
}

# tb_spec_own_build SPEC IMAGE DIR: refuse a build the guest cannot use:
# one for another architecture, a kernel before 6.1, or a .config without
# what the guest needs, each option named and written to a fragment to
# merge (the reason in TB_SPEC_ERR)
tb_spec_own_build()
{
	local spec=$1 img=$2 bld=$3 arch rel lacks frag

	[ -f "$bld/.config" ] || { tb_spec_bad 1 "$spec: $bld has no .config"; return; }
	arch=$(tb_image_arch "$img")
	case $arch:$TB_ARCH in
	x86:x86_64 | x86:i386 | arm64:arm64)	;;
	:*)	tb_spec_bad 1 "$spec: $img is no x86 bzImage nor arm64 Image"
		return ;;
	*)	tb_spec_bad 1 "$spec: $img is an $arch image, not one for $TB_ARCH (--arch)"
		return ;;
	esac
	arch=$(tb_config_arch "$bld/.config")
	[ "$arch" = "$TB_ARCH" ] || {
		tb_spec_bad 1 "$spec: $bld/.config builds for ${arch:-another architecture}, not $TB_ARCH (--arch)"
		return
	}
	rel=$(cat "$bld/include/config/kernel.release" 2>/dev/null) || {
		tb_spec_bad 1 "$spec: $bld has no include/config/kernel.release: is it built?"
		return
	}
	tb_release_at_least "$rel" 6 1 || {
		tb_spec_bad 1 "$spec: $rel is older than 6.1, the oldest kernel tracerbench supports"
		return
	}
	lacks=$(tb_guest_config_lacks "$bld/.config")
	[ -z "$lacks" ] && return 0
	{ mkdir -p "$TB_OUT" &&
		frag=$(mktemp "$TB_OUT/guest-needs-XXXXXX.config") &&
		echo "$lacks" >"$frag"; } || {
		tb_spec_bad 1 "cannot write a fragment in $TB_OUT"
		return
	}
	# shellcheck disable=SC2001 # a prefix on every line
	tb_spec_bad 1 "$spec: $bld/.config lacks what the guest needs:
$(echo "$lacks" | sed 's/^/  /')
merge $frag (in the kernel's source), then rebuild:
  scripts/kconfig/merge_config.sh -m -O $bld $bld/.config $frag
  make -C $bld olddefconfig all"
}

# tb_spec_parse SPEC: one kernel of the grammar into TB_SPECS, its label
# last in TB_SPEC_LABELS and in TB_SPEC_LAST, for the architecture
# loaded. Reads only the file system: no package is needed. A refusal
# returns 2 for a spec the grammar or the architecture refuses, 1 for
# a file or directory it names that is not there or will not do, the
# reason in TB_SPEC_ERR.
tb_spec_parse()
{
	local spec=$1 label='' base='' field key val p='' f='' img='' bld=''
	local tpath='' trev='' kind name fields why

	TB_SPEC_ERR=
	[ -n "$spec" ] || { tb_spec_bad 2 "an empty KERNEL"; return; }
	[[ ,$spec, != *,,* ]] ||
		{ tb_spec_bad 2 "$spec: an empty field between commas"; return; }
	IFS=, read -ra fields <<<"$spec"
	field=${fields[0]}
	if [[ $field == *=* ]]; then
		key=${field%%=*}
		val=${field#*=}
		case $key in
		bzimage)	img=$val ;;
		patches | config | build | tree)
			tb_spec_bad 2 "$spec: name the variant first, as in trace,$field"
			return ;;
		*)		label=$key base=$val
				[ -n "$base" ] || {
					tb_spec_bad 2 "$spec: $label= names no kernel"
					return
				} ;;
		esac
		if [[ $base == bzimage=* ]]; then
			img=${base#bzimage=}
			base=
		fi
	else
		base=$field
	fi
	for field in "${fields[@]:1}"; do
		[[ $field == *=* ]] || {
			tb_spec_bad 2 "$spec: '$field' is not KEY=VALUE"
			return
		}
		key=${field%%=*}
		val=${field#*=}
		[ -n "$val" ] || { tb_spec_bad 2 "$spec: $key= wants a value"; return; }
		# the shell expands no ~ after KEY=
		val=${val/#\~/$HOME}
		case $key in
		patches)
			[ -z "$p" ] || { tb_spec_bad 2 "$spec: one patch series per kernel"; return; }
			p=$(realpath -e -- "$val" 2>/dev/null) || {
				tb_spec_bad 1 "$spec: no such patch series: $val"
				return
			} ;;
		config)
			[ -f "$val" ] || {
				tb_spec_bad 1 "$spec: no such kconfig fragment: $val"
				return
			}
			f="$f $(realpath -- "$val")" ;;
		build)
			[ -z "$bld" ] || { tb_spec_bad 2 "$spec: one build= per kernel"; return; }
			bld=$val ;;
		bzimage)
			[ -z "$img" ] || { tb_spec_bad 2 "$spec: one bzimage= per kernel"; return; }
			img=$val ;;
		tree)
			[ -z "$tpath" ] || { tb_spec_bad 2 "$spec: one tree per kernel"; return; }
			tb_spec_tree_split "$val" || {
				tb_spec_bad 1 "$spec: no such directory: ${val%@*}"
				return
			}
			[ -n "$tb_spec_rev" ] || [[ $val != "$tb_spec_path@" ]] || {
				tb_spec_bad 2 "$spec: tree=PATH@ wants a revision"
				return
			}
			tpath=$(cd "$tb_spec_path" && pwd -P)
			trev=$tb_spec_rev ;;
		*)
			tb_spec_bad 2 "$spec: unknown key $key (patches, config, tree; bzimage and build for your own build)"
			return ;;
		esac
	done
	if [[ $base == installed:* ]]; then
		[ -z "$img$p$f$tpath" ] || {
			tb_spec_bad 2 "$spec: a kernel installed on the box takes build= alone"
			return
		}
		[[ ${base#installed:} =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] || {
			tb_spec_bad 2 "$spec: installed: wants the release of a kernel of the box's /boot, as uname -r prints it"
			return
		}
		kind=installed
		if [ -n "$bld" ]; then
			[ -f "$bld/Makefile" ] || {
				tb_spec_bad 1 "$spec: $bld is no kernel build tree (no Makefile)"
				return
			}
			bld=$(realpath "$bld")
		fi
	elif [ -n "$img" ]; then
		[ -z "$base$p$f$tpath" ] || {
			tb_spec_bad 2 "$spec: your own build takes bzimage= and build= only"
			return
		}
		[ -n "$label" ] || {
			tb_spec_bad 2 "$spec: give your own build a label: LABEL=bzimage=..."
			return
		}
		[ -n "$bld" ] || {
			tb_spec_bad 2 "$spec: build=DIR, the image's build tree, is missing"
			return
		}
		[ -f "$img" ] || { tb_spec_bad 1 "$spec: no such image: $img"; return; }
		{ [ -f "$bld/Makefile" ] && [ -f "$bld/Module.symvers" ]; } || {
			tb_spec_bad 1 "$spec: $bld is no kernel build tree (no Makefile or Module.symvers)"
			return
		}
		tb_spec_own_build "$spec" "$img" "$bld" || return
		kind=own
		img=$(realpath "$img")
		bld=$(realpath "$bld")
	else
		[ -z "$bld" ] || { tb_spec_bad 2 "$spec: build= goes with bzimage="; return; }
		[ -n "$base" ] || { tb_spec_bad 2 "$spec: names no kernel"; return; }
		why=$(tb_spec_base "$base") || { tb_spec_bad 2 "$spec: $why"; return; }
		if ! tb_is_built "$base"; then
			[ -z "$p$f$tpath" ] || {
				tb_spec_bad 2 "$spec: $base is Debian's kernel as built: patches=, config= and tree= take a variant ($TB_VARIANTS)"
				return
			}
			kind=debian
		elif [ -n "$tpath" ]; then
			[ "${TB_ARCH_TREE:-}" = 1 ] || {
				tb_spec_bad 2 "$spec: $TB_ARCH builds no kernel of your own tree (tree=): $(tb_spec_tree_archs) do"
				return
			}
			kind=tree
		elif [ -n "$p$f" ]; then
			kind=patched
		else
			kind=builtin
		fi
	fi
	name=$label
	if [ -z "$label" ]; then
		label=$base
		name=$base
		# a tree by its directory's name and the revision asked for
		[ -z "$tpath" ] ||
			label=$label+$(basename "$tpath")${trev:+-$trev}
		# a series file is named for its directory, whatever its
		# name; an mbox or a patch for itself, without its extension
		if [ -f "$p" ] && tb_is_mail "$p"; then
			label=$label+$(basename "$p" | sed 's/\.[^.]*$//')
		elif [ -f "$p" ]; then
			label=$label+$(basename "$(dirname "$p")")
		elif [ -n "$p" ]; then
			label=$label+$(basename "$p")
		fi
		for val in $f; do
			label=$label+$(basename "$val" .config)
		done
		label=${label//[^A-Za-z0-9_+-]/-}
		[ "$kind" = builtin ] || [ "$kind" = debian ] || name=$label
	fi
	[[ $label =~ ^[A-Za-z0-9_+-]+$ ]] || {
		tb_spec_bad 2 "$spec: the label '$label' may hold letters, digits, _, + and - only"
		return
	}
	[ -z "${TB_SPECS[$label.spec]+set}" ] ||
		{ tb_spec_bad 2 "two kernels are labelled $label"; return; }
	TB_SPEC_LABELS+=("$label")
	# shellcheck disable=SC2034 # the tools read it
	TB_SPEC_LAST=$label
	for key in commit image kdir; do
		TB_SPECS[$label.$key]=
	done
	TB_SPECS[$label.label]=$label
	TB_SPECS[$label.spec]=$spec
	TB_SPECS[$label.kind]=$kind
	TB_SPECS[$label.base]=$base
	TB_SPECS[$label.name]=$name
	TB_SPECS[$label.patches]=$p
	TB_SPECS[$label.frags]=${f# }
	TB_SPECS[$label.tree]=$tpath
	TB_SPECS[$label.rev]=$trev
	TB_SPECS[$label.image]=$img
	TB_SPECS[$label.kdir]=$bld
}

# tb_spec_add SPEC: tb_spec_parse, or the tool's exit: a usage error
# (exit 2, with the synopsis) for a spec the grammar refuses, exit 1 for
# what it names that is not there
tb_spec_add()
{
	local rc

	tb_spec_parse "$1"
	rc=$?
	[ $rc = 0 ] && return 0
	[ $rc = 2 ] && tb_usage_error "$TB_SPEC_ERR"
	echo "${tb_cli_name:-tracerbench}: $TB_SPEC_ERR" >&2
	exit 1
}

# tb_spec_needs LABEL: what the kernel needs installed, as tb_packages
# takes it: a Debian kernel itself; a variant the kernel source and what
# builds it; a tree git and what builds it; your own build nothing
tb_spec_needs()
{
	local l=$1

	case ${TB_SPECS[$l.kind]} in
	debian)		echo "kernel=${TB_SPECS[$l.base]}" ;;
	builtin)	echo kbuild source ;;
	patched)	echo kbuild source patch git ;;
	tree)		echo kbuild patch git ;;
	esac
}

# tb_spec_check LABEL: what needs the packages (tb_spec_needs): the patch
# series read (an mbox is split by git), your tree's revision resolved
# and its kernel version read, and every patch applied, in order, to
# copies of the files it touches; the first problem said on stderr
tb_spec_check()
{
	local l=$1 spec=${TB_SPECS[$1.spec]} p=${TB_SPECS[$1.patches]}
	local tpath=${TB_SPECS[$1.tree]} commit

	if [ -n "$p" ] && ! tb_patch_list "$p" >/dev/null; then
		echo "${tb_cli_name:-tracerbench}: $spec: bad patch series $p" >&2
		return 1
	fi
	if [ -n "$tpath" ]; then
		commit=$(tb_tree_check "$tpath" "${TB_SPECS[$l.rev]}" 2>&1) || {
			echo "${tb_cli_name:-tracerbench}: $spec: $commit" >&2
			return 1
		}
		TB_SPECS[$l.commit]=$commit
		[ -z "$p" ] || tb_series_check "$p" "" "$tpath" "$commit"
	elif [ -n "$p" ]; then
		tb_kernel_source || {
			echo "${tb_cli_name:-tracerbench}: cannot unpack linux-source-6.12" >&2
			return 1
		}
		tb_series_check "$p" "$TB_SRC"
	fi
}

# tb_spec_build LABEL NAME: the kernel LABEL built (or taken from the
# cache, or installed: a Debian kernel's), its build tree and image in
# TB_SPECS, and known to tb_kdir, tb_vmlinuz and so tb_boot as NAME
tb_spec_build()
{
	local l=$1 base=${TB_SPECS[$1.base]} kdir img rel

	case ${TB_SPECS[$l.kind]} in
	debian)
		rel=$(tb_release "$base")
		[ -n "$rel" ] || {
			echo "tracerbench: Debian's $base kernel is not installed" >&2
			return 1
		}
		kdir=/usr/src/linux-headers-$rel
		img=/boot/vmlinuz-$rel ;;
	builtin)
		tb_build_kernel "$base" || {
			echo "tracerbench: building the $base kernel failed: $(tb_kernel_dir "$base")/build.log" >&2
			return 1
		}
		kdir=$(tb_kernel_dir "$base")
		img=$kdir/$TB_KIMAGE ;;
	patched)
		kdir=$(tb_build_patched "$base" "${TB_SPECS[$l.patches]}" \
			"${TB_SPECS[$l.frags]}") || return 1
		img=$kdir/$TB_KIMAGE ;;
	tree)
		kdir=$(tb_build_tree "${TB_SPECS[$l.tree]}" \
			"${TB_SPECS[$l.commit]}" "$base" \
			"${TB_SPECS[$l.patches]}" "${TB_SPECS[$l.frags]}") ||
			return 1
		img=$kdir/$TB_KIMAGE ;;
	own)
		kdir=${TB_SPECS[$l.kdir]}
		img=${TB_SPECS[$l.image]} ;;
	installed)
		rel=${base#installed:}
		kdir=${TB_SPECS[$l.kdir]}
		for img in "/lib/modules/$rel/build" "/usr/src/linux-headers-$rel"; do
			[ -n "$kdir" ] || [ ! -f "$img/Makefile" ] || kdir=$img
		done
		[ -n "$kdir" ] || {
			echo "tracerbench: no build tree of $rel on this host to build the module against: install linux-headers-$rel, or give ${TB_SPECS[$l.spec]},build=DIR" >&2
			return 1
		}
		img=/boot/vmlinuz-$rel ;;
	esac
	TB_SPECS[$l.kdir]=$kdir
	TB_SPECS[$l.image]=$img
	tb_custom_kernel "$2" "$kdir" "$img"
}

# tb_spec_prepare LABEL [NEED...]: what booting kernel LABEL with the
# module takes, for the tools that boot one kernel (boot.sh, run.sh,
# scale.sh, speed.sh): the packages it needs, and NEEDs (tb_install),
# its checks, the kernel, and the module built for it, all under its
# name, TB_SPECS[LABEL.name].
tb_spec_prepare()
{
	local l=$1 n=${TB_SPECS[$1.name]}

	shift
	# shellcheck disable=SC2046 # needs are words
	tb_install module guest $(tb_spec_needs "$l") "$@" >&2 || return 1
	tb_spec_check "$l" || return 1
	mkdir -p "$TB_OUT"
	tb_spec_build "$l" "$n" || return 1
	if ! tb_build_module "$n"; then
		cat "$(dirname "$(tb_module "$n")")/build.log" >&2
		return 1
	fi
}
