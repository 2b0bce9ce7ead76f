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
# the boots' here (run_rounds), the runs' within a boot in
# tools/guest/collect.sh, which --host runs on this machine's kernel
# instead. Each run's meta records its place.
set -u
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/lib/bench_kernels.sh
. "$TB_TOP/tools/lib/bench_kernels.sh"
# shellcheck source=tools/lib/bench_qemu.sh
. "$TB_TOP/tools/lib/bench_qemu.sh"
# shellcheck source=tools/lib/bench_target.sh
. "$TB_TOP/tools/lib/bench_target.sh"
# shellcheck source=tools/lib/bench_lava.sh
. "$TB_TOP/tools/lib/bench_lava.sh"

usage()
{
	cat <<EOF
usage: tools/bench.sh [options] KERNEL...
       tools/bench.sh --target ssh://[USER@]HOST[:PORT] [options] KERNEL...
       tools/bench.sh --lava local|URL [--device-type TYPE] [options] KERNEL...
       tools/bench.sh --lava-dry-run DIR [--device-type TYPE] [options] KERNEL...
       tools/bench.sh --host [options]
       tools/bench.sh --resume DIR [--rounds N]
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
  [LABEL=]installed:RELEASE[,build=DIR]
                                   with --target, a kernel installed on the
                                   box (/boot/vmlinuz-RELEASE), the module
                                   built against DIR or this host's
                                   headers of RELEASE
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
  --target URL     measure the KERNELs on a test box reached by ssh
                   (x86-64, root, kexec-tools or GRUB; doc/box.md),
                   each switched to as --switch says, the box back on
                   its own kernel at the end
  --switch HOW     with --target, how the box goes to each kernel:
                   kexec (default), or grub-reboot (a one-time GRUB
                   entry and a reboot, where kexec is not there)
  --cmdline LINE   with --target, the kernels' command line (default:
                   the box's own)
  --box-config     with --target, build the variants from the box's own
                   configuration (/proc/config.gz or /boot/config-RELEASE)
                   with their tracing fragments merged on top
  --lava local|URL run each boot as a LAVA job (doc/lava.md): with
                   lava-run, LAVA's own dispatcher, on this machine
                   (local), or submitted by lavacli to the LAVA server
                   at URL (http[s]://[USER@]HOST[:PORT][/PATH])
  --lava-token FILE
                   with --lava URL, the token of URL's USER is FILE's
                   first line (default: lavacli's identity of URL)
  --device-type TYPE
                   the LAVA device type the jobs are for (default qemu):
                   $(tb_lava_types | paste -sd ' ')
  --artifacts URL  where a lab fetches each boot's kernel and initramfs
                   (default file:// of --artifacts-dir)
  --artifacts-dir DIR
                   where they are put (default DIR/artifacts of
                   --lava-dry-run, or the results directory's)
  --lava-dry-run DIR
                   write the LAVA jobs into DIR, run none
  --cpus LIST      with --host or --target, the CPUs to measure (such
                   as 2-5; default all)
  --resume DIR     continue the results directory DIR of an earlier
                   run that stopped, from its first missing run, with
                   the same options; --rounds N adds rounds
  -h, --help       print this and exit
See doc/bench.md, and doc/cli.md for the TB_* variables.
EOF
}

die()
{
	echo "bench.sh: $*" >&2
	exit 1
}

# bench.sh's own stderr, kept for a Ctrl-C's trap: it runs inside the
# command under way, whose messages may go to a file. (Its children
# hold it too, as they hold stderr itself unless told otherwise.)
exec {bench_stderr}>&2

# the module's facts (tools/cfacts.py): its clocks, its default nr_samples
tb_cfacts || exit 1
tb_cli_name=bench.sh
tb_bench_options

# parse_args ARG...: the options into their variables, the KERNELs into
# specs; the arguments kept in args, for --resume
parse_args()
{
	out='' rounds=12 states='' icount=0 nr_samples=$TB_C_DEFAULT_SAMPLES
	do_work=0 host=0 arch='' clock='' batch=1 vcpus='' mem=''
	host_label='' target='' cpus='' kcmdline='' resume='' rounds_set=0
	box_config=0 switch='' lava='' lava_type='' lava_dry='' lava_artifacts_url=''
	lava_artifacts_dir='' lava_token=''
	nopts=0
	args=("$@")
	tb_cli_parse "$@"
	set -- "${tb_cli_argv[@]}"
	while [ "$1" != -- ]; do
		nopts=$((nopts + 1))
		case $1 in
		--arch)		arch=$2 ;;
		--vcpus)	vcpus=$2 ;;
		--mem)		mem=$2 ;;
		--out)		out=$2 ;;
		--rounds)	rounds=$2 rounds_set=1 ;;
		--states)	states=$2 ;;
		--icount)	icount=1 ;;
		--nr-samples)	nr_samples=$2 ;;
		--do-work)	do_work=1 ;;
		--batch)	batch=$2 ;;
		--clock)	clock=$2 ;;
		--host)		host=1 ;;
		--label)	host_label=$2 ;;
		--target)	target=$2 ;;
		--cpus)		cpus=$2 ;;
		--cmdline)	kcmdline=$2 ;;
		--box-config)	box_config=1 ;;
		--switch)	switch=$2 ;;
		--lava)		lava=$2 ;;
		--device-type)	lava_type=$2 ;;
		--artifacts)	lava_artifacts_url=$2 ;;
		--artifacts-dir) lava_artifacts_dir=$2 ;;
		--lava-dry-run)	lava_dry=$2 ;;
		--lava-token)	lava_token=$2 ;;
		--resume)	resume=$2 ;;
		esac
		case $1 in
		--lava | --device-type | --artifacts | --artifacts-dir | --lava-dry-run | --lava-token)
			[ -n "$2" ] || tb_usage_error "$1 wants a value" ;;
		esac
		shift 2
	done
	shift
	specs=("$@")
}

