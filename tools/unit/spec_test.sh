#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Host tests of the kernel spec every tool that boots a kernel takes
# (tools/lib/spec.sh), of a boot's timeout (tb_boot_timeout), lpj=
# (tb_guest_lpj) and TCG's -accel (tb_tcg_accel), and of what each entry
# point installs (tools/lib/pkg.sh): the functions called directly, and
# the tools run with stand-ins first in PATH: for a bad
# spec, make, apt-get, dpkg-query and QEMU that fail loudly; for what is
# installed, dpkg-query with nothing installed and an apt-get that logs
# what it is asked and installs nothing; for boot.sh on a patched kernel,
# a kernel "built" in a made-up cache, and make and QEMU that stand in for
# the module's build and the boot. TB_OUT and TB_CACHE are in a temporary
# directory: nothing is installed, built or booted, and the kernel cache
# is not read. KTAP on stdout, then "N passed, N failed"; exits 1 on any
# failure.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export TB_OUT=$tmp/out TB_CACHE=$tmp/cache
unset TB_KERNELS TB_BUILT_KERNELS
# shellcheck source=tools/lib.sh
. "$top/tools/lib.sh" || exit 1

passed=0 failed=0 lines=()

# check STATUS NAME [WHY]: one result
check()
{
	local n=$((passed + failed + 1))

	if [ "$1" = 0 ]; then
		passed=$((passed + 1))
		lines+=("ok $n $2")
	else
		failed=$((failed + 1))
		lines+=("not ok $n $2${3:+ # ${3//$'\n'/\\n}}")
	fi
}

# --- Fixtures -------------------------------------------------------------

d=$tmp/fix k=$tmp/fix/k own=$tmp/fix/own
TB_GIT_ID=(-c user.name=tracerbench -c user.email=tracerbench@example.org)
mkdir -p "$d/series" "$k/kernel" "$d/at@dir/kernel" "$own/b/include/config" \
	"$TB_SRC/kernel" "$TB_SRC/scripts" || exit 1
# a series of one patch to kernel/a.c of a made-up source
printf 'int a;\n' >"$TB_SRC/kernel/a.c"
printf '#!/bin/sh\n' >"$TB_SRC/scripts/checkpatch.pl"
chmod +x "$TB_SRC/scripts/checkpatch.pl"
printf '%s\n' '--- a/kernel/a.c' '+++ b/kernel/a.c' '@@ -1 +1 @@' \
	'-int a;' '+int a, b;' >"$d/series/0001-kernel-b.patch"
echo 0001-kernel-b.patch >"$d/series/series"
{ echo 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001'
  echo 'Subject: [PATCH] b'
  echo
  cat "$d/series/0001-kernel-b.patch"; } >"$d/one.mbox"
mkdir -p "$d/bad"
printf '%s\n' '--- a/kernel/a.c' '+++ b/kernel/a.c' '@@ -1 +1 @@' \
	'-int nothing;' '+int c;' >"$d/bad/0001-kernel-c.patch"
echo CONFIG_PRINTK=y >"$d/extra.config"
# a kernel tree of your own: git, with a branch whose name holds a /, a
# tag and a remote's branch
printf 'VERSION = 6\nPATCHLEVEL = 12\n' >"$k/Makefile"
echo 'obj-y = fork.o' >"$k/kernel/Makefile"
git -C "$k" init -q -b master && git -C "$k" add -A &&
	git -C "$k" "${TB_GIT_ID[@]}" commit -q -m base &&
	git -C "$k" tag base &&
	git -C "$k" checkout -q -b for-next/core &&
	echo 'obj-y += exit.o' >>"$k/kernel/Makefile" &&
	git -C "$k" "${TB_GIT_ID[@]}" commit -q -am core &&
	git -C "$k" checkout -q master &&
	git -C "$k" update-ref refs/remotes/origin/master base || exit 1
cp "$k/Makefile" "$d/at@dir/" && cp "$k/kernel/Makefile" "$d/at@dir/kernel/"
# your own build: an x86-64 tree with what the guest needs, a bzImage
touch "$own/b/Makefile" "$own/b/Module.symvers"
{
	echo CONFIG_X86_64=y
	# shellcheck disable=SC2046 # a list of files
	tb_options $(tb_guest_config)
} >"$own/b/.config"
echo 6.12.0 >"$own/b/include/config/kernel.release"
printf 'HdrS' | dd of="$own/bzImage" bs=1 seek=514 2>/dev/null

