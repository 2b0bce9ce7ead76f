# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The mechanisms of bench.sh --target and of the QEMU box checked on the
# host, with stand-ins, no box booted: the target's address forms, the
# one-time GRUB entry (stand-ins for GRUB's tools), a copy to the box,
# ssh's words, an installed kernel's description, a switch's probes and
# the lock's takeover (stand-ins for ssh), the steps a Ctrl-C must not
# cut (stand-ins for ssh and LAVA's tools), and the box's QEMU loop
# (tb_box_run, a stand-in QEMU). step_box (tools/check/box.sh) runs them
# before the box boots. Sourced by tools/check.sh.

# check_target_forms: tb_target_parse takes ssh://[USER@]HOST[:PORT] and
# nothing else, and a kernel that came back other than the one sent is
# named, with it
check_target_forms()
{
	local u want got

	while read -r u want; do
		got=$( (tb_target_parse "$u" 2>/dev/null &&
			echo "$TB_TARGET_USER,$TB_TARGET_HOST,$TB_TARGET_PORT") ||
			echo refused)
		[ "$got" = "$want" ] ||
			{ echo "[target] $u: $got, not $want"; return 1; }
	done <<'EOF2'
ssh://box root,box,22
ssh://me@box.lab:2222 me,box.lab,2222
ssh://[::1]:2200 root,::1,2200
box refused
ssh:// refused
ssh://me@ refused
ssh://box:0 refused
ssh://box:x refused
ssh://box;reboot refused
EOF2
	got=$(tb_target_is "$(printf '6.1.0-1\n#1 SMP A\nid')" 6.12.0-1 '#2 SMP B' 2>&1) &&
		return 1
	[ "$got" = "tracerbench: the target came back on 6.1.0-1 #1 SMP A, not on the kernel sent: 6.12.0-1 #2 SMP B" ] ||
		{ echo "[target] $got"; return 1; }
	tb_target_is "$(printf '6.1.0-1\n#1 SMP A\nid')" 6.1.0-1 '#1 SMP A'
}

# ssh_stand_in DIR: the target of check_ssh_args, with DIR's stand-in
# for ssh first in PATH
# shellcheck disable=SC2034 # read by tools/lib/target.sh
ssh_stand_in()
{
	PATH=$1:$PATH TB_SSH_CONFIG=C TB_TARGET_KEY=K TB_SSH_SHARE=$1/s
	TB_SSH_CONNECT='' TB_SSH_TIMEOUT=''
	TB_TARGET_PORT=2222 TB_TARGET_USER=u TB_TARGET_HOST=h
	TB_TARGET_SSH_OPTS=(-o X=1)
}

# ssh_runs_here FILE [LINE...]: at FILE, a stand-in for ssh that runs
# its command, its last word ($cmd), here, after the LINEs, which may
# end it first
ssh_runs_here()
{
	local file=$1

	shift
	# shellcheck disable=SC2016 # the stand-in's lines, as they are
	printf '%s\n' '#!/bin/sh' 'for cmd; do :; done' "$@" 'exec sh -c "$cmd"' \
		>"$file" && chmod +x "$file"
}