parse_args "$@"
cmdline="tools/bench.sh $*"
# --resume DIR: the arguments DIR was made with, and more rounds
if [ -n "$resume" ]; then
	{ [ "$nopts" = $((1 + rounds_set)) ] && [ ${#specs[@]} = 0 ]; } ||
		tb_usage_error "--resume DIR takes --rounds N alone besides"
	{ [ -f "$resume/args" ] && [ -f "$resume/env" ]; } ||
		tb_usage_error "--resume: $resume is no results directory of bench.sh"
	more=$rounds more_set=$rounds_set
	dir=$(cd "$resume" && pwd)
	mapfile -d '' -t saved <"$dir/args"
	# the paths they name are relative to where the first run began
	wd=$(sed -n 's/^cwd //p' "$dir/env")
	[ -z "$wd" ] || cd "$wd" ||
		die "--resume: cannot go back to $wd, where $dir was begun"
	parse_args "${saved[@]}"
	cmdline="$(sed -n 's/^command //p' "$dir/env") (resumed)"
	resume=$dir
	out=$dir
	if [ "$more_set" = 1 ]; then
		[ "$more" -ge "$rounds" ] 2>/dev/null ||
			tb_usage_error "--resume: --rounds may add rounds to the $rounds there, not take any away"
		rounds=$more
	fi
fi
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
[ -z "$cpus" ] || [[ $cpus =~ ^(all|[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*)$ ]] ||
	tb_usage_error "--cpus wants a CPU list such as 0-3,8, not '$cpus'"
[ -z "$cpus" ] || [ $host = 1 ] || [ -n "$target" ] ||
	tb_usage_error "--cpus picks the CPUs of --host or --target; a guest's are --vcpus"
target_check_options
# a real machine's, the host's or a box's: no guest's settings
if [ $host = 1 ] || [ -n "$target" ]; then
	[ $icount = 0 ] || tb_usage_error "--icount applies to QEMU guests only"
	[ -z "$vcpus$mem" ] || tb_usage_error "--vcpus and --mem apply to QEMU guests only"
fi
lava_check_options
if [ -n "$target" ]; then
	[ $host = 0 ] || tb_usage_error "--host or --target, not both"
	[ -z "$arch" ] || [ "$arch" = x86_64 ] ||
		tb_usage_error "--target: x86_64 boxes alone for now (the kernel's release is read from a bzImage's header)"
	tb_target_parse "$target" || exit 2
fi
if [ $host = 1 ]; then
	[ ${#specs[@]} = 0 ] || tb_usage_error "--host measures the running kernel: no KERNEL"
	[ -z "$arch" ] || tb_usage_error "--arch applies to QEMU guests only"
	[[ ${host_label:=host} =~ ^[A-Za-z0-9_+-]+$ ]] ||
		tb_usage_error "--label: a label may hold letters, digits, _, + and - only, not '$host_label'"
else
	[ -z "$host_label" ] ||
		tb_usage_error "--label names the running kernel with --host; name a kernel LABEL=KERNEL"
	[ -z "$arch" ] || tb_arch_load "$arch" || exit 2
	[ ${#specs[@]} -gt 0 ] || tb_usage_error "no kernel given"
	TB_CPUS=${vcpus:-$TB_CPUS}
	TB_MEM=${mem:-$TB_MEM}
	# --resume: the guests' size of the first run, whatever TB_CPUS
	# and TB_MEM say now
	if [ -n "$resume" ] && grep -q '^guest_cpus ' "$resume/env"; then
		TB_CPUS=$(sed -n 's/^guest_cpus //p' "$resume/env")
		TB_MEM=$(sed -n 's/^guest_mem //p' "$resume/env")
	fi
fi

# make_out: the results directory, new (or the one --resume continues),
# with the arguments it was made with (args, NUL-separated)
make_out()
{
	[ -n "$out" ] || out=$TB_OUT/bench-$(date -u +%Y%m%d-%H%M%S)
	if [ -z "$resume" ]; then
		[ ! -e "$out/runs" ] ||
			die "$out holds results already: choose another --out, or continue it with --resume $out"
	fi
	mkdir -p "$out/kernels" "$out/boots" || die "cannot create $out"
	out=$(cd "$out" && pwd)
	[ -n "$resume" ] || printf '%s\0' "${args[@]}" >"$out/args" ||
		die "cannot write $out/args"
}

host_cpu()
{
	sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1
}

# The invocation's environment, OUTDIR/env; --resume keeps the first
# one's, with the rounds it now has.
write_env()
{
	if [ -n "$resume" ]; then
		# a later --resume goes on to the rounds added too
		{ printf '%s\0' "--rounds=$rounds" >>"$out/args" &&
			sed -i "s/^rounds .*/rounds $rounds/" "$out/env" &&
			echo "resumed $(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$out/env"; } ||
			die "cannot write $out/env"
		return
	fi
	{
		echo "command $cmdline"
		echo "cwd $(pwd)"
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
			sh "$TB_TOP/tools/guest/machine.sh" --prefix machine_ \
				--cpus "${cpus:-all}"
		elif [ -n "$lava" ] && [ "$lava_method" != qemu ]; then
			echo "arch $TB_ARCH"
			echo "mode host"
			echo "lava $lava"
			echo "lava_device_type $lava_type"
		elif [ -n "$target" ]; then
			echo "arch $TB_ARCH"
			echo "mode host"
			echo "target $target"
			echo "cmdline_sent ${kcmdline:-as the box had it}"
			echo "switch $TB_TARGET_SWITCH"
			# the box as found, before the first switch
			cat "$out/boots/machine"
		else
			echo "arch $TB_ARCH"
			# ticks by which icount medians may differ (arm64.conf)
			echo "tick_slack $(tb_arch_param tick_slack 0)"
			echo "mode $([ $icount = 1 ] && echo tcg-icount || echo tcg)"
			# a lab's QEMU is its worker's, not this machine's
			[[ $lava == http* ]] ||
				echo "qemu $("$TB_QEMU" --version | head -n 1)"
			# the guest's machine and CPU (tools/arch/ARCH.conf)
			echo "qemu_machine ${TB_QEMU_MACHINE[*]}"
			[ $icount = 1 ] && echo "qemu_accel tcg -icount $TB_ICOUNT_ARG"
			[ $icount = 1 ] || echo "qemu_accel tcg"
			echo "guest_cpus $TB_CPUS"
			echo "guest_mem $TB_MEM"
			[ -z "$lava" ] || printf 'lava %s\nlava_device_type %s\n' \
				"$lava" "$lava_type"
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
	show_warnings "$out/env" machine_warning
	first=1
	if [ -n "$resume" ]; then
		while runs_done "$first" "$host_label" 1; do
			first=$((first + 1))
		done
		[ "$first" -le "$rounds" ] ||
			{ echo "bench.sh: $out has every run already" >&2; return 0; }
	fi
	sh "$TB_TOP/tools/guest/collect.sh" --first-round "$first" \
		--rounds $((rounds - first + 1)) \
		--skip "$(runs_present "$first" $((rounds - first + 1)) "$host_label")" \
		--label "$host_label" --states "$states" \
		--nr-samples "$nr_samples" --do-work="$do_work" --batch "$batch" \
		--clock "$clock" --cpus "${cpus:-all}" "$out"
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
		echo "boot_pos $2" >>"$m" || return 1
	done < <(run_metas "$1")
}

# run_metas KTAP: the meta of each run the guest output KTAP gave whole,
# its path in the results directory, a line each
run_metas()
{
	local m

	sed -n 's|^# @@ \(runs/.*/meta\)$|\1|p' "$1" | while read -r m; do
		[ ! -f "$out/$m" ] || echo "$out/$m"
	done
}

# show_warnings FILE PREFIX: the PREFIX.WHAT lines of FILE (machine.sh's
# warnings) on stderr
show_warnings()
{
	sed -n "s/^$2\.[a-z]* /bench.sh: warning: /p" "$1" >&2
}

# runs_done ROUND LABELS N: every run of rounds ROUND to ROUND+N-1 of
# the kernels LABELS (comma-separated) is in $out/runs, in each state
# asked for that the kernel has (its kernels/LABEL.env, once a run of it
# came back): what --resume need not run again
runs_done()
{
	local r l s i have

	for l in ${2//,/ }; do
		have=$(sed -n 's/^states //p' "$out/kernels/$l.env" 2>/dev/null)
		[ -n "$have" ] || return 1
		for s in $have; do
			[ -z "$states" ] || [[ ,$states, == *,$s,* ]] || continue
			for ((i = $1; i < $1 + $3; i++)); do
				[ -f "$out/runs/$l.$s.r$i/meta" ] || return 1
			done
		done
	done
}

# all_runs_done: every run of every boot's kernels is in $out/runs, as
# when a Ctrl-C came after the last run began: nothing is left to stop
all_runs_done()
{
	local b

	for b in "${boots[@]}"; do
		runs_done 1 "${boot_labels[$b]}" "$rounds" || return 1
	done
}

# stopped_as_asked: 0 and the way on said if a Ctrl-C stopped the run
# with runs still to make; a Ctrl-C that came once every run was there
# stops nothing: said, and 1
stopped_as_asked()
{
	[ "$stop_asked" = 1 ] || return 1
	if all_runs_done; then
		echo "bench.sh: every run was made before the stop: finishing" >&2
		return 1
	fi
	echo "bench.sh: stopped as asked: bench.sh --resume $out goes on" >&2
}

# runs_present FIRST N LABELS: the runs of rounds FIRST to FIRST+N-1 of
# the kernels LABELS in $out/runs, comma-separated, for collect.sh's
# --skip (those of a boot that stopped midway)
runs_present()
{
	local m r l

	for m in "$out"/runs/*/meta; do
		[ -f "$m" ] || continue
		m=${m%/meta}
		m=${m##*/}
		r=${m##*.r}
		l=${m%%.*}
		[ "$r" -ge "$1" ] && [ "$r" -lt $(($1 + $2)) ] &&
			[[ ,$3, == *,$l,* ]] && printf '%s,' "$m"
	done
}

# The rounds: each boots every kernel once (kernels with the same image
# share a boot), or, with a single image, one boot runs them all. The
# boots rotate by one each round: each kernel boots at each place of the
# round equally often. run_rounds BOOT_FN calls BOOT_FN FIRST N POS IMAGE
# BOOT NBOOTS START for each boot: rounds FIRST to FIRST+N-1 at place POS
# of their round, boot BOOT of NBOOTS of a benchmark begun at START
# ($SECONDS). --resume skips the boots whose runs are all there, and a
# single boot starts at its first round with a run missing.
run_rounds()
{
	local fn=$1 b l r n k pos boot=0 nboots per_boot order first start
	local skipped=0

	per_boot=1
	[ ${#boots[@]} = 1 ] && per_boot=$rounds
	nboots=$((rounds * ${#boots[@]} / per_boot))
	start=$SECONDS
	for ((r = 1; r <= rounds; r += per_boot)); do
		k=$(((r - 1) % ${#boots[@]}))
		order=("${boots[@]:k}" "${boots[@]:0:k}")
		for ((pos = 1; pos <= ${#order[@]}; pos++)); do
			b=${order[pos - 1]}
			boot=$((boot + 1))
			first=$r n=$per_boot
			while [ -n "$resume" ] && [ "$n" -gt 0 ] &&
				runs_done "$first" "${boot_labels[$b]}" 1; do
				first=$((first + 1)) n=$((n - 1))
			done
			if [ "$n" = 0 ]; then
				echo "bench.sh: round $r: ${boot_labels[$b]} ran before (--resume)" >&2
				skipped=$((skipped + 1))
				continue
			fi
			# the time left by the boots this invocation runs
			"$fn" "$first" "$n" "$pos" "$b" $((boot - skipped)) \
				$((nboots - skipped)) "$start" ||
				return 1
			[ "$stop_asked" = 0 ] || return 1
		done
	done
}

# boot_line FIRST N LABELS BOOT NBOOTS START: the line a boot starts with
boot_line()
{
	local left=

	[ "$4" -gt 1 ] &&
		left=", about $(((SECONDS - $6) * ($5 - $4 + 1) / ($4 - 1))) s left"
	echo "bench.sh: round $1$([ "$2" -gt 1 ] && echo "-$(($1 + $2 - 1))") of $rounds: $7 $3 (boot $4 of $5$left)" >&2
}

# collect_args FIRST N LABELS: collect.sh's options for a boot's runs
collect_args()
{
	echo "--first-round $1 --rounds $2 --label $3 --nr-samples $nr_samples --do-work=$do_work --batch $batch${clock:+ --clock $clock}${states:+ --states $states}${cpus:+ --cpus $cpus}"
}

# take_runs KTAP POS: the runs of a boot's output into $out, each with
# the boot's place POS in its round
take_runs()
{
	local rc

	split_results "$1"
	rc=$?
	# the runs that came whole, whatever else did not
	boot_pos "$1" "$2" && return $rc
}

# finish: the guest's or box's view of each kernel, then the host's;
# the JSON
finish()
{
	local l b

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
	# a resumed run's replace the first's
	sed -i '/^host_load_end /d; /^elapsed_s /d' "$out/env"
	echo "host_load_end $(cut -d ' ' -f 1-3 /proc/loadavg)" >>"$out/env"
	echo "elapsed_s $((SECONDS - started))" >>"$out/env"
	# the images and modules are scratch: the kernels' env says what
	# they held
	for b in "${boots[@]}"; do
		rm -rf "$(bench_initrd "${boot_labels[$b]%%,*}")" \
			"$(dirname "$(bench_module "${boot_labels[$b]%%,*}")")"
	done
	write_json
}

started=$SECONDS
stop_asked=0
if [ $host = 1 ]; then
	make_out
	run_host
else
	# every kernel read before anything is installed or built; then
	# what they need installed, and their checks that need it
	needs=(module)
	[ -n "$target" ] || needs+=(guest)
	case $lava in
	'') ;;
	local)	needs+=(lava) ;;
	*)	needs+=(lavacli) ;;
	esac
	for s in "${specs[@]}"; do
		tb_spec_add "$s"
		case ${TB_SPECS[$TB_SPEC_LAST.kind]} in
		installed)
			[ -n "$target" ] ||
				tb_usage_error "$s: installed: names a kernel of the --target box" ;;
		debian)
			[ -z "$target" ] ||
				tb_usage_error "$s: to measure a Debian kernel on the box, install it there and name it installed:RELEASE" ;;
		esac
		# shellcheck disable=SC2207 # needs are words
		needs+=($(tb_spec_needs "$TB_SPEC_LAST"))
	done
	tb_install "${needs[@]}" >&2 || die "cannot install the packages"
	for l in "${TB_SPEC_LABELS[@]}"; do
		tb_spec_check "$l" || exit 1
	done
	if [ -n "$lava_dry" ]; then
		# the builds' scratch, beside the jobs, removed after
		out=$lava_dry/.bench
		rm -rf "$out"
	fi
	make_out
	if [ -n "$lava$lava_dry" ]; then
		lava_settings
		run_lava
	elif [ -n "$target" ]; then
		run_target
	else
		run_qemu
	fi
fi
echo "$out"
