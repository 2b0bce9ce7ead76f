# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The box (tools/lib/box.sh): the QEMU guest with a Debian userland that
# stands in for a test machine reached over ssh. Sourced by
# tools/check.sh; TB_BOX_CACHE moves the rootfs it makes once.

# The box kernel: trace with what the box needs built in, which the box's
# runs send most. BOX_KERNEL is its spec for bench.sh, box_kernel_tree
# its built tree's path (building it if need be).
BOX_CONFIG=$TB_TOP/tools/kconfig/box.config
# shellcheck disable=SC2034 # read by tools/check/box_target.sh
BOX_KERNEL="trace,config=$BOX_CONFIG"

box_kernel_tree()
{
	tb_build_patched trace "" "$BOX_CONFIG"
}

# box_since DIR: the box of DIR's time now into DIR/since, after which
# none of its files may change (check_box_unchanged)
box_since()
{
	tb_box_ssh "$1" 'date +%s' </dev/null >"$1/since" && [ -s "$1/since" ]
}

# box_counts DIR [ARGS]: the QEMU of the box of DIR counts instructions
# (-icount ARGS, any if not given)
box_counts()
{
	pgrep -af "file=$1/disk.img" | grep -q -- " -icount ${2:-}"
}

# box_debugfs IMAGE CMD: debugfs's read-only CMD on IMAGE, without its banner
box_debugfs()
{
	debugfs -R "$2" "$1" 2>/dev/null
}

# check_box_rootfs: the cached rootfs holds sshd with its host keys,
# kexec, busybox and systemd with udev; asked for again, it is the same
# file, not made anew; and it is a whole ext4 file system (e2fsck).
check_box_rootfs()
{
	local img again f

	img=$(tb_box_image) || return 1
	for f in /usr/sbin/sshd /usr/sbin/kexec /usr/bin/busybox /usr/bin/kmod \
		/etc/ssh/ssh_host_ed25519_key /lib/systemd/systemd \
		/usr/bin/udevadm; do
		box_debugfs "$img" "stat $f" | grep -q 'Type: regular' ||
			{ echo "[box] no $f in $img"; return 1; }
	done
	again=$(tb_box_image 2>&1) || return 1
	[ "$again" = "$img" ] ||
		{ echo "[box] asked again: $again"; return 1; }
	e2fsck -fn "$img" >"$TB_OUT/box-fsck.log" 2>&1 ||
		{ cat "$TB_OUT/box-fsck.log"; return 1; }
}

