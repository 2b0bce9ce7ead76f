# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Kernels built from linux-source-6.12: the source, the fragments, a tree
# per kernel in the cache, patched kernels. Sourced by tools/lib.sh.

# The source, unpacked once into the cache (TB_SRC) and held there
# (tools/lib/cache.sh): complete once its checkpatch.pl is there.
tb_kernel_source()
{
	tb_cache_get "$TB_SRC" tb_source_unpacked tb_unpack_source
}

tb_source_unpacked()
{
	[ -x "$1/scripts/checkpatch.pl" ]
}

# tb_unpack_source DIR: the source's files into DIR, new
tb_unpack_source()
{
	mkdir "$1" &&
		tar -C "$1" --strip-components=1 \
			-xf /usr/src/linux-source-6.12.tar.xz &&
		tb_source_unpacked "$1"
}

# The variants of linux-source-6.12: TB_VARIANTS names them, and
# tb_fragments VARIANT prints the kconfig fragments each is built from, the
# architecture's among them, and nothing for a name that is no variant.
# Each architecture's file names those it builds (TB_ARCH_BUILT), and
# tools/docs.py facts holds the documents' lists of them to these.
TB_VARIANTS="notrace trace debug rt-debug"
# On a test box's own configuration (TB_BASE_CONFIG, bench.sh
# --box-config), the variants are that and their tracing and debugging
# fragments alone: base.config and the arch's are what QEMU's guests
# need of tinyconfig, and would take from the box what it needs (its
# CPUs, its drivers).
TB_BASE_CONFIG=${TB_BASE_CONFIG:-}
tb_fragments()
{
	local d=$TB_TOP/tools/kconfig a

	a=$(for f in $TB_ARCH_FRAGMENTS; do echo "$d/$f"; done)
	if [ -n "$TB_BASE_CONFIG" ]; then
		case $1 in
		trace)		echo "$d/trace.config" ;;
		debug)		echo "$d/trace.config $d/debug.config" ;;
		rt-debug)	echo "$d/trace.config $d/rt-debug.config" ;;
		esac
		return 0
	fi
	# shellcheck disable=SC2086 # a list of files, a word each
	case $1 in
	notrace)	echo "$d/base.config" $a ;;
	trace)		echo "$d/base.config" $a "$d/trace.config" ;;
	debug)		echo "$d/base.config" $a "$d/trace.config $d/debug.config" ;;
	rt-debug)	echo "$d/base.config" $a "$d/trace.config $d/rt-debug.config" ;;
	esac
}

# tb_is_built KERNEL: KERNEL is a variant of linux-source-6.12
tb_is_built()
{
	case " $TB_VARIANTS " in
	*" $1 "*)	return 0 ;;
	*)		return 1 ;;
	esac
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
	# shellcheck disable=SC2046 # a list of files, a word each
	tb_options $(tb_fragments "$variant") "$@"
}

# tb_final_options: of the option lines on stdin, in merge order, the last
# one of each option, as merge_config.sh leaves it (rt-debug.config unsets
# base.config's CONFIG_PREEMPT)
tb_final_options()
{
	awk '{ name = $0; sub(/^# /, "", name); sub(/[= ].*/, "", name)
	       if (!(name in line)) order[n++] = name; line[name] = $0 }
	     END { for (i = 0; i < n; i++) print line[order[i]] }'
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
		[ -z "$TB_BASE_CONFIG" ] || tb_options "$TB_BASE_CONFIG"
		dpkg-query -W -f='${Version}\n' linux-source-6.12
		"${TB_CROSS}gcc" --version | head -n 1
		[ "$TB_ARCH" = x86_64 ] || echo "$TB_ARCH"
	} | sha256sum | cut -c 1-16)
	echo "$TB_TREES/$(tb_name "$1")-$key"
}

# Where variant $1 is built (its kernel build tree): b/ in its tree.
tb_kernel_dir()
{
	echo "$(tb_kernel_tree "$1")/b"
}

