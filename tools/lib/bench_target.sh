# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash disable=SC2154 # bench.sh's variables
# bench.sh --target: the boots of its rounds on a test box reached by
# ssh (tools/lib/target.sh), each a switch (kexec, or grub-reboot and a
# reboot) into one of the kernels sent.
# Sourced by tools/bench.sh alone: these functions work on its results
# directory ($out), its kernels (TB_SPECS, boots, boot_labels) and its
# options; run_rounds (bench.sh) calls target_boot for each boot.

# target_fail WHAT: the box's boot failed: say so with what was kept,
# put the box back on its own kernel if it answers, and exit 1
target_fail()
{
	echo "bench.sh: $*" >&2
	finish_partial
	target_return
	echo "bench.sh: the runs that came back are in $out: bench.sh --resume $out goes on from the first missing one" >&2
	exit 1
}

# finish_partial: the JSON of the runs so far, for report.py
finish_partial()
{
	sh "$TB_TOP/tools/guest/json.sh" "$out" >"$out/results.json.tmp" 2>/dev/null &&
		mv "$out/results.json.tmp" "$out/results.json"
}

# target_return: the box back on the kernel it ran at the start, unless
# it is on it already; the tool's kernels removed from it
target_return()
{
	local now first rc

	# the command line too: --cmdline may have booted its own kernel
	# with another
	first=$(sed '3s/^BOOT_IMAGE=[^ ]* //' "$out/boots/first")
	now=$(TB_SSH_TIMEOUT=30 tb_ssh 'uname -r; uname -v; cat /proc/cmdline' \
		</dev/null 2>/dev/null | sed '3s/^BOOT_IMAGE=[^ ]* //')
	if [ -z "$now" ]; then
		echo "bench.sh: the box does not answer ssh: it is on no kernel of the tool's to return from" >&2
		return 1
	fi
	if [ "$now" = "$first" ]; then
		echo "bench.sh: the box is on its own kernel, $(head -n 1 "$out/boots/first")" >&2
	else
		echo "bench.sh: switching the box back to its own kernel, $(head -n 1 "$out/boots/first")" >&2
		target_do "$out/boots/return" tb_target_return "$out/boots/first"
		rc=$?
		cat "$out/boots/return" >&2
		[ $rc = 0 ] || return 1
		tb_ssh_share
	fi
	target_home=1
	# if they cannot be removed now, the EXIT trap tries again
	tb_target_clean && target_sent=0
	return 0
}

# target_do OUT CMD...: CMD (a function: tb_ssh, tb_target_switch) with
# its output into OUT, run in the background with SIGINT ignored
# (tb_uncut), so that Ctrl-C reaches only this script (on_interrupt)
# and a step on the box is never cut short: not a switch under way, not
# a run. Its status.
target_do()
{
	local out=$1

	shift
	tb_uncut "$@" </dev/null >"$out" 2>&1
}


# target_collect KTAP ARGS: collect.sh on the box, its output into
# KTAP.ktap and its errors into KTAP.log (target_do's way); it stops
# before its next run once Ctrl-C asked (on_interrupt)
target_collect()
{
	local d=$TB_TARGET_DIR

	tb_uncut tb_ssh "rm -rf $d/run && sh $d/tools/collect.sh --emit --stop-file $d/stop $2 $d/run" \
		</dev/null >"$1.ktap" 2>"$1.log"
}

on_interrupt()
{
	[ "$stop_asked" = 1 ] && return
	stop_asked=1
	echo "bench.sh: stopping after the step under way (a kernel switch, a run); the box then goes back to its own kernel" >&"$bench_stderr"
	# in a subshell: a job of this shell's would take $! from the step's
	# (tb_uncut)
	( trap '' INT
	  TB_SSH_TIMEOUT=20 tb_ssh "touch $TB_TARGET_DIR/stop" </dev/null >/dev/null 2>&1 & )
}

