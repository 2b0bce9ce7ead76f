# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Kernels from your own tree (bench.sh's tree=PATH[@REV]): a git tree at a
# commit, or its files as they are, or a plain source directory, built
# as a variant of tools/kconfig/ in the cache. The tree and its checkout
# are only ever read. Sourced by tools/lib.sh.

# The oldest kernel the module supports
TB_OLDEST="6 1"

# tb_tree_is_git PATH: PATH is the top of a git work tree
tb_tree_is_git()
{
	[ "$(git -C "$1" rev-parse --show-toplevel 2>/dev/null)" = \
	  "$(cd "$1" && pwd -P)" ]
}

# tb_tree_file PATH REV FILE: FILE of the tree, at REV (a commit) or as
# it is (REV empty)
tb_tree_file()
{
	if [ -n "$2" ]; then
		git -C "$1" show "$2:$3" 2>/dev/null
	else
		cat "$1/$3" 2>/dev/null
	fi
}

# tb_tree_check PATH REV: refuse, saying why, what is no kernel tree this
# rig can build: a missing path, a REV that is no commit (or REV in a
# tree without git), no kernel Makefile, a kernel before 6.1. Prints the
# commit REV names, or nothing without REV.
tb_tree_check()
{
	local path=$1 rev=$2 commit='' mk v p

	[ -d "$path" ] || { echo "no such directory: $path" >&2; return 1; }
	if [ -n "$rev" ]; then
		tb_tree_is_git "$path" ||
			{ echo "$path is no git tree: @$rev needs one" >&2; return 1; }
		commit=$(git -C "$path" rev-parse -q --verify "$rev^{commit}") ||
			{ echo "$path has no commit $rev" >&2; return 1; }
	fi
	mk=$(tb_tree_file "$path" "$commit" Makefile)
	v=$(echo "$mk" | sed -n 's/^VERSION = \([0-9]*\)$/\1/p')
	p=$(echo "$mk" | sed -n 's/^PATCHLEVEL = \([0-9]*\)$/\1/p')
	if [ -z "$v" ] || [ -z "$p" ] ||
	   [ -z "$(tb_tree_file "$path" "$commit" kernel/Makefile)" ]; then
		echo "$path${rev:+@$rev} is no kernel source tree (no VERSION and PATCHLEVEL in its Makefile, or no kernel/)" >&2
		return 1
	fi
	# shellcheck disable=SC2086 # TB_OLDEST is two words
	tb_release_at_least "$v.$p" $TB_OLDEST || {
		echo "$path${rev:+@$rev} is $v.$p, older than ${TB_OLDEST/ /.}, the oldest kernel tracerbench supports" >&2
		return 1
	}
	echo "$commit"
}

# tb_tree_state PATH COMMIT: what keys the tree's source, a line: "git
# COMMIT" at a commit; "git HEAD DIFFSUM" for a git tree's files as they
# are (DIFFSUM, the hash of git diff HEAD, "-" when clean: untracked files
# are not the tree's); "dir SUM" for a plain directory, the hash of its
# files' names, sizes and times.
tb_tree_state()
{
	local head sum

	if [ -n "$2" ]; then
		echo "git $2"
	elif tb_tree_is_git "$1"; then
		head=$(git -C "$1" rev-parse HEAD) &&
			sum=$(git -C "$1" diff HEAD) || return 1
		[ -z "$sum" ] || sum=$(echo "$sum" | sha256sum | cut -c 1-16)
		echo "git $head ${sum:--}"
	else
		sum=$(cd "$1" && find . -path ./.git -prune -o -type f \
			-printf '%P %s %T@\n' | LC_ALL=C sort | sha256sum |
			cut -c 1-16)
		echo "dir $sum"
	fi
}

# tb_tree_compat_fragments SRC: the fragments of tools/kconfig/ that give
# an older kernel the options the variants' fragments name as newer
# kernels do; none where SRC has the new names
tb_tree_compat_fragments()
{
	case $TB_ARCH in
	x86_64)
		grep -q '^config MITIGATION_RETPOLINE$' "$1/arch/x86/Kconfig" ||
			echo "$TB_TOP/tools/kconfig/x86_64-before-6.9.config" ;;
	esac
}