# tb_source_has_option SRC NAME: kernel source SRC defines option NAME
# (without CONFIG_) in a Kconfig file
tb_source_has_option()
{
	grep -rqsE --include='Kconfig*' "^[[:space:]]*(menu)?config $2\$" "$1"
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
		# an option this kernel's source does not have (a tree of
		# your own, older or newer than linux-source-6.12)
		name=${opt#\# }
		name=${name%%[= ]*}
		if ! tb_source_has_option "$(dirname "$config")/.." "${name#CONFIG_}"; then
			echo "tracerbench: $variant kernel in $(dirname "$config"): $name is unknown to this kernel: not checked" >&2
			continue
		fi
		echo "tracerbench: $variant kernel in $(dirname "$config") lacks $opt" >&2
		missing=1
	done < <(tb_fragment_options "$variant" "$@" | tb_final_options)
	if [ "$variant" = notrace ] &&
	   grep -q '^CONFIG_PREEMPTIRQ_TRACEPOINTS=y' "$config"; then
		echo "tracerbench: notrace kernel has the tracepoints" >&2
		missing=1
	fi
	return $missing
}

# tb_configure SRC OUT VARIANT: OUT/.config of tinyconfig and the variant's
# fragments, for the architecture loaded; or of TB_BASE_CONFIG, a test
# box's, and the variant's fragments, naming each option they changed.
tb_configure()
{
	if [ -n "$TB_BASE_CONFIG" ]; then
		tb_configure_on "$@"
		return
	fi
	# shellcheck disable=SC2046 # a list of files, a word each
	make -C "$1" O="$2" "${TB_KMAKE[@]}" tinyconfig &&
		"$1"/scripts/kconfig/merge_config.sh -m -O "$2" "$2/.config" \
			$(tb_fragments "$3") &&
		make -C "$1" O="$2" "${TB_KMAKE[@]}" olddefconfig
}

# tb_configure_on SRC OUT VARIANT: the box's configuration, made whole for
# SRC (olddefconfig: what it lacks at its defaults), then the variant's
# fragments; a line on stderr for each option the fragments changed,
# "tracerbench: the box's configuration: CONFIG_X: BEFORE -> AFTER", as
# ktest.pl starts from a configuration the machine boots with
tb_configure_on()
{
	local frags

	frags=$(tb_fragments "$3")
	mkdir -p "$2" && cp "$TB_BASE_CONFIG" "$2/.config" &&
		make -C "$1" O="$2" "${TB_KMAKE[@]}" olddefconfig &&
		cp "$2/.config" "$2/.config.box" || return 1
	if [ -n "$frags" ]; then
		# shellcheck disable=SC2086 # a list of files, a word each
		"$1"/scripts/kconfig/merge_config.sh -m -O "$2" "$2/.config" \
			$frags && make -C "$1" O="$2" "${TB_KMAKE[@]}" olddefconfig ||
			return 1
	fi
	tb_config_changes "$2/.config.box" "$2/.config" |
		sed "s/^/tracerbench: the box's configuration: /" >&2
}

# tb_config_changes OLD NEW: "CONFIG_X: BEFORE -> AFTER" for each option
# whose value differs ("n" for not set or absent)
tb_config_changes()
{
	awk '
	function val(line,    v) {
		if (line ~ /^# CONFIG_.* is not set$/) return "n"
		v = line; sub(/^[^=]*=/, "", v); return v
	}
	function name(line,    n) {
		n = line; sub(/^# /, "", n); sub(/[= ].*/, "", n); return n
	}
	/^CONFIG_|^# CONFIG_.* is not set$/ {
		n = name($0)
		if (FILENAME == ARGV[1]) { old[n] = val($0); next }
		new[n] = val($0)
		if (!(n in seen)) { order[++k] = n; seen[n] = 1 }
	}
	END {
		for (n in old)
			if (!(n in seen)) { order[++k] = n; seen[n] = 1 }
		for (i = 1; i <= k; i++) {
			n = order[i]
			o = (n in old) ? old[n] : "n"
			v = (n in new) ? new[n] : "n"
			if (o != v)
				print n ": " o " -> " v
		}
	}' "$1" "$2"
}

# tb_tree_build TREE VARIANT [FRAGMENT...]: configure TREE/b as VARIANT
# plus the fragments, unless it has a configuration already, check that
# every option asked for is set, and build (make's target TB_KTARGET:
# all, if unset); the log is TREE/b/build.log, the build's phase and time
# so far go to stderr (tb_build_progress).
tb_tree_build()
{
	tb_build_progress "$1/b/build.log" tb_tree_make "$@"
}

# tb_tree_make TREE VARIANT [FRAGMENT...]: tb_tree_build's build
tb_tree_make()
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
			make -C "$tree" O="$tree/b" "${TB_KMAKE[@]}" -j"$(nproc)" \
				"${TB_KTARGET:-all}"
	} >>"$tree/b/build.log" 2>&1
}

