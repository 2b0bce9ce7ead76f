# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# A LAVA lab on this machine, which stands in for a real one in make
# check (doc/lava.md): lava-server (its package unpacked in the cache,
# tb_lava_templates, run from there with its dependencies installed) on
# a PostgreSQL cluster of its own, its scheduler, and a worker of
# lava-dispatcher's with one qemu device. Nothing of the host's is
# changed: the settings are the environment's (LAVA_SETTINGS_*), the
# database listens on a socket in /tmp, the web server on 127.0.0.1.
# Sourced by tools/lib.sh.

TB_LAVALAB_PG=/usr/lib/postgresql/15/bin
TB_LAVALAB_USER=tracerbench
TB_LAVALAB_DEVICE=qemu-01

# tb_lavalab_env DIR: the environment of the lab in DIR's server
# commands (lava_server.settings.prod reads its settings there)
tb_lavalab_env()
{
	local srv=$TB_CACHE/lava-server pg events

	pg=$(cat "$1/pg") && events=$(cat "$1/events-port") || return 1
	export PYTHONPATH=$srv/usr/lib/python3/dist-packages
	export DJANGO_SETTINGS_MODULE=lava_server.settings.prod
	export SECRET_KEY=tracerbench-lab-on-loopback
	export LAVA_YAML_SETTINGS_DATABASES="{default: {ENGINE: django.db.backends.postgresql, NAME: lavaserver, USER: lava, HOST: $pg}}"
	export LAVA_SETTINGS_DJANGO_LOGFILE=$1/django.log
	export LAVA_SETTINGS_MEDIA_ROOT=$1/media/
	export LAVA_SETTINGS_STATIC_ROOT=$1/static
	export LAVA_SETTINGS_DEVICES_PATH=$1/devices
	export LAVA_SETTINGS_HEALTH_CHECKS_PATH=$1/health-checks
	export LAVA_YAML_SETTINGS_DEVICE_TYPES_PATHS="[$srv/usr/share/lava-server/device-types]"
	# http on the loopback: the tokens' calls are not refused
	export LAVA_YAML_SETTINGS_HTTPS_XML_RPC=false
	# a job's events wake the scheduler, which otherwise looks every
	# 20 s: the server's go to the publisher by a socket in /tmp, the
	# publisher's to the scheduler on the loopback
	export LAVA_YAML_SETTINGS_EVENT_NOTIFICATION=true
	export LAVA_SETTINGS_INTERNAL_EVENT_SOCKET=ipc://$pg/events
	export LAVA_SETTINGS_EVENT_SOCKET=tcp://127.0.0.1:$events
}

# tb_lavalab_manage DIR ARG...: lava-server manage ARGs on DIR's lab
tb_lavalab_manage()
{
	(tb_lavalab_env "$1" && shift &&
		/usr/bin/python3 "$TB_CACHE/lava-server/usr/bin/lava-server" manage "$@")
}

# tb_lavalab_daemon DIR NAME CMD...: CMD started in a session of its
# own, its output in DIR/NAME.log, its pid in DIR/pids
tb_lavalab_daemon()
{
	local dir=$1 name=$2

	shift 2
	(tb_lavalab_env "$dir" && exec setsid "$@" </dev/null >"$dir/$name.log" 2>&1) &
	echo "$! $name" >>"$dir/pids"
}

