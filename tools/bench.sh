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
KERNEL is one of
  [LABEL=]VARIANT                  notrace, trace, debug or rt-debug, built from
                                   linux-source-6.12 (tools/kconfig/)
  [LABEL=]VARIANT,patches=PATH[,config=FRAGMENT]...
                                   that variant with a patch series (a
                                   directory of git format-patch files, a
                                   quilt series file or a directory with
                                   one, an mbox or a single patch) and/or
                                   extra kconfig fragments
  [LABEL=]VARIANT,tree=PATH[@REV][,patches=PATH][,config=FRAGMENT]...
                                   that variant of your own kernel tree (6.1
                                   or later): a git tree at REV (a tag,
                                   branch or commit) or its files as they
                                   are, or a plain source directory; only
                                   read, built in the cache
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
  --nr-samples N   samples per primitive per CPU and run (default 10000)
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

out='' rounds=12 states='' icount=0 nr_samples=10000 do_work=0 host=0 arch='' clock=''
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
			echo "kernels ${labels[*]}"
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

labels=()
declare -A kind=() variant=() patches=() frags=() image=() kbuild=() spec_of=()
declare -A tree=() commit=()

# check_own_build SPEC IMAGE DIR: refuse, before anything is built or
# booted, a build the guest cannot use: one for another architecture, a
# kernel before 6.1, or a .config without what the guest needs, each
# option named and written to a fragment to merge.
check_own_build()
{
	local spec=$1 img=$2 bld=$3 arch rel lacks frag

	[ -f "$bld/.config" ] || die "$spec: $bld has no .config"
	arch=$(tb_image_arch "$img")
	case $arch:$TB_ARCH in
	x86:x86_64 | x86:i386 | arm64:arm64)	;;
	:*)	die "$spec: $img is no x86 bzImage nor arm64 Image" ;;
	*)	die "$spec: $img is an $arch image, not one for $TB_ARCH (--arch)" ;;
	esac
	arch=$(tb_config_arch "$bld/.config")
	[ "$arch" = "$TB_ARCH" ] ||
		die "$spec: $bld/.config builds for ${arch:-another architecture}, not $TB_ARCH (--arch)"
	rel=$(cat "$bld/include/config/kernel.release" 2>/dev/null) ||
		die "$spec: $bld has no include/config/kernel.release: is it built?"
	tb_release_at_least "$rel" 6 1 ||
		die "$spec: $rel is older than 6.1, the oldest kernel tracerbench supports"
	lacks=$(tb_guest_config_lacks "$bld/.config")
	[ -z "$lacks" ] && return 0
	{ mkdir -p "$TB_OUT" &&
		frag=$(mktemp "$TB_OUT/guest-needs-XXXXXX.config") &&
		echo "$lacks" >"$frag"; } || die "cannot write a fragment in $TB_OUT"
	echo "bench.sh: $spec: $bld/.config lacks what the guest needs:" >&2
	# shellcheck disable=SC2001 # a prefix on every line
	echo "$lacks" | sed 's/^/  /' >&2
	echo "merge $frag (in the kernel's source), then rebuild:" >&2
	echo "  scripts/kconfig/merge_config.sh -m -O $bld $bld/.config $frag" >&2
	echo "  make -C $bld olddefconfig all" >&2
	exit 1
}

