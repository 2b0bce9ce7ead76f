#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bench.sh: measure tracerbench on any kernels, in every state each has,
# in rounds, and keep everything in one results directory for
# tools/report.py. See doc/bench.md.
#
# Each round boots every kernel once (kernels with the same image share a
# boot) and, in each boot, runs the benchmark once per state and label.
# The order rotates from round to round, so that drift and the first run
# after a boot or an events toggle land on all kernels and states alike:
# the boots' here (run_qemu), the runs' within a boot in
# tools/guest/collect.sh, which --host runs on this machine's kernel
# instead. Each run's meta records its place.
set -u
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

usage()
{
	cat <<EOF
usage: tools/bench.sh [options] KERNEL...
       tools/bench.sh --host [options]
KERNEL is one of (doc/bench.md, "Kernels": the grammar of every tool)
  [LABEL=]DEBIAN                   a Debian kernel of the arch: 6.1, 6.12,
                                   6.12-rt (x86_64)
  [LABEL=]VARIANT                  notrace, trace, debug or rt-debug, built from
                                   linux-source-6.12 (tools/kconfig/), those
                                   the arch builds
  [LABEL=]VARIANT,patches=PATH[,config=FRAGMENT]...
                                   that variant with a patch series (a
                                   directory of git format-patch files, a
                                   quilt series file or a directory with
                                   one, an mbox or a single patch) and/or
                                   extra kconfig fragments
  [LABEL=]VARIANT,tree=PATH[@REV][,patches=PATH][,config=FRAGMENT]...
                                   that variant of your own kernel tree (6.1
                                   or later): a git tree at REV (a tag,
                                   branch or commit, such as for-next/core:
                                   split at the last @ after a directory)
                                   or its files as they are, or a plain
                                   source directory; only read, built in
                                   the cache
  LABEL=bzimage=FILE,build=DIR     your own build: the image (bzImage, or
                                   arm64's Image) and the build
                                   tree to build the module against
options (--opt VALUE or --opt=VALUE; lists comma-separated):
  --arch ARCH      the guests' architecture: $(tb_all_archs | tr '\n' ' ')
                   (default x86_64; see tools/arch/)
  --vcpus N        the guests' vCPUs (default \$TB_CPUS, or 4)
  --mem SIZE       the guests' memory: 512M, 2G, ... (default \$TB_MEM, or 1G)
  --out DIR        results directory (default .out/bench-DATE-TIME)
  --rounds N       rounds (default 12: see doc/bench.md, "Rounds")
  --states LIST    among out,off,on (default: every state a kernel has)
  --icount         exact guest clock: -icount shift=0,sleep=off
  --nr-samples N   samples per primitive per CPU and run (default the
                   module's, $TB_C_DEFAULT_SAMPLES)
  --do-work        time the simulated critical section inside each pair
  --batch N        pairs per timed window (default 1): figures per pair
                   below a tick of a coarse counter (arm64's 62.5 MHz)
  --clock CLOCK    the module's clock: $(tb_clocks | tr '\n' ' ')
                   (default: the module's, cycles)
  --host           measure this machine's running kernel (root), not a
                   guest's: no KERNEL, --arch, --vcpus, --mem or --icount
  --label LABEL    with --host, the running kernel's label (default host)
  -h, --help       print this and exit
See doc/bench.md, and doc/cli.md for the TB_* variables.
EOF
}

die()
{
	echo "bench.sh: $*" >&2
	exit 1
}

# the module's facts (tools/cfacts.py): its clocks, its default nr_samples
tb_cfacts || exit 1
out='' rounds=12 states='' icount=0 nr_samples=$TB_C_DEFAULT_SAMPLES do_work=0
host=0 arch='' clock=''
batch=1 vcpus='' mem='' host_label=''
cmdline="tools/bench.sh $*"
tb_cli_name=bench.sh
tb_bench_options
tb_cli_parse "$@"
set -- "${tb_cli_argv[@]}"
while [ "$1" != -- ]; do
	case $1 in
	--arch)		arch=$2 ;;
	--vcpus)	vcpus=$2 ;;
	--mem)		mem=$2 ;;
	--out)		out=$2 ;;
	--rounds)	rounds=$2 ;;
	--states)	states=$2 ;;
	--icount)	icount=1 ;;
	--nr-samples)	nr_samples=$2 ;;
	--do-work)	do_work=1 ;;
	--batch)	batch=$2 ;;
	--clock)	clock=$2 ;;
	--host)		host=1 ;;
	--label)	host_label=$2 ;;
	esac
	shift 2