# --- The grammar ----------------------------------------------------------

# spec_fields ARCH SPEC: "STATUS|label kind base name tree rev" of one
# spec parsed, or "STATUS|the refusal"
spec_fields()
{
	(
		tb_arch_load "$1" || exit 9
		tb_spec_parse "$2"
		rc=$?
		l=$TB_SPEC_LAST
		if [ $rc = 0 ]; then
			echo "0|${TB_SPECS[$l.label]} ${TB_SPECS[$l.kind]}" \
				"${TB_SPECS[$l.base]:--} ${TB_SPECS[$l.name]}" \
				"${TB_SPECS[$l.tree]:--} ${TB_SPECS[$l.rev]:--}"
		else
			echo "$rc|$TB_SPEC_ERR"
		fi
	)
}

# ARCH|SPEC|STATUS|the fields, or words of the refusal
while IFS='|' read -r arch spec want words; do
	got=$(spec_fields "$arch" "$spec")
	if [ "$want" = 0 ]; then
		[ "$got" = "0|$words" ]
	else
		[[ $got == "$want|"*"$words"* ]]
	fi
	check $? "spec: $arch '$spec': exit $want, $words" "got '$got'"
done <<EOF
x86_64|trace|0|trace builtin trace trace - -
x86_64|rt-debug|0|rt-debug builtin rt-debug rt-debug - -
x86_64|6.12|0|6-12 debian 6.12 6.12 - -
x86_64|6.12-rt|0|6-12-rt debian 6.12-rt 6.12-rt - -
x86_64|old=6.1|0|old debian 6.1 old - -
x86_64|a=trace|0|a builtin trace a - -
x86_64|trace,patches=$d/series|0|trace+series patched trace trace+series - -
x86_64|trace,patches=$d/series/series|0|trace+series patched trace trace+series - -
x86_64|trace,patches=$d/one.mbox|0|trace+one patched trace trace+one - -
x86_64|trace,config=$d/extra.config|0|trace+extra patched trace trace+extra - -
x86_64|me=debug,patches=~/../..$d/series,config=$d/extra.config|0|me patched debug me - -
x86_64|trace,tree=$k|0|trace+k tree trace trace+k $k -
x86_64|trace,tree=$k@base|0|trace+k-base tree trace trace+k-base $k base
x86_64|trace,tree=$k@for-next/core|0|trace+k-for-next-core tree trace trace+k-for-next-core $k for-next/core
x86_64|notrace,tree=$k@origin/master|0|notrace+k-origin-master tree notrace notrace+k-origin-master $k origin/master
x86_64|trace,tree=$k@HEAD@{1}|0|trace+k-HEAD--1- tree trace trace+k-HEAD--1- $k HEAD@{1}
x86_64|trace,tree=$d/at@dir|0|trace+at-dir tree trace trace+at-dir $d/at@dir -
x86_64|trace,tree=$d/at@dir@base|0|trace+at-dir-base tree trace trace+at-dir-base $d/at@dir base
x86_64|me=bzimage=$own/bzImage,build=$own/b|0|me own - me - -
x86_64|installed:6.12.57+deb12-amd64|0|installed-6-12-57+deb12-amd64 installed installed:6.12.57+deb12-amd64 installed-6-12-57+deb12-amd64 - -
x86_64|stock=installed:6.12.57+deb12-amd64,build=$own/b|0|stock installed installed:6.12.57+deb12-amd64 stock - -
arm64|trace|0|trace builtin trace trace - -
arm64|debug,tree=$k@for-next/core|0|debug+k-for-next-core tree debug debug+k-for-next-core $k for-next/core
i386|notrace|0|notrace builtin notrace notrace - -
i386|trace|2|i386 has no kernel 'trace': it builds notrace alone
i386|debug,patches=$d/series|2|i386 has no kernel 'debug'
i386|trace,tree=$k@for-next/core|2|i386 has no kernel 'trace'
i386|notrace,tree=$k|2|i386 builds no kernel of your own tree (tree=): x86_64, arm64 do
i386|6.12|2|i386 has no kernel '6.12'
arm64|rt-debug|2|arm64 has no kernel 'rt-debug'
arm64|6.12|2|arm64 has no kernel '6.12': Debian's kernels are x86_64's
x86_64|nosuch|2|x86_64 has no kernel 'nosuch': it is no kernel variant
x86_64||2|an empty KERNEL
x86_64|trace,|2|an empty field
x86_64|trace,,config=$d/extra.config|2|an empty field
x86_64|trace,frob=1|2|unknown key frob
x86_64|trace,patches=|2|patches= wants a value
x86_64|trace,patches|2|'patches' is not KEY=VALUE
x86_64|patches=$d/series|2|name the variant first, as in trace,patches=
x86_64|me=|2|me= names no kernel
x86_64|6.12,patches=$d/series|2|6.12 is Debian's kernel as built
x86_64|trace,patches=$d/series,patches=$d/series|2|one patch series per kernel
x86_64|trace,tree=$k,tree=$k|2|one tree per kernel
x86_64|trace,tree=$k@|2|tree=PATH@ wants a revision
x86_64|bzimage=$own/bzImage,build=$own/b|2|give your own build a label
x86_64|me=bzimage=$own/bzImage|2|build=DIR, the image's build tree, is missing
x86_64|me=trace,bzimage=$own/bzImage,build=$own/b|2|bzimage= and build= only
x86_64|trace,build=$own/b|2|build= goes with bzimage=
x86_64|installed:|2|installed: wants the release of a kernel of the box's /boot
x86_64|installed:6.12;reboot|2|installed: wants the release
x86_64|installed:6.12,patches=$d/series|2|a kernel installed on the box takes build= alone
x86_64|installed:6.12,build=$d|1|is no kernel build tree
x86_64|my.label=trace|2|the label 'my.label' may hold letters
x86_64|trace,patches=/nonexistent|1|no such patch series: /nonexistent
x86_64|trace,config=/nonexistent|1|no such kconfig fragment: /nonexistent
x86_64|trace,tree=/nonexistent@for-next/core|1|no such directory: /nonexistent
x86_64|trace,tree=$d/nonexistent|1|no such directory: $d/nonexistent
x86_64|me=bzimage=/etc/hostname,build=$own/b|1|is no x86 bzImage nor arm64 Image
x86_64|me=bzimage=$own/bzImage,build=$d|1|is no kernel build tree
arm64|me=bzimage=$own/bzImage,build=$own/b|1|an x86 image, not one for arm64
EOF