# check_box_disk KERNEL: a boot's initrd and disk for KERNEL (Debian's):
# the initrd holds /init, busybox and the modules of the disk, ext4 and
# the network as ELF objects, each after those it depends on (ext4 after
# jbd2); the disk holds the key authorized for root alone (0600, in a
# 0700 .ssh), the box's init as /sbin/init, its network's unit for
# systemd, enabled, and the kernel and its initrd in /boot, and GRUB's
# menu, byte for byte.
check_box_disk()
{
	local dir=$TB_OUT/box-disk rel img list m f

	rel=$(tb_release "$1") && img=$(tb_vmlinuz "$1") || return 1
	rm -rf "$dir" && mkdir -p "$dir" &&
		ssh-keygen -q -t ed25519 -N '' -C tb-box -f "$dir/key" &&
		tb_box_initrd "$rel" "$dir/initrd.img" &&
		tb_box_disk "$dir" "$img" "$rel" || return 1
	list=$(cpio -t --quiet <"$dir/initrd.img") || return 1
	for f in init bin/busybox; do
		echo "$list" | grep -qx "$f" ||
			{ echo "[box] initrd: no $f"; return 1; }
	done
	for m in virtio_blk jbd2 ext4 virtio_net; do
		f=$(echo "$list" | grep -x "lib/modules/[0-9]*-$m.ko") ||
			{ echo "[box] initrd: no $m.ko"; return 1; }
		(cd "$dir" && cpio -i --quiet --to-stdout "$f" <initrd.img) |
			head -c 4 | grep -q 'ELF' ||
			{ echo "[box] initrd: $f is no ELF object"; return 1; }
	done
	[[ $(echo "$list" | grep -o '[0-9]*-jbd2') < \
	   $(echo "$list" | grep -o '[0-9]*-ext4') ]] ||
		{ echo "[box] initrd: ext4 loads before jbd2"; return 1; }
	for f in 0700:/root/.ssh 0600:/root/.ssh/authorized_keys \
		0755:/usr/sbin/init; do
		box_debugfs "$dir/disk.img" "stat ${f#*:}" |
			grep -q "Mode:  ${f%%:*}" ||
			{ echo "[box] disk: ${f#*:} is not mode ${f%%:*}"; return 1; }
	done
	for f in "$dir/key.pub:/root/.ssh/authorized_keys" \
		"$TB_TOP/tools/guest/box-init:/usr/sbin/init" \
		"$TB_TOP/tools/guest/tb-box-net.service:/etc/systemd/system/tb-box-net.service" \
		"$img:/boot/vmlinuz-$rel" "$dir/initrd.img:/boot/initrd.img-$rel" \
		"$dir/grub.cfg:/boot/grub/grub.cfg"; do
		box_debugfs "$dir/disk.img" "cat ${f#*:}" | cmp -s - "${f%%:*}" ||
			{ echo "[box] disk: ${f#*:} is not ${f%%:*}"; return 1; }
	done
	f=/etc/systemd/system/multi-user.target.wants/tb-box-net.service
	box_debugfs "$dir/disk.img" "stat $f" |
		grep -qxF 'Fast link dest: "/etc/systemd/system/tb-box-net.service"' ||
		{ echo "[box] disk: $f is not a link to the unit"; return 1; }
	rm -f "$dir/disk.img"
}

# check_box_boot DIR KERNEL: the box boots Debian's KERNEL under TCG
# from DIR and answers ssh on 127.0.0.1 alone with uname -r, KERNEL's
# release; it runs on, for the checks that follow, until check_box_off.
check_box_boot()
{
	local dir=$1 rel img out port

	rel=$(tb_release "$2") && img=$(tb_vmlinuz "$2") || return 1
	box_t0=$SECONDS
	# without icount until box_grub_panic's reboots
	TB_CPUS=2 TB_MEM=1G TB_ICOUNT=0 tb_box_start "$dir" "$img" "$rel" || return 1
	! box_counts "$dir" ||
		{ echo "[box] its QEMU counts instructions from the start"; return 1; }
	box_t1=$SECONDS
	echo "[box] $rel: ssh answered $((box_t1 - box_t0)) s after the start"
	out=$(TB_SSH_TIMEOUT=60 tb_box_ssh "$dir" uname -r </dev/null)
	[ "$out" = "$rel" ] ||
		{ echo "[box] uname -r: '$out', not $rel"; return 1; }
	port=$(cat "$dir/port")
	[ "$(ss -Hltn "sport = :$port" | awk '{ print $4 }' | sort -u)" = \
	  "127.0.0.1:$port" ] ||
		{ echo "[box] port $port listens elsewhere than 127.0.0.1:"; ss -ltn; return 1; }
	# the kernel it runs, to be back on at the end, and its time now,
	# after which none of its files may change
	tb_box_ssh "$dir" 'uname -r; uname -v' </dev/null >"$dir/first" &&
		[ "$(wc -l <"$dir/first")" = 2 ] && box_since "$dir"
}