# tb_tree_built TREE: the kernel of TREE, a tree of the cache, is built
tb_tree_built()
{
	[ -f "$1/b/.tb-built" ]
}

# Build kernel variant $1 unless the cache has it, and hold its tree
# (tools/lib/cache.sh) while this process runs; the log is build.log in
# its build directory, a failed build's too.
tb_build_kernel()
{
	tb_cache_get "$(tb_kernel_tree "$1")" tb_tree_built tb_make_kernel "$1"
}

# tb_kernel_cached VARIANT: the cache has the kernel of VARIANT built;
# held then, as tb_build_kernel holds it. Builds nothing.
tb_kernel_cached()
{
	local tree

	tree=$(tb_kernel_tree "$1")
	tb_tree_built "$tree" && tb_cache_hold "$tree" && tb_tree_built "$tree"
}

# tb_make_kernel DIR VARIANT: the tree of VARIANT built in DIR, new, to
# be renamed to its place in the cache: kbuild's paths are relative. On
# a box's configuration (TB_BASE_CONFIG), configured first: a kernel of
# the cache configured the same, byte for byte, from the same source,
# gives its build, which kbuild then finds up to date (make check's
# --box-config kernel is its box kernel: a build of ten minutes, saved).
tb_make_kernel()
{
	local dir=$1 donor

	tb_kernel_source || return 1
	echo "tracerbench: building the $TB_ARCH $2 kernel in $dir/b" >&2
	cp -al "$TB_SRC" "$dir" && mkdir "$dir/b" || return 1
	if [ -n "$TB_BASE_CONFIG" ]; then
		tb_configure "$dir" "$dir/b" "$2" >>"$dir/b/build.log" 2>&1 ||
			return 1
		if donor=$(tb_config_donor "$dir/b/.config"); then
			echo "tracerbench: $donor is configured the same: building from its build" >&2
			# a shortcut that failed leaves the tree as configured
			tb_take_build "$donor" "$dir" ||
				echo "tracerbench: cannot copy the build of $donor: building anew" >&2
		fi
	fi
	tb_tree_build "$dir" "$2" && tb_source_id >"$dir/b/.tb-source" ||
		return 1
	touch "$dir/b/.tb-built"
}

# tb_source_id: the kernel source the cache's trees are built from, as a
# tree's b/.tb-source names it when no patch changed it
tb_source_id()
{
	echo "linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)"
}

