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
# the socket of the connection tb_ssh's commands share (tb_ssh_share);
# none unless the caller names one
TB_SSH_SHARE=

# tb_ssh CMD...: run CMD (one string, as ssh takes it) on the target, in
# batch mode (no password prompt). TB_SSH_CONFIG, if set, is the ssh
# configuration file to use instead of the user's (ssh -F);
# TB_TARGET_KEY, if set, the only key offered; TB_TARGET_SSH_OPTS (an
# array) adds ssh options, as the box's (no host key kept for a
# throwaway box) and a bound on the connection. TB_SSH_TIMEOUT, if set,
# bounds the whole command, and TB_SSH_CONNECT (default 10) the
# connection's start (seconds).
tb_ssh()
{
	local t=() share=(-o ControlPath=none) run=()

	[ -n "${TB_SSH_TIMEOUT:-}" ] && t=(timeout -k 5 "$TB_SSH_TIMEOUT")
	if [ -n "${TB_SSH_SHARE:-}" ] && [ "${TB_SSH_OPEN:-}" = 1 ]; then
		# the shared connection itself, in the background once it is
		# up (-f), its socket ready by then; quiet, as it may be cut
		# when a kernel goes; one left behind (its caller killed)
		# ends after ten minutes unused
		share=(-o ControlPath="$TB_SSH_SHARE" -o ControlMaster=yes
			-o ControlPersist=10m -o LogLevel=QUIET -f -N)
	elif tb_ssh_shared; then
		share=(-o ControlPath="$TB_SSH_SHARE" -o ControlMaster=no)
		# A client of a shared connection handles SIGINT itself, and
		# ends on it where its caller ignores it, as bench.sh's steps
		# on the box do, which a Ctrl-C must not cut: in a session of
		# its own, no terminal's Ctrl-C reaches it
		run=(setsid -w)
	fi
	tb_ssh_to
	"${t[@]}" "${run[@]}" ssh -o BatchMode=yes -o ConnectTimeout="${TB_SSH_CONNECT:-10}" -o ServerAliveInterval=5 \
		-o ServerAliveCountMax=6 "${share[@]}" "${TB_SSH_TO[@]}" "$@"
}

# tb_ssh_to: what names the target to ssh, in TB_SSH_TO (an array), for
# tb_ssh and tb_ssh_control alike: the configuration file, the key, the
# box's options, the port, the user and, last, the host
tb_ssh_to()
{
	TB_SSH_TO=()
	[ -z "${TB_SSH_CONFIG:-}" ] || TB_SSH_TO=(-F "$TB_SSH_CONFIG")
	[ -z "${TB_TARGET_KEY:-}" ] ||
		TB_SSH_TO+=(-i "$TB_TARGET_KEY" -o IdentitiesOnly=yes)
	TB_SSH_TO+=("${TB_TARGET_SSH_OPTS[@]}" -p "$TB_TARGET_PORT"
		-l "$TB_TARGET_USER" "$TB_TARGET_HOST")
}

