#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The kernel cache side by side (tools/lib/cache.sh): processes of their
# own, started together, on a cache in a temporary directory (TB_CACHE),
# with the source's unpacking and the kernel build stubbed (this file's
# tb_unpack_source and tb_tree_build, which log each run and take a
# second), so that it runs in seconds and builds no kernel:
# - two that need the same uncached kernel both get it, built once, the
#   source unpacked once, the second saying it waited for the first's pid;
#   what the build left running keeps no lock;
# - two that need the same uncached patched kernel of an uncached variant
#   both get it: the variant built once, the patched kernel once, from a
#   copy of the variant's build, whose source the patch leaves as it was;
# - a process that holds a kernel keeps a rebuild (its marker removed
#   meanwhile) waiting, saying so, until it ends: its files stay;
# - what a killed build left, and an entry without its marker, are
#   replaced by the next build;
# - a process's holds keep no pipe of its caller open, and end with it;
# - a cached file (tools/codesize.sh's) asked for by two at once is made
#   once;
# - a kernel on a box's configuration that configures as one the cache
#   built (another key) starts from that one's build; one configured
#   otherwise, or configured the same as a patched kernel alone, does not;
#   one whose copy of that build fails is built anew, as configured;
# - a tree prepared for modules is made from the source by make's
#   modules_prepare, apart from the built kernel of the same fragments,
#   once, and gives no build to another.
# Prints "ok - ..." or "not ok - ..." a check, then "N passed, N failed".
#
# shellcheck disable=SC2317 # the stubs are called by tools/lib/*.sh
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)

# --- The processes of the test (--child ROLE ARG...) -----------------------

# waited FILES: wait until one of FILES (a pattern) says that its
# process waits (for at most 20 s), so that a process slow to start
# still finds the build under way, however busy the machine
waited()
{
	local _

	for _ in $(seq 200); do
		# shellcheck disable=SC2086 # a pattern
		cat $1 2>/dev/null | grep -q '^tracerbench: waiting for ' &&
			return 0
		sleep 0.1
	done
	return 1
}

# the stubs: what the lib would run, logged in TB_TEST_LOG; a build
# takes TB_TEST_SECS, and waits first for a process of TB_TEST_WAITER to
# say it waits, if the test names them
stubs()
{
	tb_unpack_source()
	{
		echo "unpack $$" >>"$TB_TEST_LOG"
		sleep "$TB_TEST_SECS"
		mkdir -p "$1/scripts" "$1/kernel" &&
			printf '#!/bin/sh\n' >"$1/scripts/checkpatch.pl" &&
			chmod +x "$1/scripts/checkpatch.pl" &&
			echo 'int a = 1;' >"$1/kernel/a.c"
	}
	# a variant's "kernel" is its source's a.c; a patched tree starts
	# with the copy of its variant's
	tb_tree_build()
	{
		local name

		name=$(basename "${1%.tmp-*}")
		[ ! -f "$1/b/vmlinux" ] || echo "incremental $name" >>"$TB_TEST_LOG"
		echo "build $name $$ $(date +%s.%N) ${TB_KTARGET:-all}" >>"$TB_TEST_LOG"
		[ -z "${TB_TEST_WAITER:-}" ] || waited "$TB_TEST_WAITER"
		sleep "$TB_TEST_SECS"
		cat "$1/kernel/a.c" >"$1/b/vmlinux"
		# what a build may leave running (git's gc --auto)
		sleep 3 &
	}
	# the copy of a donor's build (tb_take_build) fails part-way, if
	# asked; another program's cp (find -exec's) is the real one
	# shellcheck disable=SC2032
	cp()
	{
		if [ -n "${TB_TEST_CP_FAIL:-}" ] && [ "$1" = -a ] &&
		   [ "${2%/b}" != "$2" ]; then
			mkdir -p "$3" && : >"$3/vmlinux"
			echo "cp: a failure of the test's" >&2
			return 1
		fi
		command cp "$@"
	}
	# on a box's configuration (TB_BASE_CONFIG): its options A and B
	tb_configure()
	{
		grep '^CONFIG_[AB]=' "$TB_BASE_CONFIG" >"$2/.config"
	}
	make_file()
	{
		echo "made $$" >>"$TB_TEST_LOG"
		[ -z "${TB_TEST_WAITER:-}" ] || waited "$TB_TEST_WAITER"
		sleep "$TB_TEST_SECS"
		echo "contents"
	}
	file_fresh()
	{
		[ -s "$1" ]
	}
}