# tb_config_donor CONFIG: a built tree of the cache whose source is
# linux-source-6.12 as it is (b/.tb-source: no patch, not a tree of your
# own) and whose configuration is CONFIG, byte for byte (the kernel's
# version and the compiler are in it); held (tb_cache_hold) once found.
# 1 if there is none.
tb_config_donor()
{
	local id mark tree

	id=$(tb_source_id)
	for mark in "$TB_TREES"/*/b/.tb-source; do
		tree=${mark%/b/.tb-source}
		case $tree in
		*.tmp-* | *.old-*)	continue ;;
		esac
		if [ "$(cat "$mark" 2>/dev/null)" = "$id" ] &&
		   cmp -s "$tree/b/.config" "$1" && tb_tree_built "$tree" &&
		   tb_cache_hold "$tree" quiet && tb_tree_built "$tree"; then
			echo "$tree"
			return 0
		fi
	done
	return 1
}

# tb_take_build DONOR DIR: DIR's build directory becomes a copy of
# DONOR's (tb_config_donor's), but for DIR's own log and the box's
# configuration as it came (.config.box). The copy is made beside it
# and takes its place whole: if it fails, DIR's is as it was.
tb_take_build()
{
	local new=$2/b.new old=$2/b.old

	rm -rf "$new" "$old" && cp -a "$1/b" "$new" &&
		rm -f "$new/.tb-built" "$new/.tb-source" "$new/.config.box" &&
		cp "$2/b/build.log" "$new/" &&
		{ [ ! -f "$2/b/.config.box" ] || cp "$2/b/.config.box" "$new/"; } &&
		mv "$2/b" "$old" &&
		{ mv "$new" "$2/b" || { mv "$old" "$2/b"; false; }; } &&
		{ rm -rf "$old"; return 0; }
	rm -rf "$new"
	return 1
}

# tb_is_mail FILE: FILE is a patch or a series as mailed, not a quilt
# series: an mbox ("From " first), a mail, or a bare diff
tb_is_mail()
{
	head -n 1 "$1" | grep -q -e '^From ' -e '^[A-Za-z-]*: ' -e '^diff ' \
		-e '^--- ' -e '^Index: '
}

# tb_has_diff FILE: FILE changes something (a cover letter does not)
tb_has_diff()
{
	grep -q -e '^diff ' -e '^--- ' "$1"
}

# tb_split_mail FILE: the messages of an mbox (or the one mail or diff)
# FILE holds, in order, each a file of a directory in the cache named
# for FILE's contents, as git am would take them; prints the directory.
tb_split_mail()
{
	local dir

	dir=$TB_CACHE/series/$(sha256sum <"$1" | cut -c 1-16)
	tb_cache_get "$dir" tb_mail_split tb_make_split "$1" || return 1
	echo "$dir"
}

tb_mail_split()
{
	[ -f "$1/.split" ]
}

# tb_make_split DIR FILE: FILE's messages into DIR, new
tb_make_split()
{
	mkdir "$1" || return 1
	if head -n 1 "$2" | grep -q '^From '; then
		git mailsplit -d4 -o"$1" "$2" >/dev/null || return 1
	else
		cp "$2" "$1/0001" || return 1
	fi
	touch "$1/.split"
}

# tb_patch_list PATH [quiet]: the patches PATH names, one path a line, in
# order: a quilt series file (or a directory holding one), whose names
# are relative to its directory; a directory's *.patch files in name
# order, as git format-patch numbers them; or an mbox of the series as
# mailed (or one patch), in its order. Patches with no diff, such as
# format-patch's cover letter, are left out, and said so unless quiet.
# PATH may begin with ~ (bench.sh's KEY=~/... reaches here unexpanded).
tb_patch_list()
{
	local path=${1/#\~/$HOME} series='' dir name opts p list n=0

	if [ -d "$path" ] && [ -f "$path/series" ]; then
		series=$path/series
	elif [ -d "$path" ]; then
		# shellcheck disable=SC2012 # file names of the tree's, sorted in C
		list=$(ls "$path"/*.patch 2>/dev/null | LC_ALL=C sort)
		if [ -z "$list" ]; then
			echo "tracerbench: no *.patch files and no series in $path" >&2
			return 1
		fi
	elif [ -f "$path" ] && tb_is_mail "$path"; then
		dir=$(tb_split_mail "$path") || {
			echo "tracerbench: cannot split $path into its mails" >&2
			return 1
		}
		# shellcheck disable=SC2012 # the mails tb_split_mail numbered
		list=$(ls "$dir"/[0-9]* | LC_ALL=C sort)
	elif [ -f "$path" ]; then
		series=$path
	else
		echo "tracerbench: no such patch series: $path" >&2
		return 1
	fi
	if [ -n "$series" ]; then
		dir=$(dirname "$series")
		list=$(sed -e 's/#.*//' "$series" | while read -r name opts; do
			[ -n "$name" ] || continue
			if [ -n "$opts" ] && [ "$opts" != -p1 ]; then
				echo "tracerbench: $series: $name: only -p1 is supported, not $opts" >&2
				echo /
				return 1
			fi
			if [ ! -f "$dir/$name" ]; then
				echo "tracerbench: $series names $name, which $dir lacks" >&2
				echo /
				return 1
			fi
			echo "$dir/$name"
		done)
		# a line "/" is a refusal of the loop's subshell
		case $'\n'$list$'\n' in
		*$'\n'/$'\n'*)	return 1 ;;
		esac
	fi
	for p in $list; do
		if tb_has_diff "$p"; then
			echo "$p"
			n=$((n + 1))
		elif [ -z "${2:-}" ]; then
			echo "tracerbench: $p changes nothing (a cover letter?): skipped" >&2
		fi
	done
	[ $n -gt 0 ] ||
		{ echo "tracerbench: $path holds no patch that changes anything" >&2; return 1; }
}