# One connection for the commands of a boot: OpenSSH's connection
# sharing (ControlMaster), with its socket at TB_SSH_SHARE, once
# tb_ssh_share opened it. A new connection costs a key exchange, which
# is slow on a slow box: 1 s on the QEMU box of make check, against 0.1 s
# for a command on a shared one. Closed before every kernel switch
# (tb_target_switch), so that no command waits on a connection to a
# kernel that went. Without one, tb_ssh connects anew each time, and
# shares none the user's ssh configuration may set up, for the same
# reason. A connection that cannot be opened is no error: the commands
# then connect each on its own, and say why they cannot.
tb_ssh_share()
{
	[ -n "${TB_SSH_SHARE:-}" ] || return 0
	tb_ssh_unshare
	# It lives on after this shell, so it holds none of its files open
	# beyond its own, which would keep a pipe the caller reads from
	# ending: bench.sh's stderr, say, kept for a Ctrl-C's message
	(
		for fd in "/proc/$BASHPID/fd/"*; do
			fd=${fd##*/}
			[ "$fd" -le 2 ] || eval "exec $fd>&-"
		done
		TB_SSH_OPEN=1 tb_ssh </dev/null >/dev/null 2>&1
	) || true
}

# tb_ssh_control CMD: ssh -O CMD (check, exit) to the shared connection;
# it connects to nothing else, whatever the user's configuration says.
# In a session of its own, as tb_ssh's clients of the connection: it
# handles SIGINT itself, and a Ctrl-C would fail a check of a live one.
tb_ssh_control()
{
	tb_ssh_to
	setsid -w ssh -o BatchMode=yes -o ControlMaster=no -o ControlPath="$TB_SSH_SHARE" \
		-O "$1" "${TB_SSH_TO[@]}" </dev/null >/dev/null 2>&1
}

# tb_ssh_shared: the shared connection is open; the socket of one that
# ended without removing it (killed) removed, as each client would
# otherwise say it cannot reach it
tb_ssh_shared()
{
	[ -n "${TB_SSH_SHARE:-}" ] && [ -S "$TB_SSH_SHARE" ] || return 1
	tb_ssh_control check && return 0
	rm -f "$TB_SSH_SHARE"
	return 1
}

# tb_ssh_unshare: the shared connection, if open, closed
tb_ssh_unshare()
{
	[ -n "${TB_SSH_SHARE:-}" ] && [ -S "$TB_SSH_SHARE" ] || return 0
	tb_ssh_control exit
	rm -f "$TB_SSH_SHARE"
}

# The tool's own directory on the target: the kernels it sends go into
# kernels/NAME/ there, and nothing of the tool's anywhere else.
TB_TARGET_DIR=/var/tmp/tracerbench
# how long a kernel switch may take to answer ssh again (seconds)
TB_TARGET_WAIT=${TB_TARGET_WAIT:-300}
# How the target goes to another kernel (bench.sh --switch): kexec, or
# grub-reboot, a one-time entry of GRUB's and a reboot. That entry is
# the one file the tool writes outside its directory, for the run alone:
# GRUB's custom.cfg, which the grub.cfg of Debian's update-grub reads
# at every boot (/etc/grub.d/41_custom), known as the tool's by its
# first line.
TB_TARGET_SWITCH=${TB_TARGET_SWITCH:-kexec}
TB_TARGET_GRUB=/boot/grub
TB_GRUB_MARK='# tracerbench: the one-time entry of bench.sh --switch grub-reboot'

# tb_target_put LOCAL REMOTE: copy LOCAL to REMOTE on the target, over
# the ssh connection (no scp or sftp needed there), whole or not at all:
# a connection cut ends cat's input there as the file's end would, so
# the copy's size is checked before it takes REMOTE's name
tb_target_put()
{
	local size

	size=$(stat -c %s "$1") || return 1
	tb_ssh "mkdir -p '${2%/*}' && cat >'$2.part' &&
		{ [ \$(wc -c <'$2.part') -eq $size ] || { rm -f '$2.part'; exit 1; }; } &&
		mv '$2.part' '$2'" <"$1"
}

# tb_target_uname: the target's kernel release, version and boot id (a
# kexec changes it too), a line each
tb_target_uname()
{
	tb_ssh 'uname -r; uname -v; cat /proc/sys/kernel/random/boot_id' </dev/null
}

# tb_image_uname IMAGE: the release and version (uname -r, uname -v), a
# line each, of the x86 kernel IMAGE, from the string its boot header
# points at: "RELEASE (BUILDER@HOST) VERSION"
tb_image_uname()
{
	local off s

	if [ "$(od -An -c -j 514 -N 4 "$1" 2>/dev/null | tr -d ' ')" != HdrS ]; then
		echo "tracerbench: $1 is no x86 kernel image" >&2
		return 1
	fi
	off=$(od -An -tu2 -j 526 -N 2 "$1" | tr -d ' ') || return 1
	s=$(dd if="$1" bs=1 skip=$((off + 512)) count=512 2>/dev/null |
		tr '\0' '\n' | head -n 1)
	echo "${s%% *}"
	echo "${s#*) }"
}

# tb_target_record FILE: the target's running kernel, recorded in FILE
# (release, version, command line, a line each) before the first switch,
# what the switch needs there (TB_TARGET_SWITCH: kexec, or grub-reboot
# and a grub.cfg that honours it, tb_grub_need), and that kernel's image
# in /boot to return to; 1, saying why, if any is missing.
tb_target_record()
{
	local need='command -v kexec >/dev/null || { echo "no kexec (install kexec-tools)"; exit 1; }'

	tb_ssh 'uname -r; uname -v; cat /proc/cmdline' </dev/null >"$1" ||
		return 1
	if [ "$(wc -l <"$1")" != 3 ]; then
		echo "tracerbench: the target's uname and command line: $(cat "$1")" >&2
		return 1
	fi
	[ "$TB_TARGET_SWITCH" = grub-reboot ] && need=$(tb_grub_need)
	tb_ssh "$need
		[ -f /boot/vmlinuz-$(head -n 1 "$1") ] || { echo 'no /boot/vmlinuz-$(head -n 1 "$1") to return to'; exit 1; }" \
		</dev/null >"$1.why" || {
		echo "tracerbench: the target has $(cat "$1.why")" >&2
		return 1
	}
}