# check_ssh_args: what tb_ssh and tb_ssh_control give ssh (a stand-in
# that writes its words, a line each, to DIR/words): a command connects
# on its own (ControlPath=none: no connection of the user's
# configuration shared), the connection a boot's commands share is a
# master that outlives its caller ten minutes at most, and a control
# command goes to that socket; each names the target by the
# configuration file, the key alone, the box's options, port, user and
# host, in that order
check_ssh_args()
{
	local d=$TB_OUT/ssh-args got want to fail=0 common

	rm -rf "$d" && mkdir -p "$d" &&
		printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s/words"\n' "$d" >"$d/ssh" &&
		chmod +x "$d/ssh" || return 1
	to='-F C -i K -o IdentitiesOnly=yes -o X=1 -p 2222 -l u h'
	common='-o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=5 -o ServerAliveCountMax=6'
	while IFS='|' read -r what want; do
		rm -f "$d/words"
		(ssh_stand_in "$d"
		 case $what in
		 command)	tb_ssh 'uname -r' ;;
		 shared)	TB_SSH_OPEN=1 tb_ssh ;;
		 control)	tb_ssh_control exit ;;
		 esac) </dev/null
		got=$(paste -sd ' ' "$d/words" 2>/dev/null)
		want=${want//@common@/$common}
		want=${want//@to@/$to}
		want=${want//@d@/$d}
		[ "$got" = "$want" ] ||
			{ echo "[ssh] $what: '$got', not '$want'"; fail=1; }
	done <<'EOS'
command|@common@ -o ControlPath=none @to@ uname -r
shared|@common@ -o ControlPath=@d@/s -o ControlMaster=yes -o ControlPersist=10m -o LogLevel=QUIET -f -N @to@
control|-o BatchMode=yes -o ControlMaster=no -o ControlPath=@d@/s -O exit @to@
EOS
	return $fail
}

# check_kernel_env: bench.sh's description of a box's installed kernel
# (kernel_env, tools/lib/bench_kernels.sh) through a stand-in ssh that
# runs the command it is given here, or fails as a refused connection:
# the image's hash as the box gives it, cut to 16 digits; none where the
# box lacks the image (the check before sending refuses that); and no
# description at all, a failure, where ssh fails, so that --resume
# cannot take a dead box for one whose kernel changed
check_kernel_env()
{
	local d=$TB_OUT/kernel-env got want fail=0 image made_hash

	rm -rf "$d" && mkdir -p "$d" || return 1
	ssh_runs_here "$d/ssh" "[ ! -e '$d/refused' ] || { echo 'ssh: connect to host h port 2222: Connection refused' >&2; exit 255; }" ||
		return 1
	image=$d/vmlinuz
	head -c 4096 /dev/urandom >"$image.made" &&
		made_hash=$(sha256sum <"$image.made" | cut -c 1-16) || return 1
	while read -r box want; do
		rm -f "$image" "$d/refused"
		case $box in
		image)	cp "$image.made" "$image" ;;
		refused) cp "$image.made" "$image" && touch "$d/refused" ;;
		esac
		got=$( (ssh_stand_in "$d"
			# shellcheck source=tools/lib/bench_kernels.sh
			. "$TB_TOP/tools/lib/bench_kernels.sh"
			TB_SPECS=([k.spec]=stock=installed:6.12 [k.kind]=installed
				[k.kdir]=$d/none [k.image]=$image
				[k.patches]="" [k.tree]="" [k.frags]="" [k.commit]="")
			kernel_env k </dev/null 2>/dev/null) |
			sed -n 's/^image_hash/&/p'; echo "status ${PIPESTATUS[0]}")
		got=$(echo "$got" | paste -sd ' ')
		want=${want//@hash@/$made_hash}
		[ "$got" = "$want" ] ||
			{ echo "[kernel env] a box with $box: '$got', not '$want'"; fail=1; }
	done <<'EOS'
image image_hash @hash@ status 0
none image_hash  status 0
refused status 1
EOS
	return $fail
}

# check_target_lock_race: runs that find the target's lock stale (its
# owner a process of this host's that is gone) all at once, through a
# stand-in ssh that runs each command here, against a directory that
# stands in for the box's. Before each of the two steps, each contender
# says it is there and waits on the step's FIFO, which this shell fills
# once all are there (or after LOCK_RACE_WAIT s, so that one that never
# comes does not hang the test): they go together. In each of
# LOCK_RACE_ROUNDS rounds exactly one takes the lock over, the lock names
# it, and the takeover's own lock is gone (the rounds stop at the first
# that fails). Without that second lock, two or more took it over in 16
# to 22 rounds of 30.
LOCK_RACE_ROUNDS=30
LOCK_RACE_RUNS=6
LOCK_RACE_WAIT=30

# here DIR PREFIX: how many files of DIR are named PREFIX.SOMETHING
here()
{
	local f n=0

	for f in "$1/$2".*; do
		[ -e "$f" ] && n=$((n + 1))
	done
	echo $n
}

check_target_lock_race()
{
	local d=$TB_OUT/lock-race round i step won pids t fd fail=0

	rm -rf "$d" && mkdir -p "$d/bin" && mkfifo "$d/fifo1" "$d/fifo2" || return 1
	# shellcheck disable=SC2016 # the stand-in's lines, as they are
	ssh_runs_here "$d/bin/ssh" \
		'case "$cmd" in *lock.takeover*) step=2 ;; *) step=1 ;; esac' \
		": >'$d/go'\$step.\$\$" "read -r _ <'$d/fifo'\$step" || return 1
	# held open here, read and write, so that no contender's read of a
	# FIFO ends for want of a writer
	exec {fifo1}<>"$d/fifo1" {fifo2}<>"$d/fifo2"
	for ((round = 1; round <= LOCK_RACE_ROUNDS; round++)); do
		rm -rf "$d/box" "$d"/go* "$d"/won.*
		mkdir -p "$d/box/lock" || { fail=1; break; }
		# above PID_MAX_LIMIT: a process of this host's that no
		# longer is, whatever pids are in use meanwhile
		echo "$HOSTNAME 4194304 since then" >"$d/box/lock/owner"
		pids=()
		for ((i = 1; i <= LOCK_RACE_RUNS; i++)); do
			(ssh_stand_in "$d/bin"
			 # shellcheck disable=SC2034 # read by tb_target_lock
			 TB_TARGET_DIR=$d/box
			 tb_target_lock "run $i" 2>/dev/null && : >"$d/won.$i") </dev/null &
			pids+=($!)
		done
		for step in 1 2; do
			t=$((SECONDS + LOCK_RACE_WAIT))
			while [ "$(here "$d" go$step)" -lt $LOCK_RACE_RUNS ] &&
			      [ $SECONDS -lt $t ]; do
				sleep 0.01
			done
			if [ "$(here "$d" go$step)" != $LOCK_RACE_RUNS ]; then
				echo "[lock race] round $round: $(here "$d" go$step) of $LOCK_RACE_RUNS at step $step"
				fail=1
			fi
			fd=$fifo1
			[ $step = 1 ] || fd=$fifo2
			for ((i = 1; i <= LOCK_RACE_RUNS; i++)); do
				echo go
			done >&"$fd"
		done
		wait "${pids[@]}"
		won=$(cd "$d" && ls won.* 2>/dev/null)
		if [ "$(echo "$won" | grep -c .)" != 1 ] ||
		   [ "$(cat "$d/box/lock/owner")" != "run ${won#won.}" ] ||
		   [ -e "$d/box/lock.takeover" ]; then
			echo "[lock race] round $round: taken over by $(echo "$won" | paste -sd ' '), the lock's owner $(cat "$d/box/lock/owner"), $(cd "$d/box" && echo *) there"
			fail=1
		fi
		[ $fail = 0 ] || break
	done
	exec {fifo1}>&- {fifo2}>&-
	[ $fail = 1 ] || rm -rf "$d"
	return $fail
}

# check_switch_probes: tb_target_switch's probes of a box that boots,
# through a stand-in ssh that loads the kernel at once, then fails
# PROBE_FAILS probes, then answers from a new boot, with sleep and
# timeout stubbed to note their words (no second waited): a second
# between probes; sshd's first words waited for 2 s in the first eight
# probes, then a second more after each failure, up to 15 (a box behind
# a jump host, whose own login comes first); the whole probe bounded by
# timeout -k 5 at 5 s, then a second more after each failure, up to 25;
# and the switch ends at the first answer from another boot, checked as
# the kernel sent: one of another version is refused, naming both
PROBE_FAILS=24

# noted FILE WHAT WANT: FILE's lines, joined by spaces, are WANT; 1,
# saying WHAT they are instead, if not
noted()
{
	local got

	got=$(paste -sd ' ' "$1" 2>/dev/null)
	[ "$got" = "$3" ] && return 0
	echo "[switch probes] $2: $got, not $3"
	return 1
}

check_switch_probes()
{
	local d=$TB_OUT/switch-probes got want n c b version sleeps connect bound

	rm -rf "$d" && mkdir -p "$d/bin" || return 1
	cat >"$d/bin/ssh" <<EOS || return 1
#!/bin/sh
for a; do :; done
case "\$a" in
*'echo loaded'*)	cat >/dev/null; echo loaded; exit 0 ;;
esac
n=\$(cat "$d/probes" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$d/probes"
# the first, before the switch, answers from the old boot
[ "\$n" = 0 ] && { printf '6.12.1\n#1 old\nold-boot\n'; exit 0; }
for o; do
	case \$o in ConnectTimeout=*) echo "\${o#*=}" >>"$d/connect" ;; esac
done
[ "\$n" -le $PROBE_FAILS ] && exit 255
printf '6.12.2\n#2 new\nnew-boot\n'
EOS
	chmod +x "$d/bin/ssh" || return 1
	# another version first: the words noted are the switch's that ends
	for version in '#3 other' '#2 new'; do
		rm -f "$d/probes" "$d/connect" "$d/bound" "$d/sleeps"
		# shellcheck disable=SC2317 # called by tb_target_switch and tb_ssh
		got=$( (ssh_stand_in "$d/bin"
			# shellcheck disable=SC2034 # read by tb_target_switch
			TB_TARGET_WAIT=120
			sleep() { echo "$*" >>"$d/sleeps"; }
			timeout() { echo "$1 $2 $3" >>"$d/bound"; shift 3; "$@"; }
			tb_target_switch /k '' 'ro' 6.12.2 "$version") 2>&1
			echo "status $?")
		want="status 0"
		[ "$version" = '#2 new' ] ||
			want="tracerbench: the target came back on 6.12.2 #2 new, not on the kernel sent: 6.12.2 $version
status 1"
		[ "$got" = "$want" ] ||
			{ echo "[switch probes] to $version: '$got', not '$want'"; return 1; }
	done
	# what each probe n (1 to PROBE_FAILS + 1) should have noted
	sleeps="" connect="" bound=""
	for ((n = 1; n <= PROBE_FAILS + 1; n++)); do
		sleeps+="1 "
		c=$((n - 6))
		[ $c -ge 2 ] || c=2
		[ $c -le 15 ] || c=15
		connect+="$c "
		b=$((n + 4))
		[ $b -le 25 ] || b=25
		bound+="-k 5 $b "
	done
	noted "$d/sleeps" "sleeps between probes" "${sleeps% }" &&
		noted "$d/connect" "ConnectTimeout of each probe" "${connect% }" &&
		noted "$d/bound" "each probe's bound" "${bound% }" || return 1
	rm -rf "$d"
}

