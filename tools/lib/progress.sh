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
	local tb_bp_boot=$1 tb_bp_nboots=$2 tb_bp_rounds=$3 tb_bp_start=$4
	local h rc

	shift 4
	rm -f "$5".ktap
	tb_follow_start h tb_boot_line "$5".ktap >&2 || return 1
	tb_boot "$@"
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