# tb_tree_family PATH VARIANT PATCHES FRAGMENTS: the key of every build of
# one tree with one configuration, whatever its commit: a new commit
# builds from the last such build (tb_build_tree)
tb_tree_family()
{
	{
		cd "$1" && pwd -P
		# shellcheck disable=SC2086 # a list of files, a word each
		tb_fragment_options "$2" $4
		# a test box's configuration, the variants' base (--box-config)
		[ -z "$TB_BASE_CONFIG" ] || tb_options "$TB_BASE_CONFIG"
		"${TB_CROSS}gcc" --version | head -n 1
		echo "$TB_ARCH"
	} | sha256sum | cut -c 1-16
}

# tb_tree_dir PATH VARIANT STATE FAMILY PATCH...: where that kernel
# builds: keyed by the tree's state (tb_tree_state), its family (the
# variant's and the extra fragments' options, the compiler and the
# architecture: tb_tree_family) and the patches' contents
tb_tree_dir()
{
	local path=$1 variant=$2 key p

	key=$({
		echo "$3"
		echo "$4"
		shift 4
		for p in "$@"; do
			sha256sum <"$p"
		done
	} | sha256sum | cut -c 1-16)
	echo "$TB_TREES/tree-$(basename "$(cd "$path" && pwd -P)")-$variant-$key"
}

# tb_tree_export PATH COMMIT DEST: the tree's files into DEST, new: at
# COMMIT by git archive, as they are by git archive of HEAD and the diff
# of the changes, or a plain directory copied
tb_tree_export()
{
	mkdir -p "$3" || return 1
	if [ -n "$2" ]; then
		git -C "$1" archive "$2" | tar -x -C "$3"
	elif tb_tree_is_git "$1"; then
		git -C "$1" archive HEAD | tar -x -C "$3" &&
			tb_tree_apply_changes "$1" "$3"
	else
		(cd "$1" && tar -c --exclude=./.git .) | tar -x -C "$3"
	fi
}

# tb_tree_apply_changes PATH DEST: a git tree's uncommitted changes to
# tracked files, onto DEST (GNU patch replaces each file it changes)
tb_tree_apply_changes()
{
	local diff

	diff=$(git -C "$1" diff HEAD --no-renames) || return 1
	[ -n "$diff" ] || return 0
	if echo "$diff" | grep -q '^GIT binary patch'; then
		echo "tracerbench: $1 has uncommitted changes to binary files: commit them, or name a commit (@REV)" >&2
		return 1
	fi
	echo "$diff" | patch -d "$2" -p1 -s --batch --no-backup-if-mismatch
}

