# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The box: a QEMU guest with a small Debian userland, reached over ssh,
# that stands in for a test machine (bench.sh --target, issue 33). Its
# disk is a Debian rootfs made once with mmdebstrap and cached; each
# boot gets a copy of it with a throwaway key authorized for root, the
# box's init (tools/guest/box-init) and the kernel it boots installed in
# /boot, with an initrd of the modules that kernel needs for the disk and
# the network. Sourced by tools/lib.sh.

# The cache of rootfs images, beside the kernels' unless told (a test
# points it elsewhere); what the rootfs is made of, which keys it.
TB_BOX_CACHE=${TB_BOX_CACHE:-$TB_CACHE/box}
TB_BOX_SUITE=bookworm
TB_BOX_PACKAGES=openssh-server,kexec-tools,busybox
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
# never sees half an image. Prints its path.
tb_box_image()
{
	local key img tmp src log=$TB_OUT/box-rootfs.log

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
	mkdir -p "$TB_BOX_CACHE" "$TB_OUT" &&
		tmp=$(mktemp -d "$TB_BOX_CACHE/.tmp-XXXXXX") || return 1
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

# tb_box_disk DIR IMAGE RELEASE: DIR/disk.img, the box's disk for one
# boot: a sparse copy of the cached rootfs with, written by debugfs (no
# mount), the box's init as /sbin/init, DIR/key.pub authorized for root,
# and the kernel IMAGE of RELEASE with its initrd DIR/initrd.img in /boot
# as a Debian box has its kernels (kexec finds the box's own kernel there).
tb_box_disk()
{
	local dir=$1 image=$2 rel=$3 rootfs err

	rootfs=$(tb_box_image) || return 1
	cp --sparse=always "$rootfs" "$dir/disk.img" &&
		cp "$TB_TOP/tools/guest/box-init" "$dir/init" &&
		cp "$image" "$dir/vmlinuz" || return 1
	# debugfs says what failed on stderr, and exits 0 all the same
	err=$(cd "$dir" && debugfs -w -f - disk.img 2>&1 >/dev/null <<EOF
write init /usr/sbin/init
sif /usr/sbin/init mode 0100755
mkdir /root/.ssh
sif /root/.ssh mode 040700
write key.pub /root/.ssh/authorized_keys
sif /root/.ssh/authorized_keys mode 0100600
write vmlinuz /boot/vmlinuz-$rel
write initrd.img /boot/initrd.img-$rel
EOF
	)
	rm -f "$dir/init" "$dir/vmlinuz"
	err=$(echo "$err" | grep -v '^debugfs [0-9.]* (')
	[ -z "$err" ] && return 0
	echo "tracerbench: writing into the box's disk failed: $err" >&2
	return 1
}