# tb_lavalab_start DIR: the lab started in DIR (made anew): its URL in
# DIR/url (http://USER@127.0.0.1:PORT/), its user's token in DIR/token;
# back once its worker is online and its device idle
tb_lavalab_start()
{
	local dir=$1 port events ws pg i srv=$TB_CACHE/lava-server

	tb_lava_templates >/dev/null || return 1
	[ -x "$TB_LAVALAB_PG/initdb" ] ||
		{ echo "tracerbench: no PostgreSQL 15 in $TB_LAVALAB_PG" >&2; return 1; }
	# an earlier lab of DIR's, left by a check that was killed
	tb_lavalab_stop "$dir"
	rm -rf "$dir" && mkdir -p "$dir"/{media,static,devices,health-checks,worker} &&
		dir=$(cd "$dir" && pwd) || return 1
	# the cluster's own user may not reach every results directory; its
	# socket's directory is the cluster's and root's alone, as its
	# access is trust
	pg=$(mktemp -d /tmp/tracerbench-lavalab.XXXXXX) && chmod 700 "$pg" &&
		echo "$pg" >"$dir/pg" && chown postgres: "$pg" || return 1
	# shellcheck disable=SC2016 # expanded by that sh
	runuser -u postgres -- sh -c '"$1/initdb" -D "$2/data" -A trust -U lava &&
		"$1/pg_ctl" -D "$2/data" -l "$2/log" -w \
			-o "-k $2 -c listen_addresses= -c unix_socket_permissions=0700" start &&
		"$1/psql" -h "$2" -U lava -d postgres -q -c "create database lavaserver"' \
		sh "$TB_LAVALAB_PG" "$pg" >"$dir/postgres.log" 2>&1 ||
		{ cat "$dir/postgres.log" >&2; return 1; }
	port=$(tb_free_port) && events=$(tb_free_port) && ws=$(tb_free_port) &&
		echo "$events" >"$dir/events-port" || return 1
	# the tokens readable by root alone
	(umask 077 && tb_lavalab_manage "$dir" migrate &&
		tb_lavalab_manage "$dir" users add --superuser --staff "$TB_LAVALAB_USER" &&
		tb_lavalab_manage "$dir" tokens add --user "$TB_LAVALAB_USER" \
			>"$dir/token" &&
		tb_lavalab_manage "$dir" device-types add qemu &&
		tb_lavalab_manage "$dir" workers add tracerbench-worker \
			>"$dir/worker.added" &&
		sed -n 's/^Token: //p' "$dir/worker.added" >"$dir/worker.token" &&
		tb_lavalab_manage "$dir" devices add --device-type qemu \
			--worker tracerbench-worker "$TB_LAVALAB_DEVICE") \
		>"$dir/setup.log" 2>&1 || { tail -n 20 "$dir/setup.log" >&2; return 1; }
	printf "{%% extends 'qemu.jinja2' %%}\n" >"$dir/devices/$TB_LAVALAB_DEVICE.jinja2"
	echo "http://$TB_LAVALAB_USER@127.0.0.1:$port/" >"$dir/url"
	tb_lavalab_daemon "$dir" publisher /usr/bin/python3 \
		"$srv/usr/bin/lava-server" manage lava-publisher -u root -g root \
		--host 127.0.0.1 --port "$ws" -o "$dir/publisher.log"
	tb_lavalab_daemon "$dir" gunicorn /usr/bin/python3 -m gunicorn \
		lava_server.wsgi --bind "127.0.0.1:$port" --workers 2 --timeout 120
	tb_lavalab_daemon "$dir" scheduler /usr/bin/python3 \
		"$srv/usr/bin/lava-server" manage lava-scheduler -u root -g root \
		--event-url "tcp://127.0.0.1:$events" -o "$dir/scheduler.log"
	tb_lavalab_daemon "$dir" worker lava-worker --name tracerbench-worker \
		--url "http://127.0.0.1:$port/" --token-file "$dir/worker.token" \
		--worker-dir "$dir/worker" --ping-interval 2 \
		--log-file "$dir/worker.log"
	for ((i = 0; i < 60; i++)); do
		tb_lavalab_manage "$dir" devices details "$TB_LAVALAB_DEVICE" \
			2>/dev/null | grep -q 'state *: Idle' &&
			tb_lavalab_manage "$dir" workers details tracerbench-worker \
			2>/dev/null | grep -q 'state *: Online' && return 0
		sleep 1
	done
	echo "tracerbench: the LAVA lab in $dir did not come up (see $dir/*.log)" >&2
	return 1
}

# tb_lavalab_stop DIR: the lab of DIR stopped (every process of the
# sessions it started: lava-run and its QEMU, which the worker starts in
# process groups of their own, too), its database removed; its logs stay
tb_lavalab_stop()
{
	local pid name pg i

	[ -d "$1" ] || return 0
	if [ -f "$1/pids" ]; then
		while read -r pid name; do
			pkill -TERM -s "$pid" 2>/dev/null
		done <"$1/pids"
		while read -r pid name; do
			for ((i = 0; i < 20; i++)); do
				pgrep -s "$pid" >/dev/null || break
				sleep 1
			done
			pkill -KILL -s "$pid" 2>/dev/null &&
				echo "tracerbench: the lab's $name did not stop: killed" >&2
		done <"$1/pids"
		rm -f "$1/pids"
	fi
	pg=$(cat "$1/pg" 2>/dev/null)
	if [ -n "$pg" ]; then
		[ ! -d "$pg/data" ] ||
			runuser -u postgres -- "$TB_LAVALAB_PG/pg_ctl" -D "$pg/data" \
				-m fast -w stop >/dev/null 2>&1
		rm -rf "$pg"
	fi
	rm -f "$1/pg"
}