# tb_target_stage NAME IMAGE [INITRD [MODULE]]: the kernel IMAGE, its
# INITRD and the tracerbench.ko built for it, if given, into the
# target's TB_TARGET_DIR/kernels/NAME/ (vmlinuz, initrd.img,
# tracerbench.ko), and none of the box's own files touched
tb_target_stage()
{
	local d=$TB_TARGET_DIR/kernels/$1

	[[ $1 =~ ^[A-Za-z0-9._+-]+$ ]] || {
		echo "tracerbench: '$1' is no name for a kernel's directory" >&2
		return 1
	}
	tb_ssh "rm -rf '$d'" </dev/null &&
		tb_target_put "$2" "$d/vmlinuz" &&
		{ [ -z "${3:-}" ] || tb_target_put "$3" "$d/initrd.img"; } &&
		{ [ -z "${4:-}" ] || tb_target_put "$4" "$d/tracerbench.ko"; }
}

# tb_grub_need: the target's commands (sh) that check it can switch by
# grub-reboot: GRUB's tools there; a grub.cfg that reads next_entry and
# custom.cfg; no custom.cfg but the tool's; an environment block GRUB
# can write at boot, which it cannot on RAID, LVM, btrfs or ZFS (as
# Debian's 00_header tells), so that it clears next_entry and a kernel
# that panics is not booted again at every reset; and the tool's
# directory on no encrypted device, which GRUB cannot open unasked
tb_grub_need()
{
	local g=$TB_TARGET_GRUB d=$TB_TARGET_DIR

	cat <<EOS
for c in grub-reboot grub-probe grub-mkrelpath; do
	command -v \$c >/dev/null || { echo "no \$c (install grub2-common)"; exit 1; }
done
grep -q next_entry $g/grub.cfg && grep -q custom.cfg $g/grub.cfg ||
	{ echo 'no $g/grub.cfg that reads next_entry and custom.cfg, as update-grub writes it'; exit 1; }
[ ! -e $g/custom.cfg ] || [ "\$(head -n 1 $g/custom.cfg)" = '$TB_GRUB_MARK' ] ||
	{ echo 'a $g/custom.cfg of its own, which the tool would not change'; exit 1; }
case "\$(grub-probe --target=abstraction $g 2>/dev/null) \$(grub-probe --target=fs $g 2>/dev/null)" in
*diskfilter* | *lvm* | *btrfs* | *zfs*)
	echo '$g on RAID, LVM, btrfs or ZFS, where GRUB cannot clear the one-time entry at boot'; exit 1 ;;
esac
case "\$(grub-probe --target=abstraction $d 2>/dev/null)" in
*cryptodisk*)
	echo '$d on an encrypted device, which GRUB cannot open to boot a kernel there'; exit 1 ;;
esac
EOS
}