got=$( (tb_spec_parse trace && tb_spec_parse a=notrace && tb_spec_parse trace
	echo "$?|$TB_SPEC_ERR|${TB_SPEC_LABELS[*]}") )
[ "$got" = "2|two kernels are labelled trace|trace a" ]
check $? "spec: two kernels of one label refused, the first ones kept" "got '$got'"

# --- What needs the packages: your tree's revision, the series --------------

# spec_check SPEC: tb_spec_check of SPEC on x86-64, "STATUS|commit|stderr"
spec_check()
{
	(
		tb_spec_parse "$1" || { echo "parse $?|$TB_SPEC_ERR"; exit; }
		tb_spec_check "$TB_SPEC_LAST" 2>"$tmp/check.err"
		echo "$?|${TB_SPECS[$TB_SPEC_LAST.commit]}|$(cat "$tmp/check.err")"
	)
}
for rev in for-next/core origin/master base; do
	got=$(spec_check "trace,tree=$k@$rev")
	[ "$got" = "0|$(git -C "$k" rev-parse "$rev")|" ]
	check $? "spec check: tree=PATH@$rev is its commit" "got '$got'"
done
got=$(spec_check "trace,tree=$k@for-next/nosuch")
[[ $got == "1||"*"has no commit for-next/nosuch"* ]]
check $? "spec check: a revision the tree lacks is refused" "got '$got'"
got=$(spec_check "trace,patches=$d/series")
[ "$got" = "0||" ]
check $? "spec check: a series that applies to linux-source-6.12" "got '$got'"
got=$(spec_check "trace,patches=$d/bad")
[[ $got == "1||"*"0001-kernel-c.patch does not apply to linux-source-6.12"* ]]
check $? "spec check: a patch that does not apply is named" "got '$got'"