# target_boot FIRST N POS IMAGE BOOT NBOOTS START: run_rounds's boot on
# the box: the switch (--switch) to the kernel, checked by its uname, the
# box's state, the module loaded, collect.sh's runs, the module unloaded
target_boot()
{
	local first=$1 n=$2 pos=$3 labels=${boot_labels[$4]} l image initrd
	local d=$TB_TARGET_DIR rel ver out_boot why rc

	l=${labels%%,*}
	out_boot=$out/boots/r$first-$l
	boot_line "$first" "$n" "$labels" "$5" "$6" "$7" "switching the box to"
	target_home=0
	rel=${TB_SPECS[$l.release]} ver=${TB_SPECS[$l.version]}
	if [ "${TB_SPECS[$l.kind]}" = installed ]; then
		image=/boot/vmlinuz-$rel initrd=${TB_SPECS[$l.initrd]}
	else
		image=$d/kernels/$l/vmlinuz initrd=$target_initrd
	fi
	# Ctrl-C since the boot before: no switch
	[ "$stop_asked" = 0 ] || return 0
	target_do "$out_boot.switch" tb_target_switch "$image" "$initrd" \
		"$target_cmdline" "$rel" "$ver" ||
		target_fail "kernel $labels, round $first: $(sed 's/^tracerbench: //' "$out_boot.switch")"
	# Ctrl-C during the switch: nothing more on this kernel, whatever
	# became of the stop file touched on the box (whether it outlived
	# the old kernel depends on when it came); run_target takes the
	# box back
	[ "$stop_asked" = 0 ] || return 0
	tb_ssh_share
	# a box with systemd goes on starting its services after sshd
	# answers: its state once they started (a minute at most)
	target_do "$out_boot.machine" tb_ssh \
		"sh $d/tools/machine.sh --settle 60 --cpus ${cpus:-all}" ||
		target_fail "kernel $labels, round $first: the box's state: $(tail -n 1 "$out_boot.machine")"
	show_warnings "$out_boot.machine" warning
	target_do "$out_boot.log" tb_ssh "insmod $d/kernels/$l/tracerbench.ko" ||
		target_fail "kernel $labels, round $first: the module does not load: $(cat "$out_boot.log")"
	rm -f "$out_boot.ktap"
	tb_run_progress "$5" "$6" "$rounds" "$7" "$out_boot.ktap" \
		target_collect "$out_boot" "$(collect_args "$first" "$n" "$labels") --skip=$(runs_present "$first" "$n" "$labels")"
	rc=$?
	take_runs "$out_boot.ktap" "$pos" 2>/dev/null
	target_boot_warnings "$out_boot"
	[ $rc = 0 ] ||
		target_fail "kernel $labels, round $first: collect.sh failed or the connection dropped (exit $rc): $(tail -n 3 "$out_boot.log" | tr '\n' ' ')"
	target_do "$out_boot.rmmod" tb_ssh "rmmod tracerbench" ||
		target_fail "kernel $labels, round $first: the module does not unload: $(cat "$out_boot.rmmod")"
	rm -f "$out_boot.rmmod"
}

# target_boot_warnings OUT_BOOT: the box's warnings at this boot
# (OUT_BOOT.machine's warning.WHAT), in the meta of each run it gave,
# as machine_warning.WHAT: a kernel may set the governor, turbo or SMT
# otherwise than the box's own, and report.py names the kernel so. Not
# the load's: each run's meta has the load as it began.
target_boot_warnings()
{
	local m

	while read -r m; do
		sed -n -e '/^warning\.load /d' -e 's/^warning\./machine_warning./p' \
			"$1.machine" >>"$m"
	done < <(run_metas "$1.ktap")
}

# target_check_options: bench.sh's options of --target checked against
# the others; the switch, kexec by default, for tools/lib/target.sh
target_check_options()
{
	local why

	[ -z "$kcmdline" ] || [ -n "$target" ] ||
		tb_usage_error "--cmdline applies to --target alone"
	[ "$box_config" = 0 ] || [ -n "$target" ] ||
		tb_usage_error "--box-config applies to --target alone"
	[ -z "$switch" ] || [ -n "$target" ] ||
		tb_usage_error "--switch applies to --target alone"
	case ${switch:=kexec} in
	kexec | grub-reboot) ;;
	*)	tb_usage_error "--switch wants kexec or grub-reboot, not '$switch'" ;;
	esac
	TB_TARGET_SWITCH=$switch
	[ "$switch" = kexec ] || [ -z "$kcmdline" ] ||
		why=$(tb_grub_cmdline_ok "$kcmdline" 2>&1) ||
		tb_usage_error "${why#tracerbench: }"
}

