# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Kernels from a developer's own git tree (bench.sh's tree=) in make
# check: a git repository made of linux-source-6.1 with a base and a
# tip commit, measured under icount; and the refusals of trees that
# cannot be built. Sourced by tools/check.sh.

TB_GIT_ID=(-c user.name=tracerbench -c user.email=tracerbench@example.org)

# tree61_repo: a git repository of linux-source-6.1 in the cache, as a
# kernel developer's tree: Debian's .gitignore without its last block,
# which ignores everything at the top level (a real tree has no such
# block); commit "base" the source as it is, and "tip" with the example
# patch pad-irqoff (16 nops in trace_hardirqs_off()) committed on top.
# Made once per package version, an entry of the cache held while this
# process runs (tools/lib/cache.sh); prints its path.
tree61_repo()
{
	local ver repo

	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1) || return 1
	repo=$TB_CACHE/git/linux-6.1-$ver
	tb_cache_get "$repo" tree61_ready tree61_make "$ver" || return 1
	echo "$repo"
}

tree61_ready()
{
	[ -f "$1/.git/tb-ready" ]
}

# tree61_make DIR VERSION: the repository made in DIR, new
tree61_make()
{
	local repo=$1 n

	echo "tracerbench: making $repo, a git tree of linux-source-6.1" >&2
	mkdir "$repo" && tar -C "$repo" --strip-components=1 \
		-xf /usr/src/linux-source-6.1.tar.xz || return 1
	n=$(grep -n '^# Debian packaging: ignore everything' \
		"$repo/.gitignore" | cut -d: -f1)
	if [ -z "$n" ] ||
	   [ "$(sed -n "$((n - 1))p" "$repo/.gitignore")" != "#" ]; then
		echo "tracerbench: no Debian block in $repo/.gitignore" >&2
		return 1
	fi
	sed -i "$((n - 1)),\$d" "$repo/.gitignore" &&
		git -C "$repo" init -q -b master &&
		git -C "$repo" add -A &&
		git -C "$repo" "${TB_GIT_ID[@]}" commit -q -m "linux-source-6.1 $2" &&
		git -C "$repo" tag base &&
		git -C "$repo" "${TB_GIT_ID[@]}" am -q \
			"$TB_TOP"/tools/patches/pad-irqoff/*.patch &&
		git -C "$repo" tag tip &&
		touch "$repo/.git/tb-ready"
}

# step_tree KERNEL: bench.sh on two commits of a developer's tree, the
# variant KERNEL (trace) of linux-source-6.1 at base and at tip, under
# icount. With the events off, tip's rows differ from base's by exactly
# the 16 nops on irq and irq_save, and by 0 on preempt and raw_irq (with
# them on, what the ring buffer does varies from boot to boot: preempt
# read 64 instructions apart once); tip's build, from base's, compiled
# no kernel source but the one the patch touches, besides what every
# link compiles (init/version-timestamp.o, the image's boot code); and
# the tree is as it was. objtool, a host program whose build records
# absolute paths, is rebuilt in the copy, and is not counted.
step_tree()
{
	local repo out=$TB_OUT/tree61 log=$TB_OUT/tree61.log head status
	local -x TB_CPUS=$BENCH_VCPUS
	local built dir

	repo=$(tree61_repo 2>"$log")
	result $? "a git tree of linux-source-6.1 with a base and a tip commit"
	[ -n "$repo" ] || { sed 's/^/[tree] /' "$log"; return; }
	head=$(git -C "$repo" rev-parse HEAD)
	status=$(git -C "$repo" status --porcelain)
	rm -rf "$out"
	"$TB_TOP/tools/bench.sh" --icount --rounds 1 --nr-samples 2000 \
		--out "$out" "master-trace=$1,tree=$repo@base" \
		"patched-trace=$1,tree=$repo@tip" >>"$log" 2>&1
	result $? "bench.sh --icount: $1 of the 6.1 tree at base and at tip"
	sed 's/^/[tree] /' "$log"
	"$TB_TOP/tools/report.py" --format lkml --reference master-trace \
		--primitives irq "$out" >"$TB_OUT/docs-src/tree-lkml.txt"
	sed 's/^/[tree report] /' "$TB_OUT/docs-src/tree-lkml.txt"
	if report_json "$out" master-trace "$out/report.json"; then
		expect_diff "$out/report.json" patched-trace.off irq eq 16 exact &&
			expect_diff "$out/report.json" patched-trace.off irq_save eq 16 exact &&
			expect_diff "$out/report.json" patched-trace.off preempt eq 0 exact &&
			expect_diff "$out/report.json" patched-trace.off raw_irq eq 0 exact
		result $? "tree: tip against base, events off: irq and irq_save exactly +16, preempt and raw_irq 0"
		expect_code "$out/report.json" patched-trace 0,0 16 same
		result $? "code: on 6.1 too, pad-irqoff leaves every call site as it was, adds 16 bytes of functions and no call site"
	else
		result 1 "report.py reads the tree's results"
	fi
	dir=$(sed -n 's/^build_tree //p' "$out/kernels/patched-trace.env" 2>/dev/null)
	built=$(awk '$1 == "CC" && $2 !~ /^\// { print $2 }' "$dir/build.log" \
		2>/dev/null | grep -v -e '^init/version' -e '^arch/[^/]*/boot/' |
		sort -u)
	echo "[tree] compiled for tip: ${built//$'\n'/ }"
	[ "$built" = kernel/trace/trace_preemptirq.o ]
	result $? "tree: tip built from base's build, compiling trace_preemptirq.o alone"
	[ "$(git -C "$repo" rev-parse HEAD)" = "$head" ] &&
		[ "$(git -C "$repo" status --porcelain)" = "$status" ]
	result $? "tree: the developer's tree is as it was"
}

