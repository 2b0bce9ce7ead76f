# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# LAVA (tools/lib/lava.sh, bench.sh --lava): the jobs bench.sh writes,
# checked by LAVA's own schema and dispatcher, and run by lava-run on a
# qemu device of the arch. Sourced by tools/check.sh.

# lava_worker DIR: what lava-run --validate looks for on a lab's worker
# that boots boards, in DIR, for lava_validate: a tftpd-hpa
# configuration (in a copy of /etc/default) and the programs it runs,
# as stand-ins that fail: the validation finds them, runs none
lava_worker()
{
	local p

	mkdir -p "$1/bin" "$1/tftp" && cp -a /etc/default "$1/etc-default" &&
		printf 'TFTP_DIRECTORY="%s"\nTFTP_ADDRESS="127.0.0.1:69"\n' \
			"$1/tftp" >"$1/etc-default/tftpd-hpa" &&
		printf 'dispatcher_ip: 127.0.0.1\nprefix: tb-\n' >"$1/dispatcher.yaml" ||
		return 1
	for p in in.tftpd telnet mkimage; do
		printf '#!/bin/sh\necho "%s: a stand-in, for lava-run --validate" >&2\nexit 1\n' \
			"$p" >"$1/bin/$p" && chmod +x "$1/bin/$p" || return 1
	done
}

# lava_validate WORKER DEVICE JOB: lava-run --validate of JOB on DEVICE
# (a dictionary), in a mount namespace of its own where /etc/default is
# WORKER's (lava_worker): the host's /etc stays as it is
lava_validate()
{
	# shellcheck disable=SC2016 # expanded by that sh
	unshare -m sh -c 'mount --bind "$1/etc-default" /etc/default &&
		PATH=$1/bin:$PATH lava-run --validate --job-id "validate-$$" \
		--output-dir "$1/validate" --device "$2" \
		--dispatcher "$1/dispatcher.yaml" "$3"
		rc=$?
		# what the validation leaves of its downloads
		rm -rf "/var/lib/lava/dispatcher/tmp/tb-validate-$$"
		exit $rc' sh "$@"
}