done
shift
specs=("$@")
for n in "$rounds" "$nr_samples" "$batch"; do
	[[ $n =~ ^[1-9][0-9]{0,8}$ ]] ||
		tb_usage_error "--rounds, --nr-samples and --batch want a count from 1, not '$n'"
done
# with commas, or spaces as in TB_PARTS's old form
states=$(tb_list "$states")
states=${states// /,}
[[ $states =~ ^((out|off|on)(,(out|off|on))*)?$ ]] ||
	tb_usage_error "--states wants a list of out, off and on, not '$states'"
[ -z "$clock" ] || tb_clocks | grep -qx -- "$clock" ||
	tb_usage_error "--clock wants one of the module's clocks ($(tb_clocks | tr '\n' ' ' | sed 's/ $//')), not '$clock'"
[ -z "$vcpus" ] || [[ $vcpus =~ ^[1-9][0-9]?$ ]] ||
	tb_usage_error "--vcpus wants a count from 1 to 99, not '$vcpus'"
[ -z "$mem" ] || [[ $mem =~ ^[1-9][0-9]*[MG]$ ]] ||
	tb_usage_error "--mem wants a size in M or G, such as 512M or 2G, not '$mem'"
if [ $host = 1 ]; then
	[ ${#specs[@]} = 0 ] || tb_usage_error "--host measures the running kernel: no KERNEL"
	[ $icount = 0 ] || tb_usage_error "--icount applies to QEMU guests only"
	[ -z "$arch" ] || tb_usage_error "--arch applies to QEMU guests only"
	[ -z "$vcpus$mem" ] || tb_usage_error "--vcpus and --mem apply to QEMU guests only"
	[[ ${host_label:=host} =~ ^[A-Za-z0-9_+-]+$ ]] ||
		tb_usage_error "--label: a label may hold letters, digits, _, + and - only, not '$host_label'"
else
	[ -z "$host_label" ] ||
		tb_usage_error "--label names the running kernel with --host; name a guest's kernel LABEL=KERNEL"
	[ -z "$arch" ] || tb_arch_load "$arch" || exit 2
	[ ${#specs[@]} -gt 0 ] || tb_usage_error "no kernel given"
	TB_CPUS=${vcpus:-$TB_CPUS}
	TB_MEM=${mem:-$TB_MEM}
fi

# make_out: the results directory, new
make_out()
{
	[ -n "$out" ] || out=$TB_OUT/bench-$(date -u +%Y%m%d-%H%M%S)
	[ ! -e "$out/runs" ] ||
		die "$out holds results already: choose another --out"
	mkdir -p "$out/kernels" "$out/boots" || die "cannot create $out"
	out=$(cd "$out" && pwd)
}

host_cpu()
{
	sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1
}

# The invocation's environment, OUTDIR/env.
write_env()
{
	{
		echo "command $cmdline"
		echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "hostname $(uname -n)"
		echo "host_cpu $(host_cpu)"
		echo "host_cpus $(nproc)"
		echo "host_kernel $(uname -r)"
		echo "host_load $(cut -d ' ' -f 1-3 /proc/loadavg)"
		# a machine without make has the module's version only
		echo "tracerbench $(tb_version 2>/dev/null)"
		echo "rounds $rounds"
		echo "nr_samples $nr_samples"
		echo "do_work $do_work"
		echo "batch $batch"
		echo "clock ${clock:-default}"
		echo "states ${states:-all}"
		if [ $host = 1 ]; then
			echo "kernels $host_label"
		else
			echo "kernels ${TB_SPEC_LABELS[*]}"
		fi
		if [ $host = 1 ]; then
			echo "arch $(uname -m)"
			echo "mode host"
		else
			echo "arch $TB_ARCH"
			# ticks by which icount medians may differ (arm64.conf)
			echo "tick_slack $(tb_arch_param tick_slack 0)"
			echo "mode $([ $icount = 1 ] && echo tcg-icount || echo tcg)"
			echo "qemu $("$TB_QEMU" --version | head -n 1)"
			[ $icount = 1 ] && echo "qemu_accel tcg -icount shift=0,sleep=off"
			[ $icount = 1 ] || echo "qemu_accel tcg"
			echo "guest_cpus $TB_CPUS"
			echo "guest_mem $TB_MEM"
		fi
	} >"$out/env"
}

write_json()
{
	{ sh "$TB_TOP/tools/guest/json.sh" "$out" >"$out/results.json.tmp" &&
		mv "$out/results.json.tmp" "$out/results.json"; } ||
		die "cannot write $out/results.json"
}

run_host()
{
	local tb=/sys/kernel/debug/tracerbench loaded=0 rc dbg

	[ "$(id -u)" = 0 ] || die "--host needs root"
	if [ ! -d $tb ]; then
		{ make -s -C "$TB_TOP" modules >&2 &&
			insmod "$TB_TOP/tracerbench.ko"; } || die "cannot load tracerbench"
		loaded=1
	fi
	write_env
	sh "$TB_TOP/tools/guest/collect.sh" --rounds "$rounds" \
		--label "$host_label" --states "$states" \
		--nr-samples "$nr_samples" --do-work="$do_work" --batch "$batch" \
		--clock "$clock" "$out"
	rc=$?
	[ $loaded = 1 ] && rmmod tracerbench
	[ $rc = 0 ] || die "measuring failed"
	# the sites of the module it built and measured (one loaded before
	# may be another build); the kernel's only with its debug vmlinux
	if [ $loaded = 1 ]; then
		dbg=/usr/lib/debug/boot/vmlinux-$(uname -r)
		[ -f "$dbg" ] || dbg=
		"$TB_TOP/tools/codesize.sh" --clocks "${clock:-cycles}" \
			"$TB_TOP/tracerbench.ko" ${dbg:+"$dbg"} \
			>>"$out/kernels/$host_label.env" ||
			echo "bench.sh: warning: no code sizes of $TB_TOP/tracerbench.ko" >&2
	fi
	echo "host_load_end $(cut -d ' ' -f 1-3 /proc/loadavg)" >>"$out/env"
	write_json
	echo "bench.sh: results in $out" >&2
}

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
	local tree=${TB_SPECS[$1.tree]}

	echo "spec ${TB_SPECS[$l.spec]}"
	echo "kind ${TB_SPECS[$l.kind]}"
	echo "image ${TB_SPECS[$l.image]}"
	echo "build_tree ${TB_SPECS[$l.kdir]}"
	if [ -f "$cfg" ]; then
		echo "config_hash $(sha256sum <"$cfg" | cut -c 1-16)"
	fi
	echo "image_hash $(sha256sum <"${TB_SPECS[$l.image]}" | cut -c 1-16)"
	[ -n "$p" ] && echo "patches $p" &&
		echo "patch_files $(tb_patch_list "$p" quiet | xargs -n 1 basename | tr '\n' ' ')"
	[ -n "${TB_SPECS[$l.frags]}" ] && echo "fragments ${TB_SPECS[$l.frags]}"
	[ -n "$tree" ] && echo "tree $tree" &&
		echo "tree_state $(tb_tree_state "$tree" "${TB_SPECS[$l.commit]}")"
	return 0
}

# code_env LABEL MODULE: the code sizes of kernel LABEL and of its build
# of the module (tools/codesize.sh), where its build tree has a vmlinux
# against the first kernel's, for the functions a patch added
code_env()
{
	local l=$1 vmlinux=${TB_SPECS[$1.kdir]}/vmlinux
	local base=${TB_SPECS[${TB_SPEC_LABELS[0]}.kdir]}/vmlinux

	[ -f "$vmlinux" ] || vmlinux=
	[ -n "$vmlinux" ] && [ -f "$base" ] && [ "$l" != "${TB_SPEC_LABELS[0]}" ] || base=
	"$TB_TOP/tools/codesize.sh" --clocks "${clock:-cycles}" "$2" \
		${vmlinux:+"$vmlinux"} ${base:+"$base"}
}

# split_results KTAP: the "# @@ PATH" blocks collect.sh emitted, into $out
split_results()
{
	awk -v out="$out" '
	/^# @@ / {
		if (f != "")
			close(f)
		path = substr($0, 6)
		if (path !~ /^(kernels\/[A-Za-z0-9_+-]+\.env|runs\/[A-Za-z0-9_+-]+\.(out|off|on)\.r[0-9]+\/[a-z_.]+)$/) {
			print "bench.sh: bad path in the guest output: " path > "/dev/stderr"
			bad = 1; f = ""; next
		}
		f = out "/" path
		d = f; sub(/\/[^\/]*$/, "", d)
		system("mkdir -p \"" d "\"")
		printf "" > f
		files++
		next
	}
	# a run starts (the host showed it already)
	/^# progress / { if (f != "") close(f); f = ""; next }
	/^# / && f != "" { print substr($0, 3) > f; next }
	{ if (f != "") close(f); f = "" }
	END { exit bad || !files }' "$1"
}

# boot_pos KTAP POS: the boot's place in its round, in the meta of each
# run it gave, after collect.sh's place within the boot
boot_pos()
{
	local m

	while read -r m; do
		echo "boot_pos $2" >>"$out/$m" || return 1
	done < <(sed -n 's|^# @@ \(runs/.*/meta\)$|\1|p' "$1")
}

# bench_initrd LABEL: the initramfs of the boot LABEL leads, in the
# results directory: two runs in one clone, of the same labels, must not
# rewrite each other's while they boot
bench_initrd()
{
	echo "$out/boots/initrd-$(tb_name "bench-$1").cpio.gz"
}

# bench_module LABEL [build]: the module built for kernel LABEL, in the
# results directory too (tb_module is TB_OUT's), or with build, build it
bench_module()
{
	if [ "${2:-}" = build ]; then
		TB_OUT=$out/boots tb_build_module "bench-$1"
	else
		TB_OUT=$out/boots tb_module "bench-$1"
	fi
}

run_qemu()
{
	local l b k boot=0 nboots r start elapsed left kargs ktap per_boot
	local pos order nstates secs commas

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
	write_env
	for b in "${boots[@]}"; do
		l=${boot_labels[$b]%%,*}
		bench_module "$l" build ||
			die "building the module for $l failed: $(dirname "$(bench_module "$l")")/build.log"
		tb_make_initramfs "bench-$l" "$(bench_initrd "$l")" \
			"$(bench_module "$l")" ||
			die "cannot make the initramfs for $l"
		for k in ${boot_labels[$b]//,/ }; do
			{ kernel_env "$k" &&
				code_env "$k" "$(bench_module "$l")"; } \
				>"$out/kernels/$k.host.env" ||
				die "cannot describe kernel $k"
		done
	done
	# With one image there is nothing to alternate boots for: one boot
	# runs every round, the kernels' labels still alternating in each.
	per_boot=1
	[ ${#boots[@]} = 1 ] && per_boot=$rounds
	nboots=$((rounds * ${#boots[@]} / per_boot))
	# the states a boot runs at most, each kernel having at most three
	nstates=3
	[ -z "$states" ] || nstates=$(tr ',' '\n' <<<"$states" | wc -l)
	start=$SECONDS
	for ((r = 1; r <= rounds; r += per_boot)); do
		# the boots rotate by one each round: each kernel boots at
		# each place of the round equally often
		k=$(((r - 1) % ${#boots[@]}))
		order=("${boots[@]:k}" "${boots[@]:0:k}")
		for ((pos = 1; pos <= ${#order[@]}; pos++)); do
			b=${order[pos - 1]}
			l=${boot_labels[$b]%%,*}
			left=
			if [ $boot -gt 0 ]; then
				elapsed=$((SECONDS - start))
				left=", about $((elapsed * (nboots - boot) / boot)) s left"
			fi
			boot=$((boot + 1))
			echo "bench.sh: round $r$([ "$per_boot" -gt 1 ] && echo "-$rounds") of $rounds: booting ${boot_labels[$b]} (boot $boot of $nboots$left)" >&2
			ktap=$out/boots/r$r-$l
			kargs=("tb.round=$r" "tb.rounds=$per_boot" tb.labels="${boot_labels[$b]}"
			       "tb.nr_samples=$nr_samples" "tb.do_work=$do_work"
			       "tb.batch=$batch")
			[ -n "$clock" ] && kargs+=(tb.clock="$clock")
			[ -n "$states" ] && kargs+=(tb.states="$states")
			commas=${boot_labels[$b]//[^,]/}
			secs=$(tb_boot_timeout $((per_boot * (${#commas} + 1) * nstates)) \
				"$nr_samples" "$batch" "$TB_CPUS")
			TB_ICOUNT=$icount TB_TCG_THREAD=${TB_TCG_THREAD-single} \
				tb_boot_progress "$boot" "$nboots" "$rounds" "$start" \
				"bench-$l" "$(bench_initrd "$l")" bench "$secs" \
				"$ktap" "${kargs[@]}"
			if ! tb_ktap_passed "$ktap"; then
				grep -v '^# ' "$ktap.ktap" | tail -n 20 >&2
				echo "bench.sh: the end of its console:" >&2
				tail -n 30 "$ktap.console" 2>/dev/null | sed 's/^/  /' >&2
				die "the boot of ${boot_labels[$b]} in round $r failed; see $ktap.console"
			fi
			split_results "$ktap.ktap" ||
				die "no results from ${boot_labels[$b]} in round $r; see $ktap.ktap"
			boot_pos "$ktap.ktap" "$pos" ||
				die "cannot record the order of round $r in $out/runs"
		done
	done
	# the guest's view of each kernel, then the host's
	for l in "${TB_SPEC_LABELS[@]}"; do
		[ -f "$out/kernels/$l.env" ] || die "no description of kernel $l came back"
		# the host's figures replace the guest's (config_hash)
		{ awk 'NR == FNR { host[$1] = 1; print; next } !($1 in host)' \
			"$out/kernels/$l.host.env" "$out/kernels/$l.env" \
			>"$out/kernels/$l.env.tmp" &&
			mv "$out/kernels/$l.env.tmp" "$out/kernels/$l.env" &&
			rm -f "$out/kernels/$l.host.env"; } ||
			die "cannot write $out/kernels/$l.env"
	done
	echo "host_load_end $(cut -d ' ' -f 1-3 /proc/loadavg)" >>"$out/env"
	echo "elapsed_s $((SECONDS - start))" >>"$out/env"
	# the images and modules are scratch: the kernels' env says what
	# they held
	for b in "${boots[@]}"; do
		rm -rf "$(bench_initrd "${boot_labels[$b]%%,*}")" \
			"$(dirname "$(bench_module "${boot_labels[$b]%%,*}")")"
	done
	write_json
	echo "bench.sh: results in $out ($((SECONDS - start)) s)" >&2
}

if [ $host = 1 ]; then
	make_out
	run_host
else
	# every kernel read before anything is installed or built; then
	# what they need installed, and their checks that need it
	needs=(module guest)
	for s in "${specs[@]}"; do
		tb_spec_add "$s"
		# shellcheck disable=SC2207 # needs are words
		needs+=($(tb_spec_needs "$TB_SPEC_LAST"))
	done
	tb_install "${needs[@]}" >&2 || die "cannot install the packages"
	for l in "${TB_SPEC_LABELS[@]}"; do
		tb_spec_check "$l" || exit 1
	done
	make_out
	run_qemu
fi
echo "$out"
