# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# LAVA: a boot of bench.sh's as a LAVA job (doc/lava.md). The device
# types are tools/lava/device-types; tools/lava.py does what takes YAML
# and Jinja2. Sourced by tools/lib.sh.

TB_LAVA_TYPES=$TB_TOP/tools/lava/device-types
# the prompt of the guest's shell, which init starts with tb.shell
# (tools/guest/init): LAVA waits for it after the boot and each command
TB_LAVA_PROMPT='tracerbench# '

# tb_lava_type TYPE ARCH: TYPE's line for ARCH, into lava_kernel,
# lava_deploy, lava_method, lava_commands, lava_console and lava_dtb; 1,
# naming the types there are, if there is none
tb_lava_type()
{
	local line

	line=$(awk -v t="$1" -v a="$2" '!/^#/ && $1 == t && $2 == a' "$TB_LAVA_TYPES")
	if [ -z "$line" ]; then
		echo "tracerbench: no LAVA device type $1 for $2; there are: $(tb_lava_types | paste -sd ' ')" >&2
		return 1
	fi
	# shellcheck disable=SC2034 # read by tb_lava_job and bench.sh
	read -r _ _ lava_kernel lava_deploy lava_method lava_commands \
		lava_console lava_dtb <<<"$line"
}

# tb_lava_types: the types, as TYPE/ARCH
tb_lava_types()
{
	awk '!/^#/ && NF { print $1 "/" $2 }' "$TB_LAVA_TYPES"
}

# tb_lava_quote TEXT: TEXT as a YAML single-quoted scalar
tb_lava_quote()
{
	printf "'%s'" "${1//\'/\'\'}"
}

# tb_lava_job NAME TYPE ARCH KERNEL_URL INITRD_URL DTB_URL APPEND SECS
# MEM [QEMU_OPTION...]: the job of one boot, in LAVA's YAML: the kernel and
# initramfs deployed as TYPE (tb_lava_type) deploys them, booted with
# APPEND (the guest's parameters) to the guest's shell, then its suite
# "bench" run there, SECS at most, its KTAP on the console. A qemu
# device also gets MEM (MiB) and the QEMU_OPTIONs (the machine, the
# vCPUs, -icount), in the job's context, which a LAVA server renders into
# the device's dictionary (tools/lava.py device does the same for
# lava-run).
tb_lava_job()
{
	local name=$1 type=$2 arch=$3 kernel=$4 initrd=$5 dtb=$6 append=$7
	local secs=$8 mem=$9 q o

	shift 9
	tb_lava_type "$type" "$arch" || return 1
	q=tb_lava_quote
	echo "job_name: $($q "$name")"
	echo "device_type: $type"
	echo "visibility: public"
	echo "priority: medium"
	echo "timeouts:"
	echo "  job: {minutes: $((secs / 60 + 15))}"
	echo "  connection: {minutes: 2}"
	echo "context:"
	echo "  arch: $arch"
	if [ "$lava_method" = qemu ]; then
		echo "  no_kvm: true"
		echo "  memory: $mem"
		# the template's own machine and CPU, if given
		for o in "$@"; do
			case $o in
			"-M "*)		echo "  machine: $($q "${o#-M }")" ;;
			"-cpu "*)	echo "  cpu: $($q "${o#-cpu }")" ;;
			esac
		done
		echo "  extra_options:"
		for o in "$@"; do
			case $o in
			"-M "* | "-cpu "*) ;;
			*)	echo "  - $($q "$o")" ;;
			esac
		done
	else
		echo "  console_device: $lava_console"
		echo "  extra_kernel_args: $($q "$append")"
	fi
	echo "actions:"
	echo "- deploy:"
	echo "    to: $lava_deploy"
	echo "    timeout: {minutes: 10}"
	if [ "$lava_method" = qemu ]; then
		echo "    images:"
		echo "      kernel:"
		echo "        url: $($q "$kernel")"
		echo "        image_arg: $($q "-kernel {kernel} -append \"console=$lava_console $append\"")"
		echo "      ramdisk:"
		echo "        url: $($q "$initrd")"
		echo "        image_arg: '-initrd {ramdisk}'"
	else
		echo "    kernel:"
		echo "      url: $($q "$kernel")"
		[ "$lava_kernel" = bzimage ] || echo "      type: $lava_kernel"
		echo "    ramdisk:"
		echo "      url: $($q "$initrd")"
		echo "      install_modules: false"
		echo "      install_overlay: false"
		if [ "$lava_dtb" != - ]; then
			echo "    dtb:"
			echo "      url: $($q "$dtb")"
		fi
	fi
	echo "- boot:"
	echo "    method: $lava_method"
	if [ "$lava_method" = qemu ]; then
		echo "    media: tmpfs"
	else
		echo "    commands: $lava_commands"
	fi
	echo "    timeout: {minutes: 10}"
	# the guest's console shows warnings alone (loglevel=4): not the
	# kernel's banner, which LAVA waits for unless told otherwise
	echo "    parameters: {kernel-start-message: ''}"
	echo "    prompts: [$($q "$TB_LAVA_PROMPT")]"
	echo "- test:"
	echo "    timeout: {minutes: $((secs / 60 + 1))}"
	echo "    interactive:"
	echo "    - name: tracerbench"
	echo "      prompts: [$($q "$TB_LAVA_PROMPT")]"
	echo "      script:"
	echo "      - name: bench"
	echo "        command: /tests/suite.sh bench"
	# KTAP's plan comes last (tools/guest/suite.sh)
	echo "        successes:"
	echo "        - message: '^1\\.\\.[0-9]+'"
}