# check_lava_dry KERNEL: bench.sh --lava-dry-run writes, for each device
# type of the arch (tools/lava/device-types), a job a boot of notrace
# and KERNEL, in the rotated order of the rounds, which LAVA's schema
# takes (strict) and lava-run --validate passes on a device of the type,
# in place of an earlier dry run's jobs; the artifacts the jobs name are
# there
check_lava_dry()
{
	local d=$TB_OUT/lava-dry-$TB_ARCH t type templates n f settings counted

	templates=$(tb_lava_templates) || return 1
	for t in $(tb_lava_types | grep "/$TB_ARCH\$"); do
		type=${t%/*}
		# an earlier dry run's job, which this one clears
		rm -rf "$d" && mkdir -p "$d/jobs" && touch "$d/jobs/r9-earlier.yaml" ||
			return 1
		counted=()
		# (the guest's vCPUs said, as doc/lava.md shows the command)
		[ "$type" != qemu ] || counted=(--icount --vcpus "$BENCH_VCPUS")
		"$TB_TOP/tools/bench.sh" --arch "$TB_ARCH" --lava-dry-run "$d/jobs" \
			--device-type "$type" "${counted[@]}" --rounds 2 --nr-samples 1000 \
			a=notrace b="$1" \
			>"$d.log" 2>&1 || { echo "[lava] $type:"; cat "$d.log"; return 1; }
		sed "s/^/[lava dry $type] /" "$d.log"
		n=$(find "$d/jobs" -name '*.yaml' | wc -l)
		[ "$n" = 4 ] || { echo "[lava] $type: $n jobs, not 4"; return 1; }
		# round 2 begins with the other kernel
		{ [ "$(grep -c '^bench.sh: .*/r[12]-[ab]\.yaml$' "$d.log")" = 4 ] &&
			grep -A1 'r1-b\.yaml$' "$d.log" | grep -q 'r2-b\.yaml$'; } ||
			{ echo "[lava] $type: not in the rounds' rotated order"; return 1; }
		/usr/bin/python3 /usr/share/lava-common/lava-schema.py job --strict \
			"$d"/jobs/*.yaml >"$d/schema.log" 2>&1 ||
			{ cat "$d/schema.log"; return 1; }
		# a board's jobs carry none of a QEMU guest's parameters
		[ "$type" = qemu ] || ! grep -n 'tb\.cpus=\|maxcpus=\|tb\.pmu=\|tb\.modules=' \
			"$d"/jobs/*.yaml || { echo "[lava] $type: a QEMU guest's parameters"; return 1; }
		# a lab's settings of such a device: its console and power
		settings=()
		[ "$type" = qemu ] || settings=("connection_command=telnet localhost 7001"
			"hard_reset_command=true" "power_off_command=true"
			"power_on_command=true")
		lava_worker "$d/worker" || return 1
		for f in "$d"/jobs/*.yaml; do
			{ /usr/bin/python3 "$TB_TOP/tools/lava.py" device "$templates" \
				"$f" "${settings[@]}" >"$d/device.yaml" &&
				lava_validate "$d/worker" "$d/device.yaml" "$f" \
				>"$d/validate.log" 2>&1; } ||
				{ echo "[lava] $type: $f does not validate:"; tail -n 5 "$d/validate.log"; return 1; }
		done
		echo "[lava] $type: $n jobs, each valid"
		# doc/lava.md's job, its directory named DIR
		[ "$TB_ARCH/$type" != x86_64/qemu ] || {
			mkdir -p "$TB_OUT/docs-src" &&
				sed "s|$d/jobs|DIR|g" "$d/jobs/r1-a.yaml" \
				>"$TB_OUT/docs-src/lava-job.txt"
		} || return 1
	done
}

# check_lava_run KERNEL: bench.sh --lava local runs KERNEL under icount,
# each boot a job lava-run runs on a qemu device, and on x86-64 a kernel
# QEMU refuses to boot too (KERNEL's bzImage with its boot protocol set
# to 1.00: "too old to load a ram disk"; arm64's loader refuses no
# Image). The job that failed is named with its kernel, round and log,
# and KERNEL's runs are kept, each with the job in its meta; report.py
# reads them, its lkml table too; --resume runs the failed job again,
# and it alone, as a job of its own (rR-LABEL.2.yaml); and KERNEL's
# medians are those of the same image booted by bench.sh itself.
check_lava_run()
{
	local d=$TB_OUT/lava-run-$TB_ARCH direct=$TB_OUT/lava-direct-$TB_ARCH rc kdir broken=()
	local opts=(--arch "$TB_ARCH" --icount --rounds 1 --nr-samples 2000 --states off)

	kdir=$(tb_kernel_dir "$1")
	rm -rf "$d" "$direct" && mkdir -p "$TB_OUT" || return 1
	if [ "$TB_ARCH" = x86_64 ]; then
		cp "$kdir/$TB_KIMAGE" "$d.img" &&
			printf '\000\001' | dd of="$d.img" bs=1 seek=$((0x206)) \
				conv=notrunc 2>/dev/null || return 1
		broken=("broken=bzimage=$d.img,build=$kdir")
	fi
	"$TB_TOP/tools/bench.sh" "${opts[@]}" --out "$direct" "$1" \
		>"$direct.log" 2>&1 || { cat "$direct.log"; return 1; }
	"$TB_TOP/tools/bench.sh" "${opts[@]}" --lava local --out "$d" \
		"$1" "${broken[@]}" >"$d.log" 2>&1
	rc=$?
	sed 's/^/[lava run] /' "$d.log"
	if [ ${#broken[@]} = 0 ]; then
		[ $rc = 0 ] || { echo "[lava] bench.sh --lava local: exit $rc"; return 1; }
	else
		[ $rc = 1 ] || { echo "[lava] bench.sh --lava local: exit $rc, not 1"; return 1; }
		grep -q "^bench.sh: kernel broken, round 1: job $d/jobs/r1-broken.yaml ($d/boots/r1-broken.lava/log): fail " "$d.log" ||
			{ echo "[lava] the job that failed is not named"; return 1; }
		[ -z "$(ls -d "$d"/runs/broken.* 2>/dev/null)" ] ||
			{ echo "[lava] runs of the kernel that did not boot"; return 1; }
	fi
	{ grep -qx "lava_job local:$d/jobs/r1-$1.yaml" "$d/runs/$1.off.r1/meta" &&
		grep -qx "lava_device_type qemu" "$d/runs/$1.off.r1/meta"; } ||
		{ echo "[lava] no job in the run's meta"; cat "$d/runs/$1.off.r1/meta"; return 1; }
	{ "$TB_TOP/tools/report.py" "$d" >"$d.report" 2>&1 &&
		"$TB_TOP/tools/report.py" --format lkml --primitives irq "$d" \
		>>"$d.report" 2>&1; } || { cat "$d.report"; return 1; }
	sed 's/^/[lava report] /' "$d.report"
	grep -q "^$1.off  *[0-9]" "$d.report" || { echo "[lava] no lkml row of $1"; return 1; }
	if [ ${#broken[@]} -gt 0 ]; then
		# --resume runs the failed job alone, again
		"$TB_TOP/tools/bench.sh" --resume "$d" >"$d.resume.log" 2>&1
		rc=$?
		sed 's/^/[lava resume] /' "$d.resume.log"
		{ [ $rc = 1 ] && grep -q "^bench.sh: round 1: $1 ran before (--resume)" "$d.resume.log" &&
			grep -q "^bench.sh: kernel broken, round 1: job $d/jobs/r1-broken.2.yaml ($d/boots/r1-broken.2.lava/log): fail " "$d.resume.log" &&
			[ "$(grep -c "running the job of" "$d.resume.log")" = 1 ]; } ||
			{ echo "[lava] --resume: exit $rc, not the failed job alone"; return 1; }
	fi
	# the job's, then bench.sh's own boot's
	tb_same_medians "lava run" "$1.off.r1" "$d" "$direct"
}

# check_lava_server KERNEL: bench.sh --lava URL on a LAVA lab of this
# machine's (tools/lib/lavalab.sh): lavacli submits the jobs of KERNEL
# and of check_lava_run's broken image, follows them and fetches their
# logs. Ctrl-C during KERNEL's job stops after it, its runs kept with
# their job, device and type, and medians equal to check_lava_run's
# direct boot's; --resume submits the broken image's job alone, which
# is named by its URL as incomplete. A wrong token is refused, unsaid;
# the right one is in no file the runs wrote, and no copy is left.
check_lava_server()
{
	local lab=$TB_OUT/lavalab d=$TB_OUT/lava-server rc

	rm -rf "$d" "$d".* || return 1
	# the lab's daemons, in sessions of their own, outlive a killed part
	trap 'tb_lavalab_stop "$TB_OUT/lavalab"; exit 130' INT TERM
	if tb_lavalab_start "$lab" >"$lab.log" 2>&1; then
		lava_server_runs "$1" "$lab" "$d"
		rc=$?
	else
		cat "$lab.log"
		rc=1
	fi
	tb_lavalab_stop "$lab"
	trap - INT TERM
	return $rc
}

# lava_server_runs KERNEL LAB D: check_lava_server's runs on LAB, in D
lava_server_runs()
{
	local lab=$2 d=$3 url base rc job token
	local opts=(--arch "$TB_ARCH" --icount --rounds 1 --nr-samples 2000 --states off)

	url=$(cat "$lab/url") || return 1
	base=${url/"$TB_LAVALAB_USER"@/}
	echo "[lava server] a lab at $base"
	echo "tracerbench-wrong-$RANDOM$RANDOM" >"$d.wrong" &&
		"$TB_TOP/tools/bench.sh" "${opts[@]}" --lava "$url" --lava-token "$d.wrong" \
			--out "$d.refused" "$1" >"$d.refused.log" 2>&1
	rc=$?
	sed 's/^/[lava wrong token] /' "$d.refused.log"
	{ [ $rc = 1 ] && grep -q '401 Client Error' "$d.refused.log" &&
		! grep -qF "$(cat "$d.wrong")" "$d.refused.log"; } ||
		{ echo "[lava] a wrong token: exit $rc, not refused, or said"; return 1; }
	# the SIGINT to its process group, lavacli and the rest included
	TB_LAVA_POLL=2 tb_bench_interrupted "$d.log" \
		"^tracerbench: job ${base}scheduler/job/[0-9]*: Running" "${opts[@]}" \
		--lava "$url" --lava-token "$lab/token" --out "$d" "$1" \
		"broken=bzimage=$TB_OUT/lava-run-$TB_ARCH.img,build=$(tb_kernel_dir "$1")"
	rc=$?
	sed 's/^/[lava server interrupted] /' "$d.log"
	{ [ $rc = 1 ] && grep -q "stopped as asked" "$d.log" &&
		[ "$(grep -c "running the job of" "$d.log")" = 1 ]; } ||
		{ echo "[lava] interrupted: exit $rc, not after the job under way"; return 1; }
	job=$(sed -n 's/^lava_job //p' "$d/runs/$1.off.r1/meta")
	{ [[ $job =~ ^${base}scheduler/job/[0-9]+$ ]] &&
		grep -qx "lava_device $TB_LAVALAB_DEVICE" "$d/runs/$1.off.r1/meta" &&
		grep -qx "lava_device_type qemu" "$d/runs/$1.off.r1/meta"; } ||
		{ echo "[lava] no job, device or type in the run's meta"; return 1; }
	TB_LAVA_POLL=2 "$TB_TOP/tools/bench.sh" --resume "$d" >"$d.resume.log" 2>&1
	rc=$?
	sed 's/^/[lava server resume] /' "$d.resume.log"
	{ [ $rc = 1 ] && grep -q "^bench.sh: round 1: $1 ran before (--resume)" "$d.resume.log" &&
		[ "$(grep -c "running the job of" "$d.resume.log")" = 1 ] &&
		grep -q "^bench.sh: kernel broken, round 1: job ${base}scheduler/job/[0-9]* ($d/boots/r1-broken.lava/log): fail Incomplete, Infrastructure: " "$d.resume.log"; } ||
		{ echo "[lava] --resume: exit $rc, not the broken job alone, named as incomplete"; return 1; }
	"$TB_TOP/tools/report.py" --format lkml --primitives irq "$d" >"$d.report" 2>&1 ||
		{ cat "$d.report"; return 1; }
	sed 's/^/[lava server report] /' "$d.report"
	tr '\n' ' ' <"$d.report" | grep -q "LAVA device type qemu, *${url//./\\.}" ||
		{ echo "[lava] the lkml header does not name the lab"; return 1; }
	tb_same_medians "lava server" "$1.off.r1" "$d" "$TB_OUT/lava-direct-$TB_ARCH" ||
		return 1
	token=$(cat "$lab/token")
	[ ${#token} -ge 16 ] || { echo "[lava] the lab's token is short: ${#token}"; return 1; }
	grep -rlF "$token" "$d" "$d".*
	[ $? = 1 ] || { echo "[lava] the token is in the files above, or they cannot be read"; return 1; }
	[ -z "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'tracerbench-lavacli.*' -newer "$d.wrong")" ] ||
		{ echo "[lava] a copy of the token left in ${TMPDIR:-/tmp}"; return 1; }
	echo "[lava server] the token is in none of the files written"
}

# check_lava_no_runs KERNEL: a job that ends Complete with no runs in
# its log (a board whose console gave nothing of the suite) is named,
# with its page and kernel, as a failure: bench.sh --lava URL on a
# stand-in server (tools/unit/lavacli-standin, which lava_test.py
# drives too); nothing reaches the URL's host
check_lava_no_runs()
{
	local d=$TB_OUT/lava-no-runs s rc

	s=$d.server
	# the stand-in's own job (42, Running then Finished, Complete) with
	# this log
	rm -rf "$d" "$d".* && mkdir -p "$s/bin" &&
		ln -s "$TB_TOP/tools/unit/lavacli-standin" "$s/bin/lavacli" &&
		printf -- '- {"dt": "t", "lvl": "results", "msg": {"case": "job", "definition": "lava", "result": "pass"}}\n' >"$s/log" &&
		echo "tok-$RANDOM$RANDOM" >"$s/token" || return 1
	S=$s PATH=$s/bin:$PATH TB_LAVA_POLL=1 "$TB_TOP/tools/bench.sh" --arch "$TB_ARCH" \
		--rounds 1 --nr-samples 2000 --states off --out "$d" \
		--lava https://me@lab.example/ --lava-token "$s/token" "$1" >"$d.log" 2>&1
	rc=$?
	sed 's/^/[lava no runs] /' "$d.log"
	{ [ $rc = 1 ] && grep -qF "bench.sh: kernel $1, round 1: job https://lab.example/scheduler/job/42 ($d/boots/r1-$1.lava/log): no runs in its log, or a garbled one" "$d.log"; } ||
		{ echo "[lava] a job with no runs: exit $rc, not named"; return 1; }
	grep -q "jobs logs 42" "$s/calls" || { echo "[lava] the log was not fetched"; return 1; }
}

# check_lava_last_interrupted KERNEL: a Ctrl-C during the last job has
# nothing left to stop: the job runs to its end, its runs are kept and
# bench.sh --lava URL finishes as usual, on a stand-in server whose job
# gives the log of KERNEL's job on check_lava_server's lab
check_lava_last_interrupted()
{
	local d=$TB_OUT/lava-last s rc
	local log=$TB_OUT/lava-server/boots/r1-$1.lava/log

	s=$d.server
	[ -s "$log" ] || { echo "[lava] no log of $1's job on the lab"; return 1; }
	rm -rf "$d" "$d".* && mkdir -p "$s/bin" &&
		ln -s "$TB_TOP/tools/unit/lavacli-standin" "$s/bin/lavacli" &&
		cp "$log" "$s/log" && printf '%s\n' Running Running Running Running \
			Running Running Finished >"$s/states" &&
		echo "tok-$RANDOM$RANDOM" >"$s/token" || return 1
	S=$s PATH=$s/bin:$PATH TB_LAVA_POLL=1 tb_bench_interrupted "$d.log" \
		'^tracerbench: job https://lab.example/scheduler/job/42: Running' \
		--arch "$TB_ARCH" --icount --rounds 1 --nr-samples 2000 \
		--states off --out "$d" \
		--lava https://me@lab.example/ --lava-token "$s/token" "$1"
	rc=$?
	sed 's/^/[lava last interrupted] /' "$d.log"
	{ [ $rc = 0 ] && grep -q "^bench.sh: stopping after the job under way" "$d.log" &&
		grep -qx "bench.sh: every run was made before the stop: finishing" "$d.log" &&
		grep -q "^bench.sh: results in $d " "$d.log" &&
		[ -f "$d/runs/$1.off.r1/meta" ]; } ||
		{ echo "[lava] interrupted in the last job: exit $rc, not finished with its runs"; return 1; }
}

# step_lava KERNEL: LAVA's jobs of KERNEL, as written and as run
step_lava()
{
	local -x TB_CPUS=$BENCH_VCPUS

	tb_install lava >&2 || { result 1 "lava: LAVA's dispatcher installed"; return; }
	check_lava_dry "$1"
	result $? "bench.sh --lava-dry-run: a job a boot for each $TB_ARCH device type, valid by LAVA's schema and lava-run --validate"
	check_lava_run "$1"
	result $? "bench.sh --lava local: jobs run by lava-run on a qemu device; a kernel that does not boot named, the other's runs kept, with the medians of bench.sh's own boot"
	[ "$TB_ARCH" = x86_64 ] || return 0
	check_lava_no_runs "$1"
	result $? "bench.sh --lava URL: a job that ends with no runs in its log named by its page and kernel"
	tb_install lavalab >&2 || { result 1 "lava: a LAVA server's packages installed"; return; }
	check_lava_server "$1"
	result $? "bench.sh --lava URL: jobs submitted by lavacli to a LAVA server on this machine; Ctrl-C stops after the job under way, --resume submits the missing job alone, an incomplete job named by URL, the medians of bench.sh's own boot, the token in no file"
	check_lava_last_interrupted "$1"
	result $? "bench.sh --lava URL: Ctrl-C during the last job lets it and the run finish"
}
