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
	local secs=$8 mem=$9 q o extra

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
		# the machine and CPU as the template's own where it reads
		# them (its arm64 block; its x86_64 one takes neither, so
		# there they are options like the rest)
		extra=()
		for o in "$@"; do
			case $arch,$o in
			arm64,"-M "*)	echo "  machine: $($q "${o#-M }")" ;;
			arm64,"-cpu "*)	echo "  cpu: $($q "${o#-cpu }")" ;;
			*)		extra+=("$o") ;;
			esac
		done
		echo "  extra_options:"
		for o in "${extra[@]}"; do
			echo "  - $($q "$o")"
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
	tb_lava_py device "$templates" "$job" >"$dir/device.yaml" 2>"$dir/log" || {
		echo "fail device: $(cat "$dir/log")" >"$dir/result"
		return 1
	}
	# the dispatcher's address, which a qemu boot asks for even where
	# nothing is served: the loopback, as nothing here may go elsewhere
	printf 'dispatcher_ip: 127.0.0.1\nprefix: tb-\n' >"$dir/dispatcher.yaml"
	id=$(date +%s%N)
	# in a session of its own: lava-run cancels its job on SIGINT, and a
	# terminal's Ctrl-C is bench.sh's (a second one sends it on)
	setsid lava-run --job-id "$id" --output-dir "$dir/out" \
		--device "$dir/device.yaml" --dispatcher "$dir/dispatcher.yaml" \
		"$job" 2>"$dir/log" >/dev/null &
	# shellcheck disable=SC2034 # lava_interrupt's (bench_lava.sh)
	tb_lava_run_pid=$!
	tb_wait $tb_lava_run_pid
	# shellcheck disable=SC2034 # lava_interrupt's (bench_lava.sh)
	tb_lava_run_pid=
	if [ -f "$dir/out/result.yaml" ]; then
		tb_lava_py result "$dir/out/result.yaml" >"$dir/result"
	else
		echo "fail lava-run: $(tail -n 1 "$dir/log")" >"$dir/result"
	fi
	[ "$(cat "$dir/result")" = pass ]
}

# A LAVA server (bench.sh --lava URL) is reached by lavacli, as an
# identity of lavacli's own configuration (whose token stays there) or
# with the token of a file (--lava-token), written for lavacli alone
# into a directory of the run's (mode 700) that tb_lava_disconnect
# removes. The token is never on a command line or in the environment,
# and lavacli's messages, whose URLs carry it, are masked.

# the token of --lava-token, to mask it wherever lavacli says it; the
# directory of lavacli's configuration holding it; the job under way on
# a server, and the lava-run under way here
# shellcheck disable=SC2034 # the job and lava-run: bench_lava.sh's
tb_lava_token='' tb_lava_confdir='' tb_lava_job_id='' tb_lava_run_pid=''

