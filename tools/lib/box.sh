# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The box: a QEMU guest with a small Debian userland, reached over ssh,
# that stands in for a test machine (bench.sh --target, issue 33). Its
# disk is a Debian rootfs made once with mmdebstrap and cached; each
# boot gets a copy of it with a throwaway key authorized for root, the
# box's init (tools/guest/box-init) and the kernel it boots installed in
# /boot, with an initrd of the modules that kernel needs for the disk and
# the network, and GRUB's menu for it; the box boots through GRUB, as a
# test machine does. Sourced by tools/lib.sh.

# The cache of rootfs images, beside the kernels' unless told (a test
# points it elsewhere); what the rootfs is made of, which keys it.
TB_BOX_CACHE=${TB_BOX_CACHE:-$TB_CACHE/box}
TB_BOX_SUITE=bookworm
# grub2-common: grub-reboot, for bench.sh --switch grub-reboot; systemd,
# udev, dbus and libpam-systemd: systemd as a Debian machine runs it,
# ssh's sessions under logind, for a box booted with it (TB_BOX_INIT;
# without udev, systemd waits 90 s for the serial console's device)
TB_BOX_PACKAGES=openssh-server,kexec-tools,kmod,busybox,grub2-common,systemd,udev,dbus,libpam-systemd
TB_BOX_SIZE=2G
# the modules, with what they depend on, that the box's initrd loads:
# QEMU's virtio-rng seeds the kernel's random pool, which without it took
# up to 80 s under TCG to let sshd start
TB_BOX_MODULES="virtio_pci virtio_rng virtio_blk ext4 virtio_net"

# tb_box_sources: the apt sources mmdebstrap reads, the host's own
tb_box_sources()
{
	local f

	for f in ${TB_BOX_SOURCES:-} /etc/apt/sources.list.d/debian.sources \
		/etc/apt/sources.list; do
		[ -s "$f" ] && { echo "$f"; return 0; }
	done
	echo "tracerbench: no apt sources for the box's rootfs (TB_BOX_SOURCES)" >&2
	return 1
}

# tb_box_image: the box's rootfs, an ext4 image of Debian's essential
# packages and TB_BOX_PACKAGES, made once (about 2 minutes) and cached in
# TB_BOX_CACHE under a name keyed by what it is made of. It is made in a
# temporary directory there and renamed into place, so that a reader
# never sees half an image, under the image's lock (tools/lib/cache.sh),
# so that two processes that need it make it once. An image is never
# removed: each boot copies it. Prints its path.
tb_box_image()
{
	local key img tmp src fd rc log=$TB_OUT/box-rootfs.log

	key=$(printf '%s\n' "$TB_BOX_SUITE" essential "$TB_BOX_PACKAGES" \
		"$TB_DEB_ARCH" "$TB_BOX_SIZE" | sha256sum | cut -c 1-16)
	img=$TB_BOX_CACHE/rootfs-$TB_BOX_SUITE-$TB_DEB_ARCH-$key.ext4
	if [ -f "$img" ]; then
		echo "$img"
		return 0
	fi
	[ "$(id -u)" = 0 ] || {
		echo "tracerbench: run as root to make the box's rootfs ($img)" >&2
		return 1
	}
	src=$(tb_box_sources) || return 1
	mkdir -p "$TB_BOX_CACHE" "$TB_OUT" || return 1
	exec {fd}<>"$img.lock" || return 1
	tb_cache_lock "$fd" -x "$img" || { exec {fd}<&-; return 1; }
	tb_box_image_make "$img" "$src" "$log" {fd}<&-
	rc=$?
	exec {fd}<&-
	return $rc
}

