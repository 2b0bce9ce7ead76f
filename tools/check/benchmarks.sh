# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The host tools end to end in make check: compare.sh, bench.sh and
# report.py on the built kernels and the example patches, and their
# refusals. Sourced by tools/check.sh.

# The vCPUs of the guests the benchmark steps boot (compare.sh, bench.sh,
# the 6.1 tree's runs): 2, as tools/scenarios gives its icount boots,
# whose vCPUs take turns in one host thread; what each step checks holds
# per CPU and per round. bench.sh's own default stays 4; the box,
# speed.sh, scale.sh and the LAVA jobs size their guests themselves.
BENCH_VCPUS=2

# The comparison tool, end to end: every state measured, and the events
# cost what the trace suite says they cost: on at least TP_RATIO (5, or
# the arch's tp_ratio) times off for irq and preempt; the hooks nothing
# where the tracepoints are compiled out (within the arch's tick_slack:
# where a tick is several instructions, the traced and raw windows of the
# same instructions each read a tick more or less by their phase),
# something where they are in.
check_compare()
{
	local name dir log ratio

	name=compare$([ "$TB_ARCH" = x86_64 ] || echo "-$TB_ARCH")
	dir=$TB_OUT/$name log=$TB_OUT/$name.log
	rm -rf "$dir"
	"$TB_TOP/tools/compare.sh" --arch "$TB_ARCH" --icount --rounds 2 \
		--clock cycles --out "$dir" >"$log" 2>&1
	local rc=$?

	ratio=$(tb_arch_param tp_ratio 5)
	sed "s/^/[$(tb_name compare)] /" "$log"
	[ $rc = 0 ] && report_json "$dir" notrace.out "$dir/report.json" \
		irq,preempt,irq_save || return 1
	$PY - "$dir/report.json" "$ratio" "$(tb_arch_param tick_slack 0)" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
ratio = float(sys.argv[2])
slack = float(sys.argv[3])
bad = []
for t in d["tables"]:
    p = t["primitive"]
    rows = {r["row"]: r for r in t["rows"]}
    if set(rows) != {"notrace.out", "trace.off", "trace.on"}:
        bad.append(f"{p}: rows {sorted(rows)}")
        continue
    out, off, on = rows["notrace.out"], rows["trace.off"], rows["trace.on"]
    if abs(out["hook"]) > slack:
        bad.append(f"{p}: hook {out['hook']} compiled out")
    if p != "irq_save" and not off["hook"] > 0:
        bad.append(f"{p}: hook {off['hook']} with the events off")
    if p != "irq_save" and not on["median"] >= ratio * off["median"]:
        bad.append(f"{p}: on {on['median']} below {ratio} x off {off['median']}")
    print(f"[compare] {p}: out {out['median']}, off {off['median']}, "
          f"on {on['median']}; hooks {out['hook']}, {off['hook']}, {on['hook']}")
for b in bad:
    print(f"[compare] {b}")
sys.exit(1 if bad or len(d["tables"]) != 3 else 0)
PYEOF
}

# tools/bench.sh and tools/report.py, end to end. A patch series' question
# answered under icount: tools/patches/pad-irqoff adds exactly 16
# instructions to trace_hardirqs_off(), so irq and irq_save must read +16
# exactly and preempt 0; tools/patches/irqsoff-key skips the irqsoff
# tracer's hooks, so irq and irq_save must read less;
# tools/patches/irqflags-key guards the hooks at each site with a static
# key, and the code table must show the irq site growing out of line. Then plain TCG: the
# same kernel and state twice (A/A) and events on against off, in an
# order that gave each label each place as often; events on against off
# is significant (each of the 16 rounds' on above its off, against a
# tenfold difference). Whether the A/A comes out so is shown, not
# asserted: under the null it does, by chance, in about one run in a
# thousand; tools/unit/report_test.py holds report.py's verdicts on
# made-up rounds to their known answers. The figures must be there and render. Under icount a window's
# count is the same every time, so 2000 samples per CPU give the medians
# 10^4 would, in a fifth of the time.
PY=/usr/bin/python3

# report_json DIR REF OUT [PRIMITIVES]: report.py's JSON of DIR against
# REF, of all primitives or those
report_json()
{
	"$TB_TOP/tools/report.py" --format json --primitives "${4:-all}" \
		--alpha 0.001 --reference "$2" "$1" >"$3" 2>"$3.err" &&
		return 0
	sed 's/^/[report] /' "$3.err"
	return 1
}