# parse_spec SPEC: one KERNEL argument into the tables above
parse_spec()
{
	local spec=$1 label='' field key val base='' p='' f='' img='' bld=''
	local tpath='' trev='' tcommit=''

	IFS=, read -ra fields <<<"$spec"
	[ ${#fields[@]} -gt 0 ] || die "empty kernel"
	field=${fields[0]}
	if [[ $field == *=* ]]; then
		key=${field%%=*}
		val=${field#*=}
		case $key in
		bzimage)	img=$val ;;
		patches | config | build)
				die "$spec: name the variant first, as in trace,$field" ;;
		*)		label=$key; base=$val ;;
		esac
		if [[ $base == bzimage=* ]]; then
			img=${base#bzimage=}
			base=
		fi
	else
		base=$field
	fi
	for field in "${fields[@]:1}"; do
		[[ $field == *=* ]] || die "$spec: '$field' is not KEY=VALUE"
		key=${field%%=*}
		val=${field#*=}
		[ -n "$val" ] || die "$spec: $key= wants a value"
		# the shell expands no ~ after KEY=
		val=${val/#\~/$HOME}
		case $key in
		patches)	[ -z "$p" ] || die "$spec: one patch series per kernel"
				p=$(realpath -e "$val") ||
					die "$spec: no such patch series: $val"
				tb_patch_list "$p" >/dev/null ||
					die "$spec: bad patch series $val" ;;
		config)		[ -f "$val" ] ||
					die "$spec: no such kconfig fragment: $val"
				f="$f $(realpath "$val")" ;;
		build)		bld=$val ;;
		bzimage)	img=$val ;;
		tree)		[ -z "$tpath" ] || die "$spec: one tree per kernel"
				tpath=$val
				# PATH@REV; a path may hold an @, a revision no /
				if [[ $val == *@* && ${val##*@} != */* ]]; then
					tpath=${val%@*}
					trev=${val##*@}
					[ -n "$trev" ] || die "$spec: tree=PATH@ wants a revision"
				fi
				tcommit=$(tb_tree_check "$tpath" "$trev" 2>&1) ||
					die "$spec: $tcommit"
				tpath=$(cd "$tpath" && pwd -P) ;;
		*)		die "$spec: unknown key $key (patches, config, tree, bzimage, build)" ;;
		esac
	done
	if [ -n "$img" ]; then
		[ -z "$base$p$f$tpath" ] ||
			die "$spec: your own build takes bzimage= and build= only"
		[ -n "$label" ] || die "$spec: give your own build a label: LABEL=bzimage=..."
		[ -f "$img" ] || die "$spec: no such image: $img"
		[ -n "$bld" ] || die "$spec: build=DIR, the image's build tree, is missing"
		{ [ -f "$bld/Makefile" ] && [ -f "$bld/Module.symvers" ]; } ||
			die "$spec: $bld is no kernel build tree (no Makefile or Module.symvers)"
		check_own_build "$spec" "$img" "$bld"
	else
		[ -z "$bld" ] || die "$spec: build= goes with bzimage="
		tb_is_built "$base" ||
			die "$spec: '$base' is no kernel variant ($TB_VARIANTS)"
	fi
	# every patch applies, in order, before anything is built
	if [ -n "$p" ] && [ -n "$tpath" ]; then
		tb_series_check "$p" "" "$tpath" "$tcommit" || exit 1
	elif [ -n "$p" ]; then
		tb_kernel_source || die "cannot unpack linux-source-6.12"
		tb_series_check "$p" "$TB_SRC" || exit 1
	fi
	if [ -z "$label" ]; then
		label=$base
		# a tree by its directory's name and the revision asked for
		[ -z "$tpath" ] ||
			label=$label+$(basename "$tpath")${trev:+-$trev}
		label=${label//[^A-Za-z0-9_+-]/-}
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
	fi
	[[ $label =~ ^[A-Za-z0-9_+-]+$ ]] ||
		die "$spec: the label '$label' may hold letters, digits, _, + and - only"
	[ -z "${spec_of[$label]:-}" ] || die "two kernels are labelled $label"
	labels+=("$label")
	spec_of[$label]=$spec
	if [ -n "$img" ]; then
		kind[$label]=own
		image[$label]=$(realpath "$img")
		kbuild[$label]=$(realpath "$bld")
	elif [ -n "$tpath" ]; then
		kind[$label]=tree
		tree[$label]=$tpath
		commit[$label]=$tcommit
	elif [ -n "$p$f" ]; then
		kind[$label]=patched
	else
		kind[$label]=builtin
	fi
	variant[$label]=$base
	patches[$label]=$p
	frags[$label]=${f# }
}

# prepare_kernel LABEL: build the kernel (or take it from the cache) and
# the module for it; registers it as kernel bench-LABEL
prepare_kernel()
{
	local l=$1 kdir

	case ${kind[$l]} in
	builtin)
		tb_build_kernel "${variant[$l]}" ||
			die "building the ${variant[$l]} kernel failed: $(tb_kernel_dir "${variant[$l]}")/build.log"
		kdir=$(tb_kernel_dir "${variant[$l]}")
		image[$l]=$kdir/$TB_KIMAGE
		;;
	patched)
		kdir=$(tb_build_patched "${variant[$l]}" "${patches[$l]}" \
			"${frags[$l]}") || die "kernel $l: see above"
		image[$l]=$kdir/$TB_KIMAGE
		;;
	tree)
		kdir=$(tb_build_tree "${tree[$l]}" "${commit[$l]}" \
			"${variant[$l]}" "${patches[$l]}" "${frags[$l]}") ||
			die "kernel $l: see above"
		image[$l]=$kdir/$TB_KIMAGE
		;;
	own)
		kdir=${kbuild[$l]}
		;;
	esac
	kbuild[$l]=$kdir
	tb_custom_kernel "bench-$l" "$kdir" "${image[$l]}"
}

