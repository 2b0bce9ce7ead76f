#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The x86 guests' CPU against QEMU's compare-exchange flags bug: the
# probe (cmpxchg_probe.c) run by QEMU's user-mode emulator, whose TCG
# translates as the rig's system emulator does (the same QEMU, checked
# first, where it is installed), on each x86 architecture's guest CPU (TB_QEMU_MACHINE's -cpu,
# tools/arch/). Where this QEMU leaves wrong flags, an architecture's
# CPU must lack the instruction, unless its file says it accepts the bug
# (TB_QEMU_CMPXCHG_STALE=1), which must then still hold. Prints "ok - ..."
# or "not ok - ..." a check, then "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
unset TB_KERNELS TB_BUILT_KERNELS
export TB_OUT=$tmp/out TB_CACHE=$tmp/cache
# shellcheck source=tools/lib.sh
. "$top/tools/lib.sh" || exit 1
passed=0 failed=0

# guest_cpu: the -cpu of the loaded architecture's guests, none where
# TB_QEMU_MACHINE leaves it to QEMU's default, which this test cannot
# name (the user-mode emulator's is another)
guest_cpu()
{
	local i

	for ((i = 0; i < ${#TB_QEMU_MACHINE[@]}; i++)); do
		[ "${TB_QEMU_MACHINE[i]}" = -cpu ] &&
			{ echo "${TB_QEMU_MACHINE[i + 1]:-}"; return 0; }
	done
}

# probe_said STATUS: what the probe's exit STATUS says, as a word:
# right, stale (wrong flags), absent (SIGILL), or "status N", such as
# QEMU's 1 for a CPU it does not know or the probe's 4 for an exchange
# that did not happen
probe_said()
{
	case $1 in
	0)	echo right ;;
	3)	echo stale ;;
	132)	echo absent ;;
	*)	echo "status $1" ;;
	esac
}

# probe USER_QEMU CPU BINARY: what the probe found on CPU; QEMU's own
# complaints on stderr, and no core file of a SIGILL
probe()
{
	(ulimit -c 0 && cd "$tmp" && "$1" -cpu "$2" "$3")
	probe_said $?
}

for arch in $(tb_all_archs); do
	tb_arch_load "$arch" || exit 1
	case $TB_QEMU in
	qemu-system-x86_64 | qemu-system-i386) ;;
	*)	continue ;;
	esac
	user=qemu-${TB_QEMU#qemu-system-}
	user_version=$("$user" --version | sed -n "1s/^$user version //p")
	# (make check's host part alone installs no system emulator)
	if command -v "$TB_QEMU" >/dev/null; then
		system_version=$("$TB_QEMU" --version |
			sed -n '1s/^QEMU emulator version //p')
		[ -n "$user_version" ] && [ "$system_version" = "$user_version" ]
		result $? "$arch: $user is the QEMU of $TB_QEMU ($user_version; $system_version)"
	else
		echo "# $arch: no $TB_QEMU here; $user is $user_version"
	fi
	bin=$tmp/probe-$arch
	# shellcheck disable=SC2086 # the compiler and its options, words
	$TB_GUEST_CC -O2 -static -nostdlib -fno-pie -no-pie -mno-red-zone \
		-o "$bin" "$top/tools/unit/cmpxchg_probe.c"
	built=$?
	result $built "$arch: the probe builds"
	[ $built = 0 ] || continue
	cpu=$(guest_cpu)
	[ -n "$cpu" ]
	result $? "$arch: TB_QEMU_MACHINE names the guests' CPU (-cpu)"
	[ -n "$cpu" ] || continue
	host=$("$bin"; probe_said $?)
	[ "$host" = right ]
	result $? "$arch: on the host's CPU, the flags are right: $host"
	got=$(probe "$user" "$cpu" "$bin")
	if [ "${TB_QEMU_CMPXCHG_STALE:-0}" = 1 ]; then
		[ "$got" = stale ]
		result $? "$arch: the guests' CPU ($cpu) suffers the bug its file accepts: $got"
	else
		[ "$got" = right ] || [ "$got" = absent ]
		result $? "$arch: the guests' CPU ($cpu) leaves right flags or lacks the instruction: $got"
	fi
done

echo "$passed passed, $failed failed"
[ $failed = 0 ]