# expect_diff JSON ROW PRIM OP VALUE [exact]: the difference of ROW to the
# reference for PRIM compares so (eq, lt, gt; near, with VALUE as
# "V,TOLERANCE"), and is exact if asked
expect_diff()
{
	$PY - "$@" <<'PYEOF'
import json, operator, sys
path, row, prim, op, value = sys.argv[1:6]
want_exact = len(sys.argv) > 6
doc = json.load(open(path))
t = next(t for t in doc["tables"] if t["primitive"] == prim)
e = next(e for e in t["rows"] if e["row"] == row)
if op == "near":
    v, tol = map(float, value.split(","))
    ok = abs(e["diff"] - v) <= tol
else:
    ok = {"eq": operator.eq, "lt": operator.lt, "gt": operator.gt}[op](
        e["diff"], float(value))
if want_exact and not e.get("exact"):
    ok = False
print(f"[bench] {row} {prim}: diff {e['diff']} ({'exact' if e.get('exact') else 'p=%s' % e.get('p')}), want {op} {value}")
sys.exit(0 if ok else 1)
PYEOF
}

# expect_code JSON KERNEL SITES FUNCS HOOKS: the report's code table says
# of KERNEL, against its reference kernel: every site's instructions and
# bytes differ by SITES ("0,0"), the bytes of vmlinux's functions by FUNCS
# (- for any), and the hooks' call sites as HOOKS: "same" (no count
# changes, no function added), or "added F,G": F and G are functions the
# patch added, with call sites; the reference's hooks' counts stay, and
# other functions the compiler made anew (a .part.0 clone) may be there
expect_code()
{
	$PY - "$@" <<'PYEOF'
import json, sys
path, kernel, sites, funcs, hooks = sys.argv[1:6]
code = json.load(open(path))["code"]
e = next(e for e in code["kernels"] if e["kernel"] == kernel)
d = e["diff"]
ok = True
want = list(map(int, sites.split(",")))
for p, s in d["sites"].items():
    if [s["insns"], s["bytes"]] != want:
        print(f"[code] {kernel} {p}: site {s}, want {want}")
        ok = False
if d["vmlinux"] is None or funcs != "-" and d["vmlinux"]["functions"] != int(funcs):
    print(f"[code] {kernel}: vmlinux {d['vmlinux']}, want functions {funcs}")
    ok = False
added = set(hooks.split()[1].split(",")) if hooks != "same" else set()
ref = next(x for x in code["kernels"] if x["kernel"] == e["reference"])
for h, n in d["hooks"].items():
    if h in added:
        good = n > 0 and e["hooks"][h] == n
    else:
        good = n == 0 or hooks != "same" and h not in ref["hooks"]
    if good:
        continue
    print(f"[code] {kernel}: {h} {n:+d} call sites")
    ok = False
if not added <= set(d["hooks"]):
    print(f"[code] {kernel}: no call sites of {added - set(d['hooks'])}")
    ok = False
print(f"[code] {kernel}: sites {d['sites']}, text {d['vmlinux']}, "
      f"hooks {d['hooks']}")
sys.exit(0 if ok else 1)
PYEOF
}

# expect_site_grows JSON KERNEL PRIM: the report's code table says that
# KERNEL's PRIM site grows against its reference kernel, out of line: its
# bytes in total, with out-of-line bytes that its reference has fewer of,
# the two parts adding up to the total; its own jump table entries; and
# the kernel's __jump_table grows. Counting the straight line alone, the
# guarded site would read smaller, with nothing out of line.
expect_site_grows()
{
	$PY - "$@" <<'PYEOF'
import json, sys
path, kernel, prim = sys.argv[1:4]
e = next(e for e in json.load(open(path))["code"]["kernels"]
         if e["kernel"] == kernel)
s, d = e["sites"][prim], e["diff"]
ds = d["sites"][prim]
print(f"[code] {kernel} {prim}: site {s}, diff {ds}, "
      f"__jump_table {e['jump_table']}, diff {d['jump_table']}")
sys.exit(not (ds["bytes"] > 0 and s["out_of_line_bytes"] > 0 and
              ds["out_of_line_bytes"] > 0 and
              s["inline_bytes"] + s["out_of_line_bytes"] == s["bytes"] and
              s["jump_entries"] > 0 and s["jump_bytes"] > 0 and
              d["jump_table"]["entries"] > 0))
PYEOF
}