# --- The tools refuse a bad spec before any work ---------------------------

stub=$tmp/stub
mkdir -p "$stub"
for c in make apt-get dpkg-query insmod qemu-system-x86_64 \
	 qemu-system-aarch64 qemu-system-i386; do
	printf '#!/bin/sh\necho "TRIPWIRE: %s ran" >&2\nexit 99\n' "$c" >"$stub/$c"
	chmod +x "$stub/$c"
done

# run_tool PATHDIR TOOL ARG...: the tool with PATHDIR first in PATH; its
# status in rc, its streams in $tmp/stdout and $tmp/stderr
run_tool()
{
	local dir=$1 tool=$2

	shift 2
	PATH=$dir:$PATH "$top/tools/$tool" "$@" </dev/null >"$tmp/stdout" \
		2>"$tmp/stderr"
	rc=$?
}

while IFS='|' read -r want words args; do
	read -ra argv <<<"$args"
	run_tool "$stub" "${argv[@]}"
	[ "$rc" = "$want" ] && grep -qF -- "$words" "$tmp/stderr" &&
		! grep -q TRIPWIRE "$tmp/stderr" &&
		{ [ "$want" != 2 ] || grep -q '^usage: ' "$tmp/stderr"; }
	check $? "tools: $args: exit $want, '$words'" \
		"exit $rc: $(head -c 300 "$tmp/stderr")"
done <<EOF
2|i386 has no kernel 'trace'|boot.sh --arch i386 trace
2|i386 has no kernel 'debug'|boot.sh --arch=i386 debug functional
2|i386 has no kernel 'trace'|bench.sh --arch i386 trace,tree=$k@for-next/core
2|i386 builds no kernel of your own tree|bench.sh --arch i386 notrace,tree=$k
2|x86_64 has no kernel 'nosuch'|run.sh --kernel nosuch
2|arm64 has no kernel '6.12'|run.sh --arch arm64 --kernel=6.12
2|unknown key frob|scale.sh --kernel trace,frob=1
2|Debian's kernel as built|speed.sh --kernel=6.12,patches=$d/series
2|two kernels are labelled trace|bench.sh trace trace
2|one tree per kernel|boot.sh trace,tree=$k,tree=$k
2|--timeout wants seconds from 1, not '0'|boot.sh --timeout 0 trace
1|no such directory: /nonexistent|bench.sh trace,tree=/nonexistent@for-next/core
1|no such patch series: /nonexistent|boot.sh trace,patches=/nonexistent
EOF

# --- boot.sh on a patched kernel, built and booted by stand-ins -------------

# boot_patched: tools/boot.sh trace,patches=DIR, with the patched kernel
# in a made-up cache as tb_build_patched would have left it, a make that
# builds a module of nothing and a QEMU that records its kernel and
# prints a passing KTAP. The kernel it boots must be the patched one.
boot_patched()
{
	local e=$tmp/e2e dir

	mkdir -p "$e" || return 1
	printf '#!/bin/sh\necho "install ok installed"\n' >"$e/dpkg-query"
	# shellcheck disable=SC2016 # the stand-ins' own variables
	printf '%s\n' '#!/bin/sh' 'for a; do case $a in' \
		'DEST=*) mkdir -p "${a#DEST=}" ;;' \
		'M=*) touch "${a#M=}/tracerbench.ko" ;;' 'esac; done' \
		>"$e/make"
	# shellcheck disable=SC2016
	printf '%s\n' '#!/bin/sh' 'while [ $# -gt 0 ]; do case $1 in' \
		'-kernel) echo "$2" >'"$e/kernel"' ;;' \
		'file:*.ktap) printf "KTAP version 1\n1..1\nok 1 stand-in\n" >"${1#file:}" ;;' \
		'esac; shift; done' >"$e/qemu-system-x86_64"
	chmod +x "$e/dpkg-query" "$e/make" "$e/qemu-system-x86_64"
	dir=$(PATH=$e:$PATH tb_patched_dir trace "$d/series" "") || return 1
	mkdir -p "$dir/b/arch/x86/boot" && touch "$dir/b/.tb-built" \
		"$dir/b/arch/x86/boot/bzImage" || return 1
	run_tool "$e" boot.sh "trace,patches=$d/series" functional
	[ "$rc" = 0 ] || { cat "$tmp/stderr"; return 1; }
	grep -q '^ok 1 stand-in$' "$tmp/stdout" &&
		[ "$(cat "$e/kernel")" = "$dir/b/arch/x86/boot/bzImage" ] &&
		[ -f "$TB_OUT/build-trace+series/tracerbench.ko" ] &&
		[ -f "$TB_OUT/boot-trace+series.cpio.gz" ]
}
err=$(boot_patched 2>&1)
check $? "boot.sh trace,patches=DIR: the patched kernel booted with its module" "$err"

