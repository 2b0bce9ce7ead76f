# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash disable=SC2154 # bench.sh's variables
# bench.sh --lava: each boot of its rounds a LAVA job (tools/lib/lava.sh,
# doc/lava.md) on a device of --device-type: the kernel and the boot's
# initramfs published as artifacts, the job written, run (lava-run here,
# with --lava local), its log read back into runs/. Sourced by
# tools/bench.sh alone, which calls run_lava.

# lava_settings: where the jobs go (lava_jobs: --lava-dry-run's DIR, or
# none: a run's are in OUT/jobs), where the artifacts go and the URL a
# lab fetches them from (file:// of where they are, by default)
lava_settings()
{
	lava_jobs=
	if [ -n "$lava_dry" ]; then
		{ mkdir -p "$lava_dry" && lava_jobs=$(cd "$lava_dry" && pwd); } ||
			die "cannot create $lava_dry"
		# an earlier dry run's jobs are not this one's
		rm -f "$lava_jobs"/r[0-9]*-*.yaml
		: "${lava_artifacts_dir:=$lava_jobs/artifacts}"
	else
		# scratch, as the initramfs: what a job ran is in OUT/jobs
		: "${lava_artifacts_dir:=$out/boots/artifacts}"
	fi
	{ mkdir -p "$lava_artifacts_dir" &&
		lava_artifacts_dir=$(cd "$lava_artifacts_dir" && pwd); } ||
		die "cannot create $lava_artifacts_dir"
	: "${lava_artifacts_url:=file://$lava_artifacts_dir}"
	lava_artifacts_url=${lava_artifacts_url%/}
}

# lava_artifacts: every boot's kernel image and initramfs (and the
# device tree the type names) put in the artifacts directory, LABEL/
# each, as the jobs' URLs name them under --artifacts
lava_artifacts()
{
	local b l d

	for b in "${boots[@]}"; do
		l=${boot_labels[$b]%%,*}
		d=$lava_artifacts_dir/$l
		{ mkdir -p "$d" && cp "$b" "$d/${TB_KIMAGE##*/}" &&
			cp "$(bench_initrd "$l")" "$d/initramfs.cpio.gz"; } ||
			die "cannot put kernel $l's artifacts into $d"
		[ "$lava_dtb" = - ] || lava_dtb_make "${TB_SPECS[$l.kdir]}" \
			"$d/${lava_dtb##*/}" ||
			die "kernel $l: no device tree $lava_dtb, which a $lava_type needs (see above)"
	done
}

# lava_dtb_make KDIR OUT: the device tree the type names (lava_dtb), as
# kbuild makes it (the C preprocessor, then the tree's own dtc), from
# the sources of the kernel built in KDIR, into OUT: the cached build
# is left as it is, and a variant that builds no device trees has one
lava_dtb_make()
{
	local src=$1 dts dtc=$1/scripts/dtc/dtc

	# a build of its own (O=) links its sources
	[ ! -L "$1/source" ] || src=$(readlink -f "$1/source")
	dts=$src/arch/$TB_KARCH/boot/dts/${lava_dtb%.dtb}.dts
	[ -f "$dts" ] || { echo "bench.sh: no $dts" >&2; return 1; }
	[ -x "$dtc" ] || { echo "bench.sh: no dtc built in $1" >&2; return 1; }
	cpp -nostdinc -I "$src/scripts/dtc/include-prefixes" -undef -D__DTS__ \
		-x assembler-with-cpp "$dts" |
		"$dtc" -q -I dts -O dtb -i "$(dirname "$dts")" -o "$2" -
}

# lava_qemu_options: the guest's shape as QEMU options, as bench.sh's
# own guests have it (tb_boot): the arch's machine, the vCPUs, -icount
lava_qemu_options()
{
	local w line=

	for w in "${TB_QEMU_MACHINE[@]}"; do
		case $w in
		-*)	[ -z "$line" ] || echo "$line"
			line=$w ;;
		*)	line+=" $w" ;;
		esac
	done
	[ -z "$line" ] || echo "$line"
	echo "-smp $TB_CPUS"
	# the vCPUs in one host thread, as bench.sh's guests (tb_boot)
	echo "-accel tcg,thread=single"
	[ "$icount" = 0 ] || echo "-icount $TB_ICOUNT_ARG"
}

# lava_mem_mib: TB_MEM (512M, 2G) in MiB, as LAVA's context takes it
lava_mem_mib()
{
	case $TB_MEM in
	*G)	echo $((${TB_MEM%G} * 1024)) ;;
	*)	echo "${TB_MEM%M}" ;;
	esac
}