# tb_series_check PATCHES SRC [PATH COMMIT]: every patch of the series
# applies, in order, to the files it touches, copied aside from kernel
# source SRC or, with PATH, from your tree at COMMIT (or as it is); the
# first that does not is named, with what patch said, before anything
# is built.
tb_series_check()
{
	local list p f tmp rc=0 where=${3:-linux-source-6.12}

	list=$(tb_patch_list "$1" quiet) || return 1
	tmp=$(mktemp -d) || return 1
	for p in $list; do
		# shellcheck disable=SC2013 # the paths a patch names, a word each
		for f in $(sed -n -e 's|^--- a/||p' -e 's|^+++ b/||p' "$p" |
			   sed 's/\t.*//' | sort -u); do
			[ -e "$tmp/$f" ] && continue
			mkdir -p "$tmp/$(dirname "$f")" || { rc=1; break 2; }
			if [ -n "${3:-}" ]; then
				tb_tree_file "$3" "${4:-}" "$f" >"$tmp/$f" ||
					rm -f "$tmp/$f"
			else
				cp "$2/$f" "$tmp/$f" 2>/dev/null
			fi
		done
		tb_apply_patch "$tmp" "$p" "$where${4:+@$4}" "$tmp/.patch.log" ||
			{ rc=1; break; }
	done
	rm -rf "$tmp"
	return $rc
}

# tb_copy_build SRC DST: DST, new, a copy of the built tree SRC to build
# again: its sources as hard links (cheap), its build b/ as real copies
# (objtool rewrites objects in place, and must not write through a link
# into SRC's build), not marked built. Whatever changes a source in DST
# must replace the file, not write through the link: GNU patch does, and
# tb_tree_update removes each file before it writes it.
tb_copy_build()
{
	rm -rf "$2" && mkdir -p "$2" &&
		(cd "$1" && find . -mindepth 1 -maxdepth 1 ! -name b \
			-exec cp -al {} "$2/" \;) &&
		cp -a "$1/b" "$2/b" && rm -f "$2/b/.tb-built" "$2/b/.tb-source"
}

# tb_apply_patch DIR PATCH WHERE LOG: apply PATCH to the tree DIR as the
# rig does everywhere (-p1, nothing reversed, no backups); if it does not
# apply, name it and WHERE, with what patch said (kept in LOG), and fail
tb_apply_patch()
{
	patch -d "$1" -p1 -N -s --batch --no-backup-if-mismatch -r - <"$2" \
		>"$4" 2>&1 && return 0
	echo "tracerbench: patch $2 does not apply to $3:" >&2
	sed 's/^/  /' "$4" >&2
	return 1
}

# tb_patched_dir VARIANT PATCHES FRAGMENTS: where VARIANT with the patch
# series PATCHES (a path, or empty) and the kconfig fragments FRAGMENTS (a
# space-separated list) builds; keyed by the variant's tree, the contents,
# in order, of every patch, and the fragments' options (as the variant's
# tree is: a comment in a fragment does not rebuild).
tb_patched_dir()
{
	local tree key patches='' p f

	if [ -n "$2" ]; then
		patches=$(tb_patch_list "$2" quiet) || return 1
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
		# shellcheck disable=SC2086 # a list of files, a word each
		tb_options $3
	} | sha256sum | cut -c 1-16)
	echo "$tree-$key"
}