if [ "${1:-}" = --child ]; then
	shift
	# shellcheck source=tools/lib.sh disable=SC1091
	. "$top/tools/lib.sh" || exit 1
	stubs
	case $1 in
	tree)		tb_kernel_tree "$2" ;;
	kernel)		tb_build_kernel "$2" && tb_kernel_dir "$2" ;;
	kernel-pid)	tb_build_kernel "$2" && echo "$$" ;;
	patched)	tb_build_patched "$2" "$3" "" ;;
	fragment)	tb_build_patched "$2" "" "$3" ;;
	prepared)	tb_prepare_patched "$2" "$3" ;;
	file)		tb_cache_file "$2" file_fresh make_file ;;
	# hold VARIANT READY FILES: use the kernel until a process of FILES
	# says it waits, and a second more, then say whether its vmlinux
	# stayed the same file
	hold)
		tb_build_kernel "$2" || exit 1
		v=$(tb_kernel_dir "$2")/vmlinux
		inode=$(stat -c %i "$v") && touch "$3" && waited "$4"
		sleep 1
		echo "reader done $(date +%s.%N)" >>"$TB_TEST_LOG"
		[ "$(stat -c %i "$v" 2>/dev/null)" = "$inode" ] ;;
	esac
	exit
fi

# --- The test --------------------------------------------------------------

# shellcheck source=tools/lib/harness.sh disable=SC1091
. "$top/tools/lib/harness.sh"
passed=0
failed=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export TB_CACHE=$tmp/cache TB_TEST_LOG=$tmp/log TB_TEST_SECS=1
TB_TREES=$TB_CACHE/trees
mkdir -p "$TB_CACHE"
: >"$TB_TEST_LOG"

# child NAME ROLE ARG...: a process of the test, in the background, its
# output in $tmp/NAME.out and .err, its pid in $tmp/NAME.pid
child()
{
	local name=$1

	shift
	timeout 60 "$BASH" "$0" --child "$@" >"$tmp/$name.out" \
		2>"$tmp/$name.err" &
	echo $! >"$tmp/$name.pid"
}

# say WHY NAME...: WHY, and what the processes NAME printed, for a failure
say()
{
	local n line

	while IFS= read -r line; do
		echo "# $line"
	done <<<"$1"
	for n in "${@:2}"; do
		sed "s/^/# $n: /" "$tmp/$n.out" "$tmp/$n.err"
	done
	sed 's/^/# log: /' "$TB_TEST_LOG"
	return 1
}

# lines WORD: how many lines of the log begin with WORD
lines()
{
	grep -c "^$1" "$TB_TEST_LOG"
}

