# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# A machine reached over ssh (bench.sh --target, issue 33): its address
# and the commands run on it. Sourced by tools/lib.sh.

# tb_target_parse URL: ssh://[USER@]HOST[:PORT] into TB_TARGET_USER
# (default root), TB_TARGET_HOST and TB_TARGET_PORT (default 22); an
# IPv6 address goes in brackets, ssh://[::1]:2222. 1, saying why, for
# anything else.
tb_target_parse()
{
	local url=$1 rest user host port=22

	rest=${url#ssh://}
	[ "$rest" = "$url" ] && rest=
	user=root
	case $rest in
	*@*)	user=${rest%%@*} rest=${rest#*@} ;;
	esac
	case $rest in
	\[*\]:*)	host=${rest%%]*} host=${host#[} port=${rest##*]:} ;;
	\[*\])		host=${rest#[} host=${host%]} ;;
	*:*)		host=${rest%%:*} port=${rest#*:} ;;
	*)		host=$rest ;;
	esac
	if ! [[ $user =~ ^[A-Za-z0-9._-]+$ && $host =~ ^[A-Za-z0-9.:_-]+$ &&
		$port =~ ^[0-9]+$ ]] || [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
		echo "tracerbench: '$url' is no ssh://[USER@]HOST[:PORT]" >&2
		return 1
	fi
	TB_TARGET_USER=$user
	TB_TARGET_HOST=$host
	TB_TARGET_PORT=$port
}

TB_TARGET_SSH_OPTS=()

# tb_ssh CMD...: run CMD (one string, as ssh takes it) on the target, in
# batch mode (no password prompt). TB_TARGET_KEY, if set, is the only
# key offered; TB_TARGET_SSH_OPTS (an array) adds ssh options, as the
# box's (no host key kept for a throwaway box) and a bound on the
# connection. TB_SSH_TIMEOUT, if set, bounds the whole command (seconds).
tb_ssh()
{
	local key=() t=()

	[ -n "${TB_TARGET_KEY:-}" ] &&
		key=(-i "$TB_TARGET_KEY" -o IdentitiesOnly=yes)
	[ -n "${TB_SSH_TIMEOUT:-}" ] && t=(timeout -k 5 "$TB_SSH_TIMEOUT")
	"${t[@]}" ssh -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=5 \
		-o ServerAliveCountMax=6 "${key[@]}" \
		"${TB_TARGET_SSH_OPTS[@]}" -p "$TB_TARGET_PORT" \
		-l "$TB_TARGET_USER" "$TB_TARGET_HOST" "$@"
}