# tb_grub_cmdline_ok LINE: LINE can go into a GRUB entry (a word in
# single quotes each), which it cannot if it holds a quote or a
# backslash: GRUB passes those on escaped (and a word with a space in
# double quotes). 1, saying so, if not.
tb_grub_cmdline_ok()
{
	case $1 in
	*[\'\"\\]*)
		echo "tracerbench: --switch grub-reboot: a command line without quotes or backslashes, which GRUB passes on escaped, not: $1" >&2
		return 1 ;;
	esac
}

# tb_grub_entry IMAGE INITRD: the target's commands (sh) that write the
# tool's custom.cfg (TB_GRUB_MARK) with one entry, tracerbench, of its
# kernel IMAGE, INITRD (empty for none) and the command line on their
# stdin, each file found on its file system by UUID, as update-grub's
# entries are (grub-probe, grub-mkrelpath), and name it for the next
# boot alone (grub-reboot, whose words go to stderr); should the kernel
# not load, GRUB goes on to its first entry (fallback) rather than wait
# at its menu. GRUB's environment block, which grub-reboot and GRUB
# write, is kept first as found (or that there was none), for
# tb_target_clean to put back, unless an earlier switch kept it. A kernel
# loaded for kexec is unloaded: systemd 255 and later make "systemctl
# reboot" a kexec into it, past GRUB (TB_KEXEC_LOADED: the file that
# says one is, for a test).
tb_grub_entry()
{
	local g=$TB_TARGET_GRUB d=$TB_TARGET_DIR
	local loaded=${TB_KEXEC_LOADED:-/sys/kernel/kexec_loaded}

	cat <<EOS
read -r c
set -f
q=
for w in \$c; do q="\$q '\$w'"; done
set +f
find_file()
{
	for m in \$(grub-probe --target=partmap "\$1"); do echo "	insmod part_\$m"; done
	for m in \$(grub-probe --target=abstraction "\$1"); do echo "	insmod \$m"; done
	f=\$(grub-probe --target=fs "\$1") && u=\$(grub-probe --target=fs_uuid "\$1") &&
		p=\$(grub-mkrelpath "\$1") || return 1
	echo "	insmod \$f"
	echo "	search --no-floppy --fs-uuid --set=\$2 \$u"
	echo "	\$3 (\\\$\$2)\$p \$4"
}
mkdir -p $d && { [ -e $d/grubenv.found ] || [ -e $d/grubenv.none ] ||
	if [ -e $g/grubenv ]; then
		cp $g/grubenv $d/grubenv.tmp && mv $d/grubenv.tmp $d/grubenv.found
	else : >$d/grubenv.none; fi; } || exit 1
{
	echo '$TB_GRUB_MARK'
	echo 'if [ -z "\${fallback}" ]; then set fallback=0; fi'
	echo "menuentry 'tracerbench' --id tracerbench {"
	find_file '$1' tb_kernel linux "\$q" &&
		{ [ -z '$2' ] || find_file '$2' tb_initrd initrd; } &&
	echo '}'
} >$g/custom.cfg.tmp && mv $g/custom.cfg.tmp $g/custom.cfg &&
	grub-reboot tracerbench >&2 || { rm -f $g/custom.cfg.tmp; exit 1; }
if [ "\$(cat $loaded 2>/dev/null)" = 1 ] && ! kexec -u; then
	echo "a kernel loaded for kexec cannot be unloaded (kexec -u), and a reboot could go to it" >&2
	exit 1
fi
EOS
}

# tb_target_switch IMAGE INITRD CMDLINE RELEASE VERSION: switch the
# target to its kernel IMAGE (a path there), with INITRD (there; empty
# for none) and the kernel command line CMDLINE, by kexec -l and kexec
# -e, or by a one-time GRUB entry and a reboot (TB_TARGET_SWITCH); wait
# TB_TARGET_WAIT seconds at most for ssh to answer from a new boot, and
# check its uname -r and -v are RELEASE and VERSION. 1, naming what came
# back, if another kernel did; 1 if none did in time.
tb_target_switch()
{
	local image=$1 initrd=$2 cmdline=$3 rel=$4 ver=$5 before now end answered
	local iarg='' out bound=2 connect load go

	before=$(tb_target_uname) || return 1
	before=$(echo "$before" | sed -n 3p)
	if [ "$TB_TARGET_SWITCH" = grub-reboot ]; then
		load=$(tb_grub_entry "$image" "$initrd")
		# reboot(2) at once: a small kernel may have no sysrq
		go='systemctl reboot; else sync; reboot -f || busybox reboot -f'
	else
		[ -n "$initrd" ] && iarg="--initrd='$initrd'"
		load="read -r c
			kexec -l '$image' $iarg --command-line=\"\$c\" || exit 1"
		go='systemctl kexec; else kexec -e'
	fi
	# The command line goes on stdin, whatever quotes it holds. The
	# switch runs detached 1 s later, so that ssh mostly returns first,
	# by systemd where it runs (which stops the services first); ssh
	# may also see the connection cut: "loaded" tells the kernel is
	# ready to go to.
	out=$(printf '%s\n' "$cmdline" | tb_ssh "$load
		echo loaded
		sync
		setsid sh -c 'sleep 1; if [ -d /run/systemd/system ]; then
			$go; fi' >/dev/null 2>&1 </dev/null &")
	# the connection shared with the kernel that now goes, closed
	tb_ssh_unshare
	if [ "$out" != loaded ]; then
		echo "tracerbench: $TB_TARGET_SWITCH to $image failed on the target: $out" >&2
		return 1
	fi
	end=$((SECONDS + TB_TARGET_WAIT))
	answered=
	while [ $SECONDS -lt $end ]; do
		sleep 1
		# A probe begun while no kernel answers waits for sshd's
		# first words until its connection's bound (QEMU's user
		# network, for one, holds the connection open), one begun as
		# the old kernel went down for ever. The whole probe's bound
		# grows by a second after each failure, as a slow box needs
		# (5 s, then 6, ... 25); that for sshd's first words, which
		# it says as it accepts, stays at 2 s for the first eight, so
		# that a probe is tried every 3 s while a box boots, then
		# grows too, for a box behind a jump host, whose own login
		# comes first (3 s, ... 15)
		connect=2
		[ $bound -lt 10 ] || connect=$((bound - 7))
		now=$(TB_SSH_CONNECT=$connect TB_SSH_TIMEOUT=$((bound + 3)) \
			tb_target_uname 2>/dev/null) ||
			{ [ $bound -ge 22 ] || bound=$((bound + 1)); continue; }
		[ "$(echo "$now" | sed -n 3p)" != "$before" ] && break
		answered=$now
		now=
	done
	if [ -z "$now" ] && [ -n "$answered" ]; then
		echo "tracerbench: the target still ran its kernel before, $(head -n 1 <<<"$answered"), $TB_TARGET_WAIT s after $TB_TARGET_SWITCH into $rel was asked for" >&2
		return 1
	elif [ -z "$now" ]; then
		echo "tracerbench: the target did not answer ssh within $TB_TARGET_WAIT s of $TB_TARGET_SWITCH into $rel" >&2
		return 1
	fi
	tb_target_is "$now" "$rel" "$ver"
}

# tb_target_is UNAME RELEASE VERSION: UNAME (tb_target_uname's) is of
# the kernel of RELEASE and VERSION (any version if VERSION is empty: a
# kernel of the box's own, known by its release alone); 1, naming both,
# if not
tb_target_is()
{
	local r v

	{ read -r r && read -r v; } <<<"$1"
	[ "$r" = "$2" ] && { [ -z "$3" ] || [ "$v" = "$3" ]; } && return 0
	echo "tracerbench: the target came back on $r $v, not on the kernel sent: $2 $3" >&2
	return 1
}

# tb_target_return FILE: switch the target back to the kernel FILE
# recorded (tb_target_record), from its /boot, with its command line;
# say so.
tb_target_return()
{
	local rel ver cmdline initrd=

	{ read -r rel && read -r ver && read -r cmdline; } <"$1" || return 1
	tb_ssh "[ -f /boot/initrd.img-$rel ]" </dev/null &&
		initrd=/boot/initrd.img-$rel
	tb_target_switch "/boot/vmlinuz-$rel" "$initrd" \
		"$(tb_cmdline_own "$cmdline")" "$rel" "$ver" || return 1
	echo "tracerbench: the target is back on its kernel, $rel" >&2
}

# tb_cmdline_own CMDLINE: a kernel's command line as kexec passes it on:
# without BOOT_IMAGE=, which the boot loader adds
tb_cmdline_own()
{
	local w all words=()

	read -ra all <<<"$1"
	for w in "${all[@]}"; do
		case $w in
		BOOT_IMAGE=*)	;;
		*)		words+=("$w") ;;
		esac
	done
	echo "${words[*]}"
}