# leftovers: what a build leaves beside its entry but the lock, if any
leftovers()
{
	ls -d "$TB_CACHE"/*.tmp-* "$TB_CACHE"/*.old-* "$TB_TREES"/*.tmp-* \
		"$TB_TREES"/*.old-* 2>/dev/null
}

# key VARIANT: the tree of VARIANT in this cache, as the lib names it
key()
{
	"$BASH" "$0" --child tree "$1"
}

# 1. two processes, one uncached kernel
tree=$(key trace)
TB_TEST_WAITER="$tmp/[ab].err" child a kernel trace
TB_TEST_WAITER="$tmp/[ab].err" child b kernel trace
wait "$(cat "$tmp/a.pid")"; ra=$?
wait "$(cat "$tmp/b.pid")"; rb=$?
{ [ $ra = 0 ] && [ $rb = 0 ] && [ "$(cat "$tmp/a.out")" = "$tree/b" ] &&
	[ "$(cat "$tmp/b.out")" = "$tree/b" ]; } || say "exit $ra and $rb" a b
result $? "two processes that need one uncached kernel both get it"
{ [ "$(lines "build $(basename "$tree")")" = 1 ] &&
	[ "$(lines unpack)" = 1 ]; } || say "not one build and one unpack" a b
result $? "the kernel is built once, its source unpacked once"
builder=$(sed -n "s/^build $(basename "$tree") \([0-9]*\) .*/\1/p" "$TB_TEST_LOG")
if grep -q '^tracerbench: building' "$tmp/a.err"; then waiter=b; else waiter=a; fi
{ grep -qxF "tracerbench: waiting for $tree: pid $builder is building it" \
	"$tmp/$waiter.err" &&
	[ "$(cat "$tmp"/[ab].err | grep -c 'waiting for')" = 1 ]; } ||
	say "the builder was $builder; not one line of the other's waiting for it" a b
result $? "the other says, in one line, that it waits for the builder's pid"
{ [ -f "$tree/b/.tb-built" ] && [ "$(cat "$tree/b/vmlinux")" = 'int a = 1;' ] &&
	[ -z "$(leftovers)" ]; } || say "incomplete, or left: $(leftovers)" a b
result $? "the kernel's tree is complete, in its place, nothing left beside it"
for _ in $(seq 30); do
	pgrep -f "^tracerbench-hold $TB_TREES/" >/dev/null || break
	sleep 0.1
done
flock -n -x "$tree.lock" true ||
	say "a process the build left, or a hold, keeps the lock" a b
result $? "the processes ended, nothing they left keeps the kernel's lock"

# 2. two processes, one uncached patched kernel of an uncached variant
mkdir -p "$tmp/series"
printf '%s\n' '--- a/kernel/a.c' '+++ b/kernel/a.c' '@@ -1 +1 @@' \
	'-int a = 1;' '+int a = 2;' >"$tmp/series/0001-a-two.patch"
base=$(key notrace)
: >"$TB_TEST_LOG"
TB_TEST_WAITER="$tmp/[cd].err" child c patched notrace "$tmp/series"
TB_TEST_WAITER="$tmp/[cd].err" child d patched notrace "$tmp/series"
wait "$(cat "$tmp/c.pid")"; rc=$?
wait "$(cat "$tmp/d.pid")"; rd=$?
patched=$(cat "$tmp/c.out")
{ [ $rc = 0 ] && [ $rd = 0 ] && [ -n "$patched" ] &&
	[ "$(cat "$tmp/d.out")" = "$patched" ]; } || say "exit $rc and $rd" c d
result $? "two processes that need one uncached patched kernel both get it"
{ [ "$(lines "build $(basename "$base") ")" = 1 ] &&
	[ "$(lines "build $(basename "${patched%/b}") ")" = 1 ] &&
	[ "$(lines incremental)" = 1 ] && [ "$(wc -l <"$TB_TEST_LOG")" = 3 ]; } ||
	say "not one build each, or not the patched one from the variant's" c d
result $? "the variant is built once, the patched kernel once, from a copy of the variant's build"
{ [ "$(cat "$patched/vmlinux")" = 'int a = 2;' ] &&
	[ "$(cat "$base/kernel/a.c" "$base/b/vmlinux")" = \
	  "$(printf 'int a = 1;\nint a = 1;')" ] && [ -f "$patched/.tb-built" ] &&
	[ -z "$(leftovers)" ]; } || say "patched or variant's tree not as built" c d
result $? "the patched tree is complete and patched; the variant's is as it was"

# 3. a process that holds a kernel, and a rebuild of it meanwhile
: >"$TB_TEST_LOG"
child r hold trace "$tmp/ready" "$tmp/w.err"
for _ in $(seq 100); do
	[ -e "$tmp/ready" ] && break
	sleep 0.1
done
rm -f "$tree/b/.tb-built"
child w kernel trace
wait "$(cat "$tmp/r.pid")"; rr=$?
wait "$(cat "$tmp/w.pid")"; rw=$?
read -r done_at < <(sed -n 's/^reader done //p' "$TB_TEST_LOG")
read -r built_at < <(sed -n "s/^build $(basename "$tree") [0-9]* //p" "$TB_TEST_LOG")
{ [ -e "$tmp/ready" ] && [ $rr = 0 ] && [ $rw = 0 ]; } ||
	say "ready $(ls "$tmp/ready" 2>&1), exit $rr and $rw" r w
result $? "a process holding a kernel keeps its files while a rebuild of it is asked for"
{ [ -n "${done_at:-}" ] && [ -n "${built_at:-}" ] &&
	awk -v a="$done_at" -v b="$built_at" 'BEGIN { exit !(b > a) }' &&
	grep -qxF "tracerbench: waiting for $tree: another process is using it" \
		"$tmp/w.err"; } ||
	say "the rebuild did not wait for the holder, or said nothing" r w
result $? "the rebuild waits for the process holding the kernel, saying so, and builds after it ends"
{ [ -f "$tree/b/.tb-built" ] && [ -z "$(leftovers)" ]; } || say "not rebuilt" r w
result $? "the rebuilt kernel is complete, the old tree gone"

# 4. what a killed build left, and an entry without its marker
dbg=$(key debug)
mkdir -p "$dbg.tmp-99999/b" "$dbg/b" && touch "$dbg/b/stale"
: >"$TB_TEST_LOG"
TB_TEST_SECS=0 child e kernel debug
{ wait "$(cat "$tmp/e.pid")" && [ -f "$dbg/b/.tb-built" ] &&
	[ ! -e "$dbg/b/stale" ] && [ -z "$(leftovers)" ]; } ||
	say "left: $(leftovers)" e
result $? "a killed build's temporary tree and an entry without its marker are replaced"

# 5. a process whose output is read to its end: its holds keep no pipe
# open, and end with it
start=$SECONDS
pid=$(timeout 20 "$BASH" "$0" --child kernel-pid trace 2>/dev/null)
for _ in $(seq 30); do
	pgrep -f "^tracerbench-hold .* --pid=$pid " >/dev/null || break
	sleep 0.1
done
{ [ -n "$pid" ] && [ $((SECONDS - start)) -lt 10 ] &&
	! pgrep -f "^tracerbench-hold .* --pid=${pid:-0} " >/dev/null; } ||
	say "$pid: took $((SECONDS - start)) s, or its holds outlived it"
result $? "a process's holds keep no pipe of its caller open, and end when it does"

# 6. a cached file, asked for by two at once
: >"$TB_TEST_LOG"
TB_TEST_WAITER="$tmp/[fg].err" child f file "$tmp/sizes"
TB_TEST_WAITER="$tmp/[fg].err" child g file "$tmp/sizes"
wait "$(cat "$tmp/f.pid")"; rf=$?
wait "$(cat "$tmp/g.pid")"; rg=$?
{ [ $rf = 0 ] && [ $rg = 0 ] && [ "$(cat "$tmp/f.out")" = contents ] &&
	[ "$(cat "$tmp/g.out")" = contents ] && [ "$(lines made)" = 1 ] &&
	grep -q "^tracerbench: waiting for $tmp/sizes: " "$tmp"/[fg].err &&
	[ -z "$(ls "$tmp"/sizes.tmp-* 2>/dev/null)" ]; } ||
	say "exit $rf and $rg" f g
result $? "a cached file asked for by two processes is made once, the other waiting, saying so"

# 7. kernels on a box's configuration (the stub keeps options A and B)
: >"$TB_TEST_LOG"
printf 'CONFIG_A=y\nCONFIG_B=y\nCONFIG_X=1\n' >"$tmp/box1.config"
printf 'CONFIG_A=y\nCONFIG_B=y\nCONFIG_X=2\n' >"$tmp/box2.config"
printf 'CONFIG_A=y\nCONFIG_B=m\n' >"$tmp/box3.config"
for n in 1 2 3; do
	TB_TEST_SECS=0 TB_BASE_CONFIG=$tmp/box$n.config child box$n kernel trace
	wait "$(cat "$tmp/box$n.pid")" || say "box$n failed" box$n
done
t1=$(cat "$tmp/box1.out") t2=$(cat "$tmp/box2.out") t3=$(cat "$tmp/box3.out")
{ [ -n "$t1" ] && [ -n "$t2" ] && [ "$t1" != "$t2" ] &&
	grep -qxF "incremental $(basename "${t2%/b}")" "$TB_TEST_LOG" &&
	grep -qxF "tracerbench: ${t1%/b} is configured the same: building from its build" \
		"$tmp/box2.err" &&
	[ "$(cat "$t2/vmlinux")" = 'int a = 1;' ] && [ -f "$t2/.tb-source" ]; } ||
	say "the second, configured as the first, did not start from its build" box1 box2
result $? "a kernel on a box's configuration configured as one the cache built starts from its build"
{ [ -n "$t3" ] && ! grep -q "incremental $(basename "${t3%/b}")" "$TB_TEST_LOG" &&
	! grep -q "incremental $(basename "${t1%/b}")" "$TB_TEST_LOG" &&
	! grep -q 'configured the same' "$tmp/box3.err" "$tmp/box1.err"; } ||
	say "a kernel configured otherwise started from another's build" box1 box3
result $? "one configured otherwise, or first, is built anew"
# a patched kernel's configuration is its variant's, its source not
printf 'diff --git a/kernel/a.c b/kernel/a.c\n--- a/kernel/a.c\n+++ b/kernel/a.c\n@@ -1 +1 @@\n-int a = 1;\n+int a = 2;\n' \
	>"$tmp/a.patch"
TB_TEST_SECS=0 TB_BASE_CONFIG=$tmp/box3.config child p3 patched trace "$tmp/a.patch"
wait "$(cat "$tmp/p3.pid")" || say "the patched kernel failed" p3
rm -f "$t3/.tb-source"
printf 'CONFIG_A=y\nCONFIG_B=m\nCONFIG_X=4\n' >"$tmp/box4.config"
TB_TEST_SECS=0 TB_BASE_CONFIG=$tmp/box4.config child box4 kernel trace
wait "$(cat "$tmp/box4.pid")" || say "box4 failed" box4
t4=$(cat "$tmp/box4.out")
{ p3=$(cat "$tmp/p3.out") && [ "$(cat "$p3/vmlinux")" = 'int a = 2;' ] &&
	[ ! -e "$p3/.tb-source" ] && [ -n "$t4" ] &&
	grep -q "^build $(basename "${t4%/b}") " "$TB_TEST_LOG" &&
	! grep -q "incremental $(basename "${t4%/b}")" "$TB_TEST_LOG" &&
	! grep -q 'configured the same' "$tmp/box4.err"; } ||
	say "the patched kernel gave its build, or is marked as the source as it is" p3 box4
result $? "a patched kernel configured the same gives no build"
# the copy of the donor's build fails: built anew, as configured
printf 'CONFIG_A=y\nCONFIG_B=y\nCONFIG_X=5\n' >"$tmp/box5.config"
TB_TEST_CP_FAIL=1 TB_TEST_SECS=0 TB_BASE_CONFIG=$tmp/box5.config child box5 kernel trace
wait "$(cat "$tmp/box5.pid")" || say "box5 failed" box5
t5=$(cat "$tmp/box5.out")
{ [ -n "$t5" ] && grep -q "^build $(basename "${t5%/b}") " "$TB_TEST_LOG" &&
	! grep -q "incremental $(basename "${t5%/b}")" "$TB_TEST_LOG" &&
	grep -q '^tracerbench: .* configured the same: building from its build$' "$tmp/box5.err" &&
	grep -q '^tracerbench: cannot copy the build of .*: building anew$' "$tmp/box5.err" &&
	[ "$(cat "$t5/.config")" = "$(printf 'CONFIG_A=y\nCONFIG_B=y')" ] &&
	[ "$(cat "$t5/vmlinux")" = 'int a = 1;' ] && [ -f "$t5/.tb-source" ] &&
	[ ! -e "${t5%/b}/b.new" ]; } ||
	say "a failed copy of the donor's build did not end in a build anew" box5
result $? "one whose copy of that build fails is built anew, as configured"

# 8. a tree prepared for modules (tb_prepare_patched)
: >"$TB_TEST_LOG"
printf 'CONFIG_A=y\n' >"$tmp/prep.config"
TB_TEST_SECS=0 child prep1 prepared trace "$tmp/prep.config"
wait "$(cat "$tmp/prep1.pid")" || say "the prepared tree failed" prep1
TB_TEST_SECS=0 child prep2 prepared trace "$tmp/prep.config"
wait "$(cat "$tmp/prep2.pid")" || say "the prepared tree failed again" prep2
TB_TEST_SECS=0 child full fragment trace "$tmp/prep.config"
wait "$(cat "$tmp/full.pid")" || say "the built tree failed" full
pt=$(cat "$tmp/prep1.out") ft=$(cat "$tmp/full.out")
{ [ -n "$pt" ] && [ "$pt" = "$(cat "$tmp/prep2.out")" ] &&
	[ "$pt" = "${ft%/b}-prepared/b" ] &&
	[ "$(grep -c "^build $(basename "${pt%/b}") .* modules_prepare$" "$TB_TEST_LOG")" = 1 ] &&
	! grep -q "incremental $(basename "${pt%/b}")" "$TB_TEST_LOG" &&
	grep -q "^build $(basename "${ft%/b}") .* all$" "$TB_TEST_LOG" &&
	[ -f "$pt/.tb-prepared" ] && [ ! -e "$pt/.tb-built" ] &&
	[ ! -e "$pt/.tb-source" ] && [ -z "$(leftovers)" ]; } ||
	say "the prepared tree: $pt, the built one: $ft" prep1 prep2 full
result $? "a tree prepared for modules: made once, from the source, by modules_prepare, apart from the built kernel"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
