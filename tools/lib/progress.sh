# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Progress while work runs: files followed as they grow, as tail -f
# does (a guest's output, a kernel's build log, make check's parts'
# logs), a whole line at a time. Sourced by tools/lib.sh.

# tb_follow STOP FN FILE...: follow the FILEs from their start as they
# are written, each that does not exist yet from when it does, and call
# FN line I TEXT for each whole line of the I-th file (from 0), a CR
# before its LF dropped (a serial console's); FN tick after each pass
# over the files, a few times a second. Ends once the file STOP exists,
# or the shell that started it is gone: a last pass reads what was
# written before, a last line without its LF is passed on whole, then
# FN end.
tb_follow()
{
	local stop=$1 fn=$2 i fd line='' last=0
	local -a files fds=() bufs=()

	shift 2
	files=("$@")
	while :; do
		# STOP first: whatever was written before it, this pass reads
		if [ -e "$stop" ] || ! kill -0 $$ 2>/dev/null; then
			last=1
		fi
		for i in "${!files[@]}"; do
			if [ -z "${fds[i]:-}" ]; then
				[ -f "${files[i]}" ] || continue
				{ exec {fd}<"${files[i]}"; } 2>/dev/null || continue
				fds[i]=$fd
				bufs[i]=
			fi
			while IFS= read -r -u "${fds[i]}" line; do
				line=${bufs[i]}$line
				bufs[i]=
				"$fn" line "$i" "${line%$'\r'}"
			done
			# the start of a line still being written
			bufs[i]+=$line
		done
		[ $last = 1 ] && break
		"$fn" tick
		sleep 0.25
	done
	for i in "${!fds[@]}"; do
		[ -z "${bufs[i]}" ] || "$fn" line "$i" "${bufs[i]%$'\r'}"
		fd=${fds[i]}
		exec {fd}<&-
	done
	"$fn" end
}

# tb_follow_start VAR FN FILE...: tb_follow FN FILE... in the background,
# its output where the caller's goes, its handle in VAR for
# tb_follow_stop. A file the caller truncates or replaces must be gone
# before: the follower opens what it finds.
tb_follow_start()
{
	local dir

	dir=$(mktemp -d) || return 1
	{ tb_follow "$dir/stop" "${@:2}"; rm -rf "$dir"; } </dev/null &
	printf -v "$1" '%s %s' "$!" "$dir"
}

# tb_follow_stop HANDLE: the follower ends once it has passed on every
# line written before; returns when it has.
tb_follow_stop()
{
	: >"${1#* }/stop"
	wait "${1%% *}"
}

# --- A guest's progress ---------------------------------------------------

# tb_boot_progress BOOT NBOOTS ROUNDS START KERNEL INITRD SUITES TIMEOUT
# OUTPREFIX [args]: tb_boot KERNEL ... OUTPREFIX [args], with the guest's
# progress lines (tools/guest/collect.sh's "# progress round R state S
# label L run I/N" in OUTPREFIX.ktap) on stderr as they come, each with
# an estimate of the time left: the boot is BOOT of NBOOTS, alike, of a
# benchmark of ROUNDS rounds that began at START ($SECONDS).
tb_boot_progress()
{
	local file=$9.ktap

	rm -f "$file"
	tb_run_progress "${@:1:4}" "$file" tb_boot "${@:5}"
}

# tb_run_progress BOOT NBOOTS ROUNDS START FILE CMD...: CMD, which writes
# a guest's or a box's progress lines into FILE, with those lines on
# stderr as they come (tb_boot_progress's)
tb_run_progress()
{
	local tb_bp_boot=$1 tb_bp_nboots=$2 tb_bp_rounds=$3 tb_bp_start=$4
	local h rc

	tb_follow_start h tb_boot_line "$5" >&2 || return 1
	"${@:6}"
	rc=$?
	tb_follow_stop "$h"
	return $rc
}