# tb_box_image_make IMG SOURCES LOG: tb_box_image's build, under its lock;
# what an earlier builder that died left is removed first
tb_box_image_make()
{
	local img=$1 src=$2 log=$3 tmp

	if [ -f "$img" ]; then
		echo "$img"
		return 0
	fi
	rm -rf "$img".tmp-*
	tmp=$(mktemp -d "$img.tmp-XXXXXX") || return 1
	echo "tracerbench: making the box's rootfs, Debian $TB_BOX_SUITE with $TB_BOX_PACKAGES, into $img" >&2
	if mmdebstrap --variant=essential --architectures="$TB_DEB_ARCH" \
		--include="$TB_BOX_PACKAGES" "$TB_BOX_SUITE" "$tmp/root" - \
		<"$src" >"$log" 2>&1 &&
	   mkfs.ext4 -q -F -L tb-box -m 0 -d "$tmp/root" "$tmp/rootfs.ext4" \
		"$TB_BOX_SIZE" >>"$log" 2>&1 &&
	   mv "$tmp/rootfs.ext4" "$img"; then
		rm -rf "$tmp"
		echo "$img"
		return 0
	fi
	rm -rf "$tmp"
	echo "tracerbench: making the box's rootfs failed; the end of $log:" >&2
	tail -n 20 "$log" >&2
	return 1
}

# tb_box_initrd RELEASE OUT: the box's initrd for kernel RELEASE, an
# uncompressed cpio (quickest to unpack under TCG): static busybox, /init
# (tools/guest/box-initrd) and, decompressed, the modules of
# TB_BOX_MODULES and those they depend on, from /lib/modules/RELEASE, in
# the order they load. A kernel without /lib/modules (all built in) gets
# none.
tb_box_initrd()
{
	local rel=$1 out=$2 root debs rc

	debs=$(tb_guest_debs) || return 1
	root=$(mktemp -d) || return 1
	mkdir -p "$root"/bin "$root"/dev "$root"/proc "$root"/sys \
		"$root"/newroot "$root"/lib/modules &&
		cp "$debs"/bin/busybox "$root"/bin/ &&
		cp "$TB_TOP"/tools/guest/box-initrd "$root"/init &&
		chmod +x "$root"/init &&
		tb_box_modules "$rel" "$root/lib/modules" &&
		(cd "$root" && find . | cpio -o -H newc --quiet) >"$out"
	rc=$?
	rm -rf "$root"
	return $rc
}

# tb_box_modules RELEASE DIR: the modules of the box's initrd into DIR
tb_box_modules()
{
	local rel=$1 dir=$2 m f n=0

	[ -d "/lib/modules/$rel" ] || return 0
	for m in $TB_BOX_MODULES; do
		modprobe -S "$rel" --show-depends "$m" ||
			{ echo "tracerbench: no module $m for $rel" >&2; return 1; }
	done >"$dir/deps" || return 1
	while read -r f; do
		n=$((n + 1))
		m=${f##*/}
		m=$(printf '%02d-%s.ko' $n "${m%%.ko*}")
		case $f in
		*.ko.xz)	xz -dc "$f" ;;
		*.ko.zst)	zstd -qdc "$f" ;;
		*.ko.gz)	gzip -dc "$f" ;;
		*)		cat "$f" ;;
		esac >"$dir/$m" || return 1
	done < <(sed -n 's/^insmod \([^ ]*\) *$/\1/p' "$dir/deps" |
		awk '!seen[$0]++')
	rm "$dir/deps"
}

