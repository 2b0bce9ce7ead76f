# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The cache (TB_CACHE) shared by every process of the rig on the machine:
# its entries, each a directory or file beside its lock file ENTRY.lock,
# built once and shared, whatever else runs. Sourced by tools/lib.sh.
#
# - An entry is built under an exclusive flock(1) of its lock file, in a
#   temporary name beside it (ENTRY.tmp-PID), and renamed to ENTRY when
#   complete: a complete entry is whole, with its completion marker
#   (which the old builds in place left last, and still tell apart).
# - Whoever uses an entry holds a shared lock of it until it ends, so
#   that nothing rebuilds (removes) it meanwhile: one entry is built
#   once, and a second process that needs it waits, saying so, then
#   takes it as it is.
# - What a build that died left (ENTRY.tmp-*, ENTRY.old-*), and an
#   entry without its marker, are removed or replaced only under the
#   exclusive lock, when nobody uses them.
# Lock files stay: removing one while a process waits on it would give
# two processes the lock of one entry.

# Whose holds these are: this process (a script's $$), unless a shell
# of a script that runs several jobs side by side names itself
# (make check's parts, TB_CACHE_OWNER=$BASHPID): a hold ends when its
# owner does.
tb_cache_owner()
{
	echo "${TB_CACHE_OWNER:-$$}"
}

# tb_cache_waiting ENTRY: say, on stderr, what ENTRY waits for: the
# process that builds it, whose pid its lock file holds while it does,
# or those that use it
tb_cache_waiting()
{
	local pid

	# a builder writes its pid once it has the lock: give it a moment
	for _ in 1 2 3 4 5; do
		pid=$(head -c 16 "$1.lock" 2>/dev/null | tr -cd 0-9)
		[ -z "$pid" ] || break
		sleep 0.1
	done
	if [ -n "$pid" ] && [ -d "/proc/$pid" ]; then
		echo "tracerbench: waiting for $1: pid $pid is building it" >&2
	else
		echo "tracerbench: waiting for $1: another process is using it" >&2
	fi
}

# tb_cache_holder ENTRY OWNER [quiet]: (in a command substitution) a
# process of its own that takes a shared lock of ENTRY (saying so if it
# waits, unless quiet), prints its pid once it has it, and keeps it
# until OWNER ends. It keeps no other descriptor: not the locks its
# caller holds, nor a pipe a caller reads to its end.
tb_cache_holder()
{
	local entry=$1 owner=$2 quiet=${3:-}

	exec </dev/null
	(
		exec {lfd}<"$entry.lock" || exit 1
		for f in /proc/"$BASHPID"/fd/*; do
			n=${f##*/}
			[ "$n" -gt 2 ] && [ "$n" != "$lfd" ] && eval "exec $n<&-"
		done
		if [ -n "$quiet" ]; then
			flock -s "$lfd" || exit 1
		else
			tb_cache_lock "$lfd" -s "$entry" || exit 1
		fi
		echo "$BASHPID"
		exec >/dev/null 2>&1
		exec -a "tracerbench-hold $entry" tail --pid="$owner" -f /dev/null
	) &
}

# tb_cache_hold ENTRY [quiet]: a shared lock of ENTRY, held until the
# owner (tb_cache_owner) ends; once a shell. Without a lock file, in a
# cache this user cannot write, there is nothing to hold, nor anyone to
# build.
declare -gA TB_CACHE_HELD=()
tb_cache_hold()
{
	local entry=$1 quiet=${2:-} pid

	pid=${TB_CACHE_HELD[$entry]:-}
	[ -n "$pid" ] && [ -d "/proc/$pid" ] && return 0
	[ -e "$entry.lock" ] || { : >>"$entry.lock"; } 2>/dev/null || return 0
	pid=$(tb_cache_holder "$entry" "$(tb_cache_owner)" "$quiet")
	[ -n "$pid" ] || {
		echo "tracerbench: cannot lock $entry.lock" >&2
		return 1
	}
	TB_CACHE_HELD[$entry]=$pid
}