# box_run_plan DIR PLAN...: tb_box_run on a stand-in QEMU, whose Nth
# start does the Nth word of PLAN: reboot, count (asks the next QEMU to
# count instructions, DIR/icount, and reboots), off (the kernel's
# power-off), port (cannot forward the port), killed (QEMU's words when
# killed, exit 0) or wait (until it is killed, then exit 0 as QEMU
# does; its pid in DIR/pid). Each start that was given -icount adds its
# number to DIR/counted. Prints tb_box_run's status and the number of
# starts.
box_run_plan()
{
	local d=$1 rc

	shift
	rm -rf "$d" && mkdir -p "$d" && echo "$*" >"$d/plan" || return 1
	cat >"$d/qemu" <<'EOS'
#!/bin/sh
n=$(($(cat "$D/starts" 2>/dev/null || echo 0) + 1))
echo $n >"$D/starts"
case " $* " in
*" -icount shift=0 "*)	echo $n >>"$D/counted" ;;
esac
set -- $(cat "$D/plan")
shift $((n - 1))
case $1 in
reboot)	echo '[    1.0] reboot: Restarting system' >>"$D/console" ;;
count)	touch "$D/icount"
	echo '[    1.0] reboot: Restarting system' >>"$D/console" ;;
off)	echo '[    1.0] reboot: Power down' >>"$D/console" ;;
port)	echo 'qemu: could not set up host forwarding rule' >&2; exit 1 ;;
killed)	echo 'qemu: terminating on signal 15 from pid 1' >&2 ;;
wait)	trap 'kill $!; exit 0' TERM; echo $$ >"$D/pid"; sleep 600 & wait ;;
esac
EOS
	chmod +x "$d/qemu" && : >"$d/console" || return 1
	D=$d TB_QEMU=$d/qemu tb_box_run "$d" >"$d/qemu.log" 2>&1
	rc=$?
	echo "$rc $(cat "$d/starts")"
}