# tb_build_patched VARIANT PATCHES FRAGMENTS: build what tb_patched_dir
# names, unless the cache has it, from a copy of the variant's tree
# (tb_copy_build), or with both patches and fragments of the variant's
# with the fragments, and hold it while this process runs. GNU patch
# replaces the files it changes, so the links of patched files break and
# the variant's sources stay as they are; the new modification times make
# kbuild rebuild what depends on them. Prints the tree's build directory
# (its kernel build tree).
tb_build_patched()
{
	local variant=$1 patches=$2 frags=$3 dir list=''

	dir=$(tb_patched_dir "$variant" "$patches" "$frags") || return 1
	if [ -n "$patches" ]; then
		list=$(tb_patch_list "$patches" quiet) || return 1
	fi
	tb_cache_get "$dir" tb_tree_built tb_make_patched "$variant" \
		"$patches" "$frags" "$list" || return 1
	echo "$dir/b"
}

# tb_make_patched TMP VARIANT PATCHES FRAGMENTS LIST: the patched kernel
# built in TMP, new, to be renamed to its place in the cache (tb_cache_get
# does): LIST, its patches, one path a line
tb_make_patched()
{
	local tmp=$1 variant=$2 patches=$3 frags=$4 list=$5 dir=${1%.tmp-*} p
	local start=$SECONDS base

	# with fragments and patches, from the variant with the fragments,
	# built once for every series on it: a patch then rebuilds what it
	# touches, not what the fragments change too
	if [ -n "$patches" ] && [ -n "$frags" ]; then
		base=$(tb_build_patched "$variant" "" "$frags") || return 1
		base=${base%/b}
	else
		tb_build_kernel "$variant" || {
			echo "tracerbench: building the $variant kernel failed: $(tb_kernel_dir "$variant")/build.log" >&2
			return 1
		}
		base=$(tb_kernel_tree "$variant")
	fi
	tb_copy_build "$base" "$tmp" || { rm -rf "$tmp"; return 1; }
	echo "# $variant $patches $frags" >"$tmp/b/build.log"
	for p in $list; do
		tb_apply_patch "$tmp" "$p" linux-source-6.12 \
			"$tmp/b/patch.log" || { rm -rf "$tmp"; return 1; }
	done
	echo "tracerbench: building $variant${patches:+ + $patches}${frags:+ + $frags} in $tmp" >&2
	# shellcheck disable=SC2086 # the fragments are words
	if ! tb_tree_build "$tmp" "$variant" $frags; then
		echo "tracerbench: building $dir failed: $dir/b/build.log" >&2
		return 1
	fi
	echo "tracerbench: built in $((SECONDS - start)) s" >&2
	# no patch: the source as it is, for tb_config_donor
	[ -n "$list" ] || tb_source_id >"$tmp/b/.tb-source" || return 1
	touch "$tmp/b/.tb-built"
}

# tb_prepare_patched VARIANT FRAGMENTS: as tb_build_patched with no
# patches, but the tree only prepared for out-of-tree modules (make
# modules_prepare: no vmlinux, no image, no Module.symvers), for a module
# that is disassembled and never loaded. A module's code needs only the
# configuration, the generated headers and the compiler's flags: built
# against such a tree and against the whole kernel, tracerbench.ko
# disassembled the same, and the tree took 11 s where a whole kernel of
# the same configuration takes minutes. Prints the tree's build
# directory.
tb_prepare_patched()
{
	local dir

	dir=$(tb_patched_dir "$1" "" "$2")-prepared || return 1
	tb_cache_get "$dir" tb_tree_prepared tb_make_prepared "$1" "$2" ||
		return 1
	echo "$dir/b"
}

# tb_tree_prepared TREE: the tree is prepared for modules (tb_prepare_patched)
tb_tree_prepared()
{
	[ -f "$1/b/.tb-prepared" ]
}