# --- A boot's timeout -------------------------------------------------------

# RUNS SAMPLES BATCH VCPUS|seconds: 600 s and 0.5 ms a pair per vCPU per
# run, a week at most
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086 # four numbers
	got=$(tb_boot_timeout $args)
	[ "$got" = "$want" ]
	check $? "timeout: $args: $want s" "got '$got'"
done <<EOF
1 10 1 1|600
3 10000 1 4|660
72 10000 1 4|2040
36 10000 1 4|1320
1 10000000 1 4|20600
3 2000 50 4|1200
1 2000 1 4 900|904
1000 1000000000 100 99|604800
EOF
[ "$(tb_boot_timeout 12 100000 1 4)" -gt "$(tb_boot_timeout 12 10000 1 4)" ] &&
	[ "$(tb_boot_timeout 24 10000 1 4)" -gt "$(tb_boot_timeout 12 10000 1 4)" ]
check $? "timeout: grows with the runs and the samples asked"

# DELAY_TSC|CONFIG_HZ line|lpj=: what an x86 guest under icount gets
# (tb_guest_lpj), the TSC at 1 GHz over the kernel's HZ; nothing where
# the arch's CPUs calibrate nothing or HZ is unknown
lk=$tmp/lpj
mkdir -p "$lk"
tb_custom_kernel lpj-test "$lk" "$lk/bzImage"
while IFS='|' read -r tsc hz want; do
	printf '%s\n' "CONFIG_X=y" ${hz:+"$hz"} >"$lk/.config"
	got=$(TB_DELAY_TSC=$tsc TB_ICOUNT=1 tb_guest_lpj lpj-test 2>&1)
	[ "$got" = "$want" ]
	check $? "lpj: delay loop on the TSC $tsc, ${hz:-no HZ}: '$want'" "got '$got'"
done <<EOF
1|CONFIG_HZ=250|lpj=4000000
1|CONFIG_HZ=1000|lpj=1000000
1|CONFIG_HZ=100|lpj=10000000
0|CONFIG_HZ=250|
1||
1|CONFIG_HZ=|
EOF
got=$(TB_DELAY_TSC=1 TB_ICOUNT=1 tb_guest_lpj no-such-kernel 2>&1)
[ -z "$got" ]
check $? "lpj: an unknown kernel gets none, silently" "got '$got'"

# THREAD|-accel: TCG's, the vCPUs in one thread or a thread each, the
# translation cache TB_TCG_CACHE_MIB (tb_tcg_accel)
while IFS='|' read -r thread want; do
	got=$(TB_TCG_CACHE_MIB=128 tb_tcg_accel "$thread")
	[ "$got" = "$want" ]
	check $? "accel: thread '$thread': $want" "got '$got'"
done <<EOF
single|tcg,thread=single,tb-size=128
|tcg,tb-size=128
EOF

# VCPUS|GROUPS|KERNEL_ARGS|seconds: the groups' longest timeouts in
# tools/scenarios (functional 2400, on debug; exact 900; none for the host
# tools' groups: 600), plus their sized runs' pairs at the same rate
while IFS='|' read -r vcpus groups kargs want; do
	read -ra argv <<<"$kargs"
	got=$(tb_suite_timeout "$vcpus" "$groups" "${argv[@]}")
	[ "$got" = "$want" ]
	check $? "suite timeout: $vcpus vCPUs, $groups${kargs:+ $kargs}: $want s" "got '$got'"