# box_run_started DIR: wait for the stand-in QEMU of DIR to start (its
# pid in DIR/pid), a minute at most
box_run_started()
{
	local n=0

	until [ -s "$1/pid" ] || [ $n -ge 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ -s "$1/pid" ]
}

# check_box_run: the box's QEMU loop (tb_box_run) on a stand-in QEMU:
# it starts a new QEMU after each reboot, and none after a power-off,
# the kernel's or the one tb_box_stop asks for (DIR/off); a port another
# took after a reboot is tried again, not before the first boot; QEMU
# killed from elsewhere stays down, and the loop killed kills its QEMU;
# the QEMUs started once DIR/icount is there count instructions
check_box_run()
{
	local d=$TB_OUT/box-run got pid fail=0 plan want

	while read -r want plan; do
		# shellcheck disable=SC2086 # the plan's words
		got=$(box_run_plan "$d" $plan) || return 1
		[ "${got/ /,}" = "$want" ] ||
			{ echo "[box run] $plan: status and starts ${got/ /,}, not $want"; fail=1; }
	done <<'EOS'
0,3 reboot reboot off
1,1 port reboot off
0,4 reboot port reboot off
1,2 reboot killed reboot off
EOS
	# the QEMUs after DIR/icount appeared count instructions, and they
	# alone
	got="$(box_run_plan "$d" reboot count reboot off) counting $(paste -sd ' ' "$d/counted" 2>/dev/null)"
	[ "$got" = "0 4 counting 3 4" ] ||
		{ echo "[box run] reboot count reboot off: $got, not 0 4 counting 3 4"; fail=1; }
	# the power-off tb_box_stop asks for: no QEMU after it, whatever
	# the kernel said last
	(box_run_plan "$d" wait reboot off >"$d.off") &
	pid=$!
	box_run_started "$d" || { kill $pid; return 1; }
	touch "$d/off" && kill "$(cat "$d/pid")"
	wait $pid
	[ "$(cat "$d.off")" = "0 1" ] ||
		{ echo "[box run] a power-off asked for: $(cat "$d.off"), not 0 1"; fail=1; }
	# the loop killed: its QEMU is gone when it is
	rm -f "$d/pid" "$d/off" "$d/starts" && echo wait >"$d/plan" || return 1
	(D=$d TB_QEMU=$d/qemu tb_box_run "$d" >/dev/null 2>&1) &
	pid=$!
	box_run_started "$d" || { kill $pid; return 1; }
	kill $pid
	wait $pid
	! kill -0 "$(cat "$d/pid")" 2>/dev/null ||
		{ echo "[box run] the loop killed, its QEMU runs on"; kill "$(cat "$d/pid")"; fail=1; }
	return $fail
}