# tb_lava_connect URL [TOKEN_FILE]: lavacli set up for URL's server
# (tb_lava_cli; tb_lava_base, the server's URL without user or /RPC2),
# and the server asked its version; 1, saying why, if it does not answer
tb_lava_connect()
{
	local url=${1%/} user='' conf name version

	url=${url%/RPC2}
	tb_lava_base=$url
	# a user may hold an @ (an e-mail address): the host's is the last
	if [[ $url =~ ^([a-z]+://)([^/]*)@([^/@]*)(/.*)?$ ]]; then
		user=${BASH_REMATCH[2]}
		tb_lava_base=${BASH_REMATCH[1]}${BASH_REMATCH[3]}${BASH_REMATCH[4]}
	fi
	if [ -n "$2" ]; then
		[ -n "$user" ] || { echo "tracerbench: --lava-token: the token's user goes in the URL (https://USER@HOST/)" >&2; return 1; }
		{ read -r tb_lava_token <"$2"; } 2>/dev/null
		[ -n "$tb_lava_token" ] || { echo "tracerbench: --lava-token: no token on the first line of $2" >&2; return 1; }
		tb_lava_confdir=$(mktemp -d "${TMPDIR:-/tmp}/tracerbench-lavacli.XXXXXX") ||
			return 1
		# printf is bash's own: the token is on no command line
		(umask 077 && printf 'tracerbench:\n  uri: %s\n  username: %s\n  token: %s\n' \
			"$(tb_lava_quote "$tb_lava_base/RPC2")" \
			"$(tb_lava_quote "$user")" "$(tb_lava_quote "$tb_lava_token")" \
			>"$tb_lava_confdir/lavacli.yaml") || return 1
		tb_lava_cli=(env "XDG_CONFIG_HOME=$tb_lava_confdir" lavacli -i tracerbench)
	else
		conf=${XDG_CONFIG_HOME:-$HOME/.config}/lavacli.yaml
		name=$(tb_lava_py identity "$conf" "$url") ||
			{ echo "tracerbench: --lava $1: give --lava-token FILE, or add an identity of the server to lavacli's configuration (lavacli identities add)" >&2; return 1; }
		tb_lava_cli=(lavacli -i "$name")
	fi
	version=$(tb_lavacli system version) ||
		{ echo "tracerbench: the LAVA server $tb_lava_base does not answer lavacli: $version" >&2; return 1; }
	echo "tracerbench: LAVA server $tb_lava_base, version $version" >&2
}

# tb_lava_disconnect: the token's directory, if any, removed, and those
# of steps under way (tb_uncut_abandon): bench.sh's EXIT trap with a lab
tb_lava_disconnect()
{
	# a Ctrl-C's die (bench_lava.sh) may end the script in a step
	tb_uncut_abandon
	[ -z "$tb_lava_confdir" ] || rm -rf "$tb_lava_confdir"
	tb_lava_confdir=
}

# tb_lava_mask: stdin to stdout with the password of any URL (where
# lavacli puts the token) masked, and --lava-token's token wherever it
# is; the token reaches awk by a pipe, on no command line
tb_lava_mask()
{
	sed -E 's#(://[^/:]*:)[^/]*@#\1<token>@#g' |
		awk 'BEGIN { getline t <"/dev/fd/3" }
		t != "" { while ((i = index($0, t)) > 0)
				$0 = substr($0, 1, i - 1) "<token>" substr($0, i + length(t)) }
		{ print }' 3< <(printf '%s\n' "$tb_lava_token")
}

# tb_lavacli ARG...: lavacli ARGs on the server of tb_lava_connect, its
# output and its messages masked (tb_lava_mask); lavacli says why it
# failed on its output. Run with SIGINT ignored (tb_uncut): a Ctrl-C is
# bench.sh's to handle, and cuts no call short; in a $(...) too, whose
# shell tb_uncut makes ignore SIGINT (bench.sh's trap runs once the
# $(...) ends).
tb_lavacli()
{
	tb_uncut tb_lavacli_masked "$@"
}

# tb_lavacli_masked ARG...: tb_lavacli's call (in tb_uncut's subshell)
tb_lavacli_masked()
{
	local -

	set -o pipefail
	{ "${tb_lava_cli[@]}" "$@" 2>&1 1>&3 3>&- |
		tb_lava_mask | sed 's/^/lavacli: /' >&2 3>&-; } 3>&1 |
		tb_lava_mask
}

# tb_lava_py ARG...: tools/lava.py ARGs, with SIGINT ignored (tb_uncut)
tb_lava_py()
{
	tb_uncut /usr/bin/python3 "$TB_TOP/tools/lava.py" "$@"
}

# tb_lava_submit JOB DIR: JOB submitted to the server of tb_lava_connect,
# followed to its end and its log fetched: DIR/url the job's page,
# DIR/device its device, DIR/log its log (lavacli's raw form),
# DIR/result "pass" or "fail HEALTH, TYPE: MESSAGE (COMMENT)"; 1 unless
# it passed. Its states show as they change; tb_lava_job_id is the job's
# while it runs.
tb_lava_submit()
{
	local job=$1 dir=$2 id state='' now lost=0 health why comment

	rm -rf "$dir" && mkdir -p "$dir" || return 1
	id=$(tb_lavacli jobs submit "$job" 2>"$dir/submit.err")
	# lavacli exits 0 when the server refuses a job, saying why
	if ! [[ $id =~ ^[0-9]+$ ]]; then
		echo "fail submit: $(cat - "$dir/submit.err" <<<"$id" | tr '\n' ' ')" >"$dir/result"
		return 1
	fi
	# shellcheck disable=SC2034 # lava_interrupt's (bench_lava.sh)
	tb_lava_job_id=$id
	echo "$tb_lava_base/scheduler/job/$id" >"$dir/url"
	while :; do
		now=
		tb_lavacli jobs show "$id" --yaml >"$dir/show.yaml" 2>"$dir/show.err" &&
			tb_lava_py job "$dir/show.yaml" >"$dir/job" 2>>"$dir/show.err" &&
			now=$(sed -n 's/^state //p' "$dir/job")
		if [ -n "$now" ]; then
			lost=0
			if [ "$now" != "$state" ]; then
				state=$now
				echo "tracerbench: job $(cat "$dir/url"): $state" >&2
			fi
			[ "$state" != Finished ] || break
		elif [ $((lost += 1)) -ge 5 ]; then
			echo "fail server: no answer on the job five times, it may still run there: $(cat "$dir/show.yaml" "$dir/show.err" | tail -n 1)" >"$dir/result"
			# shellcheck disable=SC2034 # lava_interrupt's (bench_lava.sh)
			tb_lava_job_id=
			return 1
		fi
		sleep "${TB_LAVA_POLL:-10}"
	done
	# shellcheck disable=SC2034 # lava_interrupt's (bench_lava.sh)
	tb_lava_job_id=
	sed -n 's/^device //p' "$dir/job" >"$dir/device"
	tb_lavacli jobs logs "$id" --raw --no-follow >"$dir/log" 2>"$dir/log.err" ||
		{ echo "fail log: $(cat "$dir/log" "$dir/log.err" | tail -n 1)" >"$dir/result"; return 1; }
	# the server's health, with the dispatcher's own error from the log
	health=$(sed -n 's/^health //p' "$dir/job")
	why=$(tb_lava_py result "$dir/log")
	comment=$(sed -n 's/^failure_comment //p' "$dir/job")
	if [ "$health" = Complete ]; then
		echo pass
	else
		echo "fail $health, ${why#fail }$([ "$comment" = - ] || echo " ($comment)")"
	fi >"$dir/result"
	[ "$(cat "$dir/result")" = pass ]
}
