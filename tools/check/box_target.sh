# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# bench.sh --target on the box of tools/check/box.sh, whose step_box runs
# these in order: a run cut and resumed, a box another run holds, what a
# stopped run sent, the one-time GRUB entry and --box-config, Ctrl-C and
# --resume, and the box's medians against a direct boot under icount.
# Sourced by tools/check.sh.

# box_bench DIR OUT ARG...: bench.sh --target on the box of DIR, its
# results in OUT, its output in OUT.log; its exit status. Run in the
# background (&), it is bench.sh itself, which Ctrl-C's SIGINT reaches
# (tb_interruptible), in a process group of its own, which all of it
# gets, as from a terminal's Ctrl-C (tb_interrupt_at).
box_bench()
{
	local dir=$1 out=$2

	shift 2
	printf '%s\n' "Host *" "	IdentityFile $dir/key" "	IdentitiesOnly yes" \
		"	StrictHostKeyChecking no" "	UserKnownHostsFile /dev/null" \
		"	LogLevel ERROR" >"$dir/ssh_config"
	rm -rf "$out"
	TB_SSH_CONFIG=$dir/ssh_config tb_interruptible /usr/bin/setsid "$TB_TOP/tools/bench.sh" \
		--target "ssh://root@127.0.0.1:$(cat "$dir/port")" \
		--nr-samples 2000 --out "$out" "$@" >"$out.log" 2>&1
}

# box_bench_cut DIR OUT TAG PATTERN ARG...: box_bench DIR OUT ARGs,
# with the ssh connection of the client to the box of DIR whose command
# line matches PATTERN (pgrep -f) cut as soon as it exists, as a network
# drops it: the connection the run's commands share (its master's) and
# the client, each known by the box's port, so that another box's are
# left alone; its output said behind [TAG]. bench.sh's exit status, or
# 2, said, if no such client was there to cut.
box_bench_cut()
{
	local dir=$1 out=$2 tag=$3 pid cut=1 rc port client

	port=$(cat "$dir/port") || return 2
	client="-p $port .*$4"
	shift 4
	(box_bench "$dir" "$out" "$@") &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		if pgrep -f -- "$client" >/dev/null; then
			pkill -KILL -f -- "ControlMaster=yes .*-p $port "
			pkill -KILL -f -- "$client"
			cut=0
			break
		fi
		sleep 0.05
	done
	wait $pid
	rc=$?
	sed "s/^/[$tag] /" "$out.log"
	[ $cut = 0 ] || { echo "[box] $tag: no connection of '$client' to cut"; return 2; }
	return $rc
}

# box_lock DIR OWNER: a lock on the box of DIR, as a run of OWNER
# (HOST PID ...) holds it
box_lock()
{
	printf '%s\n' "$2" |
		tb_box_ssh "$1" "mkdir -p $TB_TARGET_DIR/lock && cat >$TB_TARGET_DIR/lock/owner"
}