# check_box_append: the box's command line by TB_BOX_INIT: its own
# init's, systemd's with the interface's kernel name kept; another value
# refused, naming it, and the box not started, its directory as it was
check_box_append()
{
	local init want got d=$TB_OUT/box-append

	while IFS='|' read -r init want; do
		got=$(TB_BOX_INIT=$init tb_box_append 2>"$d.err") || got=refused
		[ "$got" = "$want" ] ||
			{ echo "[box] TB_BOX_INIT='$init': '$got', not '$want'"; return 1; }
	done <<XAPPEND
|$TB_BOX_APPEND
systemd|$TB_BOX_APPEND init=/lib/systemd/systemd net.ifnames=0
sysvinit|refused
XAPPEND
	grep -qx "tracerbench: TB_BOX_INIT: systemd, or empty for the box's own init, not 'sysvinit'" "$d.err" ||
		{ echo "[box] TB_BOX_INIT=sysvinit refused saying: $(cat "$d.err")"; return 1; }
	rm -rf "$d" && mkdir -p "$d" && echo kept >"$d/port" || return 1
	TB_BOX_INIT=sysvinit tb_box_start "$d" /nonexistent 0.0 2>"$d.err" &&
		{ echo "[box] tb_box_start: TB_BOX_INIT=sysvinit not refused"; return 1; }
	grep -q "TB_BOX_INIT: .*not 'sysvinit'" "$d.err" ||
		{ echo "[box] tb_box_start refused TB_BOX_INIT=sysvinit saying: $(cat "$d.err")"; return 1; }
	[ "$(ls "$d")" = port ] && [ "$(cat "$d/port")" = kept ] && return 0
	echo "[box] tb_box_start: TB_BOX_INIT=sysvinit changed its directory: $(ls "$d")"
	return 1
}