# target_lock: the box's directory taken for this run before anything
# is built or sent, so that a run against a box in use ends at once;
# freed as the run ends, whichever way (an EXIT trap), if the box is on
# its own kernel then (target_home), with the kernels sent to it
# removed if they are still there (target_sent: a run that stopped
# between sending them and its first switch)
target_lock()
{
	target_owner="$HOSTNAME $$ since $(date -u +%Y-%m-%dT%H:%M:%SZ), results in $out"
	tb_target_lock "$target_owner" || die "the box at $target cannot be used (see above)"
	target_home=1 target_sent=0 target_share=
	trap target_end EXIT
	# the socket of the connection the commands of a boot share
	# (tb_ssh_share), short enough for one whatever --out is
	target_share=$(mktemp -d "${TMPDIR:-/tmp}/tb-ssh.XXXXXX") ||
		die "cannot make a directory in ${TMPDIR:-/tmp}"
	# shellcheck disable=SC2034 # read by tools/lib/target.sh
	TB_SSH_SHARE=$target_share/socket
}

# target_end: the run's end on the box, whichever way (the EXIT trap):
# a step's file left by an exit in it removed (tb_uncut_abandon),
# its lock freed (target_unlock), its shared connection closed
target_end()
{
	tb_uncut_abandon
	target_unlock
	tb_ssh_unshare
	[ -z "$target_share" ] || rm -rf "$target_share"
}

# target_unlock: the box's directory freed for another run, as this one
# ends, whichever way (an EXIT trap)
target_unlock()
{
	if [ "$target_home" != 1 ]; then
		echo "bench.sh: the box stays locked, as it may not be on its own kernel: once it is, bench.sh --resume $out ends the run and cleans up, or remove $TB_TARGET_DIR/lock there$([ "$TB_TARGET_SWITCH" = kexec ] || echo ", the tool's $TB_TARGET_GRUB/custom.cfg, and move $TB_TARGET_DIR/grubenv.found back to $TB_TARGET_GRUB/grubenv")" >&2
		return
	fi
	[ "$target_sent" = 0 ] || TB_SSH_TIMEOUT=20 tb_target_clean >/dev/null 2>&1 ||
		echo "bench.sh: could not remove the kernels sent to the box: remove $TB_TARGET_DIR/kernels there" >&2
	TB_SSH_TIMEOUT=20 tb_target_unlock "$target_owner" >/dev/null 2>&1 ||
		echo "bench.sh: could not free the box's lock: remove $TB_TARGET_DIR/lock there" >&2
}