# lava_job_file FIRST N LABELS: the job of the boot of LABELS for
# rounds FIRST..FIRST+N-1 (guest_kargs), on stdout
lava_job_file()
{
	local opts=() url=$lava_artifacts_url/${3%%,*} secs append lpj=

	guest_kargs "$1" "$2" "$3"
	secs=$guest_secs
	if [ "$lava_method" = qemu ]; then
		mapfile -t opts < <(lava_qemu_options)
		# lpj= under icount alone: under TCG it is the host's rate,
		# and a lab's worker is another host
		[ "$icount" = 0 ] || lpj=$(TB_ICOUNT=1 tb_guest_lpj "bench-${3%%,*}")
		append=$(TB_ICOUNT=$icount tb_guest_append bench ${lpj:+"$lpj"} \
			"${guest_args[@]}" tb.shell)
	else
		# a board's own CPUs and counters: none of a QEMU guest's
		# parameters (its vCPUs, module area, accelerator's PMU, lpj=)
		append="loglevel=4 ${guest_args[*]} tb.shell"
	fi
	tb_lava_job "tracerbench: $3, round $1$([ "$2" -gt 1 ] && echo "-$(($1 + $2 - 1))")" \
		"$lava_type" "$TB_ARCH" "$url/${TB_KIMAGE##*/}" \
		"$url/initramfs.cpio.gz" "$url/${lava_dtb##*/}" "$append" \
		"$secs" "$(lava_mem_mib)" "${opts[@]}"
}

# lava_write FIRST N POS IMAGE ...: run_rounds's boot for
# --lava-dry-run: its job written, in the order a run would take them
lava_write()
{
	local labels=${boot_labels[$4]} f

	f=$lava_jobs/r$1-${labels%%,*}.yaml
	lava_job_file "$1" "$2" "$labels" >"$f" || die "cannot write $f"
	echo "bench.sh: $f" >&2
}

# lava_boot FIRST N POS IMAGE BOOT NBOOTS START: run_rounds's boot as a
# LAVA job: written, run, its console's KTAP split into runs/ as a
# QEMU boot's is, each run's meta naming the job. A job that failed or
# gave no runs is named with its kernel and round, and the others go on.
lava_boot()
{
	local first=$1 n=$2 pos=$3 labels=${boot_labels[$4]} l job dir why m
	local name device
	local try='' tries=1

	l=${labels%%,*}
	boot_line "$first" "$n" "$labels" "$5" "$6" "$7" "running the job of"
	# a job run again (--resume) is a job of its own: the first's
	# files, which its message and runs name, stay
	while [ -e "$out/jobs/r$first-$l$try.yaml" ]; do
		tries=$((tries + 1))
		try=.$tries
	done
	job=$out/jobs/r$first-$l$try.yaml
	dir=$out/boots/r$first-$l$try
	{ mkdir -p "$out/jobs" && lava_job_file "$first" "$n" "$labels" >"$job"; } ||
		die "cannot write $job"
	if [ "$lava" = local ]; then
		tb_lava_run "$lava_templates" "$job" "$dir.lava"
		name=local:$job device=local
	else
		tb_lava_submit "$job" "$dir.lava"
		name=$(cat "$dir.lava/url" 2>/dev/null)
		device=$(cat "$dir.lava/device" 2>/dev/null)
		name=${name:-$job} device=${device:--}
	fi
	why=$(cat "$dir.lava/result" 2>/dev/null)
	tb_lava_py console "$dir.lava/log" >"$dir.ktap" 2>/dev/null
	take_runs "$dir.ktap" "$pos" 2>/dev/null ||
		[ "$why" != pass ] || why="no runs in its log, or a garbled one"
	# every run the job gave names it, whatever else went wrong
	while read -r m; do
		printf 'lava_job %s\nlava_device %s\nlava_device_type %s\n' \
			"$name" "$device" "$lava_type" >>"$m"
	done < <(run_metas "$dir.ktap")
	if [ "$why" != pass ] || ! tb_ktap_passed "$dir"; then
		[ "$why" != pass ] || why="the suite failed: $(grep -m 1 '^not ok' "$dir.ktap")"
		lava_failed+=("kernel $labels, round $first: job ${name#local:} ($dir.lava/log): $why")
		echo "bench.sh: ${lava_failed[-1]}" >&2
	fi
	return 0
}

# lava_interrupt: Ctrl-C stops after the job under way (whose steps run
# in the background, where it does not reach them: tb_wait), a second
# one cancels it: on the server, or lava-run's own way (SIGINT), and
# exits (die), which is why its steps may run in the background here
# (tb_uncut)
lava_interrupt()
{
	local job=$tb_lava_job_id pid=$tb_lava_run_pid

	{
		if [ "$stop_asked" = 0 ]; then
			stop_asked=1
			echo "bench.sh: stopping after the job under way; Ctrl-C again cancels it"
			return
		fi
		if [ -n "$job" ]; then
			tb_lavacli jobs cancel "$job" &&
				die "stopped, job $tb_lava_base/scheduler/job/$job canceled: bench.sh --resume $out goes on"
			die "stopped; job $tb_lava_base/scheduler/job/$job could not be canceled, and may still run there"
		elif [ -n "$pid" ]; then
			kill -INT "$pid" 2>/dev/null
			tb_wait "$pid"
			die "stopped, lava-run's job canceled: bench.sh --resume $out goes on"
		fi
		die "stopped: bench.sh --resume $out goes on"
	} >&"$bench_stderr" 2>&1
}

