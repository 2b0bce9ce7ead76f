# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The box (tools/lib/box.sh): the QEMU guest with a Debian userland that
# stands in for a test machine reached over ssh. Sourced by
# tools/check.sh; TB_BOX_CACHE moves the rootfs it makes once.

# box_debugfs IMAGE CMD: debugfs's read-only CMD on IMAGE, without its banner
box_debugfs()
{
	debugfs -R "$2" "$1" 2>/dev/null
}

# check_box_rootfs: the cached rootfs holds sshd with its host keys,
# kexec and busybox; asked for again, it is the same file, not made
# anew; and it is a whole ext4 file system (e2fsck).
check_box_rootfs()
{
	local img again f

	img=$(tb_box_image) || return 1
	for f in /usr/sbin/sshd /usr/sbin/kexec /usr/bin/busybox /usr/bin/kmod \
		/etc/ssh/ssh_host_ed25519_key; do
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
# 0700 .ssh), the box's init as /sbin/init and the kernel and its initrd
# in /boot, byte for byte.
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
		"$img:/boot/vmlinuz-$rel" "$dir/initrd.img:/boot/initrd.img-$rel"; do
		box_debugfs "$dir/disk.img" "cat ${f#*:}" | cmp -s - "${f%%:*}" ||
			{ echo "[box] disk: ${f#*:} is not ${f%%:*}"; return 1; }
	done
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
	TB_CPUS=2 TB_MEM=1G tb_box_start "$dir" "$img" "$rel" || return 1
	box_t1=$SECONDS
	echo "[box] $rel: ssh answered $((box_t1 - box_t0)) s after the start"
	out=$(TB_SSH_TIMEOUT=60 tb_box_ssh "$dir" uname -r </dev/null)
	[ "$out" = "$rel" ] ||
		{ echo "[box] uname -r: '$out', not $rel"; return 1; }
	port=$(cat "$dir/port")
	[ "$(ss -Hltn "sport = :$port" | awk '{ print $4 }' | sort -u)" = \
	  "127.0.0.1:$port" ] ||
		{ echo "[box] port $port listens elsewhere than 127.0.0.1:"; ss -ltn; return 1; }
}

# check_box_kexec DIR KERNEL: the ssh target's kernel switch, on the box
# of DIR running Debian's KERNEL: KERNEL's image, initrd and
# tracerbench.ko are sent into the tool's directory on the box, and the
# box kexecs into them with its own command line and comes back on a new
# boot of that kernel (uname -r and -v), where the module loads and
# makes its debugfs files; then the box kexecs back to its own
# kernel from /boot; the kernels sent are removed, and no file of the
# box outside the tool's directory changed.
check_box_kexec()
{
	local dir=$1 rel img mod first=$1/first d=$TB_TARGET_DIR/kernels/sent
	local ref ver cmdline t0=$SECONDS out

	rel=$(tb_release "$2") && img=$(tb_vmlinuz "$2") || return 1
	mod=$(tb_module "$2")
	[ -f "$mod" ] || { echo "[box] no tracerbench.ko built for $2: $mod"; return 1; }
	(
	tb_box_use "$dir"
	ref=$(tb_ssh 'date +%s' </dev/null) && tb_target_record "$first" ||
		exit 1
	cmdline=$(tb_cmdline_own "$(sed -n 3p "$first")")
	{ read -r rel && read -r ver; } < <(tb_image_uname "$img")
	tb_target_stage sent "$img" "$dir/initrd.img" "$mod" || exit 1
	tb_target_kexec "$d/vmlinuz" "$d/initrd.img" "$cmdline" "$rel" "$ver" ||
		exit 1
	echo "[box] kexec into the $2 sent: $((SECONDS - t0)) s"
	out=$(tb_ssh "insmod $d/tracerbench.ko && ls /sys/kernel/debug/tracerbench/ && rmmod tracerbench" </dev/null)
	if ! echo "$out" | grep -qx benchmark; then
		echo "[box] the module sent did not load: $out"
		exit 1
	fi
	t0=$SECONDS
	tb_target_return "$first" || exit 1
	echo "[box] kexec back: $((SECONDS - t0)) s"
	tb_target_clean || exit 1
	# mount points show the mtime of what is mounted there
	out=$(tb_ssh "find / -xdev -newermt @$ref ! -path '$TB_TARGET_DIR' \
		! -path /var/tmp | while read -r f; do
			mountpoint -q \"\$f\" || echo \"\$f\"; done" </dev/null)
	[ -z "$out" ] ||
		{ echo "[box] files of the box changed:"; echo "$out"; exit 1; }
	)
}

# check_box_off DIR: the box powers off when told, its QEMU gone
check_box_off()
{
	local t0=$SECONDS

	tb_box_stop "$1" || return 1
	echo "[box] off $((SECONDS - t0)) s after asked; $((SECONDS - box_t0)) s in all"
}

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

# check_box_no_kernel: a box whose kernel is no kernel is said to have
# stopped, at once, not waited for
check_box_no_kernel()
{
	local d=$TB_OUT/box-no-kernel t0=$SECONDS

	mkdir -p "$TB_OUT" && head -c 65536 /dev/zero >"$d.img" || return 1
	if TB_BOX_WAIT=60 tb_box_start "$d" "$d.img" 0.0-none 2>"$d.err"; then
		echo "[box] booted a kernel of zeros"
		tb_box_stop "$d"
		return 1
	fi
	if ! grep -q "QEMU exited before ssh answered" "$d.err" ||
	   [ $((SECONDS - t0)) -ge 30 ] || [ -e "$d/qemu.pid" ]; then
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
	result $? "box: a cached Debian $TB_BOX_SUITE rootfs with sshd, kexec, kmod and busybox, made once"
	check_box_disk "$1"
	result $? "box: $(tb_name "$1")'s initrd loads the disk's, ext4's and the network's modules; the disk authorizes a throwaway key"
	check_box_no_kernel
	result $? "box: a kernel that does not boot is reported at once"
	check_target_forms
	result $? "target: ssh://[USER@]HOST[:PORT] alone; another kernel back is named"
	if check_box_boot "$dir" "$1"; then
		result 0 "box: boots $(tb_name "$1") under TCG, answers ssh on 127.0.0.1 with its release"
		check_box_kexec "$dir" "$1"
		result $? "target: kexec into the $(tb_name "$1") sent, its module loads; kexec back; nothing left"
		check_box_off "$dir"
		result $? "box: powers off when told"
	else
		result 1 "box: boots $(tb_name "$1") under TCG, answers ssh on 127.0.0.1 with its release"
		tb_box_stop "$dir"
	fi
}