# box_is_first DIR: the box of DIR runs the kernel it ran at the start
# (DIR/first: release and version), and the tool left none of its
# kernels there, nor its lock
box_is_first()
{
	local now left

	# one connection: each costs a second on the box
	now=$(tb_box_ssh "$1" "uname -r; uname -v
		for f in kernels lock; do
			[ ! -e $TB_TARGET_DIR/\$f ] || ls -d $TB_TARGET_DIR/\$f
		done" </dev/null) || return 1
	left=$(echo "$now" | sed -n '3,$p')
	now=$(echo "$now" | head -n 2)
	[ "$now" = "$(cat "$1/first")" ] ||
		{ echo "[box] on '$now' at the end, not on $(cat "$1/first")"; return 1; }
	[ -z "$left" ] || { echo "[box] left on the box: $left"; return 1; }
}

# check_box_counted DIR: the box of DIR runs in a QEMU that counts
# instructions, for check_box_resume and check_box_icount, since
# box_grub_panic's reboots or, where that check did not get so far,
# after a reboot of its own, with DIR/icount there; it is on its first
# kernel; its time now, after which none of its files may change
# (check_box_unchanged)
check_box_counted()
{
	local dir=$1

	if ! box_counts "$dir"; then
		echo "[box] not counting since box_grub_panic: rebooted to count"
		touch "$dir/icount" && tb_box_reboot "$dir" || return 1
	fi
	# exactly, as check_box_icount needs
	box_counts "$dir" "shift=0 " ||
		{ echo "[box] its QEMU does not count: $(pgrep -af "file=$dir/disk.img")"; return 1; }
	box_is_first "$dir" && box_since "$dir"
}

# check_box_unchanged DIR: no file of the box outside the tool's
# directory changed since DIR/since, taken when it booted
# (check_box_boot) and again as the counted checks began
# (check_box_counted); the tool's own files there are found, so that a
# find that finds nothing cannot pass
check_box_unchanged()
{
	local out since

	since=$(cat "$1/since") && [ -n "$since" ] || return 1
	# mount points show the mtime of what is mounted there
	out=$(tb_box_ssh "$1" "set -e; find / -xdev -newermt @$since >/tmp/changed
		grep -qx '$TB_TARGET_DIR/tools/collect.sh' /tmp/changed
		grep -v -e '^$TB_TARGET_DIR\$' -e '^$TB_TARGET_DIR/' -e '^/var/tmp\$' /tmp/changed |
		while read -r f; do mountpoint -q \"\$f\" || echo \"\$f\"; done" </dev/null) ||
		{ echo "[box] cannot list what changed on the box: $out"; return 1; }
	[ -z "$out" ] || { echo "[box] files of the box changed:"; echo "$out"; return 1; }
}

# check_box_off DIR: the box powers off when told, its QEMU gone
check_box_off()
{
	local t0=$SECONDS

	tb_box_stop "$1" || return 1
	echo "[box] off $((SECONDS - t0)) s after asked; $((SECONDS - box_t0)) s in all"
}

# check_box_no_kernel: a box whose kernel is no kernel is said to have
# stopped in GRUB (as its console shows, not as the wait for ssh ends),
# and its QEMU is gone
check_box_no_kernel()
{
	local d=$TB_OUT/box-no-kernel

	mkdir -p "$TB_OUT" && head -c 65536 /dev/zero >"$d.img" || return 1
	if TB_BOX_WAIT=60 tb_box_start "$d" "$d.img" 0.0-none 2>"$d.err"; then
		echo "[box] booted a kernel of zeros"
		tb_box_stop "$d"
		return 1
	fi
	if ! grep -q "the box's GRUB could not boot its kernel" "$d.err" ||
	   [ -e "$d/qemu.pid" ]; then
		cat "$d.err"
		return 1
	fi
}

# step_box KERNEL: the box, booted on Debian's KERNEL (6.12), and the ssh
# target's kernel switch, on it
step_box()
{
	local dir=$TB_OUT/box

	box_t0=$SECONDS
	check_box_rootfs
	result $? "box: a cached Debian $TB_BOX_SUITE rootfs with sshd, kexec, kmod, busybox and systemd, made once"
	check_box_disk "$1"
	result $? "box: $(tb_name "$1")'s initrd loads the disk's, ext4's and the network's modules; the disk authorizes a throwaway key"
	check_box_no_kernel
	result $? "box: a kernel GRUB cannot boot is reported from its console"
	check_target_forms
	result $? "target: ssh://[USER@]HOST[:PORT] alone; another kernel back is named"
	check_box_append
	result $? "box: the command line by TB_BOX_INIT: the box's init, systemd's with net.ifnames=0; another value refused, nothing started"
	check_grub_entry
	result $? "target: the one-time GRUB entry finds its files by UUID, passes the command line a word each; quotes refused"
	check_target_put
	result $? "target: a copy to the box takes its name whole, and a cut one none"
	check_ssh_args
	result $? "target: ssh's options: a command on its own connection, the shared one's master bounded, its control on its socket, the target named alike"
	check_kernel_env
	result $? "target: an installed kernel is described by the hash the box gives of its image, none where it lacks it, and not at all where ssh fails"
	check_switch_probes
	result $? "target: a switch probes the box that boots every 3 s, then longer, for a box behind a jump host, up to a bound, and ends at the first answer from another boot"
	check_target_lock_race
	result $? "target: of $LOCK_RACE_RUNS runs that find its lock stale and go at once, one takes it over, in each of $LOCK_RACE_ROUNDS rounds"
	check_steps_uncut
	result $? "bench.sh: a Ctrl-C cuts no step it runs on the box (a command, collect.sh, the shared connection's check) or for a lab (lavacli, lava.py)"
	# the kernel the box's runs send most, built before the box boots:
	# on an empty cache, ten minutes better spent before than beside it
	box_kernel_tree >/dev/null
	result $? "box: the box kernel, trace with tools/kconfig/box.config, builds"
	check_box_run
	result $? "box: a new QEMU after each reboot, none after a power-off asked for or said, a port taken after a reboot tried again, a QEMU killed stays down, the loop killed kills it; counting instructions once asked"
	if check_box_boot "$dir" "$1"; then
		result 0 "box: boots $(tb_name "$1") under TCG, answers ssh on 127.0.0.1 with its release"
		# shellcheck disable=SC2034 # read by box_runs (box_target.sh)
		box_dir=$dir
		check_box_bench "$dir" "$1"
		result $? "bench.sh --target: a stale lock taken over; a run's connection cut, named, and --resume goes on; the box's $(tb_name "$1") measured, switched to by kexec, a kernel that cannot boot the box named; the box back on its kernel"
		check_box_lock "$dir" "$1"
		result $? "bench.sh --target: a box another run holds is refused at once, naming it, its lock as it was"
		check_box_sent "$dir" "$1"
		result $? "bench.sh --target: a run stopped after sending a kernel removes it from the box; a kernel the box lacks is refused before any is sent"
		check_box_unchanged "$dir"
		result $? "bench.sh --target: no file of the box outside its directory changed by the runs so far"
		# (the GRUB runs change GRUB's environment block and the
		# stand-in's /boot, which check_box_grub checks alone)
		check_box_grub "$dir"
		result $? "bench.sh --target --switch grub-reboot --box-config: trace built on the box's configuration, every option changed named, booted by a one-time GRUB entry, a boot's commands on one connection; the box back on its own, GRUB's files as they were"
		check_box_config "$dir"
		result $? "bench.sh --box-config: the box's kernel configuration read over ssh, a variant configured on it, every option changed named"
		# the checks before need no counted instructions, which slow
		# every boot of the box: the GRUB panic's reboots began
		# counting them
		check_box_counted "$dir"
		result $? "box: a QEMU that counts instructions since a reboot; on its first kernel"
		check_box_resume "$dir" "$1"
		result $? "bench.sh --target: three kernels; Ctrl-C stops after the run, or after the switch with no run there, and once the last run began lets it finish; --resume completes the directory; report.py names the box"
		check_box_icount
		result $? "bench.sh --target: under icount, the box's medians of a kernel are those of its image booted by bench.sh"
		check_box_unchanged "$dir"
		result $? "bench.sh --target: no file of the box outside its directory changed by the counted checks' runs"
		check_box_off "$dir"
		result $? "box: powers off when told"
	else
		result 1 "box: boots $(tb_name "$1") under TCG, answers ssh on 127.0.0.1 with its release"
		tb_box_stop "$dir"
	fi
	check_box_systemd "$1"
	result $? "bench.sh --target on a box run by systemd: its runs, each switch by systemctl kexec, the box back on its kernel"
}