run_lava()
{
	tb_lava_type "$lava_type" "$TB_ARCH" || exit 2
	# the token's directory, and a step's file that a Ctrl-C's die left
	trap tb_lava_disconnect EXIT
	if [ "$lava" = local ]; then
		lava_templates=$(tb_lava_templates) || die "cannot get LAVA's device types"
	elif [ -n "$lava" ]; then
		tb_lava_connect "$lava" "$lava_token" || exit 1
		[[ $lava_artifacts_url != file://* ]] ||
			echo "bench.sh: the jobs fetch their kernels from $lava_artifacts_url, which only a worker on this machine reaches: --artifacts URL names where a lab's reach them" >&2
	fi
	prepare_kernels
	lava_artifacts
	if [ -n "$lava_jobs" ]; then
		run_rounds lava_write
		rm -rf "$out"
		echo "bench.sh: the jobs are in $lava_jobs, their artifacts in $lava_artifacts_dir" >&2
		exit 0
	fi
	write_env
	lava_failed=()
	trap lava_interrupt INT
	run_rounds lava_boot
	trap - INT
	finish_partial
	stopped_as_asked && exit 1
	if [ ${#lava_failed[@]} -gt 0 ]; then
		echo "bench.sh: jobs that failed: ${#lava_failed[@]}; the runs that came back are kept: bench.sh --resume $out runs the missing ones again" >&2
		exit 1
	fi
	finish
	[ "$lava_artifacts_dir" != "$out/boots/artifacts" ] ||
		rm -rf "$lava_artifacts_dir"
	echo "bench.sh: results in $out ($((SECONDS - started)) s)" >&2
}

# lava_check_options: bench.sh's LAVA options checked against the others
lava_check_options()
{
	if [ -z "$lava$lava_dry" ]; then
		[ -z "$lava_type$lava_artifacts_url$lava_artifacts_dir$lava_token" ] ||
			tb_usage_error "--device-type, --artifacts, --artifacts-dir and --lava-token go with --lava or --lava-dry-run"
		return 0
	fi
	case $lava in
	'' | local | http://?* | https://?*) ;;
	*)	tb_usage_error "--lava: local, or a LAVA server's http:// or https:// URL, not '$lava'" ;;
	esac
	[[ ! $lava =~ ^https?://[^/@]*:[^/@]*@ ]] ||
		tb_usage_error "--lava: no token in the URL, which logs and ps show: --lava-token FILE"
	[ -z "$lava_token" ] || [[ $lava =~ ^https?:// ]] ||
		tb_usage_error "--lava-token goes with --lava URL"
	[ -z "$lava_token" ] || [ -r "$lava_token" ] ||
		tb_usage_error "--lava-token: cannot read $lava_token"
	[[ ${TB_LAVA_POLL:-10} =~ ^[1-9][0-9]*$ ]] ||
		tb_usage_error "TB_LAVA_POLL: seconds between two looks at a job, not '$TB_LAVA_POLL'"
	[ -z "$lava" ] || [ -z "$lava_dry" ] ||
		tb_usage_error "--lava runs the jobs, --lava-dry-run only writes them: one of the two"
	[ "$lava" != local ] || [ "$(id -u)" = 0 ] ||
		tb_usage_error "--lava local runs lava-run, which runs as root alone"
	{ [ "$host" = 0 ] && [ -z "$target" ]; } ||
		tb_usage_error "--lava and --lava-dry-run run the kernels in a lab, not on --host or --target"
	[ -z "$lava_dry" ] || [ -z "$resume$out" ] ||
		tb_usage_error "--lava-dry-run DIR writes jobs alone: no --out or --resume"
	: "${lava_type:=qemu}"
	tb_lava_types | grep -Fqx "$lava_type/${arch:-x86_64}" ||
		tb_usage_error "--device-type: no $lava_type for ${arch:-x86_64} in tools/lava/device-types ($(tb_lava_types | paste -sd ' '))"
	if [ "$lava_type" != qemu ]; then
		{ [ "$icount" = 0 ] && [ -z "$vcpus$mem" ]; } ||
			tb_usage_error "--icount, --vcpus and --mem apply to QEMU guests only, not to $lava_type boards"
		[ "$lava" != local ] ||
			tb_usage_error "--lava local runs qemu devices alone: a $lava_type board is a lab's (--lava URL, --lava-dry-run)"
	fi
}
