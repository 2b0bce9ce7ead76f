#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# json.sh OUTDIR: print the results directory OUTDIR (see collect.sh) as one
# JSON document:
#
#   { "format": "tracerbench-results 1", "schema": 2,
#     "env": { KEY: VALUE, ... },                  OUTDIR/env
#     "kernels": { LABEL: { KEY: VALUE, ... } },   OUTDIR/kernels/LABEL.env
#     "runs": [ { "id": "LABEL.STATE.rROUND",
#                 "meta": { ... }, "summary": { ... },
#                 "histogram": { P: [[LOW, COUNT], ...] },
#                 "per_cpu": { P: [{ "cpu": N, "median": ... }, ...] } } ] }
#
# The summary's figures, the histograms and the per-CPU rows are numbers,
# and so are meta's round, seq, pos and boot_pos; everything else is a
# string. "schema" counts changes to the document's meaning (doc/bench.md,
# "Results"). POSIX sh and awk only, so that it runs where collect.sh
# does.

usage="usage: json.sh OUTDIR: print the results directory OUTDIR as JSON"
case ${1:-} in
-h | --help)
	echo "$usage"
	echo "(the format: doc/bench.md, \"Results\")"
	exit 0 ;;
-?*)
	echo "json.sh: unknown option $1" >&2
	echo "$usage" >&2
	exit 2 ;;
esac
[ $# = 1 ] || { echo "$usage" >&2; exit 2; }
out=$1
[ -d "$out/runs" ] || { echo "json.sh: $out is no results directory" >&2; exit 1; }

# Every file behind a line "@@@ PATH", so that empty files count too.
files()
{
	[ -f "$out/env" ] && echo "$out/env"
	ls "$out"/kernels/*.env 2>/dev/null
	for d in "$out"/runs/*/; do
		[ -f "$d/summary" ] || continue
		echo "${d}meta"
		echo "${d}summary"
		ls "$d"*.histogram
		ls "$d"*.per_cpu
	done
}

[ -n "$(ls "$out"/runs/*/summary 2>/dev/null)" ] ||
	{ echo "json.sh: no runs in $out" >&2; exit 1; }
files | while read -r f; do
	echo "@@@ $f"
	cat "$f" || echo "@@@ unreadable $f"
done | awk '
/^@@@ unreadable / { print "json.sh: cannot read " substr($0, 16) > "/dev/stderr"; bad = 1; next }
# s with every match of the regular expression re replaced by the literal
# by. Not gsub(): what a backslash in its replacement does differs between
# awks (mawk, busybox). re is a string: a /re/ argument is matched to $0.
function replace(s, re, by,	n, part, i, r) {
	n = split(s, part, re)
	r = part[1]
	for (i = 2; i <= n; i++)
		r = r by part[i]
	return r
}
function str(s) {
	s = replace(replace(replace(s, "\\\\", "\\\\"), "\"", "\\\""), "\t", "\\t")
	gsub(/[\001-\037]/, " ", s)
	return "\"" s "\""
}
function val(s) {
	if (s ~ /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/)
		return s
	return str(s)
}
# close whatever object or array the previous file opened
function close_file() {
	if (kind == "kv")
		printf "}"
	else if (kind == "hist" || kind == "cpu")
		printf "]"
	kind = ""
}
# a PRIM.SECTION file of a run (histogram, per_cpu): the array of PRIM in
# the object SECTION of the run, which the first such file opens
function open_array(section,    p) {
	close_file()
	p = base
	sub(/\.[a-z_]+$/, "", p)
	if (sect != section) {
		if (sect != "")
			printf "}"
		printf ",%s:{", str(section)
		sect = section; np = 0
	}
	printf "%s%s:[", np++ ? "," : "", str(p)
	first = 1
}
function close_run() {
	close_file()
	if (inrun) {
		if (sect != "")
			printf "}"
		printf "}"
	}
	inrun = 0; sect = ""
}
/^@@@ / {
	f = substr($0, 5)
	n = split(f, parts, "/")
	base = parts[n]
	if (base == "env" && parts[n - 1] != "kernels" && n >= 1 && !seen_env) {
		printf "{\"format\":\"tracerbench-results 1\",\"schema\":2,\"env\":{"
		kind = "kv"; first = 1; seen_env = 1
	} else if (parts[n - 1] == "kernels") {
		close_file()
		if (!seen_env) {
			printf "{\"format\":\"tracerbench-results 1\",\"schema\":2,\"env\":{}"
			seen_env = 1
		}
		printf "%s", nkernels++ ? "," : ",\"kernels\":{"
		label = base; sub(/\.env$/, "", label)
		printf "%s:{", str(label)
		kind = "kv"; first = 1
	} else if (base == "meta") {
		close_run()
		if (!seen_env) {
			printf "{\"format\":\"tracerbench-results 1\",\"schema\":2,\"env\":{}"
			seen_env = 1
		}
		if (!nkernels++)
			printf ",\"kernels\":{"
		printf "%s", nruns++ ? "," : "},\"runs\":["
		printf "{\"id\":%s,\"meta\":{", str(parts[n - 1])
		inrun = 1; kind = "kv"; first = 1
	} else if (base == "summary") {
		close_file()
		printf ",\"summary\":{"
		kind = "kv"; first = 1
	} else if (base ~ /\.histogram$/) {
		open_array("histogram")
		kind = "hist"
	} else if (base ~ /\.per_cpu$/) {
		open_array("per_cpu")
		kind = "cpu"; nhead = 0
	}
	next
}
kind == "kv" {
	if ($0 == "")
		next
	k = $1
	v = $0; sub(/^[^ ]* ?/, "", v)
	# only the figures of a summary are numbers: "6.10" is a release
	if ((base == "summary" && k != "kernel" && k != "version" &&
	     k != "cpus") || (base == "meta" && (k == "round" || k == "seq" || k == "pos" ||
	     k == "boot_pos")))
		v = val(v)
	else
		v = str(v)
	printf "%s%s:%s", (first ? "" : ","), str(k), v
	first = 0
	next
}
kind == "hist" && NF == 2 {
	printf "%s[%s,%s]", first ? "" : ",", val($1), val($2)
	first = 0
	next
}
kind == "cpu" {
	if (!nhead) {
		nhead = split($0, head, " ")
		next
	}
	printf "%s{", first ? "" : ","
	for (i = 1; i <= NF && i <= nhead; i++)
		printf "%s%s:%s", (i > 1 ? "," : ""), str(head[i]), val($i)
	printf "}"
	first = 0
	next
}
END {
	if (bad)
		exit 1
	close_run()
	if (!nkernels)
		printf ",\"kernels\":{"
	if (!nruns)
		printf "},\"runs\":["
	printf "]}\n"
}
'