# check_tree_refusals: bench.sh refuses, before anything is built or
# booted, a tree= it cannot build: a revision the tree lacks, a path
# that is no kernel tree, a kernel older than 6.1, @REV in a directory
# without git, a patch that does not apply to it (named); each saying
# so, with nothing written to --out.
check_tree_refusals()
{
	local d=$TB_OUT/tree-bad bench=$TB_TOP/tools/bench.sh rc=0
	local args want

	rm -rf "$d" && mkdir -p "$d/k" "$d/old/kernel" "$d/plain/kernel" ||
		return 1
	printf 'VERSION = 6\nPATCHLEVEL = 12\n' >"$d/k/Makefile"
	mkdir -p "$d/k/kernel" && echo 'obj-y = fork.o' >"$d/k/kernel/Makefile"
	git -C "$d/k" init -q -b master && git -C "$d/k" add -A &&
		git -C "$d/k" "${TB_GIT_ID[@]}" commit -q -m k || return 1
	printf 'VERSION = 5\nPATCHLEVEL = 15\n' >"$d/old/Makefile"
	echo 'obj-y = fork.o' >"$d/old/kernel/Makefile"
	mkdir -p "$d/series" &&
		printf '%s\n' '--- a/kernel/Makefile' '+++ b/kernel/Makefile' \
			'@@ -1 +1 @@' '-obj-y = exit.o' '+obj-y = exec.o' \
			>"$d/series/0001-kernel-a-patch-that-does-not-apply.patch"
	printf 'VERSION = 6\nPATCHLEVEL = 1\n' >"$d/plain/Makefile"
	echo 'obj-y = fork.o' >"$d/plain/kernel/Makefile"
	while IFS='|' read -r args want; do
		expect_error "$want" "$bench" --out "$d/o" "$args" || rc=1
		[ ! -e "$d/o" ] || { echo "[bench] $args wrote $d/o"; rc=1; }
	done <<EOF
trace,tree=$d/k@nosuch|has no commit nosuch
trace,tree=$d/old|is 5.15, older than 6.1
trace,tree=$TB_TOP|is no kernel source tree
trace,tree=$d/plain@base|is no git tree: @base needs one
trace,tree=$d/none|no such directory
nosuch,tree=$d/k|is no kernel variant
trace,tree=$d/k@master,patches=$d/series|0001-kernel-a-patch-that-does-not-apply.patch does not apply to $d/k@
EOF
	return $rc
}
