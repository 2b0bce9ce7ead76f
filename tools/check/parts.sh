# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# make check's parts as jobs side by side, each into its log, their lines
# printed as they come. Sourced by tools/check.sh, which defines
# run_part; tools/unit/progress_test.py runs it with parts of its own.

# part_log JOB: the log of JOB (ARCH:PART, or host:checks)
part_log()
{
	echo "$TB_OUT/check-${1%%:*}-${1#*:}.log"
}

# part_line EVENT [I TEXT]: a line of the I-th part's log, whole, behind
# the part's name; one process, the follower, prints them all
part_line()
{
	[ "$1" = line ] && printf '[%s] %s\n' "${part_labels[$2]}" "$3"
	return 0
}

# stop_part_jobs: an interrupt's end of run_parts
part_jobs=()
part_follower=
stop_part_jobs()
{
	local pid

	for pid in "${part_jobs[@]}"; do
		kill -TERM -- -"$pid" 2>/dev/null
	done
	[ -z "$part_follower" ] || kill "${part_follower%% *}" 2>/dev/null
	wait
}

# run_parts JOB...: run_part ARCH PART for each JOB (ARCH:PART), TB_JOBS
# at a time in this order, each into its log (part_log). Each job runs
# in a process group of its own (set -m), so that an interrupt or a CI's
# TERM stops its kernel builds and guests too: without job control,
# background jobs ignore SIGINT. Meanwhile one follower prints every
# whole line of each log as it is written, after "[ARCH PART] ", so
# that no two lines mix, whichever parts write them at once; returns
# when every part has ended and its last line is printed.
run_parts()
{
	local job pid p logs=() running=() left=()
	local -a part_labels=()

	for job in "$@"; do
		logs+=("$(part_log "$job")")
		part_labels+=("${job%%:*} ${job#*:}")
	done
	# an earlier run's log holds no line of this one
	rm -f "${logs[@]}"
	tb_follow_start part_follower part_line "${logs[@]}" || return 1
	part_jobs=()
	trap 'stop_part_jobs; exit 130' INT TERM
	set -m
	for job in "$@"; do
		if [ ${#running[@]} -ge "$TB_JOBS" ]; then
			wait -n -p pid "${running[@]}"
			left=()
			for p in "${running[@]}"; do
				[ "$p" = "$pid" ] || left+=("$p")
			done
			running=("${left[@]}")
		fi
		echo "# ${job%%:*} ${job#*:}: started, log in $(part_log "$job")"
		run_part "${job%%:*}" "${job#*:}" >"$(part_log "$job")" 2>&1 &
		part_jobs+=($!)
		running+=($!)
	done
	[ ${#running[@]} = 0 ] || wait "${running[@]}"
	set +m
	trap - INT TERM
	tb_follow_stop "$part_follower"
	part_follower=
}