done <<EOF
4|exact||900
4|functional|tb.big_samples=1000000|4400
4|functional|tb.big_samples=5 tb.big_samples=1000000|4400
4|functional||22400
4|exact,functional,exact|tb.big_samples=1000000|5300
4|functional,stall,faults,leaks,kunit|tb.big_samples=100000|12200
2|long|tb.long_samples=20000000 preempt=none|20900
1|speed||750
1|speed|tb.cost_sizes=100000000,100100000|100650
1|speed|tb.cost_sizes=1000,2000 tb.batch=50|675
2|scale|tb.sizes=100000,1000000,10000000,100000000|111700
2|against|tb.speed_samples=1000000 tb.rounds=3|6600
4|show||620
4|version||600
EOF

# tool_secs TOOL ARG...: the seconds TOOL gives its boot, as a stand-in
# timeout(1) records them (it boots nothing), on the patched kernel
# boot_patched left in the cache, with its stand-ins
tool_secs()
{
	local to=$tmp/to

	# shellcheck disable=SC2016 # the stand-in's own argument
	mkdir -p "$to" && cp "$tmp"/e2e/dpkg-query "$tmp"/e2e/make "$to"/ &&
		printf '#!/bin/sh\necho "$4" >%s\nexit 1\n' "$to/secs" \
			>"$to/timeout" && chmod +x "$to/timeout" || return 1
	rm -f "$to/secs"
	run_tool "$to" "$@"
	cat "$to/secs"
}
# TOOL ARGS|least seconds: each tool's boot gets what its work asks, more
# than a fixed bound (boot.sh's and speed.sh's were 1800, scale.sh's
# 3600, run.sh's 300) where that is large
p=trace,patches=$d/series
while IFS='|' read -r args least; do
	read -ra argv <<<"$args"
	got=$(tool_secs "${argv[@]}" 2>&1)
	[[ $got =~ ^[0-9]+$ ]] && [ "$got" -ge "$least" ]
	check $? "tool timeout: $args: $least s at least" "got '$got'"
done <<EOF
speed.sh --kernel $p 100000000|100000
speed.sh --kernel=$p --batch 100 1000000 1000000|150000
scale.sh --kernel $p 100000000|100000
scale.sh --kernel $p --against $d --rounds 9 10000000|100000
boot.sh $p functional|20000
boot.sh $p functional,exact -- tb.big_samples=100000000|200000
boot.sh --vcpus 8 $p long|400000
run.sh --kernel $p|600
EOF
for o in "--timeout 7" --timeout=7; do
	# shellcheck disable=SC2086 # an option and its value
	got=$(tool_secs boot.sh $o "$p" functional 2>&1)
	[ "$got" = 7 ]
	check $? "tool timeout: boot.sh $o functional: 7 s" "got '$got'"
done

# --- What each entry point installs -----------------------------------------

inst=$tmp/inst
mkdir -p "$inst"
cp "$stub/make" "$stub"/qemu-* "$stub/insmod" "$inst/"
printf '#!/bin/sh\nexit 1\n' >"$inst/dpkg-query"
# shellcheck disable=SC2016 # the stand-in's own variables
printf '#!/bin/sh\necho "$*" >>%s\n[ "$1" = update ] || exit 100\n' \
	"$inst/apt.log" >"$inst/apt-get"