# tb_boot_line EVENT [I TEXT]: tb_boot_progress's line for a progress
# line of the guest's. The time left is the time so far times the runs
# left over the runs done, every boot taken to hold as many runs as
# this one.
tb_boot_line()
{
	local re='^# progress round ([0-9]+) state ([a-z]+) label ([^ ]+) run ([0-9]+)/([0-9]+)$'
	local run n ran all left=''

	[ "$1" = line ] && [[ $3 =~ $re ]] || return 0
	run=${BASH_REMATCH[4]}
	n=${BASH_REMATCH[5]}
	ran=$(((tb_bp_boot - 1) * n + run - 1))
	all=$((tb_bp_nboots * n))
	[ "$ran" -gt 0 ] &&
		left=", about $(((SECONDS - tb_bp_start) * (all - ran) / ran)) s left"
	echo "${tb_cli_name:-tracerbench}: round ${BASH_REMATCH[1]} of $tb_bp_rounds: ${BASH_REMATCH[3]} ${BASH_REMATCH[2]} (run $run of $n$left)"
}

# --- A kernel build's progress --------------------------------------------

# tb_build_progress LOG CMD...: CMD, a kernel build writing its log LOG
# (kbuild's short lines), with the build's phase (configure, compile,
# link, image) and its time so far on stderr: on a terminal a line
# redrawn every 2 s, else a line as each phase begins. The log must be
# new, or hold no earlier build.
tb_build_progress()
{
	local tb_bb_tty=0 tb_bb_t0=$SECONDS tb_bb_phase=0 tb_bb_shown=-1 h rc

	[ -t 2 ] && tb_bb_tty=1
	tb_follow_start h tb_build_line "$1" >&2 || return 1
	"${@:2}"
	rc=$?
	tb_follow_stop "$h"
	return $rc
}

# tb_build_phase LINE: the build phase a line of a kernel build's log
# shows, in tb_bb_p: 1 to 4 for configure, compile, link and image, 0
# for none (a kbuild line every make prints, a message)
tb_build_phase()
{
	case $1 in
	"  GEN "*" Makefile")			tb_bb_p=0 ;;
	"  "[A-Z]*" arch/"*/boot/dts/*)		tb_bb_p=2 ;;
	"  "[A-Z]*" arch/"*/boot/* | "Kernel: "*)	tb_bb_p=4 ;;
	"  "[A-Z]*" "vmlinux* | "  "[A-Z]*" ".tmp_vmlinux* | \
	"  "[A-Z]*" ".vmlinux* | "  "[A-Z]*" System.map")
						tb_bb_p=3 ;;
	*" scripts/kconfig/"* | *" scripts/basic/"* | "Using "*" as base" | \
	"Merging "* | "Value of CONFIG_"* | *"configuration written to"*)
						tb_bb_p=1 ;;
	"  "[A-Z]*"  "*)			tb_bb_p=2 ;;
	*)					tb_bb_p=0 ;;
	esac
}

# tb_build_line EVENT [I TEXT]: tb_build_progress's follower: the phase
# moves on (never back) by the log's lines
tb_build_line()
{
	local tb_bb_p names=(starting configuring compiling linking "making the image")

	case $1 in
	line)
		tb_build_phase "$3"
		[ "$tb_bb_p" -gt "$tb_bb_phase" ] || return 0
		tb_bb_phase=$tb_bb_p ;;
	tick)
		# on a terminal, the time every 2 s
		[ "$tb_bb_tty" = 1 ] &&
			[ $((SECONDS - tb_bb_t0)) -ge $((tb_bb_shown + 2)) ] ||
			return 0 ;;
	end)
		# the last time shown, and the line ended
		[ "$tb_bb_tty" = 1 ] && [ "$tb_bb_shown" -ge 0 ] || return 0 ;;
	esac
	if [ "$tb_bb_tty" = 1 ]; then
		tb_bb_shown=$((SECONDS - tb_bb_t0))
		printf '\rtracerbench: kernel build: %s, %d s\033[K' \
			"${names[tb_bb_phase]}" "$tb_bb_shown"
		[ "$1" = end ] && echo
	else
		echo "tracerbench: kernel build: ${names[tb_bb_phase]}, at $((SECONDS - tb_bb_t0)) s"
	fi
	return 0
}