# check_grub_entry: the GRUB entry a switch by grub-reboot writes
# (tb_grub_entry), run here with stand-ins for GRUB's tools, is the
# kernel and initrd found by UUID on their file systems and the command
# line a word in single quotes each, whatever it holds but quotes and
# backslashes (GRUB would wrap a word with a space in double quotes),
# and it is named for the next boot; a line with a quote or a backslash
# is refused; and what the box needs is refused on LVM (no next_entry
# cleared) and an encrypted tool directory, taken on neither. The
# stand-ins' scripts and the line are written as they are: nothing in
# them expands here.
# shellcheck disable=SC2016
check_grub_entry()
{
	local d=$TB_OUT/grub-entry want got line

	rm -rf "$d" && mkdir -p "$d/bin" "$d/grub" || return 1
	cat >"$d/bin/grub-probe" <<'EOS'
#!/bin/sh
case $1 in
--target=fs)		echo ext2 ;;
--target=partmap)	echo gpt ;;
--target=abstraction)	case $2 in /boot/*) ;; *) echo "${ABSTRACTION-lvm}" ;; esac ;;
--target=fs_uuid)	case $2 in /boot/*) echo B-1 ;; *) echo R-2 ;; esac ;;
esac
EOS
	printf '%s\n' '#!/bin/sh' 'echo "${1#/boot}"' >"$d/bin/grub-mkrelpath"
	printf '%s\n' '#!/bin/sh' "echo \"\$*\" >$d/reboot" \
		'echo "the entry named"' >"$d/bin/grub-reboot"
	chmod +x "$d"/bin/* || return 1
	line='root=/dev/sda2  ro quiet x=$HOME *;reboot'
	echo 0 >"$d/loaded"
	got=$(echo "$line" | PATH=$d/bin:$PATH sh -c "$(TB_TARGET_GRUB=$d/grub \
		TB_TARGET_DIR=$d/tool TB_KEXEC_LOADED=$d/loaded tb_grub_entry \
		/var/tmp/tracerbench/kernels/a/vmlinuz /boot/initrd.img-1)" 2>"$d/err") ||
		{ echo "[grub] the entry's commands failed:"; cat "$d/err"; return 1; }
	# grub-reboot's words (a warning, on some boxes) are not taken for
	# the commands' answer
	[ -z "$got" ] || { echo "[grub] the commands said: $got"; return 1; }
	want="$TB_GRUB_MARK
if [ -z \"\${fallback}\" ]; then set fallback=0; fi
menuentry 'tracerbench' --id tracerbench {
	insmod part_gpt
	insmod lvm
	insmod ext2
	search --no-floppy --fs-uuid --set=tb_kernel R-2
	linux (\$tb_kernel)/var/tmp/tracerbench/kernels/a/vmlinuz  'root=/dev/sda2' 'ro' 'quiet' 'x=\$HOME' '*;reboot'
	insmod part_gpt
	insmod ext2
	search --no-floppy --fs-uuid --set=tb_initrd B-1
	initrd (\$tb_initrd)/initrd.img-1 
}"
	got=$(cat "$d/grub/custom.cfg")
	[ "$got" = "$want" ] ||
		{ echo "[grub] the entry is:"; echo "$got"; echo "[grub] not:"; echo "$want"; return 1; }
	[ "$(cat "$d/reboot")" = tracerbench ] ||
		{ echo "[grub] grub-reboot was asked for '$(cat "$d/reboot")'"; return 1; }
	# the box's environment block had none: so it is noted
	[ -e "$d/tool/grubenv.none" ] || { echo "[grub] no grubenv.none"; return 1; }
	# what the box needs: refused where GRUB cannot clear next_entry (its
	# directory on LVM) or cannot reach the kernels (the tool's directory
	# encrypted), taken where neither
	printf '%s\n' 'set next_entry' 'source custom.cfg' >"$d/grub/grub.cfg"
	for line in "lvm:$d/grub on RAID, LVM, btrfs or ZFS" \
		"cryptodisk:$d/tool on an encrypted device" ":"; do
		got=$(ABSTRACTION=${line%%:*} PATH=$d/bin:$PATH sh -c \
			"$(TB_TARGET_GRUB=$d/grub TB_TARGET_DIR=$d/tool tb_grub_need)")
		want=${line#*:}
		if [ -n "$want" ]; then
			[[ $got == "$want"* ]] ||
				{ echo "[grub] with ${line%%:*}: '$got'"; return 1; }
		elif [ -n "$got" ]; then
			echo "[grub] refused: $got"
			return 1
		fi
	done
	# a kernel loaded for kexec (TB_KEXEC_LOADED's file says 1) is
	# unloaded, none where none is; one that stays loaded fails the entry
	printf '%s\n' '#!/bin/sh' "echo \"\$*\" >>$d/kexec" \
		'[ -z "$KEXEC_FAILS" ]' >"$d/bin/kexec" && chmod +x "$d/bin/kexec" ||
		return 1
	for line in 1:-u: 0:: 1:-u:fails; do
		echo "${line%%:*}" >"$d/loaded"
		rm -f "$d/kexec"
		want=${line#*:}
		echo x | KEXEC_FAILS=${want#*:} PATH=$d/bin:$PATH sh -c \
			"$(TB_TARGET_GRUB=$d/grub TB_TARGET_DIR=$d/tool \
			TB_KEXEC_LOADED=$d/loaded tb_grub_entry /v /i)" 2>"$d/err"
		got="$? $(cat "$d/kexec" 2>/dev/null)"
		if [ -n "${want#*:}" ]; then
			{ [ "$got" = "1 ${want%%:*}" ] &&
				grep -q 'cannot be unloaded' "$d/err"; } ||
				{ echo "[grub] kexec -u failing: '$got'"; cat "$d/err"; return 1; }
		else
			[ "$got" = "0 ${want%%:*}" ] ||
				{ echo "[grub] kexec_loaded ${line%%:*}: exit and kexec's words '$got'"; cat "$d/err"; return 1; }
		fi
	done
	for line in 'dyndbg="+p"' "a='b'" 'a\b'; do
		tb_grub_cmdline_ok "$line" 2>/dev/null &&
			{ echo "[grub] taken: $line"; return 1; }
	done
	tb_grub_cmdline_ok 'root=/dev/sda2 ro quiet'
}

# check_target_put: tb_target_put through a stand-in ssh that runs the
# command here, on all of the file or, as a connection cut would, on its
# first 1000 bytes: whole, the copy takes its name; cut, it does not,
# a file of that name before stays as it was, and no part is left
check_target_put()
{
	local d=$TB_OUT/target-put

	rm -rf "$d" && mkdir -p "$d/bin" "$d/box" || return 1
	# shellcheck disable=SC2016 # the stand-in's lines, as they are
	ssh_runs_here "$d/bin/ssh" \
		'[ -z "${CUT:-}" ] || { head -c "$CUT" | sh -c "$cmd"; exit; }' ||
		return 1
	head -c 5000 /dev/urandom >"$d/file" && echo before >"$d/box/old" || return 1
	if ! (ssh_stand_in "$d/bin"; tb_target_put "$d/file" "$d/box/new") ||
	   ! cmp -s "$d/file" "$d/box/new"; then
		echo "[target] a whole copy did not take its name"
		return 1
	fi
	(ssh_stand_in "$d/bin"; CUT=1000 tb_target_put "$d/file" "$d/box/old") &&
		{ echo "[target] a cut copy succeeded"; return 1; }
	[ "$(cat "$d/box/old")" = before ] ||
		{ echo "[target] a cut copy took the name of the file there"; return 1; }
	[ ! -e "$d/box/old.part" ] || { echo "[target] a cut copy left its part"; return 1; }
}

# uncut_stand_in FILE: at FILE, a stand-in for ssh, lavacli or lava.py,
# in Python as the last two are: it logs its words and "done" to
# $UNCUT_LOG and prints "done", but first, if $UNCUT_AT is empty or one
# of its words, logs them and "started" and is under way until a Ctrl-C
# reached bench.sh's trap (its "trapped" there). As ssh does as a client
# of a shared connection (mux.c), that one ends on SIGINT whatever its
# caller ignores; the others leave SIGINT as they found it.
uncut_stand_in()
{
	cat >"$1" <<'PYEOF' && chmod +x "$1"
#!/usr/bin/python3
import os, signal, sys, time
name = os.path.basename(sys.argv[0])
log = os.environ['UNCUT_LOG']
if 'ControlMaster=no' in sys.argv:
    signal.signal(signal.SIGINT, lambda *_: sys.exit(255))
def say(what):
    with open(log, 'a') as f:
        print(name, *sys.argv[1:], what, sep=': ', file=f)
# longer than bench.sh's trap's own job (UNCUT_FAULT gap)
if os.environ.get('UNCUT_FAULT') == 'gap' and 'touch' not in sys.argv[-1]:
    time.sleep(1)
if os.environ['UNCUT_AT'] in ['', *sys.argv[1:]]:
    say('started')
    # a caller in a $(...) runs its trap once that ends: held a while
    if os.environ.get('UNCUT_HOLD'):
        time.sleep(float(os.environ['UNCUT_HOLD']))
    for _ in range(0 if os.environ.get('UNCUT_HOLD') else 600):
        with open(log) as f:
            if 'trapped\n' in f.read():
                break
        time.sleep(0.05)
say('done')
print('done')
PYEOF
}

# check_steps_uncut: a Ctrl-C does not cut a step that bench.sh runs in
# the background for it to handle (its trap): on the box, target_do's
# command and target_collect's run, with or without the boot's shared
# connection, cut in its check or in the command; on a lab, a lavacli
# call (also in a $(...)) and tools/lava.py.
# Each step, as bench.sh runs it, gets a terminal's SIGINT (its whole
# process group) while its stand-in is under way, which must end it
# with its result: no stand-in gone before "done", the shared
# connection's socket kept. Then, forced, each step again:
# - its first job killed by SIGINT as it starts, before its trap
#   (tb_uncut's fault point): it runs anew, the stand-in once;
# - wait saying 130 as a trap ran when the job ended: the step keeps
#   its own status, the stand-in run once;
# - on the box, a Ctrl-C between the step's job and its wait (a DEBUG
#   trap sends it), handled by bench.sh's own trap, which asks the box
#   to stop by a job of its own: the step keeps its result, run once;
# - on the box, the step's file removed under it (a cleaner of
#   TMPDIR): the step is not run again.
# None may leave anything in TMPDIR, nor may a trap that runs a step of
# its own and exits while a step runs (a second Ctrl-C on a lab).
check_steps_uncut()
{
	local d=$TB_OUT/steps-uncut step at log pid rc fail=0

	rm -rf "$d" && mkdir -p "$d/bin" "$d/tools" || return 1
	uncut_stand_in "$d/bin/ssh" && uncut_stand_in "$d/bin/lavacli" &&
		uncut_stand_in "$d/tools/lava.py" || return 1
	# bench.sh's way, with its Ctrl-C trapped; the step named by $1
	cat >"$d/bench" <<'XSHEOF'
. "$TB_TOP/tools/lib.sh" && . "$TB_TOP/tools/lib/bench_target.sh" || exit 9
trap 'echo trapped >>"$UNCUT_LOG"' INT
TB_SSH_SHARE='' TB_TARGET_DIR=/tb TB_TARGET_SSH_OPTS=()
TB_TARGET_PORT=22 TB_TARGET_USER=u TB_TARGET_HOST=h
# the fault UNCUT_FAULT names, forced; each marks that it came
case ${UNCUT_FAULT:-} in
forked)
	# the first job dies of a SIGINT that comes as it starts, before its
	# trap, as one did once in make check (bash's own window: trap -
	# gives it the default there)
	tb_uncut_fault()
	{
		if [ ! -e "$D/forked" ]; then
			: >"$D/forked"
			trap - INT
			kill -INT "$BASHPID"
		fi
	}
	;;
wait)
	# wait gives the status of a trap that ran as the job ended, as
	# bash's does, the job's lost
	eval "uncut_$(declare -f tb_wait)"
	tb_wait()
	{
		: >"$D/wait"
		uncut_tb_wait "$1"
		return 130
	}
	;;
gap)
	# a Ctrl-C as the step's job has started, before its wait, handled
	# by bench.sh's own trap, which starts a job of its own (a DEBUG
	# trap sends it there)
	stop_asked=0
	exec {bench_stderr}>>"$UNCUT_LOG"
	trap 'echo trapped >>"$UNCUT_LOG"; on_interrupt' INT
	set -T
	trap '[ "$BASH_COMMAND" != "tb_wait \$!" ] || [ -e "$D/gap" ] ||
		{ : >"$D/gap"; kill -INT $$; }' DEBUG
	;;
cleaned)
	# the step's file removed under it, as by a cleaner of TMPDIR
	eval "uncut_$(declare -f tb_ssh)"
	tb_ssh()
	{
		: >"$D/cleaned"
		rm -rf "${TMPDIR:?}"/tb-uncut.*
		uncut_tb_ssh "$@"
	}
	;;
die)
	# a trap that runs a step of its own, then exits, while a step runs
	# (a second Ctrl-C on a lab); the EXIT trap, bench.sh's
	trap tb_uncut_abandon EXIT
	trap 'echo trapped >>"$UNCUT_LOG"; tb_uncut true; exit 1' INT
	;;
esac
case $1 in
target_do)	target_do "$D/$1.out" tb_ssh 'run' ;;
target_collect)	target_collect "$D/$1" '' && mv "$D/$1.ktap" "$D/$1.out" ;;
shared-*)	TB_SSH_SHARE=$D/socket
		target_do "$D/$1.out" tb_ssh 'run' ;;
lavacli)	tb_lava_cli=(lavacli)
		tb_lavacli system version >"$D/$1.out" ;;
lavacli-sub)	tb_lava_cli=(lavacli)
		v=$(tb_lavacli system version) && echo "$v" >"$D/$1.out" ;;
lava.py)	TB_TOP=$D tb_lava_py result x >"$D/$1.out" ;;
esac
XSHEOF
	# each step, a word of the call the Ctrl-C is to land in, held
	# until it does (none or -: the step's only call), or held so many
	# seconds (a call in a $(...), whose trap runs once it ends)
	while read -r step at hold; do
		[ "$at" != - ] || at=
		rm -rf "$d/socket" "$d/$step."* "$d/tmp" && mkdir "$d/tmp" || return 1
		# a socket, as one a live connection leaves
		/usr/bin/python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$d/socket" || return 1
		log=$d/$step.log
		PATH=$d/bin:$PATH UNCUT_LOG=$log UNCUT_AT=$at D=$d TB_TOP=$TB_TOP \
			TMPDIR=$d/tmp UNCUT_HOLD=$hold \
			tb_interruptible /usr/bin/setsid bash "$d/bench" "$step" \
			</dev/null >"$d/$step.err" 2>&1 &
		pid=$!
		# once that call waits, so that the SIGINT lands mid-step
		tb_interrupt_at $pid "$log" ': started$'
		rc=$?
		if [ $rc != 0 ] || [ "$(cat "$d/$step.out" 2>/dev/null)" != "done" ] ||
		   ! grep -qx trapped "$log" || [ -n "$(ls "$d/tmp")" ]; then
			echo "[uncut] $step: exit $rc, output '$(cat "$d/$step.out" 2>/dev/null)', left in TMPDIR: $(ls "$d/tmp")"
			cat "$log" "$d/$step.err"
			fail=1
		fi
		if [[ $step = shared-* ]] &&
		   { ! grep -q -- '^ssh: .*: -O: check: .*: done$' "$log" || [ ! -S "$d/socket" ]; }; then
			echo "[uncut] $step: the connection's check was cut, its socket removed"
			cat "$log"
			fail=1
		fi
	done <<'XSTEPS'
target_do
target_collect
shared-check -O
shared-run run
lavacli
lavacli-sub - 1
lava.py
XSTEPS
	# a trap's step and exit while a step runs: no directory left
	rm -rf "$d/tmp" "$d/die."* && mkdir "$d/tmp" || return 1
	log=$d/die.log
	PATH=$d/bin:$PATH UNCUT_LOG=$log UNCUT_AT='' UNCUT_FAULT=die D=$d \
		TB_TOP=$TB_TOP TMPDIR=$d/tmp \
		tb_interruptible /usr/bin/setsid bash "$d/bench" target_do \
		</dev/null >"$d/die.err" 2>&1 &
	tb_interrupt_at $! "$log" ': started$'
	rc=$?
	if [ $rc != 1 ] || ! grep -qx trapped "$log" || [ -n "$(ls "$d/tmp")" ]; then
		echo "[uncut] a trap's step and exit during a step: exit $rc, left in TMPDIR: $(ls "$d/tmp")"
		cat "$log" "$d/die.err"
		fail=1
	fi
	while read -r step faults; do
		for fault in $faults; do
			rm -rf "$d/$step."* "$d/forked" "$d/wait" "$d/gap" "$d/cleaned" "$d/tmp" &&
				mkdir "$d/tmp" || return 1
			log=$d/$step.log
			PATH=$d/bin:$PATH UNCUT_LOG=$log UNCUT_AT=none \
				UNCUT_FAULT=$fault TMPDIR=$d/tmp D=$d TB_TOP=$TB_TOP \
				bash "$d/bench" "$step" </dev/null >"$d/$step.err" 2>&1
			rc=$?
			if [ $rc != 0 ] || [ ! -e "$d/$fault" ] ||
			   [ "$(cat "$d/$step.out" 2>/dev/null)" != "done" ] ||
			   [ "$(grep -v ': touch /tb/stop: ' "$log" | grep -c ': done$')" != 1 ] ||
			   [ -n "$(ls "$d/tmp")" ]; then
				echo "[uncut] $step, $fault: exit $rc, output '$(cat "$d/$step.out" 2>/dev/null)', left in TMPDIR: $(ls "$d/tmp")"
				cat "$log" "$d/$step.err"
				fail=1
			fi
			[ "$fault" != gap ] || grep -q ': touch /tb/stop: done$' "$log" ||
				{ echo "[uncut] $step, $fault: bench.sh's trap did not ask the box to stop"; cat "$log"; fail=1; }
		done
	done <<'XFAULTS'
target_do forked wait gap cleaned
target_collect forked wait gap
lavacli forked wait
lava.py forked wait
XFAULTS
	return $fail
}