# tb_box_grub DIR RELEASE UUID: the box's boot loader, GRUB for BIOS
# (i386-pc, the host's grub-pc-bin), as DIR/grub.lnx, which QEMU loads
# as it would a kernel (lnxboot.img before the core image) and which
# reads its menu from the disk's /boot/grub, as GRUB installed on a disk
# does; the modules a menu uses are in its core image, since the disk
# holds none. And DIR/grub.cfg, the menu Debian's update-grub writes,
# from the host's scripts of Debian's GRUB (Debian 12's, as the box's):
# the header, which honours grub-reboot's next_entry, one entry as
# 10_linux writes it for the kernel of RELEASE on the file system of
# UUID, with the box's command line, and 41_custom, which reads
# /boot/grub/custom.cfg.
tb_box_grub()
{
	local dir=$1 rel=$2 uuid=$3 d=/usr/lib/grub/i386-pc
	local serial='serial --unit=0 --speed=115200'

	# GRUB's console is the serial port from the start, as the box's
	# console is: what it says before it reads its menu is seen
	printf '%s\n' "$serial" \
		'terminal_input serial console' 'terminal_output serial console' \
		>"$dir/early.cfg"
	grub-mkimage -O i386-pc -d "$d" -p '(hd0)/boot/grub' -c "$dir/early.cfg" \
		-o "$dir/core.img" \
		biosdisk part_msdos part_gpt ext2 normal linux gzio configfile \
		loadenv search search_fs_uuid search_fs_file search_label test \
		echo serial terminal terminfo sleep true regexp halt reboot &&
		cat "$d/lnxboot.img" "$dir/core.img" >"$dir/grub.lnx" &&
		rm "$dir/core.img" "$dir/early.cfg" || return 1
	{
		GRUB_DEFAULT=0 GRUB_TIMEOUT=0 GRUB_TERMINAL=serial \
			GRUB_SERIAL_COMMAND=$serial \
			pkgdatadir=/usr/share/grub grub_probe=false \
			sh /etc/grub.d/00_header &&
		cat <<EOF &&
menuentry 'Debian GNU/Linux' --id box {
	insmod ext2
	search --no-floppy --fs-uuid --set=root $uuid
	linux /boot/vmlinuz-$rel $(tb_box_append)
	initrd /boot/initrd.img-$rel
}
EOF
		sh /etc/grub.d/41_custom
	} >"$dir/grub.cfg"
}

# tb_box_disk DIR IMAGE RELEASE: DIR/disk.img, the box's disk for one
# boot: a sparse copy of the cached rootfs with, written by debugfs (no
# mount), the box's init as /sbin/init, its network's unit for systemd,
# enabled (tools/guest/tb-box-net.service), DIR/key.pub authorized for
# root, the kernel IMAGE of RELEASE with its initrd DIR/initrd.img and, if
# the host has one, its configuration in /boot, as a Debian box has its
# kernels (kexec finds the box's own kernel there), and GRUB's menu for
# it with an empty environment block (tb_box_grub), in /boot/grub.
tb_box_disk()
{
	local dir=$1 image=$2 rel=$3 rootfs err uuid

	rootfs=$(tb_box_image) || return 1
	uuid=$(dumpe2fs -h "$rootfs" 2>/dev/null |
		sed -n 's/^Filesystem UUID: *//p') && [ -n "$uuid" ] &&
		tb_box_grub "$dir" "$rel" "$uuid" &&
		grub-editenv "$dir/grubenv" create &&
		cp --sparse=always "$rootfs" "$dir/disk.img" &&
		cp "$TB_TOP/tools/guest/box-init" "$dir/init" &&
		cp "$TB_TOP/tools/guest/tb-box-net.service" "$dir/net.service" &&
		cp "$image" "$dir/vmlinuz" || return 1
	# its configuration beside it, as Debian installs one (a kernel's
	# of the host's /boot; bench.sh --box-config reads it)
	: >"$dir/config"
	[ -f "/boot/config-$rel" ] && cp "/boot/config-$rel" "$dir/config"
	# debugfs says what failed on stderr, and exits 0 all the same; it
	# writes no file over another: systemd-sysv's /sbin/init (a link
	# to systemd) goes, and /root/.ssh is made only if need be
	err=$(cd "$dir" && debugfs -w -f - disk.img 2>&1 >/dev/null <<EOF
$(tb_box_has "$rootfs" /usr/sbin/init && echo "rm /usr/sbin/init")
write init /usr/sbin/init
sif /usr/sbin/init mode 0100755
write net.service /etc/systemd/system/tb-box-net.service
symlink /etc/systemd/system/multi-user.target.wants/tb-box-net.service /etc/systemd/system/tb-box-net.service
$(tb_box_has "$rootfs" /root/.ssh || echo "mkdir /root/.ssh")
sif /root/.ssh mode 040700
write key.pub /root/.ssh/authorized_keys
sif /root/.ssh/authorized_keys mode 0100600
write vmlinuz /boot/vmlinuz-$rel
write initrd.img /boot/initrd.img-$rel
$([ -s "$dir/config" ] && echo "write config /boot/config-$rel")
mkdir /boot/grub
write grub.cfg /boot/grub/grub.cfg
write grubenv /boot/grub/grubenv
EOF
	)
	rm -f "$dir/init" "$dir/net.service" "$dir/vmlinuz" "$dir/config" \
		"$dir/grubenv"
	err=$(echo "$err" | grep -v '^debugfs [0-9.]* (')
	[ -z "$err" ] && return 0
	echo "tracerbench: writing into the box's disk failed: $err" >&2
	return 1
}