# expect_significant JSON ROW yes|no: for irq, preempt and irq_save
expect_significant()
{
	$PY - "$@" <<'PYEOF'
import json, sys
path, row, want = sys.argv[1:4]
doc = json.load(open(path))
bad = 0
for prim in ("irq", "preempt", "irq_save"):
    t = next(t for t in doc["tables"] if t["primitive"] == prim)
    e = next(e for e in t["rows"] if e["row"] == row)
    sig = bool(e.get("significant")) and not e.get("exact")
    lo, hi = e["ci"] if e.get("ci") else (None, None)
    print(f"[bench] {row} {prim}: diff {e['diff']} CI [{lo}, {hi}] p {e.get('p')} {e['mark']}")
    if e.get("p") is None or sig != (want == "yes"):
        bad = 1
    # a significant difference's interval must exclude 0
    if want == "yes" and not (lo > 0 or hi < 0):
        bad = 1
sys.exit(bad)
PYEOF
}

# expect_counterbalanced JSON ROW: the order meta recorded, as report.py
# read it, put ROW first of it and the reference in half the rounds, and
# first after an events toggle or the boot as often, give or take the
# boot's first run
expect_counterbalanced()
{
	$PY - "$@" <<'PYEOF'
import json, sys
path, row = sys.argv[1:3]
doc = json.load(open(path))
t = next(t for t in doc["tables"] if t["primitive"] == "irq")
o = next(e for e in t["rows"] if e["row"] == row).get("order")
print(f"[bench] {row} against {doc['reference']}: order {o}")
sys.exit(not o or o["before_ref"] * 2 != o["rounds"] or
         abs(o["leads"] - o["ref_leads"]) > 1)
PYEOF
}

# expect_hz_agree DIR PPM: every run's counter_hz within PPM millionths of
# the runs' median. In plain TCG a run of 2000 samples lasts some 8 ms, so
# a reading dated a few us off (an interrupt, or the host preempting the
# vCPU, between the counter and ktime) moves its rate by hundreds.
expect_hz_agree()
{
	$PY - "$@" <<'PYEOF'
import json, statistics, sys
path, ppm = sys.argv[1], float(sys.argv[2])
runs = json.load(open(f"{path}/results.json"))["runs"]
hz = {r["id"]: r["summary"]["counter_hz"] for r in runs}
mid = statistics.median(hz.values())
rid = max(hz, key=lambda r: abs(hz[r] - mid))
off = abs(hz[rid] - mid) / mid * 1e6
print(f"[bench] {path}: counter_hz median {mid:.0f}, {rid} {hz[rid]} "
      f"the farthest, {off:.1f} ppm")
sys.exit(off > ppm)
PYEOF
}

# check_figures DIR ROWS...: cdf and per_cpu as SVG and PNG, a series of
# every row for every primitive in the SVGs, PNGs that load with sane sizes
# and are not blank
check_figures()
{
	local dir=$1 rc=0 what prim row

	shift
	for what in cdf per_cpu; do
		for prim in $(tb_prims); do
			for row in "$@"; do
				grep -q "id=\"$what-$prim-$row\"" "$dir/$what.svg" && continue
				echo "[bench] $dir/$what.svg lacks the series $what-$prim-$row"
				rc=1
			done
		done
	done
	$PY - "$dir"/cdf.png "$dir"/per_cpu.png <<'PYEOF' || rc=1
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.image as mpimg
bad = 0
for path in sys.argv[1:]:
    img = mpimg.imread(path)
    h, w = img.shape[:2]
    print(f"[bench] {path}: {w}x{h}, {img.shape[2]} channels, std {img.std():.3f}")
    if not (200 <= h <= 4000 and 600 <= w <= 6000 and img.shape[2] in (3, 4)
            and img.std() > 0.01):
        bad = 1
sys.exit(bad)
PYEOF
	return $rc
}

# check_report_forms DIR: a markdown table row per kernel and state for
# each primitive; DIR and a copy of it read together keep their rows apart
# under the directories' names
check_report_forms()
{
	local copy=$TB_OUT/bench-icount-copy n

	n=$("$TB_TOP/tools/report.py" --format markdown "$1" |
		grep -c '^| trace+pad-irqoff\.off | 1 | ')
	[ "$n" = 3 ] || { echo "[bench] markdown: $n rows of trace+pad-irqoff.off, want 3"; return 1; }
	rm -rf "$copy" && cp -r "$1" "$copy" || return 1
	n=$("$TB_TOP/tools/report.py" --reference bench-icount/trace.off \
		"$1" "$copy" | grep -Ec '^  bench-icount(-copy)?/trace\+pad-irqoff\.off +1 +[0-9]+ .* \+16 +exact')
	# irq and irq_save, from each directory
	[ "$n" = 4 ] || { echo "[bench] two directories: $n rows of */trace+pad-irqoff.off at +16, want 4"; return 1; }
	# two machines' results/ of the same name: told apart by their paths
	rm -rf "$copy" && mkdir -p "$copy/a" "$copy/b" &&
		cp -r "$1" "$copy/a/res" && cp -r "$1" "$copy/b/res" || return 1
	n=$(cd "$copy" && "$TB_TOP/tools/report.py" --reference a/res/trace.off \
		a/res b/res | grep -Ec '^  [ab]/res/trace\+pad-irqoff\.off +1 +[0-9]+ .* \+16 +exact')
	[ "$n" = 4 ] || { echo "[bench] two res/ directories: $n rows of */res/trace+pad-irqoff.off at +16, want 4"; return 1; }
	rm -rf "$copy"
}

