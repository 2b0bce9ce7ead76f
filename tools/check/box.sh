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
# anew; and no temporary directory is left in the cache.
check_box_rootfs()
{
	local img again f

	img=$(tb_box_image) || return 1
	for f in /usr/sbin/sshd /usr/sbin/kexec /usr/bin/busybox \
		/etc/ssh/ssh_host_ed25519_key; do
		box_debugfs "$img" "stat $f" | grep -q 'Type: regular' ||
			{ echo "[box] no $f in $img"; return 1; }
	done
	again=$(tb_box_image 2>&1) || return 1
	[ "$again" = "$img" ] ||
		{ echo "[box] asked again: $again"; return 1; }
	if ls -d "$TB_BOX_CACHE"/.tmp-* 2>/dev/null; then
		echo "[box] temporary directories left in $TB_BOX_CACHE"
		return 1
	fi
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

# check_box_boot KERNEL: the box boots Debian's KERNEL under TCG and
# answers ssh on 127.0.0.1 alone, runs uname -r there, which is KERNEL's
# release, and powers off when told, its QEMU gone within the bound;
# prints how long each took.
check_box_boot()
{
	local dir=$TB_OUT/box-boot rel img t0 t1 t2 out port rc=0

	rel=$(tb_release "$1") && img=$(tb_vmlinuz "$1") || return 1
	t0=$SECONDS
	TB_CPUS=2 TB_MEM=1G tb_box_start "$dir" "$img" "$rel" || return 1
	t1=$SECONDS
	out=$(TB_SSH_TIMEOUT=60 tb_box_ssh "$dir" uname -r </dev/null)
	[ "$out" = "$rel" ] ||
		{ echo "[box] uname -r: '$out', not $rel"; rc=1; }
	port=$(cat "$dir/port")
	[ "$(ss -Hltn "sport = :$port" | awk '{ print $4 }' | sort -u)" = \
	  "127.0.0.1:$port" ] ||
		{ echo "[box] port $port listens elsewhere than 127.0.0.1:"; ss -ltn; rc=1; }
	tb_box_stop "$dir" || rc=1
	t2=$SECONDS
	echo "[box] $rel: ssh answered $((t1 - t0)) s after the start, off $((t2 - t1)) s later"
	return $rc
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

# step_box KERNEL: the box for Debian's KERNEL (6.12), made and checked
step_box()
{
	check_box_rootfs
	result $? "box: a cached Debian $TB_BOX_SUITE rootfs with sshd, kexec and busybox, made once"
	check_box_disk "$1"
	result $? "box: $(tb_name "$1")'s initrd loads the disk's, ext4's and the network's modules; the disk authorizes a throwaway key"
	check_box_no_kernel
	result $? "box: a kernel that does not boot is reported at once"
	check_box_boot "$1"
	result $? "box: boots $(tb_name "$1") under TCG, answers ssh on 127.0.0.1 with its release, powers off"
}
