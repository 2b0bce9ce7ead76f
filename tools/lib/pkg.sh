# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Packages: the target kernels of Debian, apt-get installs, and a guest
# architecture's busybox and bash. Sourced by tools/lib.sh.

# tb_image_pkg LABEL: the image meta-package of the architecture's Debian
# kernel LABEL (TB_ARCH_KERNEL_PKGS, tools/arch/)
tb_image_pkg()
{
	local k

	for k in $TB_ARCH_KERNEL_PKGS; do
		[ "${k%%:*}" = "$1" ] && { echo "${k#*:}"; return 0; }
	done
	echo "unknown kernel label: $1 (${TB_ARCH:-?} has: ${TB_ARCH_KERNELS:-none})" >&2
	return 1
}

# tb_packages [NEED...]: the Debian packages of what a job needs, a line
# each, every one once; without a NEED, those of every need and of the
# kernels of TB_KERNELS. The needs:
#   module	building the module and the host's unit tests
#   guest	a guest of the architecture loaded: the initramfs's
#		programs (cross-compiled off x86-64) and QEMU
#   kbuild	building a kernel, for the architecture loaded
#   source	linux-source-6.12, whose variants the rig builds
#   patch	patches= and a tree's uncommitted changes applied
#   git		trees of your own (tree=), series as mailed (mailsplit)
#   kernel=LABEL	a Debian kernel (tb_image_pkg), to boot: its image
#		and its headers
#   headers=LABEL	a Debian kernel to build against: its headers
#   host	make check's host part: the unit tests, report.py, make
#		style (checkpatch's source, sparse, the linters)
#   check	make check's parts of an architecture beyond the above:
#		DKMS, sparse for KUnit, the 6.1 tree (tools/check/tree.sh)
#   lava	LAVA's dispatcher, to run jobs here (bench.sh --lava local)
#   lavacli	LAVA's client, to run jobs on a server (bench.sh --lava URL)
#   lavalab	a LAVA server on this machine (tools/lib/lavalab.sh)
tb_packages()
{
	local n img out=''

	# shellcheck disable=SC2046 # needs are words
	[ $# -gt 0 ] ||
		set -- module guest kbuild source patch git host check lava \
			lavacli lavalab \
			$(for n in $TB_KERNELS; do echo "kernel=$n"; done)
	for n in "$@"; do
		case $n in
		module)	out+=" make gcc libc6-dev perl" ;;
		guest)	out+=" cpio gzip busybox-static bash-static $TB_ARCH_PACKAGES" ;;
		kbuild)	out+=" make gcc bc bison flex libelf-dev libssl-dev xz-utils"
			out+=" $TB_ARCH_PACKAGES" ;;
		source)	out+=" linux-source-6.12 xz-utils" ;;
		patch)	out+=" patch" ;;
		git)	out+=" git" ;;
		kernel=* | headers=*)
			img=$(tb_image_pkg "${n#*=}") || return 1
			[ "${n%%=*}" = headers ] || out+=" $img"
			out+=" ${img/image/headers}" ;;
		host)	out+=" make gcc libc6-dev perl busybox-static git patch"
			# make style: checkpatch.pl's source, sparse, the linters
			out+=" linux-source-6.12 xz-utils sparse shellcheck pyflakes3"
			# tools/report.py; tools/lava.py
			out+=" python3 python3-scipy python3-matplotlib"
			out+=" python3-yaml python3-jinja2"
			# tools/unit/guest_cpu_test.sh's user-mode QEMU
			out+=" qemu-user" ;;
		# its device-type templates: lava-server's package, unpacked
		# (tb_lava_templates)
		lava)	out+=" lava-dispatcher python3-yaml python3-jinja2" ;;
		lavacli) out+=" lavacli python3-yaml" ;;
		# lava-server's dependencies: the server itself is its
		# package unpacked in the cache (tb_lava_templates)
		lavalab) out+=" lava-dispatcher lavacli postgresql-15 gunicorn"
			out+=" python3-celery python3-defusedxml python3-django"
			out+=" python3-django-allauth python3-django-auth-ldap"
			out+=" python3-django-environ python3-django-filters"
			out+=" python3-django-tables2 python3-djangorestframework"
			out+=" python3-djangorestframework-extensions"
			out+=" python3-djangorestframework-filters python3-docutils"
			out+=" python3-eventlet python3-jinja2 python3-junit.xml"
			out+=" python3-psycopg2 python3-requests python3-simplejson"
			out+=" python3-tap python3-tz python3-voluptuous"
			out+=" python3-whitenoise python3-yaml python3-zmq" ;;
		# ccache: the module's builds (tb_build_module)
		check)	out+=" dkms sparse linux-source-6.1 git ccache"
			# the box, a test machine in QEMU booted by GRUB (tools/lib/box.sh)
			out+=" mmdebstrap e2fsprogs openssh-client grub-common grub-pc-bin"
			out+=" python3 python3-scipy python3-matplotlib" ;;
		*)	echo "tracerbench: no such need: $n" >&2
			return 1 ;;
		esac
	done
	echo "$out" | tr ' ' '\n' | awk 'NF && !seen[$0]++'
}