# tb_box_has IMAGE PATH: the ext4 IMAGE has PATH, of any type
tb_box_has()
{
	debugfs -R "stat $2" "$1" 2>/dev/null | grep -q '^Inode: '
}

# The box's kernel command line; its QEMU's life, a bound for a box its
# caller forgot (seconds, default 2 hours), and how long a boot may take
# to answer ssh (seconds).
TB_BOX_APPEND="root=/dev/vda rw console=ttyS0 loglevel=4 panic=-1 tsc=reliable"
TB_BOX_LIFE=${TB_BOX_LIFE:-7200}
TB_BOX_WAIT=${TB_BOX_WAIT:-180}

# tb_box_append: the command line of the box's GRUB entry: TB_BOX_APPEND,
# and with TB_BOX_INIT=systemd, systemd for init (the initrd runs init=),
# which kexec passes on with the rest of the box's own line; the network
# interface keeps the kernel's name, so that udev's renaming of it does
# not race tb-box-net.service's setting it up
tb_box_append()
{
	case ${TB_BOX_INIT:-} in
	'')		echo "$TB_BOX_APPEND" ;;
	systemd)	echo "$TB_BOX_APPEND init=/lib/systemd/systemd net.ifnames=0" ;;
	*)		echo "tracerbench: TB_BOX_INIT: systemd, or empty for the box's own init, not '$TB_BOX_INIT'" >&2
			return 1 ;;
	esac
}