# The kernels that share an image share a boot, and its module.
declare -A boot_labels=()
boots=()

# kernel_env LABEL: what the host knows of a kernel, for kernels/LABEL.env
kernel_env()
{
	local l=$1 cfg=${kbuild[$1]}/.config

	echo "spec ${spec_of[$l]}"
	echo "kind ${kind[$l]}"
	echo "image ${image[$l]}"
	echo "build_tree ${kbuild[$l]}"
	if [ -f "$cfg" ]; then
		echo "config_hash $(sha256sum <"$cfg" | cut -c 1-16)"
	fi
	echo "image_hash $(sha256sum <"${image[$l]}" | cut -c 1-16)"
	[ -n "${patches[$l]}" ] && echo "patches ${patches[$l]}" &&
		echo "patch_files $(tb_patch_list "${patches[$l]}" quiet | xargs -n 1 basename | tr '\n' ' ')"
	[ -n "${frags[$l]}" ] && echo "fragments ${frags[$l]}"
	[ -n "${tree[$l]:-}" ] && echo "tree ${tree[$l]}" &&
		echo "tree_state $(tb_tree_state "${tree[$l]}" "${commit[$l]}")"
	return 0
}

# code_env LABEL MODULE: the code sizes of kernel LABEL and of its build
# of the module (tools/codesize.sh), where its build tree has a vmlinux
# against the first kernel's, for the functions a patch added
code_env()
{
	local l=$1 vmlinux=${kbuild[$1]}/vmlinux base=${kbuild[${labels[0]}]}/vmlinux

	[ -f "$vmlinux" ] || vmlinux=
	[ -n "$vmlinux" ] && [ -f "$base" ] && [ "$l" != "${labels[0]}" ] || base=
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

# bench_initrd LABEL: the initramfs of the boot LABEL leads
bench_initrd()
{
	echo "$TB_OUT/initrd-$(tb_name "bench-$1").cpio.gz"
}

run_qemu()
{
	local l b k boot=0 nboots r start elapsed left kargs ktap per_boot
	local pos order

	tb_install >&2 || die "cannot install the packages"
	mkdir -p "$TB_OUT"
	for l in "${labels[@]}"; do
		prepare_kernel "$l"
		b=${image[$l]}
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
		tb_build_module "bench-$l" ||
			die "building the module for $l failed: $(dirname "$(tb_module "bench-$l")")/build.log"
		tb_make_initramfs "bench-$l" "$(bench_initrd "$l")" ||
			die "cannot make the initramfs for $l"
		for k in ${boot_labels[$b]//,/ }; do
			{ kernel_env "$k" &&
				code_env "$k" "$(tb_module "bench-$l")"; } \
				>"$out/kernels/$k.host.env" ||
				die "cannot describe kernel $k"
		done
	done
	# With one image there is nothing to alternate boots for: one boot
	# runs every round, the kernels' labels still alternating in each.
	per_boot=1
	[ ${#boots[@]} = 1 ] && per_boot=$rounds
	nboots=$((rounds * ${#boots[@]} / per_boot))
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
			TB_ICOUNT=$icount TB_TCG_THREAD=${TB_TCG_THREAD-single} \
				tb_boot_progress "$boot" "$nboots" "$rounds" "$start" \
				"bench-$l" "$(bench_initrd "$l")" collect 1800 \
				"$ktap" "${kargs[@]}"
			if ! grep -q '^1\.\.' "$ktap.ktap" ||
			   grep -q '^not ok' "$ktap.ktap"; then
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
	for l in "${labels[@]}"; do
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
	write_json
	echo "bench.sh: results in $out ($((SECONDS - start)) s)" >&2
}

if [ $host = 1 ]; then
	make_out
	run_host
else
	for s in "${specs[@]}"; do
		parse_spec "$s"
	done
	make_out
	run_qemu
fi
echo "$out"