# tb_lava_templates: the directory of LAVA's device-type templates,
# which lava-server's package alone holds: its .deb downloaded and
# unpacked once into the cache (tools/lib/cache.sh), not installed: no
# server is needed
tb_lava_templates()
{
	local d=$TB_CACHE/lava-server

	tb_cache_get "$d" tb_lava_templates_done tb_lava_templates_make ||
		{ echo "tracerbench: cannot get lava-server's package" >&2; return 1; }
	echo "$d/usr/share/lava-server/device-types"
}

tb_lava_templates_done()
{
	[ -f "$1/usr/share/lava-server/device-types/qemu.jinja2" ]
}

tb_lava_templates_make()
{
	echo "tracerbench: LAVA's device-type templates: unpacking lava-server's package into the cache" >&2
	mkdir -p "$1.deb" &&
		(cd "$1.deb" && apt-get download -q -o APT::Sandbox::User=root \
			lava-server >&2) &&
		dpkg-deb -x "$1.deb"/lava-server_*.deb "$1"
	local rc=$?
	rm -rf "$1.deb"
	return $rc
}

# tb_lava_run TEMPLATES JOB DIR: JOB run on this machine by lava-run,
# LAVA's own dispatcher, on a device of its type made from its context
# and the device-type templates of TEMPLATES (tools/lava.py device,
# tb_lava_templates): the log in DIR/log, the outcome in DIR/result
# ("pass", or "fail TYPE: MESSAGE"); 1 unless it passed
tb_lava_run()
{
	local templates=$1 job=$2 dir=$3 id

	rm -rf "$dir" && mkdir -p "$dir/out" || return 1
	/usr/bin/python3 "$TB_TOP/tools/lava.py" device "$templates" "$job" \
		>"$dir/device.yaml" 2>"$dir/log" || {
		echo "fail device: $(cat "$dir/log")" >"$dir/result"
		return 1
	}
	# the dispatcher's address, which a qemu boot asks for even where
	# nothing is served: the loopback, as nothing here may go elsewhere
	printf 'dispatcher_ip: 127.0.0.1\nprefix: tb-\n' >"$dir/dispatcher.yaml"
	id=$(date +%s%N)
	lava-run --job-id "$id" --output-dir "$dir/out" \
		--device "$dir/device.yaml" --dispatcher "$dir/dispatcher.yaml" \
		"$job" 2>"$dir/log" >/dev/null
	if [ -f "$dir/out/result.yaml" ]; then
		/usr/bin/python3 "$TB_TOP/tools/lava.py" result \
			"$dir/out/result.yaml" >"$dir/result"
	else
		echo "fail lava-run: $(tail -n 1 "$dir/log")" >"$dir/result"
	fi
	[ "$(cat "$dir/result")" = pass ]
}