# box_runs OUT LABEL ROUNDS: OUT has the runs of kernel LABEL in each
# state it has and each of ROUNDS (comma-separated), each run's meta
# naming the kernel version (uname -v) of the image sent, or for a
# kernel of the box's the version it booted first (DIR/first)
box_runs()
{
	local out=$1 s r m ver img states

	img=$(sed -n 's/^image //p' "$out/kernels/$2.host.env" "$out/kernels/$2.env" 2>/dev/null | head -n 1)
	if [ -f "$img" ]; then
		ver=$(tb_image_uname "$img" | sed -n 2p)
	else
		# shellcheck disable=SC2154 # box_dir: step_box's (box.sh),
		# or check_box_systemd's own
		ver=$(sed -n 2p "$box_dir/first")
	fi
	states=$(sed -n 's/^states //p' "$out/kernels/$2.env")
	[ -n "$states" ] || { echo "[box] no states of $2 in $out"; return 1; }
	for s in $states; do
		for r in ${3//,/ }; do
			m=$out/runs/$2.$s.r$r/meta
			[ -f "$m" ] || { echo "[box] no run $2.$s.r$r in $out"; return 1; }
			grep -qxF "version $ver" "$m" ||
				{ echo "[box] $m: $(grep '^version ' "$m"), not $ver"; return 1; }
		done
	done
}

# check_box_bench DIR KERNEL: bench.sh --target on the box of DIR, which
# runs Debian's KERNEL: the kernel installed there, then plain trace,
# which lacks the disk's driver and cannot boot the box, each with the
# box's command line and a mark (--cmdline), measuring CPU 1 alone
# (--cpus). The ssh connection of the first's run is cut (its client
# killed, as a network drops it): bench.sh names the kernel and round,
# keeps what came back and leaves the box on its own kernel and command
# line (a kexec back for the line alone); --resume goes on, and the
# first's runs come back with the version it ran on, of CPU 1 alone; the
# one that does not boot is named, with its round; the box is back on
# its own kernel; the box's state is recorded before the runs and at the
# boot. A --resume then, with the box's first kernel recorded as
# another, is refused naming both.
check_box_bench()
{
	local dir=$1 out=$TB_OUT/box-bench rel rc f dead own

	rel=$(tb_release "$2") || return 1
	# a lock of a run of this host's that was killed: taken over
	true &
	dead=$!
	wait $dead
	box_lock "$dir" "$HOSTNAME $dead since then" || return 1
	# the box's own command line and a mark: the kernels booted with it,
	# and the box's own kexec'd back to for its line alone
	own=$(tb_cmdline_own "$(tb_box_ssh "$dir" 'cat /proc/cmdline' </dev/null)") &&
		[ -n "$own" ] || return 1
	# runs of 5 x 10^6 samples of the box's second CPU alone, 2 s
	# here: of 10^6, 0.4 s with the box not counting, the window for
	# the cut below is narrow on a busy host
	# the connection of stock's collect.sh cut while it lasts: its
	# progress line, which a follower reads every second, may come
	# after it ended
	box_bench_cut "$dir" "$out" "box bench" "$TB_TARGET_DIR/tools/collect.sh --emit" \
		--rounds 1 --nr-samples 5000000 --cpus 1 \
		--cmdline "$own tb_box_mark=1" stock=installed:"$rel" nodisk=trace
	rc=$?
	[ $rc = 1 ] || { echo "[box] bench.sh exited $rc after the cut, not 1"; return 1; }
	grep -q "^bench.sh: kernel stock, round 1: collect.sh failed or the connection dropped (exit [0-9]*)" "$out.log" ||
		{ echo "[box] the dropped connection is not named"; return 1; }
	grep -qF "the target's lock of a run that ended without freeing it ($HOSTNAME $dead since then): taken over" "$out.log" ||
		{ echo "[box] a stale lock was not taken over"; return 1; }
	# on its own kernel, but booted with the mark: kexec'd back
	grep -q '^cmdline .* tb_box_mark=1' "$out/boots/r1-stock.machine" ||
		{ echo "[box] --cmdline: stock booted with $(grep '^cmdline ' "$out/boots/r1-stock.machine")"; return 1; }
	[ "$(tb_cmdline_own "$(tb_box_ssh "$dir" 'cat /proc/cmdline' </dev/null)")" = "$own" ] ||
		{ echo "[box] --cmdline: the box is not back on its own command line"; return 1; }
	box_is_first "$dir" || return 1
	TB_SSH_CONFIG=$dir/ssh_config "$TB_TOP/tools/bench.sh" --resume "$out" \
		>"$out.resume.log" 2>&1
	rc=$?
	sed 's/^/[box bench resumed] /' "$out.resume.log"
	[ $rc = 1 ] || { echo "[box] --resume exited $rc, not 1"; return 1; }
	grep -qF "kernel nodisk, round 1: the target came back on $(paste -sd ' ' "$dir/first"), not on the kernel sent" "$out.resume.log" ||
		{ echo "[box] the kernel that does not boot is not named"; return 1; }
	box_runs "$out" stock 1 || return 1
	[ -z "$(ls -d "$out"/runs/nodisk.* 2>/dev/null)" ] ||
		{ echo "[box] a run of the kernel that did not boot"; return 1; }
	for f in cpu_model microcode cores smt governor freq_max_khz turbo \
		isolated nohz_full cmdline mitigations load; do
		grep -q "^machine_$f " "$out/env" || { echo "[box] env: no machine_$f"; return 1; }
	done
	grep -q '^governor ' "$out/boots/r1-stock.machine" ||
		{ echo "[box] no state of the box at its boot"; return 1; }
	# --cpus 1: the runs measured CPU 1 alone, and the state says so
	for f in "$out"/runs/stock.*/*.per_cpu; do
		[ "$(awk 'NR > 1 { print $1 }' "$f" | paste -sd ' ')" = 1 ] ||
			{ echo "[box] --cpus 1: $f has CPUs $(awk 'NR > 1 { print $1 }' "$f" | paste -sd ' ')"; return 1; }
	done
	{ grep -qx 'machine_measured_cpus 1' "$out/env" &&
		grep -qx 'measured_cpus 1' "$out/boots/r1-stock.machine"; } ||
		{ echo "[box] --cpus 1: not the CPUs the state records"; return 1; }
	box_is_first "$dir" || return 1
	# a --resume where the box's kernel is not the one it ran first (as
	# told by its version): refused, naming both, before anything is sent
	sed -i '2s/.*/#9 SMP not this one/' "$out/boots/first" || return 1
	TB_SSH_CONFIG=$dir/ssh_config "$TB_TOP/tools/bench.sh" --resume "$out" \
		>"$out.other.log" 2>&1
	rc=$?
	sed 's/^/[box bench on another kernel] /' "$out.other.log"
	{ [ $rc = 1 ] && grep -qF "bench.sh: the box runs $(paste -sd ' ' "$dir/first"), not its own kernel of the first run, $rel #9 SMP not this one: put it back on it to resume" "$out.other.log"; } ||
		{ echo "[box] --resume on another kernel than the first: exit $rc, not refused so"; return 1; }
	box_is_first "$dir"
}

# box_stopped RC LOG TAG: bench.sh's LOG shown behind [TAG]; it exited 1
# (RC) saying it stopped as asked, or that is said
box_stopped()
{
	sed "s/^/[$3] /" "$2"
	{ [ "$1" = 1 ] && grep -q "^bench.sh: stopped as asked" "$2"; } ||
		{ echo "[box] $3: exit $1, not stopped as asked"; return 1; }
}

# check_box_resume DIR KERNEL: three kernels on the box, as the README
# shows them: the box's own and two built by the rig, with what the box
# needs built in (tools/kconfig/box.config), the second with a patch.
# bench.sh --target interrupted (SIGINT, as by Ctrl-C) during its first
# run stops after it, with the box on a kernel that answers ssh;
# --resume, interrupted during a switch, stops after it, with no run on
# that kernel; --resume again, interrupted as the box begins to go back
# after the last run, makes each missing run once, each with the version of
# the kernel sent, and finishes, the box on its own kernel; report.py's
# lkml table names the box.
check_box_resume()
{
	local dir=$1 out=$TB_OUT/box-resume rel pid n rc k

	rel=$(tb_release "$2") || return 1
	rm -rf "$out"
	(box_bench "$dir" "$out" --rounds 1 --states out,off \
		stock=installed:"$rel" box="$BOX_KERNEL" \
		box-pad="$BOX_KERNEL,patches=$TB_TOP/tools/patches/pad-irqoff") &
	pid=$!
	# Ctrl-C during stock's run, as soon as collect.sh says it began
	# it: bench.sh's line of it, from a follower that reads every
	# second, may come after the run ended and the next kernel's
	# switch began (which then gets no run); before collect.sh began
	# the run, the Ctrl-C stops it from making any
	tb_interrupt_at $pid "$out/boots/r1-stock.ktap" \
		'^# progress round 1 state out label stock run 1/'
	box_stopped $? "$out.log" "box interrupted" || return 1
	grep -qx "bench.sh: stopping after the step under way (a kernel switch, a run); the box then goes back to its own kernel" "$out.log" ||
		{ echo "[box] interrupted: the Ctrl-C not answered, saying what it waits for"; return 1; }
	box_is_first "$dir" || return 1
	[ -z "$(ls -d "$out"/runs/box* 2>/dev/null)" ] ||
		{ echo "[box] a run after the interrupt"; return 1; }
	# --resume, with Ctrl-C as soon as it says it switches to box-pad:
	# the switch (a kexec, seconds long) ends, box-pad gets no run (not
	# even its state read or the module loaded, whatever became of the
	# stop file the Ctrl-C touched on the box), the box goes back; a
	# second --resume makes box-pad's
	TB_SSH_CONFIG=$dir/ssh_config tb_bench_interrupted "$out.resume.log" \
		'switching the box to box-pad ' --resume "$out"
	box_stopped $? "$out.resume.log" "box resumed, interrupted" || return 1
	grep -q "round 1: stock ran before (--resume)" "$out.resume.log" ||
		{ echo "[box] --resume ran stock again"; return 1; }
	box_runs "$out" box 1 && box_is_first "$dir" || return 1
	{ [ -f "$out/boots/r1-box-pad.switch" ] &&
		grep -q "^tracerbench: the target is back on its kernel" "$out.resume.log"; } ||
		{ echo "[box] --resume interrupted: no switch to box-pad and back"; return 1; }
	[ -z "$(ls -d "$out"/runs/box-pad.* "$out"/boots/r1-box-pad.machine \
		"$out"/boots/r1-box-pad.ktap 2>/dev/null)" ] ||
		{ echo "[box] the kernel switched to as Ctrl-C came went on to its runs"; return 1; }
	# --resume again, with Ctrl-C as it begins to switch the box back
	# after the last run (the switch itself, uncut, is check_steps_uncut's):
	# with nothing left to stop, it says so and finishes, as a run that
	# stopped does not: the elapsed time in env, no kernel's host view
	# left to merge
	TB_SSH_CONFIG=$dir/ssh_config tb_bench_interrupted "$out.resume2.log" \
		'^bench.sh: switching the box back to its own kernel' --resume "$out"
	rc=$?
	sed 's/^/[box resumed] /' "$out.resume2.log"
	{ [ $rc = 0 ] && grep -q "^bench.sh: stopping after the step under way" "$out.resume2.log" &&
		grep -qx "bench.sh: every run was made before the stop: finishing" "$out.resume2.log" &&
		grep -q "^bench.sh: results in $out " "$out.resume2.log" &&
		grep -q '^elapsed_s ' "$out/env" &&
		[ -z "$(ls "$out"/kernels/*.host.env 2>/dev/null)" ]; } ||
		{ echo "[box] --resume interrupted as the box went back after the last run: exit $rc, not finished"; return 1; }
	grep -q "round 1: box ran before (--resume)" "$out.resume2.log" ||
		{ echo "[box] the second --resume ran box again"; return 1; }
	for k in stock box box-pad; do
		box_runs "$out" $k 1 || return 1
	done
	n=$(find "$out/runs" -name meta | wc -l)
	[ "$n" = 3 ] || { echo "[box] $n runs after --resume, not 3:"; ls "$out/runs"; return 1; }
	box_is_first "$dir" || return 1
	mkdir -p "$TB_OUT/docs-src"
	"$TB_TOP/tools/report.py" --format lkml --reference box --primitives irq \
		"$out" >"$TB_OUT/docs-src/box-lkml.txt" 2>"$out.lkml.err" ||
		{ cat "$out.lkml.err"; return 1; }
	sed 's/^/[box lkml] /' "$TB_OUT/docs-src/box-lkml.txt" "$out.lkml.err"
	grep -q "^x86_64, tb-box: CPU" "$TB_OUT/docs-src/box-lkml.txt" ||
		{ echo "[box] the lkml header does not name the box"; return 1; }
}

# check_box_icount: the box runs under icount (check_box_counted), where a
# window costs the instructions it runs; the kernel box of
# check_box_resume, booted by bench.sh in its own guest of as many vCPUs
# (its initramfs, no ssh, no Debian userland), gives every primitive the
# medians it gave on the box, CPU by CPU, from the same image: the path
# through the box adds nothing to what is measured
check_box_icount()
{
	local out=$TB_OUT/box-direct on=$TB_OUT/box-resume

	rm -rf "$out"
	TB_CPUS=2 "$TB_TOP/tools/bench.sh" --icount --rounds 1 --states off \
		--nr-samples 2000 --out "$out" \
		box="$BOX_KERNEL" >"$out.log" 2>&1 ||
		{ tail -n 20 "$out.log"; return 1; }
	[ "$(grep '^image_hash ' "$on/kernels/box.env")" = \
	  "$(grep '^image_hash ' "$out/kernels/box.env")" ] ||
		{ echo "[box] bench.sh booted another image than the box's"; return 1; }
	# the box's, then bench.sh's own boot's
	tb_same_medians "box icount" box.off.r1 "$on" "$out"
}

# check_box_lock DIR KERNEL: a run against the box of DIR while another
# run's lock is there is refused before anything is built or sent,
# naming the holder; the lock stays as it was, and no results are made
check_box_lock()
{
	local dir=$1 out=$TB_OUT/box-lock rel rc owner_after
	local owner="tb-other 1 since then, results in /x\\y"

	rel=$(tb_release "$2") || return 1
	box_lock "$dir" "$owner" || return 1
	(box_bench "$dir" "$out" --rounds 1 stock=installed:"$rel")
	rc=$?
	owner_after=$(tb_box_ssh "$dir" "cat $TB_TARGET_DIR/lock/owner" </dev/null)
	# the steps after this one need the box free, whatever failed here
	tb_box_ssh "$dir" "rm -r $TB_TARGET_DIR/lock" </dev/null
	sed 's/^/[box lock] /' "$out.log"
	[ $rc = 1 ] || { echo "[box] a run on a locked box: exit $rc, not 1"; return 1; }
	grep -qF "the target is in use by another run: $owner (if none runs, remove $TB_TARGET_DIR/lock there)" "$out.log" ||
		{ echo "[box] the lock's holder is not named"; return 1; }
	[ "$owner_after" = "$owner" ] ||
		{ echo "[box] the other run's lock changed: $owner_after"; return 1; }
	[ -z "$(ls "$out/runs" "$out"/boots/* 2>/dev/null)" ] ||
		{ echo "[box] a refused run left results"; return 1; }
}

# check_box_sent DIR KERNEL: a run that stops after sending a kernel,
# before its first switch, removes what it sent: the box's own KERNEL's
# module goes first, then the connection that copies the second
# kernel's image is cut, which stops the run; nothing of either is
# left, and the box's lock is freed. A run whose last kernel the box has
# not installed sends nothing.
check_box_sent()
{
	local dir=$1 out=$TB_OUT/box-sent rel rc

	rel=$(tb_release "$2") || return 1
	box_bench_cut "$dir" "$out" "box sent" "$TB_TARGET_DIR/kernels/second/vmlinuz" \
		--rounds 1 first=installed:"$rel" \
		second="$BOX_KERNEL"
	rc=$?
	{ [ $rc = 1 ] && grep -q "^bench.sh: cannot copy kernel second to the box" "$out.log"; } ||
		{ echo "[box] the second kernel's copy did not fail: exit $rc"; return 1; }
	box_is_first "$dir" || return 1
	# every kernel checked before any is sent: the last one, a kernel
	# the box has not installed (its module built against the box's own
	# kernel's headers), refused by name, and nothing sent
	(box_bench "$dir" "$out-checked" --rounds 1 \
		first="$BOX_KERNEL" \
		second=installed:0.0.0-none,build="$(tb_kdir "$2")")
	rc=$?
	sed 's/^/[box checked] /' "$out-checked.log"
	{ [ $rc = 1 ] && grep -qx "bench.sh: kernel second: the box has no /boot/vmlinuz-0.0.0-none" "$out-checked.log" &&
		! grep -q "sending kernel\|No such file" "$out-checked.log"; } ||
		{ echo "[box] a kernel the box lacks: exit $rc, not refused before any was sent"; return 1; }
	box_is_first "$dir"
}

# box_grub_files DIR: GRUB's files on the box of DIR, each with its
# checksum
box_grub_files()
{
	tb_box_ssh "$1" "cd $TB_TARGET_GRUB && for f in \$(ls -A); do
		echo \"\$f \$(md5sum <\$f | cut -c 1-32)\"; done" </dev/null
}

# box_config_standin DIR CONFIG: the box of DIR's /boot/config-RELEASE,
# of the kernel it ran first, replaced by CONFIG (its own kept aside,
# for box_config_back)
box_config_standin()
{
	tb_box_ssh "$1" "mv /boot/config-$(head -n 1 "$1/first") /root/config.tb &&
		cat >/boot/config-$(head -n 1 "$1/first")" <"$2"
}

# box_config_back DIR: the box's own /boot/config-RELEASE put back, if
# box_config_standin had put it aside
box_config_back()
{
	local rel

	rel=$(head -n 1 "$1/first")
	tb_box_ssh "$1" "[ ! -f /root/config.tb ] || mv /root/config.tb /boot/config-$rel" </dev/null ||
		{ echo "[box] the box's /boot/config-$rel not put back"; return 1; }
}

# box_shared DIR SIZE TMP: the commands of a run that ended, whose
# shared connection's socket was in TMP, shared a connection per boot:
# the box's console, from byte SIZE on, accepted 2 to 16 connections
# (11 in a run of one kernel by grub-reboot: the lock, the
# configuration, the box's kernel and GRUB's files recorded, then at
# each of its two boots the first answer and the shared one; a
# connection a command made 28), and none is left open, nor its
# socket's directory
box_shared()
{
	local n rc=0

	n=$(tail -c +$(($2 + 1)) "$1/console" | grep -ac '^Accepted publickey')
	echo "[box] $n connections accepted during the run"
	# (none seen: sshd no longer says them on the console)
	if [ "$n" -lt 2 ] || [ "$n" -gt 16 ]; then
		echo "[box] the commands of a boot do not share a connection"
		rc=1
	fi
	if ls -d "$3"/tb-ssh.* 2>/dev/null || pgrep -af "ControlPath=$3/tb-ssh"; then
		echo "[box] the run's shared connection is left"
		rc=1
	fi
	return $rc
}

# check_box_grub DIR: bench.sh --target --switch grub-reboot --box-config
# on the box of DIR, which boots through GRUB. Debian's configuration
# would take an hour to build here, so the box's /boot/config-RELEASE
# is, for this run, that of the box kernel of check_box_resume (which
# boots the box) with the preemptirq tracers off: trace built on it turns them
# on again, and names them; the file is put back whatever happens. That
# kernel, booted by a one-time entry of GRUB's that finds it in the
# tool's directory (its BOOT_IMAGE), gives runs of its version; the
# commands of each boot share one connection (box_shared); the box
# ends on its own kernel, its GRUB files as they were: custom.cfg gone,
# grub.cfg and the environment block, which grub-reboot and GRUB wrote,
# the same. Then box_grub_panic and box_grub_custom.
check_box_grub()
{
	local dir=$1 out=$TB_OUT/box-grub before after rc size cfg tmp o

	before=$(box_grub_files "$dir") && [ -n "$before" ] || return 1
	cfg=$(box_kernel_tree)/.config
	[ -f "$cfg" ] || { echo "[box] no configuration of the box kernel"; return 1; }
	size=$(stat -c %s "$dir/console") && tmp=$(mktemp -d) || return 1
	sed -e 's/^CONFIG_\(IRQSOFF\|PREEMPT\)_TRACER=y$/# CONFIG_\1_TRACER is not set/' \
		"$cfg" >"$tmp/config" && box_config_standin "$dir" "$tmp/config"
	rc=$?
	if [ $rc = 0 ]; then
		(TMPDIR=$tmp box_bench "$dir" "$out" --switch grub-reboot \
			--box-config --rounds 1 --states off own=trace)
		rc=$?
		sed 's/^/[box grub] /' "$out.log"
		box_shared "$dir" "$size" "$tmp" || rc=1
	fi
	rm -rf "$tmp"
	box_config_back "$dir" || return 1
	[ $rc = 0 ] || { echo "[box] --switch grub-reboot --box-config: exit $rc"; return 1; }
	box_runs "$out" own 1 || return 1
	# configured as the box kernel is: its build in the cache served
	# (tb_config_donor)
	cmp -s "$cfg" "$(sed -n 's/^build_tree //p' "$out/kernels/own.env")/.config" ||
		{ echo "[box] trace on the stand-in is not configured as the box kernel"; return 1; }
	for o in IRQSOFF_TRACER PREEMPT_TRACER; do
		grep -qx "bench.sh: kernel own: the box's configuration: CONFIG_$o: n -> y" "$out.log" ||
			{ echo "[box] CONFIG_$o not named as set"; return 1; }
	done
	grep -q "^cmdline BOOT_IMAGE=(hd0)$TB_TARGET_DIR/kernels/own/vmlinuz " \
		"$out/boots/r1-own.machine" ||
		{ echo "[box] not booted by GRUB from the tool's directory: $(grep '^cmdline ' "$out/boots/r1-own.machine")"; return 1; }
	grep -q "^tracerbench: the target is back on its kernel, " "$out.log" ||
		{ echo "[box] not said back on its kernel"; return 1; }
	box_is_first "$dir" || return 1
	after=$(box_grub_files "$dir")
	[ "$after" = "$before" ] ||
		{ echo "[box] GRUB's files were:"; echo "$before"; echo "[box] and are:"; echo "$after"; return 1; }
	box_grub_panic "$dir" "$before" && box_grub_custom "$dir"
}

# box_grub_panic DIR FILES: a kernel that panics on the box of DIR
# (trace lacks the disk's driver), by grub-reboot: GRUB cleared its
# one-time entry as it booted it, so the boot after the panic is the
# box's default, its own kernel, and the run names the kernel that did
# not come back; GRUB's files are still FILES (box_grub_files). From
# the reboot into that kernel on, each QEMU counts instructions
# (DIR/icount), that boot's and the one after the panic, as the checks
# after this one's need (check_box_counted): one reboot of the box
# fewer, and only ssh commands run between.
box_grub_panic()
{
	local dir=$1 out=$TB_OUT/box-grub-nodisk size rc after

	size=$(stat -c %s "$dir/console") && touch "$dir/icount" || return 1
	(box_bench "$dir" "$out" --switch grub-reboot --rounds 1 --states off nodisk=trace)
	rc=$?
	sed 's/^/[box grub nodisk] /' "$out.log"
	{ [ $rc = 1 ] && grep -qF "kernel nodisk, round 1: the target came back on $(paste -sd ' ' "$dir/first"), not on the kernel sent" "$out.log"; } ||
		{ echo "[box] a kernel that panics after grub-reboot: exit $rc, not named so"; return 1; }
	# it did panic, and GRUB then booted its default (the panic's
	# words may follow init's on a line of the console)
	tail -c +$((size + 1)) "$dir/console" | tr -d '\r\033' |
		sed 's/\[[0-9;]*[HJ]//g; s/^.*\(Kernel panic - \)/\1/' |
		grep -a '^Kernel panic\|^ *Booting `' | tail -n 2 >"$out.console"
	{ sed -n 1p "$out.console" | grep -q '^Kernel panic - not syncing: ' &&
		[ "$(sed -n 2p "$out.console")" = "  Booting \`Debian GNU/Linux'" ]; } ||
		{ echo "[box] the console after grub-reboot into nodisk ends:"; cat "$out.console"; return 1; }
	box_is_first "$dir" || return 1
	after=$(box_grub_files "$dir")
	[ "$after" = "$2" ] ||
		{ echo "[box] after the panic, GRUB's files are:"; echo "$after"; return 1; }
}

# box_grub_custom DIR: a custom.cfg of the box's own refuses a switch by
# grub-reboot before anything is done, and stays as it was
box_grub_custom()
{
	local dir=$1 why rc after

	tb_box_ssh "$dir" "echo '# mine' >$TB_TARGET_GRUB/custom.cfg" </dev/null || return 1
	why=$(tb_box_use "$dir" && TB_TARGET_SWITCH=grub-reboot tb_target_record "$TB_OUT/box-grub-record" 2>&1)
	rc=$?
	after=$(tb_box_ssh "$dir" "cat $TB_TARGET_GRUB/custom.cfg && rm $TB_TARGET_GRUB/custom.cfg" </dev/null)
	{ [ $rc = 1 ] && [ "$why" = "tracerbench: the target has a $TB_TARGET_GRUB/custom.cfg of its own, which the tool would not change" ]; } ||
		{ echo "[box] a custom.cfg of the box's: $rc, $why"; return 1; }
	[ "$after" = '# mine' ] || { echo "[box] the box's custom.cfg changed: $after"; return 1; }
}

# check_box_config DIR: the configuration of the kernel the box of DIR
# runs, read over ssh, is its /boot/config-RELEASE; a variant configured
# on it (bench.sh --box-config; building a Debian configuration's kernel
# takes too long here) has every option of its fragments, and the log
# names exactly the options the fragments changed, each with its values
# before and after (told apart here by comm), the preemptirq tracepoints
# that Debian's kernels leave out among them
check_box_config()
{
	local dir=$1 d=$TB_OUT/box-config names set unset n

	rm -rf "$d" && mkdir -p "$d" || return 1
	(tb_box_use "$dir" && tb_target_config "$d/box.config") || return 1
	cmp -s "$d/box.config" "/boot/config-$(head -n 1 "$dir/first")" ||
		{ echo "[box] what the box gave is not its kernel's /boot/config"; return 1; }
	tb_kernel_source || return 1
	(
	# shellcheck disable=SC2034 # read by tools/lib/kernel.sh
	TB_BASE_CONFIG=$d/box.config
	tb_configure "$TB_SRC" "$d/b" trace >"$d/configure.log" 2>"$d/changes" ||
		{ tail -n 20 "$d/configure.log" "$d/changes"; exit 1; }
	tb_check_config trace "$d/b"
	) || return 1
	sed 's/^/[box config] /' "$d/changes"
	set=$(comm -13 <(grep '^CONFIG_' "$d/b/.config.box" | sort) \
		<(grep '^CONFIG_' "$d/b/.config" | sort) | sed 's/=.*//')
	unset=$(comm -23 <(grep '^CONFIG_' "$d/b/.config.box" | sort) \
		<(grep '^CONFIG_' "$d/b/.config" | sort) | sed 's/=.*//')
	names=$(printf '%s\n%s\n' "$set" "$unset" | grep . | sort -u)
	[ "$(sed -n "s/^tracerbench: the box's configuration: \(CONFIG_[A-Z0-9_]*\): .*/\1/p" "$d/changes" | sort)" = "$names" ] ||
		{ echo "[box] the log does not name exactly the options changed: $names"; return 1; }
	n=$(echo "$names" | grep -c .)
	for o in PREEMPTIRQ_TRACEPOINTS IRQSOFF_TRACER PREEMPT_TRACER; do
		grep -qx "tracerbench: the box's configuration: CONFIG_$o: n -> y" "$d/changes" ||
			{ echo "[box] CONFIG_$o not named as set"; return 1; }
	done
	echo "[box] trace on the box's configuration: $n options changed"
	rm -rf "$d/b"
}

# check_box_systemd KERNEL: a box booted with systemd, as a Debian machine
# runs it (udev, journald, logind's sessions), on Debian's KERNEL: its
# PID 1 is systemd and an ssh command runs in a session of logind's;
# bench.sh --target measures KERNEL installed there, each switch made by
# systemd (systemctl kexec: its services stopped, then systemd-kexec), and
# leaves the box on its first kernel with nothing of the tool's there.
check_box_systemd()
{
	local dir=$TB_OUT/box-systemd out=$TB_OUT/box-systemd-bench rel img now rc
	local boots kexecs box_dir=$dir # box_runs's, for the kernel's version

	rel=$(tb_release "$1") && img=$(tb_vmlinuz "$1") || return 1
	TB_BOX_INIT=systemd TB_CPUS=2 TB_MEM=1G TB_ICOUNT=0 \
		tb_box_start "$dir" "$img" "$rel" || return 1
	now=$(tb_box_ssh "$dir" 'cat /proc/1/comm; grep -c "/session-[0-9]*\.scope$" /proc/self/cgroup
		uname -r; uname -v' </dev/null)
	{ [ "$(echo "$now" | sed -n 1p)" = systemd ] &&
		[ "$(echo "$now" | sed -n 2p)" = 1 ]; } ||
		{ echo "[box systemd] PID 1 and the session: $now"; tb_box_stop "$dir"; return 1; }
	echo "$now" | sed -n '3,4p' >"$dir/first"
	(box_bench "$dir" "$out" --rounds 1 --cpus 1 stock=installed:"$rel")
	rc=$?
	sed 's/^/[box systemd] /' "$out.log"
	[ $rc = 0 ] || { echo "[box systemd] bench.sh exited $rc"; tb_box_stop "$dir"; return 1; }
	{ box_runs "$out" stock 1 && box_is_first "$dir"; } ||
		{ tb_box_stop "$dir"; return 1; }
	tb_box_stop "$dir" || return 1
	# each boot says its welcome; each kexec is systemd's
	boots=$(grep -ac 'Welcome to .*Debian' "$dir/console")
	kexecs=$(grep -ac 'Starting .*systemd-kexec\.service' "$dir/console")
	{ [ "$kexecs" -ge 1 ] && [ "$kexecs" = $((boots - 1)) ]; } ||
		{ echo "[box systemd] $boots boots, $kexecs of them by systemd's kexec"; return 1; }
	echo "[box systemd] $boots boots, each after the first by systemctl kexec"
}