# tb_make_prepared TMP VARIANT FRAGMENTS: tb_prepare_patched's tree made
# in TMP, to be renamed to its place in the cache. Not a donor of builds
# (tb_config_donor): it has no .tb-source.
tb_make_prepared()
{
	local tmp=$1 variant=$2 frags=$3

	tb_kernel_source || return 1
	cp -al "$TB_SRC" "$tmp" && mkdir "$tmp/b" || return 1
	echo "tracerbench: preparing $variant${frags:+ + $frags} for modules in $tmp" >&2
	# shellcheck disable=SC2086 # the fragments are words
	if ! TB_KTARGET=modules_prepare tb_tree_build "$tmp" "$variant" $frags; then
		echo "tracerbench: preparing $tmp failed: $tmp/b/build.log" >&2
		return 1
	fi
	touch "$tmp/b/.tb-prepared"
}

# --- Kernels built elsewhere ----------------------------------------------

# tb_image_arch IMAGE: the architecture family of a kernel image by its
# boot header: x86 (a bzImage's "HdrS" at 0x202) or arm64 (an Image's
# "ARM\x64" at 0x38); nothing for another file.
tb_image_arch()
{
	if [ "$(od -A n -c -j 514 -N 4 "$1" 2>/dev/null | tr -d ' ')" = HdrS ]; then
		echo x86
	elif [ "$(od -A n -t x1 -j 56 -N 4 "$1" 2>/dev/null | tr -d ' ')" = 41524d64 ]; then
		echo arm64
	fi
}

# tb_config_arch CONFIG: the architecture a .config builds for, as
# tools/arch/ names it; nothing for another
tb_config_arch()
{
	if grep -qx 'CONFIG_ARM64=y' "$1"; then
		echo arm64
	elif grep -qx 'CONFIG_X86_64=y' "$1"; then
		echo x86_64
	elif grep -qx 'CONFIG_X86_32=y' "$1"; then
		echo i386
	fi
}

# tb_guest_config: the fragments of what the guest needs of any kernel of
# the architecture (tools/kconfig/guest.config and the arch's console)
tb_guest_config()
{
	echo "$TB_TOP/tools/kconfig/guest.config" \
		"$TB_TOP/tools/kconfig/$TB_GUEST_CONFIG"
}

# tb_guest_config_lacks CONFIG: the options of tb_guest_config that the
# .config CONFIG does not set so, a line each
tb_guest_config_lacks()
{
	local opt

	# shellcheck disable=SC2046 # a list of files, a word each
	while read -r opt; do
		grep -qxF "$opt" "$1" || echo "$opt"
	done < <(tb_options $(tb_guest_config))
}

# tb_release_at_least RELEASE MAJOR MINOR: kernel RELEASE (6.12.0-rc1+)
# is MAJOR.MINOR or later
tb_release_at_least()
{
	local v=${1%%[!0-9.]*} major minor

	major=${v%%.*}
	minor=${v#*.}
	minor=${minor%%.*}
	[[ $major =~ ^[0-9]+$ && $minor =~ ^[0-9]+$ ]] || return 1
	[ "$major" -gt "$2" ] || { [ "$major" -eq "$2" ] && [ "$minor" -ge "$3" ]; }
}

# tb_source_files FILE...: a directory that holds those files of
# linux-source-6.12 (paths from its top): the source where it is unpacked
# (TB_SRC), or else one in TB_OUT, per package version, into which they
# are read from the package's tarball, the rest left packed: what make
# check's host part reads (checkpatch.pl, the files the example patches
# touch) takes no kernel source unpacked.
tb_source_files()
{
	local dir f missing=()

	if [ -x "$TB_SRC/scripts/checkpatch.pl" ]; then
		echo "$TB_SRC"
		return 0
	fi
	dir=$TB_OUT/linux-source-$(dpkg-query -W -f='${Version}' linux-source-6.12) ||
		return 1
	for f in "$@"; do
		[ -e "$dir/$f" ] || missing+=("linux-source-6.12/$f")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		mkdir -p "$dir" &&
			tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$dir" \
				--strip-components=1 "${missing[@]}" || return 1
	fi
	echo "$dir"
}
