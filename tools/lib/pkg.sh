# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Packages: the target kernels of Debian, apt-get installs, and a guest
# architecture's busybox and bash. Sourced by tools/lib.sh.

tb_image_pkg()
{
	case $1 in
	6.1)		echo linux-image-amd64 ;;
	6.12)		echo linux-image-6.12-amd64 ;;
	6.12-rt)	echo linux-image-6.12-rt-amd64 ;;
	*)		echo "unknown kernel label: $1" >&2; return 1 ;;
	esac
}

tb_packages()
{
	local k img

	echo make gcc libc6-dev perl cpio gzip busybox-static bash-static
	echo "$TB_ARCH_PACKAGES"
	echo linux-source-6.12 xz-utils bc bison flex libelf-dev libssl-dev
	# make check's tree of a developer's own (tools/check/tree.sh)
	echo linux-source-6.1 git
	echo dkms sparse
	# make style's linters of the scripts
	echo shellcheck pyflakes3
	# tools/report.py
	echo python3 python3-scipy python3-matplotlib
	for k in $TB_KERNELS; do
		img=$(tb_image_pkg "$k")
		echo "$img" "${img/image/headers}"
	done
}

# Install whatever is missing; a no-op on a machine that has it all.
tb_install()
{
	local missing=() p

	for p in $(tb_packages); do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q ' installed$' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "tracerbench: run as root to install: ${missing[*]}" >&2
		return 1
	fi
	echo "tracerbench: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	# A mirror caught mid-sync fails one index (seen: bookworm-security's
	# i386 Packages) while the rest, and the packages, are fine: go on
	# with what updated, and let the install say what is really missing.
	apt-get update -qq ||
		echo "tracerbench: apt-get update failed; installing from the package lists it left" >&2
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# The guest's busybox and bash: the host's own on amd64; otherwise Debian's
# static ones for the guest's architecture (multiarch), downloaded and
# unpacked once into TB_DEBS/ARCH. Prints the directory they are under.
TB_GUEST_DEBS="busybox-static bash-static"
tb_guest_debs()
{
	local a=$TB_DEB_ARCH dir=$TB_DEBS/$TB_DEB_ARCH p deb

	if [ "$a" = amd64 ]; then
		echo /
		return 0
	fi
	if [ ! -f "$dir/.tb-unpacked" ]; then
		[ "$(id -u)" = 0 ] || {
			echo "tracerbench: run as root to fetch $TB_GUEST_DEBS for $a" >&2
			return 1
		}
		if ! dpkg --print-foreign-architectures | grep -qx "$a"; then
			echo "tracerbench: adding the $a architecture to dpkg" >&2
			dpkg --add-architecture "$a" || return 1
			# a mirror out of step on one index need not stop us:
			# the download below fails if what it needs is missing
			apt-get update -qq >&2
		fi
		rm -rf "$dir" && mkdir -p "$dir/root" || return 1
		# apt's sandbox user cannot write to the cache: download as root
		for p in $TB_GUEST_DEBS; do
			(cd "$dir" && apt-get download -q \
				-o APT::Sandbox::User=root "$p:$a" >&2) || return 1
		done
		for deb in "$dir"/*.deb; do
			dpkg-deb -x "$deb" "$dir/root" || return 1
		done
		touch "$dir/.tb-unpacked"
	fi
	echo "$dir/root"
}

# The kernel release a meta-package currently points at.
tb_release()
{
	dpkg-query -W -f='${Depends}\n' "$(tb_image_pkg "$1")" |
		grep -o 'linux-image-[^ ,]*' | head -n 1 | sed 's/^linux-image-//'
}