# tb_cache_unhold ENTRY: end the owner's holds of ENTRY, before it
# rebuilds ENTRY itself (an exclusive lock would wait on them forever)
tb_cache_unhold()
{
	local entry=$1 owner f pid args pids=()

	owner=$(tb_cache_owner)
	for f in /proc/[0-9]*/cmdline; do
		{ mapfile -t -d '' args <"$f"; } 2>/dev/null || continue
		[ "${args[*]}" = "tracerbench-hold $entry --pid=$owner -f /dev/null" ] ||
			continue
		pid=${f#/proc/}
		pids+=("${pid%/cmdline}")
	done
	unset "TB_CACHE_HELD[$entry]"
	[ ${#pids[@]} -gt 0 ] || return 0
	kill "${pids[@]}" 2>/dev/null
	for pid in "${pids[@]}"; do
		while [ -d "/proc/$pid" ]; do
			sleep 0.1
		done
	done
}

# tb_cache_publish TMP ENTRY: TMP, a directory, renamed to ENTRY; an
# ENTRY there already (one without its marker: under the exclusive lock)
# is renamed aside first, then removed
tb_cache_publish()
{
	local tmp=$1 entry=$2 old=$2.old-$BASHPID

	if [ -e "$entry" ]; then
		mv -T "$entry" "$old" || return 1
	fi
	mv -T "$tmp" "$entry" || return 1
	rm -rf "$old"
}

# tb_cache_build WAIT ENTRY DONE MAKE [ARG...]: under ENTRY's exclusive
# lock, unless DONE ENTRY (another process built it meanwhile), MAKE TMP
# ARG... builds it in TMP, a name beside it that does not exist yet;
# TMP, if there is one then, is published as ENTRY: complete, or else
# without its marker, so that what failed is there to read, rebuilt by
# the next that needs it. Where another process has the lock: without
# WAIT, say so and return 2; with it, wait for the lock, silently.
tb_cache_build()
{
	local wait=$1 entry=$2 done=$3 make=$4 fd tmp rc

	shift 4
	mkdir -p "$(dirname "$entry")" || return 1
	tb_cache_unhold "$entry"
	exec {fd}<>"$entry.lock" || return 1
	if ! flock -x -n "$fd"; then
		if [ -z "$wait" ]; then
			tb_cache_waiting "$entry"
			exec {fd}<&-
			return 2
		fi
		flock -x "$fd" || { exec {fd}<&-; return 1; }
	fi
	if "$done" "$entry"; then
		exec {fd}<&-
		return 0
	fi
	echo "$$" >"$entry.lock"
	# what builders that died left: none builds it now but this one
	rm -rf "$entry".tmp-* "$entry".old-*
	tmp=$entry.tmp-$BASHPID
	# the lock is the shell's alone: kept from what MAKE runs, which
	# may leave a process behind (git's gc --auto, detached)
	"$make" "$tmp" "$@" {fd}<&-
	rc=$?
	if [ -e "$tmp" ]; then
		tb_cache_publish "$tmp" "$entry" || rc=1
	fi
	: >"$entry.lock"
	exec {fd}<&-
	return $rc
}

# tb_cache_get ENTRY DONE MAKE [ARG...]: ENTRY complete, as DONE ENTRY
# says, built by MAKE (tb_cache_build) if it is not, and held
# (tb_cache_hold). A check before the hold would let a rebuild between
# the two go unseen: DONE is asked again once held. A process that finds
# another building the entry says so, once, and waits for a shared lock
# of it, not an exclusive one, so that it keeps the builder from nothing
# when the build is done; only if the entry is still not complete then
# does it wait for the exclusive lock, to build it itself.
tb_cache_get()
{
	local entry=$1 done=$2 n wait=''

	for n in 1 2 3 4; do
		if "$done" "$entry"; then
			tb_cache_hold "$entry" || return 1
			"$done" "$entry" && return 0
		fi
		tb_cache_build "$wait" "$@"
		case $? in
		0)	;;
		2)	tb_cache_hold "$entry" quiet || return 1
			"$done" "$entry" && return 0
			tb_cache_unhold "$entry"
			wait=1 ;;
		*)	return 1 ;;
		esac
	done
	echo "tracerbench: $entry: built, and removed again before it could be used" >&2
	return 1
}

# tb_cache_lock FD MODE ENTRY: flock MODE (-s or -x) of ENTRY's lock
# file, open as FD, saying so first if it has to wait
tb_cache_lock()
{
	flock "$2" -n "$1" && return 0
	tb_cache_waiting "$3"
	flock "$2" "$1"
}

# tb_cache_file FILE FRESH MAKE [ARG...]: print FILE, a cached file, once
# FRESH FILE says it is up to date, made first if it is not, by MAKE
# ARG... on stdout under FILE's exclusive lock; it replaces FILE by a
# rename, which a reader that has FILE open does not see. Where this
# user cannot write the lock file, FILE as it is, or MAKE's output, not
# kept.
tb_cache_file()
{
	local file=$1 fresh=$2 make=$3 fd tmp='' rc=0

	shift 3
	if ! { exec {fd}<>"$file.lock"; } 2>/dev/null; then
		if "$fresh" "$file"; then
			cat "$file"
		else
			"$make" "$@"
		fi
		return
	fi
	if "$fresh" "$file"; then
		tb_cache_lock "$fd" -s "$file"
		if "$fresh" "$file"; then
			cat "$file"
			rc=$?
			exec {fd}<&-
			return $rc
		fi
		flock -u "$fd"
	fi
	tb_cache_lock "$fd" -x "$file"
	if ! "$fresh" "$file"; then
		echo "$$" >"$file.lock"
		rm -f "$file".tmp-*
		tmp=$(mktemp "$file.tmp-XXXXXX") &&
			"$make" "$@" >"$tmp" {fd}<&- && mv -f "$tmp" "$file" ||
			rc=1
		[ -z "$tmp" ] || rm -f "$tmp"
		: >"$file.lock"
	fi
	[ $rc = 0 ] && cat "$file"
	rc=$?
	exec {fd}<&-
	return $rc
}