# target_prepare: the box's kernel and state recorded before the first
# switch, the tools and every kernel's files sent to its directory; the
# kernels' releases and versions known, to check each boot by
target_prepare()
{
	local b l first_rel why own

	echo "bench.sh: the box at $target: recording its kernel and state" >&2
	tb_target_record "$out/boots/now" ||
		die "the box at $target cannot be used (see above)"
	rm -f "$out/boots/now.why"
	tb_ssh_share
	# --resume: the box's own kernel is the one it ran first
	if [ -n "$resume" ] && [ -f "$out/boots/first" ]; then
		cmp -s <(head -n 2 "$out/boots/now") <(head -n 2 "$out/boots/first") ||
			die "the box runs $(head -n 2 "$out/boots/now" | paste -sd ' '), not its own kernel of the first run, $(head -n 2 "$out/boots/first" | paste -sd ' '): put it back on it to resume"
		rm "$out/boots/now"
	else
		mv "$out/boots/now" "$out/boots/first"
	fi
	first_rel=$(head -n 1 "$out/boots/first")
	own=$(tb_cmdline_own "$(sed -n 3p "$out/boots/first")")
	target_cmdline=${kcmdline:-$own}
	# the way back too
	[ "$TB_TARGET_SWITCH" = kexec ] || tb_grub_cmdline_ok "$own" ||
		die "the box's own command line cannot go back through GRUB (see above)"
	# a kernel sent boots with the box's own initrd: the rig's kernels
	# need no module to mount the root, and the box's init finds it
	target_initrd=
	tb_ssh "[ -f /boot/initrd.img-$first_rel ]" </dev/null &&
		target_initrd=/boot/initrd.img-$first_rel
	# a stop asked for by an earlier Ctrl-C is over
	tb_ssh "rm -f $TB_TARGET_DIR/stop" </dev/null ||
		die "cannot reach the box at $target"
	why=$(for f in collect.sh json.sh machine.sh; do
		tb_target_put "$TB_TOP/tools/guest/$f" "$TB_TARGET_DIR/tools/$f" || exit 1
	done 2>&1) || die "cannot copy the tools to the box: $why"
	tb_ssh "sh $TB_TARGET_DIR/tools/machine.sh --prefix machine_ --settle 60 --cpus ${cpus:-all}" \
		</dev/null >"$out/boots/machine" ||
		die "cannot read the box's state: $(tail -n 1 "$out/boots/machine")"
	# every kernel checked before any is sent
	for b in "${boots[@]}"; do
		l=${boot_labels[$b]%%,*}
		if [ "${TB_SPECS[$l.kind]}" = installed ]; then
			TB_SPECS[$l.release]=${TB_SPECS[$l.base]#installed:}
			TB_SPECS[$l.version]=
			TB_SPECS[$l.initrd]=
			tb_ssh "[ -f /boot/vmlinuz-${TB_SPECS[$l.release]} ]" </dev/null ||
				die "kernel $l: the box has no /boot/vmlinuz-${TB_SPECS[$l.release]}"
			tb_ssh "[ -f /boot/initrd.img-${TB_SPECS[$l.release]} ]" </dev/null &&
				TB_SPECS[$l.initrd]=/boot/initrd.img-${TB_SPECS[$l.release]}
		else
			{ read -r "TB_SPECS[$l.release]" &&
				read -r "TB_SPECS[$l.version]"; } \
				< <(tb_image_uname "$b") ||
				die "kernel $l: $b is no x86 kernel image"
		fi
	done
	target_sent=1
	for b in "${boots[@]}"; do
		l=${boot_labels[$b]%%,*}
		if [ "${TB_SPECS[$l.kind]}" = installed ]; then
			tb_target_put "$(bench_module "$l")" \
				"$TB_TARGET_DIR/kernels/$l/tracerbench.ko" ||
				die "cannot copy kernel $l's module to the box"
		else
			echo "bench.sh: sending kernel $l (${TB_SPECS[$l.release]}) to the box" >&2
			tb_target_stage "$l" "$b" "" "$(bench_module "$l")" ||
				die "cannot copy kernel $l to the box"
		fi
	done
}

# target_base_config: with --box-config, the configuration of the
# kernel the box runs, the base of the variants built for it
# (TB_BASE_CONFIG, tools/lib/kernel.sh): read once, kept in boots/ for
# --resume
target_base_config()
{
	local f=$out/boots/box.config

	[ "$box_config" = 1 ] || return 0
	if [ ! -s "$f" ]; then
		echo "bench.sh: the box at $target: reading its kernel's configuration" >&2
		tb_target_config "$f" || die "--box-config: see above"
	fi
	TB_BASE_CONFIG=$f
}

# target_config_log: what the variants' fragments changed in the box's
# configuration, from each build's log
target_config_log()
{
	local l

	[ -n "$TB_BASE_CONFIG" ] || return 0
	for l in "${TB_SPEC_LABELS[@]}"; do
		case ${TB_SPECS[$l.kind]} in
		builtin | patched | tree)
			grep -h "^tracerbench: the box's configuration: " \
				"${TB_SPECS[$l.kdir]}/build.log" 2>/dev/null |
				sed "s/^tracerbench: /bench.sh: kernel $l: /" >&2 ;;
		esac
	done
}

run_target()
{
	target_lock
	target_base_config
	prepare_kernels
	target_config_log
	target_prepare
	write_env
	show_warnings "$out/env" machine_warning
	trap on_interrupt INT
	run_rounds target_boot
	finish_partial
	target_return ||
		die "the box did not go back to its own kernel: it is on $(tb_target_uname | head -n 1)"
	trap - INT
	stopped_as_asked && exit 1
	finish
	echo "bench.sh: results in $out ($((SECONDS - started)) s)" >&2
}