# shellcheck disable=SC2016
printf '#!/bin/sh\n[ "$1" = -u ] && echo "${TB_TEST_UID:-0}"\n' >"$inst/id"
chmod +x "$inst"/*

# installs ENV|ARGS|WANTED|NOT WANTED: the packages the tool asks of
# apt-get, run with ENV (- for none)
while IFS='|' read -r envs args want nowant; do
	read -ra argv <<<"$args"
	read -ra envv <<<"${envs/#-/}"
	rm -f "$inst/apt.log"
	(
		[ ${#envv[@]} = 0 ] || export "${envv[@]}"
		run_tool "$inst" "${argv[@]}"
		echo "$rc" >"$tmp/rc"
	)
	rc=$(cat "$tmp/rc")
	pkgs=" $(sed -n 's/^install -y -qq --no-install-recommends //p' \
		"$inst/apt.log" 2>/dev/null) "
	why=
	[ "$rc" = 1 ] || why="exit $rc, not 1 (install refused)"
	for p in $want; do
		[[ $pkgs == *" $p "* ]] || why="$why; $p not installed"
	done
	for p in $nowant; do
		[[ $pkgs != *" $p "* ]] || why="$why; $p installed"
	done
	! grep -q TRIPWIRE "$tmp/stderr" ||
		why="$why; $(grep TRIPWIRE "$tmp/stderr")"
	[ -z "$why" ]
	check $? "installs: ${envv[*]:+${envv[*]} }$args: $want; not $nowant" \
		"${why#; } (asked:$pkgs)"
done <<EOF
-|run.sh|make qemu-system-x86 busybox-static linux-image-6.12-amd64 linux-headers-6.12-amd64|linux-image-amd64 linux-image-6.12-rt-amd64 linux-source-6.12 linux-source-6.1 gcc-aarch64-linux-gnu gcc-12-multilib dkms sparse shellcheck python3-scipy
-|run.sh --arch arm64|qemu-system-arm gcc-aarch64-linux-gnu linux-source-6.12 bison|qemu-system-x86 linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.1 dkms
-|bench.sh trace|qemu-system-x86 linux-source-6.12 bison|linux-image-amd64 linux-image-6.12-amd64 linux-image-6.12-rt-amd64 linux-headers-6.12-amd64 gcc-aarch64-linux-gnu python3-scipy dkms
-|bench.sh 6.1 trace,tree=$k@base|linux-image-amd64 linux-headers-amd64 git patch bison|linux-image-6.12-amd64 linux-image-6.12-rt-amd64 linux-source-6.1
-|boot.sh 6.12-rt|linux-image-6.12-rt-amd64 linux-headers-6.12-rt-amd64|linux-image-amd64 linux-image-6.12-amd64 linux-source-6.12 bison
-|speed.sh|linux-image-6.12-amd64|linux-image-amd64 linux-image-6.12-rt-amd64 linux-source-6.12
TB_PARTS=host|check.sh|shellcheck pyflakes3 sparse python3-scipy linux-source-6.12 linux-headers-amd64 linux-headers-6.12-amd64 linux-headers-6.12-rt-amd64|gcc-aarch64-linux-gnu gcc-12-multilib qemu-system-x86 qemu-system-arm linux-source-6.1 linux-image-amd64 linux-image-6.12-amd64 dkms bison
TB_PARTS=built TB_ARCHS=arm64|check.sh|gcc-aarch64-linux-gnu qemu-system-arm linux-source-6.12 dkms|qemu-system-x86 gcc-12-multilib linux-image-amd64 linux-headers-amd64 shellcheck
EOF
# make check's host part: no kernel source unpacked, no guest's packages
[ ! -e "$TB_CACHE/debs" ] && [ ! -e "$TB_SRC/Makefile" ]
check $? "installs: make check's parts unpack and fetch nothing before the install"

# not root: nothing installed, the one line to run said
rm -f "$inst/apt.log"
TB_TEST_UID=1000 run_tool "$inst" bench.sh trace
[ "$rc" = 1 ] && [ ! -e "$inst/apt.log" ] &&
	grep -qx 'apt-get install --no-install-recommends make gcc .*linux-source-6.12.*' \
		"$tmp/stderr"
check $? "installs: not root, the apt-get install line to run, nothing run" \
	"exit $rc: $(cat "$tmp/stderr")"

# from a terminal: asked first; no is no install, and the line to run
rm -f "$inst/apt.log"
out=$(printf 'n\n' | PATH=$inst:$PATH script -qec \
	"$top/tools/bench.sh trace" /dev/null 2>&1)
[ ! -e "$inst/apt.log" ] && [[ $out == *"install make gcc"*"? [Y/n]"* ]] &&
	[[ $out == *"apt-get install --no-install-recommends make gcc"* ]]
check $? "installs: from a terminal, asked first; no installs nothing" "$out"

echo "KTAP version 1"
echo "1..$((passed + failed))"
printf '%s\n' "${lines[@]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