check_bench()
{
	local icount=$TB_OUT/bench-icount tcg=$TB_OUT/bench-tcg start first10
	local pad=trace+pad-irqoff key=trace+irqsoff-key guard=trace+irqflags-key

	start=$SECONDS
	rm -rf "$icount" "$tcg"
	"$TB_TOP/tools/bench.sh" --icount --rounds 1 --nr-samples 2000 \
		--out "$icount" trace \
		trace,patches="$TB_TOP/tools/patches/pad-irqoff" \
		trace,patches="$TB_TOP/tools/patches/irqsoff-key/series" \
		trace,patches="$TB_TOP/tools/patches/irqflags-key" \
		>"$TB_OUT/bench-icount.log" 2>&1
	result $? "bench.sh --icount: trace and the three example patch series"
	sed 's/^/[bench icount] /' "$TB_OUT/bench-icount.log"
	"$TB_TOP/tools/report.py" "$icount" | sed 's/^/[report icount] /'
	if report_json "$icount" trace.off "$icount/report.json"; then
		expect_diff "$icount/report.json" $pad.off irq eq 16 exact &&
			expect_diff "$icount/report.json" $pad.off irq_save eq 16 exact &&
			expect_diff "$icount/report.json" $pad.off preempt eq 0 exact &&
			expect_diff "$icount/report.json" $pad.off raw_irq eq 0 exact
		result $? "report: pad-irqoff costs irq and irq_save exactly 16, preempt nothing"
		expect_diff "$icount/report.json" $key.off irq lt 0 exact &&
			expect_diff "$icount/report.json" $key.off irq_save lt 0 exact
		result $? "report: irqsoff-key saves on irq and irq_save, events off"
		expect_code "$icount/report.json" $pad 0,0 16 same
		result $? "code: pad-irqoff leaves every call site as it was, adds its 16 nops' bytes to the functions, and no call site"
		expect_code "$icount/report.json" $key 0,0 - \
			"added __tracer_hardirqs_on,__tracer_hardirqs_off"
		result $? "code: irqsoff-key guards in the hooks, not at the sites: every site as it was, and its two new functions called"
		expect_site_grows "$icount/report.json" $guard irq
		result $? "code: irqflags-key guards at the site: the irq site grows, its hook calls out of line and apart, with jump table entries"
	else
		result 1 "report.py reads the icount results"
	fi
	check_report_forms "$icount"
	result $? "report: markdown tables, and two directories with the same labels kept apart"
	"$TB_TOP/tools/report.py" --primitives all --plot "$icount/fig" \
		"$icount" >/dev/null 2>&1 &&
		check_figures "$icount/fig" trace.off trace.on $pad.off $pad.on \
			$key.off $key.on $guard.off $guard.on
	result $? "report --plot: CDFs and per-CPU medians of every row, SVG and PNG"

	# 2000 samples per CPU a round: the tests compare rounds' medians,
	# and a shorter round leaves less time for the host's load to drift.
	# 16 paired rounds, four turns of the rotation: the smallest p is
	# 2/2^16, below 0.001 after Holm over the 9 tests of the three
	# primitives tested. Made as 10 rounds, then 6 more by --resume,
	# which boots once more and goes on with the rotation. A boot's
	# first run counts as first after a toggle: the second boot's,
	# round 11's b.off, evens the one lead a.off has on b.off by then.
	"$TB_TOP/tools/bench.sh" --rounds 10 --nr-samples 2000 --out "$tcg" \
		a=trace b=trace >"$TB_OUT/bench-tcg.log" 2>&1 &&
		first10=$(cat "$tcg"/runs/*.r[1-9]/meta "$tcg"/runs/*.r10/meta | sha256sum) &&
		"$TB_TOP/tools/bench.sh" --resume "$tcg" --rounds 16 \
			>>"$TB_OUT/bench-tcg.log" 2>&1 &&
		expect_rounds "$tcg" 16 a.off a.on b.off b.on &&
		expect_hz_agree "$tcg" 100 &&
		# the first 10 rounds' runs as they were: not made again
		[ "$(cat "$tcg"/runs/*.r[1-9]/meta "$tcg"/runs/*.r10/meta | sha256sum)" = "$first10" ] &&
		check_resume_refused "$tcg"
	result $? "bench.sh, plain TCG: trace twice, 10 rounds in one boot and 6 more by --resume, every run's counter_hz within 100 ppm; another kernel refused by --resume"
	sed 's/^/[bench tcg] /' "$TB_OUT/bench-tcg.log"
	"$TB_TOP/tools/report.py" --alpha 0.001 "$tcg" | sed 's/^/[report tcg] /'
	if report_json "$tcg" a.off "$tcg/report.json" irq,preempt,irq_save; then
		expect_counterbalanced "$tcg/report.json" b.off &&
			expect_counterbalanced "$tcg/report.json" a.on
		result $? "report: A/A (the same kernel and state twice) and on against off, each first as often"
		expect_significant "$tcg/report.json" b.off no ||
			echo "[bench] A/A came out significant: one run in about a thousand does"
		expect_significant "$tcg/report.json" a.on yes
		result $? "report: events on against off is significant"
	else
		result 1 "report.py reads the plain TCG results"
	fi
	expect_env "$icount" tcg-icount "tcg -icount $TB_ICOUNT_ARG" &&
		expect_env "$tcg" tcg tcg
	result $? "bench.sh: env names the arch, mode, QEMU, the guests' machine and CPU, accelerator and CPUs"
	echo "[bench] the comparisons took $((SECONDS - start)) s"
}
# expect_env DIR MODE ACCEL: DIR/env says what its runs ran on: the
# architecture, MODE, this QEMU, the guests' machine and CPU as the
# arch's file gives them (x86-64's without cx16), the accelerator ACCEL
# and the guest's CPUs
expect_env()
{
	local d=$1 line fail=0

	[ -f "$d/env" ] || { echo "[bench] no $d/env"; return 1; }
	while IFS= read -r line; do
		grep -qxF "$line" "$d/env" && continue
		echo "[bench] $d/env has no line '$line': $(grep "^${line%% *} " "$d/env" | paste -sd '|')"
		fail=1
	done <<EOS
arch $TB_ARCH
mode $2
qemu $("$TB_QEMU" --version | head -n 1)
qemu_machine ${TB_QEMU_MACHINE[*]}
qemu_accel $3
guest_cpus $TB_CPUS
EOS
	return $fail
}

# check_resume_refused DIR: --resume refuses a copy of DIR whose kernel
# is not the one it was made with (another image_hash), before any boot,
# and leaves the copy as it was
check_resume_refused()
{
	local copy=$1-other sum

	rm -rf "$copy" && cp -r "$1" "$copy" &&
		sed -i 's/^image_hash .*/image_hash 0123456789abcdef/' "$copy/kernels/a.env" ||
		return 1
	sum=$(find "$copy" -type f ! -path '*/boots/*' -exec cat {} + | sha256sum)
	expect_error "kernel a is not the one $copy began with" \
		"$TB_TOP/tools/bench.sh" --resume "$copy" --rounds 17 || return 1
	[ "$(find "$copy" -type f ! -path '*/boots/*' -exec cat {} + | sha256sum)" = "$sum" ] ||
		{ echo "[bench] a refused --resume changed $copy"; return 1; }
	rm -rf "$copy"
}

# expect_rounds DIR N RUN...: DIR has each RUN (LABEL.STATE) in rounds 1
# to N, once, and its env says N rounds
expect_rounds()
{
	local d=$1 n=$2 r k

	shift 2
	grep -qx "rounds $n" "$d/env" || { echo "[bench] $d/env: $(grep '^rounds' "$d/env")"; return 1; }
	for k in "$@"; do
		for ((r = 1; r <= n; r++)); do
			[ -f "$d/runs/$k.r$r/meta" ] || { echo "[bench] $d: no run $k.r$r"; return 1; }
		done
	done
	[ "$(find "$d/runs" -name meta | wc -l)" = $((n * $#)) ] ||
		{ echo "[bench] $d: $(find "$d/runs" -name meta | wc -l) runs, not $((n * $#))"; return 1; }
}

# expect_error WORDS COMMAND...: COMMAND fails, and its stderr says WORDS
expect_error()
{
	local words=$1 log=$TB_OUT/bench-error.log

	shift
	if "$@" >/dev/null 2>"$log"; then
		echo "[bench] succeeded: $*"
		return 1
	fi
	grep -q -- "$words" "$log" && return 0
	echo "[bench] '$*' did not say '$words':"
	sed 's/^/[bench]   /' "$log"
	return 1
}

# Every bad input gets a clear message and a non-zero exit.
check_bench_errors()
{
	local bad tmp=$TB_OUT/bench-bad bench=$TB_TOP/tools/bench.sh rc=0
	local report=$TB_TOP/tools/report.py collect=$TB_TOP/tools/guest/collect.sh

	rm -rf "$tmp" && mkdir -p "$tmp/series" "$tmp/empty" || return 1
	bad=$tmp/series/0001-tracing-a-patch-that-does-not-apply.patch
	printf '%s\n' '--- a/kernel/trace/trace_preemptirq.c' \
		'+++ b/kernel/trace/trace_preemptirq.c' '@@ -1,3 +1,3 @@' \
		'-// no such line in linux-source-6.12' '+// nor this one' \
		' /*' ' * preemptoff and irqoff tracepoints' >"$bad"
	echo "missing.patch" >"$tmp/series/series.bad"
	expect_error "patch $bad does not apply" "$bench" --out "$tmp/o1" \
		trace,patches="$tmp/series" || rc=1
	expect_error "names missing.patch" "$bench" --out "$tmp/o2" \
		trace,patches="$tmp/series/series.bad" || rc=1
	expect_error "no \\*.patch files" "$bench" --out "$tmp/o2" \
		trace,patches="$tmp/empty" || rc=1
	expect_error "no such patch series" "$bench" trace,patches=/nonexistent || rc=1
	expect_error "no such kconfig fragment" "$bench" trace,config=/nonexistent || rc=1
	expect_error "is no kernel variant" "$bench" nosuch || rc=1
	expect_error "two kernels are labelled" "$bench" trace trace || rc=1
	expect_error "give your own build a label" "$bench" bzimage=/etc/hostname || rc=1
	expect_error "build=DIR" "$bench" me=bzimage=/etc/hostname || rc=1
	expect_error "want a count" "$bench" --rounds 0 trace || rc=1
	expect_error "list of out, off and on" "$bench" --states of trace || rc=1
	expect_error "unknown option" "$bench" --frobnicate trace || rc=1
	expect_error "no architecture nosuch" "$bench" --arch nosuch trace || rc=1
	expect_error "applies to QEMU guests only" "$bench" --host --arch arm64 || rc=1
	expect_error "want a count from 1, not '0x10'" "$bench" --batch 0x10 trace || rc=1
	expect_error "wants one of the module's clocks ($(tb_clocks | tr '\n' ' ' | sed 's/ $//')), not 'sundial'" \
		"$bench" --clock sundial trace || rc=1
	expect_error "wants a count from 1, not '0'" sh "$collect" --batch 0 "$tmp/o3" || rc=1
	expect_error "no such directory" "$report" /nonexistent || rc=1
	expect_error "no results.json" "$report" "$tmp" || rc=1
	expect_error "no row nosuch.off" "$report" --reference nosuch.off \
		"$TB_OUT/bench-icount" || rc=1
	expect_error "invalid choice" "$report" --format xml "$TB_OUT/bench-icount" || rc=1
	expect_error "given twice" "$report" "$TB_OUT/bench-icount" \
		"$TB_OUT/bench-icount/" || rc=1
	# report.py's refusals of results it cannot read or compare: the
	# icount results at another counter rate, as another machine's,
	# broken JSON, and an unknown schema
	mkdir -p "$tmp/hz" "$tmp/json" "$tmp/schema" || return 1
	sed 's/"counter_hz":[0-9]*/"counter_hz":62500000/g' \
		"$TB_OUT/bench-icount/results.json" >"$tmp/hz/results.json"
	expect_error "cannot subtract ticks across hz/trace.off" "$report" \
		--reference bench-icount/trace.off "$TB_OUT/bench-icount" \
		"$tmp/hz" || rc=1
	echo '{"format":' >"$tmp/json/results.json"
	expect_error "not JSON" "$report" "$tmp/json" || rc=1
	sed 's/"schema":2,/"schema":99,/' "$TB_OUT/bench-icount/results.json" \
		>"$tmp/schema/results.json"
	expect_error "schema 99" "$report" "$tmp/schema" || rc=1
	expect_error "wants a count" sh "$collect" --rounds 0 "$tmp/o3" || rc=1
	expect_error "a state is out, off or on" sh "$collect" --states up "$tmp/o3" || rc=1
	return $rc
}

# The runner's JSON is the same from busybox's sh and awk as from the host's.
# On a copy whose env holds a backslash, quotes and a tab, as a Windows
# path or a quoted command line would: both JSON documents must parse and
# give those characters back.
check_json_busybox()
{
	local dir=$TB_OUT/bench-icount copy=$TB_OUT/bench-json
	local bin=$TB_OUT/busybox-bin tricky

	# shellcheck disable=SC1003 # backslashes for printf to print
	tricky=$(printf 'C:\\tb "quoted"\tend\\')
	rm -rf "$bin" "$copy" && mkdir -p "$bin" &&
		ln -s /bin/busybox "$bin/awk" && ln -s /bin/busybox "$bin/sh" &&
		cp -r "$dir" "$copy" &&
		echo "note $tricky" >>"$copy/env" || return 1
	PATH=$bin:$PATH busybox sh "$TB_TOP/tools/guest/json.sh" "$copy" \
		>"$copy/busybox.json" &&
		sh "$TB_TOP/tools/guest/json.sh" "$copy" >"$copy/host.json" &&
		cmp "$copy/busybox.json" "$copy/host.json" &&
		$PY - "$copy/host.json" "$tricky" <<'PYEOF' && rm -rf "$copy"
import json, sys
note = json.load(open(sys.argv[1]))["env"]["note"]
print(f"[bench] env note read back as {note!r}")
sys.exit(note != sys.argv[2])
PYEOF
}

# On another architecture, the example patch under icount: its 16 nops
# take 16 ns, which the counter shows as 16 ns at its own rate (arm64's
# 62.5 MHz: one tick), on irq and irq_save, and nothing elsewhere. A
# window reads a tick more or less by its phase against the counter, and
# so does the calibration's empty window: a row's median, the window's
# less the calibration's, is within 2 ticks of the truth, strictly, and a
# difference of two rows within 4, so at most 3 ticks off in whole ticks.
# Batch 50 gives figures per pair to 1/50 of a tick, and keeps the
# windows with the events off (about 3800 ticks) below 4096, where the
# histogram is exact: each difference within 3/50 = 0.06 of the truth,
# whichever neighbours the medians land on (0.061: in floating point).
check_bench_arch()
{
	local dir=$TB_OUT/bench-$TB_ARCH-icount pad=trace+pad-irqoff ticks

	rm -rf "$dir"
	"$TB_TOP/tools/bench.sh" --arch "$TB_ARCH" --icount --rounds 1 \
		--nr-samples 2000 --batch 50 --out "$dir" trace \
		trace,patches="$TB_TOP/tools/patches/pad-irqoff" \
		>"$dir.log" 2>&1
	result $? "bench.sh --arch $TB_ARCH --icount: trace and pad-irqoff"
	sed "s/^/[bench $TB_ARCH] /" "$dir.log"
	"$TB_TOP/tools/report.py" "$dir" | sed "s/^/[report $TB_ARCH] /"
	expect_env "$dir" tcg-icount "tcg -icount $TB_ICOUNT_ARG" &&
		report_json "$dir" trace.off "$dir/report.json" || return 1
	ticks=$($PY -c 'import json, sys
t = json.load(open(sys.argv[1]))["tables"][0]
print(round(16e-9 * t["rows"][0]["counter_hz"]))' "$dir/report.json") || return 1
	expect_diff "$dir/report.json" $pad.off irq near "$ticks,0.061" &&
		expect_diff "$dir/report.json" $pad.off irq_save near "$ticks,0.061" &&
		expect_diff "$dir/report.json" $pad.off preempt near 0,0.061 &&
		expect_diff "$dir/report.json" $pad.off raw_irq near 0,0.061
}

# The same under icount with the PMU's count of instructions, where the
# arch's PMU serves it there (TB_PMU_CLOCKS_ICOUNT): pad-irqoff adds
# exactly 16 instructions to irq and irq_save and none to the others, and
# raw_irq costs exactly the instructions that the disassembly of its
# window holds beyond those of the empty window.
check_bench_instructions()
{
	local dir=$TB_OUT/bench-$TB_ARCH-instructions pad=trace+pad-irqoff
	local sizes want got p fail=0

	rm -rf "$dir"
	"$TB_TOP/tools/bench.sh" --arch "$TB_ARCH" --icount --rounds 1 \
		--nr-samples 2000 --states off --clock instructions \
		--out "$dir" trace \
		trace,patches="$TB_TOP/tools/patches/pad-irqoff" \
		>"$dir.log" 2>&1
	result $? "bench.sh --arch $TB_ARCH --icount --clock instructions: trace and pad-irqoff"
	sed "s/^/[bench $TB_ARCH instructions] /" "$dir.log"
	# the README's example
	"$TB_TOP/tools/report.py" --format lkml --primitives irq \
		"$dir" >"$TB_OUT/docs-src/bench-instructions.txt"
	sed "s/^/[report $TB_ARCH instructions] /" \
		"$TB_OUT/docs-src/bench-instructions.txt"
	report_json "$dir" trace.off "$dir/report.json" || return 1
	sizes=$("$TB_TOP/tools/disasm.sh" --sizes "$(tb_module trace)") ||
		return 1
	want=$(echo "$sizes" | awk '
		$2 == "tb_win_raw_irq_instructions" { raw = $3 }
		$2 == "tb_win_none_instructions" { none = $3 }
		END { if (raw != "" && none != "") print raw - none }')
	got=$($PY -c 'import json, sys
t = json.load(open(sys.argv[1]))["tables"]
print(*(e["median"] for x in t if x["primitive"] == sys.argv[2]
        for e in x["rows"] if e["row"] == "trace.off"))' "$dir/report.json" raw_irq)
	echo "[bench $TB_ARCH instructions] raw_irq: median $got, disassembly $want"
	[ -n "$want" ] && [ "$got" = "$want.0" ] || fail=1
	for p in irq irq_save; do
		expect_diff "$dir/report.json" $pad.off $p eq 16 exact || fail=1
	done
	for p in preempt raw_irq raw_irq_save preempt_notrace none; do
		expect_diff "$dir/report.json" $pad.off $p eq 0 exact || fail=1
	done
	return $fail
}

# The raw_irq site on notrace, from compare.sh's results: on x86-64 two
# paravirt sites (the kernels here have PARAVIRT_XXL, as Debian's), each a
# 6-byte call through pv_ops as built, which the kernel patches at boot
# into cli or sti and one 5-byte nop: 2 instructions and 12 bytes as
# built, and 4 instructions run, which icount's median counts.
check_site_raw_irq()
{
	$PY - "$1" <<'PYEOF'
import json, sys
code = json.load(open(sys.argv[1]))["code"]
e = next(e for e in code["kernels"] if e["kernel"] == "notrace")
s, x = e["sites"]["raw_irq"], e["executed"]["raw_irq"]
print(f"[code] notrace raw_irq: site {s}, executed {x}")
sys.exit(0 if (s["insns"], s["bytes"], s["calls"], x["median"]) ==
         (2, 12, ["pv_ops"], 4.0) else 1)
PYEOF
}

# The host steps tools/scenarios names on the trace kernel (KERNEL, which
# the tools build from again, cached): compare.sh; bench.sh and report.py
# whole (x86-64); the example patch under icount (other architectures).
step_compare()
{
	local -x TB_CPUS=$BENCH_VCPUS

	check_compare
	result $? "$(tb_name compare.sh) --icount: all three states, events raise the medians, hook costs"
	if [ "$TB_ARCH" = x86_64 ]; then
		report_json "$TB_OUT/compare" notrace.out \
			"$TB_OUT/compare/code.json" raw_irq &&
			check_site_raw_irq "$TB_OUT/compare/code.json"
		result $? "code: notrace's raw_irq site is cli and sti with their paravirt padding, 12 bytes, and runs the 4 instructions icount counts"
	fi
}

step_bench()
{
	local -x TB_CPUS=$BENCH_VCPUS

	check_bench
	check_json_busybox
	result $? "json.sh: busybox and the host awk write the same JSON, escaped"
	check_bench_errors
	result $? "bench.sh, report.py and collect.sh refuse bad input, saying why"
}

step_bench_arch()
{
	local -x TB_CPUS=$BENCH_VCPUS

	check_bench_arch
	result $? "bench.sh --arch $TB_ARCH: env names the guests' machine and CPU; report: on $TB_ARCH pad-irqoff costs irq and irq_save 16 ns in counter ticks (batch 50: within 0.06), preempt nothing"
	case ",$TB_PMU_CLOCKS_ICOUNT," in
	*,instructions,*)
		check_bench_instructions
		result $? "report: on $TB_ARCH pad-irqoff costs irq and irq_save exactly 16 instructions, the others none; raw_irq as its disassembly"
		;;
	esac
}

# step_speed KERNEL and step_scale KERNEL: the benchmarks of doc/bench.md
# whose outputs are pasted there, run for check_docs to compare (into
# .out/docs-src/); a result for each that ran to its end. scale.sh stops
# at 10^7 samples per CPU, as the pasted output does.
step_speed()
{
	local out=$TB_OUT/docs-src/speed.txt

	"$TB_TOP/tools/speed.sh" --kernel "$1" >"$out" 2>&1
	result $? "speed.sh on $(tb_name "$1"): instructions per sample"
	sed "s/^/[speed] /" "$out"
}

step_scale()
{
	local out=$TB_OUT/docs-src/scale.txt

	"$TB_TOP/tools/scale.sh" --kernel "$1" 100000 1000000 10000000 \
		>"$out" 2>&1
	result $? "scale.sh on $(tb_name "$1"): run time and memory at 10^5 to 10^7 samples"
	sed "s/^/[scale] /" "$out"
}