# tb_free_port: a TCP port free on 127.0.0.1 now
tb_free_port()
{
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# tb_box_use DIR: the box of DIR as the target of tb_ssh: root on
# 127.0.0.1 at the port QEMU forwards, with the boot's key, and no host
# key checked or kept (a box's are the cached image's, and the port
# changes).
# shellcheck disable=SC2034 # read by tb_ssh (tools/lib/target.sh)
tb_box_use()
{
	TB_TARGET_USER=root
	TB_TARGET_HOST=127.0.0.1
	TB_TARGET_PORT=$(cat "$1/port") || return 1
	TB_TARGET_KEY=$1/key
	TB_TARGET_SSH_OPTS=(-F /dev/null -o StrictHostKeyChecking=no
		-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR)
}

# tb_box_ssh DIR CMD: CMD on the box of DIR
tb_box_ssh()
{
	(tb_box_use "$1" && tb_ssh "${@:2}")
}

# tb_box_start DIR IMAGE RELEASE: boot the box in QEMU (TCG, TB_CPUS
# vCPUs, TB_MEM, TB_TCG_THREAD as tb_boot takes it, default single,
# TB_ICOUNT) on kernel IMAGE of RELEASE, with the box's init or
# TB_BOX_INIT's, its own key, initrd and disk in DIR
# (made anew), its console into DIR/console, and its ssh port forwarded
# from 127.0.0.1 alone (a free port, in DIR/port; QEMU's user network
# restricted, so that the box reaches nothing); return when ssh answers,
# within TB_BOX_WAIT seconds. 1, with the console's end, if it does not.
# The box runs until tb_box_stop DIR, or TB_BOX_LIFE seconds; it boots
# through GRUB (tb_box_grub), and a reboot (a panic, panic=-1) goes
# through GRUB again: to IMAGE, its default entry, as a test machine's
# firmware does, or to the entry grub-reboot named. With TB_ICOUNT=1
# its QEMU counts instructions (DIR/icount, which tb_box_run reads).
tb_box_start()
{
	local dir=$1 image=$2 rel=$3 port pid
	local thread=${TB_TCG_THREAD-single}

	[ "$TB_ARCH" = x86_64 ] || {
		echo "tracerbench: the box is x86-64's alone (not $TB_ARCH)" >&2
		return 1
	}
	tb_box_append >/dev/null || return 1
	rm -rf "$dir" && mkdir -p "$dir" &&
		ssh-keygen -q -t ed25519 -N '' -C tb-box -f "$dir/key" &&
		tb_box_initrd "$rel" "$dir/initrd.img" &&
		tb_box_disk "$dir" "$image" "$rel" || return 1
	[ "${TB_ICOUNT:-0}" != 1 ] || touch "$dir/icount" || return 1
	# the port is free when chosen; should another take it before
	# QEMU does, QEMU says so and stops: choose again
	: >"$dir/console"
	for _ in 1 2 3; do
		port=$(tb_free_port) || return 1
		echo "$port" >"$dir/port"
		tb_box_run "$dir" \
			-accel "$(tb_tcg_accel "$thread")" "${TB_QEMU_MACHINE[@]}" \
			-smp "$TB_CPUS" -m "$TB_MEM" -display none -monitor none \
			-kernel "$dir/grub.lnx" \
			-drive file="$dir/disk.img",format=raw,if=virtio \
			-device virtio-rng-pci \
			-nic user,model=virtio-net-pci,restrict=on,hostfwd=tcp:127.0.0.1:"$port"-:22 \
			-chardev file,id=console,path="$dir/console",append=on \
			-serial chardev:console </dev/null >"$dir/qemu.log" 2>&1 &
		echo $! >"$dir/qemu.pid"
		tb_box_wait "$dir" "$TB_BOX_WAIT" && return 0
		grep -q 'host forwarding' "$dir/qemu.log" || break
	done
	# a box that never answered ssh is not asked to power off
	pid=$(cat "$dir/qemu.pid")
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -f "$dir/qemu.pid" "$dir/disk.img"
	return 1
}

# tb_box_run DIR QEMU-ARGS...: run the box's QEMU until the box powers
# off (tb_box_stop's DIR/off, or the kernel's last words), or
# TB_BOX_LIFE seconds; 1 if QEMU fails or is killed. A reboot ends QEMU
# (-no-reboot), and a new one boots the same disk, as a machine's
# firmware starts afresh: QEMU's own reset keeps the code TCG
# translated for the old kernel, and then every byte GRUB moves over it
# takes TCG's slow path (the 58 MB of Debian's kernel, which GRUB moves
# to 16 MiB a byte at a time: 100 s and more, seen).
# While DIR/icount is there, each new QEMU counts instructions
# (-icount shift=0): a busy vCPU's clock counts its instructions, as in
# tb_boot, so that a window costs there what it costs in a guest of
# bench.sh's; an idle one's follows the host's (sleep on), as a real
# box's does, where sleep=off would jump it to its next timer while the
# box waits on the host's ssh. Counting slows every boot of the box (a
# kexec into Debian's kernel took 28 s here, against 20 without), so
# it counts only where a check needs it (tb_box_reboot).
tb_box_run()
{
	local dir=$1 end=$((SECONDS + TB_BOX_LIFE)) boots=0 tries=0 counted

	shift
	trap 'kill $(jobs -p) 2>/dev/null; wait; exit 1' TERM
	while [ $SECONDS -lt $end ] && [ ! -e "$dir/off" ]; do
		counted=()
		[ ! -e "$dir/icount" ] || counted=(-icount shift=0)
		timeout -k 5 $((end - SECONDS)) "$TB_QEMU" -no-reboot "${counted[@]}" "$@" &
		if ! wait $!; then
			# after a reboot, another may hold the port a moment
			{ [ $boots -gt 0 ] && [ $tries -lt 5 ] &&
				grep -q 'host forwarding' "$dir/qemu.log"; } || return 1
			tries=$((tries + 1))
			sleep 1
			continue
		fi
		boots=$((boots + 1)) tries=0
		# QEMU killed from elsewhere exits 0 too, and says so
		grep -q 'terminating on signal' "$dir/qemu.log" && return 1
		tail -c 2048 "$dir/console" | grep -q 'reboot: Power down' &&
			return 0
	done
	[ -e "$dir/off" ]
}

# tb_box_wait DIR SECS: wait for the box of DIR to answer ssh, SECS at
# most; 1, with what QEMU and the console said last, if it does not.
tb_box_wait()
{
	local dir=$1 end=$((SECONDS + $2)) pid

	pid=$(cat "$dir/qemu.pid") || return 1
	while [ $SECONDS -lt $end ]; do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "tracerbench: the box's QEMU exited before ssh answered:" >&2
			tail -n 5 "$dir/qemu.log" "$dir/console" >&2
			return 1
		fi
		# GRUB then waits at its menu for a key
		if grep -q 'Failed to boot both default and fallback entries' \
			"$dir/console" 2>/dev/null; then
			echo "tracerbench: the box's GRUB could not boot its kernel:" >&2
			grep -ao 'error: [^.]*' "$dir/console" | tail -n 3 >&2
			return 1
		fi
		TB_SSH_TIMEOUT=30 tb_box_ssh "$dir" true 2>/dev/null \
			</dev/null && return 0
		sleep 1
	done
	echo "tracerbench: the box did not answer ssh within $2 s; its console ends:" >&2
	tail -n 5 "$dir/console" >&2
	return 1
}

# tb_box_reboot DIR: reboot the box of DIR, which a new QEMU boots (with
# -icount while DIR/icount is there), and wait until ssh answers from
# the new boot (another boot_id), TB_BOX_WAIT seconds at most; 1, saying
# why, if the box's QEMU loop ended or the new boot did not answer
tb_box_reboot()
{
	local dir=$1 end=$((SECONDS + TB_BOX_WAIT)) before now pid
	local id='cat /proc/sys/kernel/random/boot_id'

	pid=$(cat "$dir/qemu.pid") &&
		before=$(TB_SSH_TIMEOUT=30 tb_box_ssh "$dir" "$id" </dev/null) &&
		[ -n "$before" ] || return 1
	TB_SSH_TIMEOUT=30 tb_box_ssh "$dir" 'sync; reboot -f || busybox reboot -f' \
		</dev/null >/dev/null 2>&1
	while [ $SECONDS -lt $end ]; do
		kill -0 "$pid" 2>/dev/null || {
			echo "tracerbench: the box's QEMU ended as it rebooted:" >&2
			tail -n 5 "$dir/qemu.log" "$dir/console" >&2
			return 1
		}
		# sshd's first words within 2 s, or try again (as
		# tb_target_switch probes a box that boots)
		now=$(TB_SSH_CONNECT=2 TB_SSH_TIMEOUT=15 tb_box_ssh "$dir" "$id" \
			</dev/null 2>/dev/null)
		[ -n "$now" ] && [ "$now" != "$before" ] && return 0
		sleep 1
	done
	echo "tracerbench: the box did not answer from a new boot within $TB_BOX_WAIT s; its console ends:" >&2
	tail -n 5 "$dir/console" >&2
	return 1
}

# tb_box_stop DIR: power the box of DIR off, and wait for its QEMU to
# exit, 60 s at most (once, after two kexecs, the kernel took 20 s from
# sysrq to power-off), then kill it; remove its disk. 1 if it had to be
# killed.
tb_box_stop()
{
	local dir=$1 pid n=0 rc=0

	pid=$(cat "$dir/qemu.pid" 2>/dev/null) || return 0
	touch "$dir/off"
	TB_SSH_TIMEOUT=10 tb_box_ssh "$dir" \
		"sync; echo o >/proc/sysrq-trigger" >/dev/null 2>&1 </dev/null
	while kill -0 "$pid" 2>/dev/null && [ $n -lt 60 ]; do
		sleep 1
		n=$((n + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "tracerbench: the box did not power off: killing its QEMU" >&2
		kill "$pid"
		rc=1
	fi
	wait "$pid" 2>/dev/null
	rm -f "$dir/qemu.pid" "$dir/disk.img"
	return $rc
}