# tb_target_config FILE: the configuration of the kernel the target
# runs, from /proc/config.gz or /boot/config-RELEASE, into FILE; 1,
# saying so, if it has neither
tb_target_config()
{
	# shellcheck disable=SC2016 # expanded on the target
	tb_ssh 'r=$(uname -r)
		if [ -r /proc/config.gz ]; then gzip -dc /proc/config.gz
		elif [ -r "/boot/config-$r" ]; then cat "/boot/config-$r"
		else echo "neither /proc/config.gz nor /boot/config-$r" >&2; exit 1; fi' \
		</dev/null >"$1" 2>"$1.why" && grep -q '^CONFIG_' "$1" && rm -f "$1.why" && return 0
	echo "tracerbench: the target's kernel configuration: $(cat "$1.why" 2>/dev/null)" >&2
	rm -f "$1.why"
	return 1
}

# tb_target_lock OWNER: the target's directory taken for one run: a
# lock directory made there at once or not at all (mkdir), OWNER (this
# host's name, the run's pid, what it is; a line) in it. A lock of this
# host's whose process is gone is stale and taken over, saying so,
# under a second lock (lock.takeover), so that two runs that both find
# it stale do not both take it; another is refused, naming its holder.
tb_target_lock()
{
	local d=$TB_TARGET_DIR out held host pid

	# OWNER goes on stdin, whatever it holds
	# shellcheck disable=SC2029 # expanded here, on purpose
	out=$(printf '%s\n' "$1" | tb_ssh "mkdir -p $d && if mkdir $d/lock 2>/dev/null; then
			cat >$d/lock/owner && echo taken
		else echo held; cat $d/lock/owner 2>/dev/null; fi") || return 1
	case $out in
	taken)	return 0 ;;
	held*)	held=$(sed -n 2p <<<"$out") ;;
	*)	echo "tracerbench: the target's lock: $out" >&2
		return 1 ;;
	esac
	[ -n "$held" ] || held="a run that has not said who it is"
	read -r host pid _ <<<"$held"
	if [ "$host" = "$HOSTNAME" ] && [[ $pid =~ ^[0-9]+$ ]] &&
	   [ ! -d "/proc/$pid" ]; then
		# shellcheck disable=SC2016 # expanded there
		out=$(printf '%s\n%s\n' "$held" "$1" | tb_ssh "cd $d && mkdir lock.takeover &&
			{ read -r was && [ \"\$(cat lock/owner 2>/dev/null)\" = \"\$was\" ] &&
				rm -rf lock && mkdir lock && cat >lock/owner && echo taken
			rmdir lock.takeover; }")
		if [ "$out" = taken ]; then
			echo "tracerbench: the target's lock of a run that ended without freeing it ($held): taken over" >&2
			return 0
		fi
	fi
	echo "tracerbench: the target is in use by another run: $held (if none runs, remove $d/lock there)" >&2
	return 1
}

# tb_target_unlock OWNER: the lock freed, if OWNER holds it
tb_target_unlock()
{
	# shellcheck disable=SC2029,SC2016
	printf '%s\n' "$1" | tb_ssh "read -r me
		[ \"\$(cat $TB_TARGET_DIR/lock/owner 2>/dev/null)\" != \"\$me\" ] ||
		rm -rf $TB_TARGET_DIR/lock"
}

# tb_target_clean: remove the kernels the tool sent to the target and
# its GRUB entry, and put back GRUB's environment block as it was found
# (kept by tb_grub_entry's first switch), which grub-reboot and GRUB
# wrote; what is not there is passed over
tb_target_clean()
{
	local g=$TB_TARGET_GRUB d=$TB_TARGET_DIR

	tb_ssh "rm -rf '$d/kernels' &&
		if [ \"\$(head -n 1 $g/custom.cfg 2>/dev/null)\" = '$TB_GRUB_MARK' ]; then
			rm $g/custom.cfg; fi &&
		if [ -e $d/grubenv.found ]; then
			cat $d/grubenv.found >$g/grubenv && rm $d/grubenv.found; fi &&
		if [ -e $d/grubenv.none ]; then rm -f $g/grubenv $d/grubenv.none; fi" </dev/null
}