# tb_tree_update DIR PATH FROM TO: make DIR, a copy of the tree at commit
# FROM with the files .tb-touched lists changed, into the tree at commit
# TO: every file that differs is replaced, not written through (DIR's
# sources are links into another build's), and gets the time of now, so
# that kbuild rebuilds what depends on it and nothing else.
tb_tree_update()
{
	local dir=$1 path=$2 from=$3 to=$4 f
	local -a gone=() new=()

	while IFS= read -r f; do
		if git -C "$path" cat-file -e "$to:$f" 2>/dev/null; then
			new+=("$f")
		else
			gone+=("$f")
		fi
	done < <({ git -C "$path" diff --no-renames --name-only "$from" "$to"
		   cat "$dir/.tb-touched" 2>/dev/null; } | LC_ALL=C sort -u)
	# removed first, so that the new files are new inodes
	for f in "${gone[@]}" "${new[@]}"; do
		rm -f "$dir/$f"
	done
	[ ${#new[@]} -eq 0 ] && return 0
	git -C "$path" archive "$to" -- "${new[@]}" | tar -x -m -C "$dir"
}

# tb_build_tree PATH COMMIT VARIANT PATCHES FRAGMENTS: build the kernel of
# your tree (COMMIT, or the files as they are) as VARIANT with PATCHES
# and the extra FRAGMENTS, unless the cache has it, and hold it while
# this process runs (tools/lib/cache.sh); prints its build directory. A
# commit of a tree already built so starts from a copy of that build,
# updated by the files that differ, so that it rebuilds what they
# change, as your own make would.
tb_build_tree()
{
	local path=$1 commit=$2 variant=$3 patches=$4 frags=$5
	local dir family state list=''

	[ -z "$patches" ] || list=$(tb_patch_list "$patches" quiet) || return 1
	family=$(tb_tree_family "$path" "$variant" "$patches" "$frags")
	state=$(tb_tree_state "$path" "$commit") || return 1
	# shellcheck disable=SC2086 # the list of patches is words
	dir=$(tb_tree_dir "$path" "$variant" "$state" "$family" $list)
	tb_cache_get "$dir" tb_tree_built tb_make_tree "$path" "$commit" \
		"$variant" "$patches" "$frags" "$family" "$state" "$list" ||
		return 1
	echo "$dir/b"
}

# tb_tree_seed FAMILY: the last build of FAMILY at a commit, complete,
# to start from, held while this process runs; nothing if there is none
tb_tree_seed()
{
	local f seed

	for f in $(grep -lx "$1" "$TB_TREES"/tree-*/b/.tb-family 2>/dev/null |
		   xargs -r ls -t 2>/dev/null); do
		seed=${f%/b/.tb-family}
		case $seed in
		*.tmp-* | *.old-*)	continue ;;
		esac
		if tb_tree_built "$seed" && [ -f "$seed/.tb-commit" ] &&
		   tb_cache_hold "$seed" && tb_tree_built "$seed"; then
			echo "$seed"
			return 0
		fi
	done
}

# tb_make_tree TMP PATH COMMIT VARIANT PATCHES FRAGMENTS FAMILY STATE
# LIST: tb_build_tree's kernel built in TMP, new, to be renamed to its
# place in the cache: LIST, its patches, one path a line
tb_make_tree()
{
	local tmp=$1 path=$2 commit=$3 variant=$4 patches=$5 frags=$6
	local family=$7 state=$8 list=$9 dir=${1%.tmp-*} seed='' p
	local start=$SECONDS

	[ -z "$commit" ] || seed=$(tb_tree_seed "$family")
	if [ -n "$seed" ]; then
		echo "tracerbench: building $path@$commit from the build of $(cat "$seed/.tb-commit") in $seed" >&2
		if ! { tb_copy_build "$seed" "$tmp" &&
		       rm -f "$tmp/b/build.log" &&
		       tb_tree_update "$tmp" "$path" \
				"$(cat "$seed/.tb-commit")" "$commit"; }; then
			rm -rf "$tmp"
			return 1
		fi
		rm -f "$tmp/.tb-touched"
	else
		echo "tracerbench: exporting $path${commit:+@$commit} to $tmp" >&2
		if ! { tb_tree_export "$path" "$commit" "$tmp" &&
		       mkdir -p "$tmp/b"; }; then
			rm -rf "$tmp"
			return 1
		fi
	fi
	# a seed's files are links: replace them, never write through
	rm -f "$tmp/.tb-commit"
	[ -z "$commit" ] || echo "$commit" >"$tmp/.tb-commit"
	echo "# $path $state $variant $patches $frags" >"$tmp/b/build.log"
	for p in $list; do
		sed -n 's|^+++ b/||p' "$p" >>"$tmp/.tb-touched"
		tb_apply_patch "$tmp" "$p" "$path${commit:+@$commit}" \
			"$tmp/b/patch.log" || { rm -rf "$tmp"; return 1; }
	done
	echo "tracerbench: building the $TB_ARCH $variant kernel of $path${commit:+@$commit} in $tmp" >&2
	# shellcheck disable=SC2046,SC2086 # fragment lists are words
	if ! tb_tree_build "$tmp" "$variant" $frags \
		$(tb_tree_compat_fragments "$tmp"); then
		echo "tracerbench: building $dir failed: $dir/b/build.log" >&2
		return 1
	fi
	echo "tracerbench: built in $((SECONDS - start)) s" >&2
	echo "$family" >"$tmp/b/.tb-family"
	touch "$tmp/b/.tb-built"
}