# tb_install [NEED...]: install whatever tb_packages NEEDs lists that is
# missing; a no-op on a machine that has it all.
tb_install()
{
	local pkgs

	pkgs=$(tb_packages "$@") || return 1
	# shellcheck disable=SC2086 # package names are words
	tb_install_packages $pkgs
}

# tb_install_packages PACKAGE...: install those missing. Not as root,
# fail with the one apt-get line to run; from a terminal (stdin, and
# stderr for the question), ask first; otherwise (CI, make check's parts,
# whose output goes to their logs), install.
tb_install_packages()
{
	local missing=() p answer

	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q ' installed$' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "tracerbench: missing packages; install them as root:" >&2
		echo "apt-get install --no-install-recommends ${missing[*]}" >&2
		return 1
	fi
	if [ -t 0 ] && [ -t 2 ]; then
		printf 'tracerbench: install %s? [Y/n] ' "${missing[*]}" >&2
		read -r answer || answer=n
		case $answer in
		"" | [Yy]*)	;;
		*)	echo "tracerbench: not installed; to install them:" >&2
			echo "apt-get install --no-install-recommends ${missing[*]}" >&2
			return 1 ;;
		esac
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
# unpacked once into TB_DEBS/ARCH, an entry of the cache held while this
# process runs (tools/lib/cache.sh). Prints the directory they are under.
TB_GUEST_DEBS="busybox-static bash-static"
tb_guest_debs()
{
	local dir=$TB_DEBS/$TB_DEB_ARCH

	if [ "$TB_DEB_ARCH" = amd64 ]; then
		echo /
		return 0
	fi
	tb_cache_get "$dir" tb_debs_unpacked tb_unpack_debs "$TB_DEB_ARCH" ||
		return 1
	echo "$dir/root"
}

tb_debs_unpacked()
{
	[ -f "$1/.tb-unpacked" ]
}

# tb_unpack_debs DIR ARCH: the packages of ARCH downloaded and unpacked
# into DIR, new
tb_unpack_debs()
{
	local dir=$1 a=$2 p deb

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
	mkdir -p "$dir/root" || return 1
	# apt's sandbox user cannot write to the cache: download as root
	for p in $TB_GUEST_DEBS; do
		(cd "$dir" && apt-get download -q \
			-o APT::Sandbox::User=root "$p:$a" >&2) || return 1
	done
	for deb in "$dir"/*.deb; do
		dpkg-deb -x "$deb" "$dir/root" || return 1
	done
	touch "$dir/.tb-unpacked"
}

# The kernel release a meta-package currently points at.
tb_release()
{
	local img

	# the headers' meta-package, which names the release its image's
	# does: all a module build or make style installs
	img=$(tb_image_pkg "$1") || return 1
	dpkg-query -W -f='${Depends}\n' "${img/image/headers}" |
		grep -o 'linux-headers-[^ ,]*' | head -n 1 |
		sed 's/^linux-headers-//'
}
