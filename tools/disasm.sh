#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# disasm.sh [--sizes] [--clocks LIST] MODULE.ko: check, in the built
# module (x86-64, i386 or arm64, from its ELF header), that every timed
# window holds the primitive and nothing else. Exit 0 if so, 1 (with one
# line per offending instruction) if not, 2 on a usage or tool error.
# --clocks LIST (comma-separated clocks of the module): hold only those
# clocks' windows to the check; what the others hold is said in warnings
# on stderr, which do not fail it (a kernel is measured by the clocks a
# run uses). --sizes also prints,
# for each window, what lies between its two clock reads, the reads left
# out: "size WINDOW INSTRUCTIONS BYTES CALLS", CALLS the functions called
# (comma-separated, "-" for none). Every instruction counts once, taken
# or not, as the window's code is laid out.
#
# Each window is a function of its own, tb_win_PRIM[_CLOCK][_work]
# (windows.h, measure.c's tb_window(); listed by tools/cfacts.py). A clock read (x86: rdtsc, rdtscp, rdpmc;
# arm64: mrs of cntvct_el0, cntvctss_el0, pmccntr_el0 or pmxevcntr_el0;
# or a call of ktime_get_mono_fast_ns for clock=ns) opens the window, and one closes it. The window is
# every instruction reachable from the opening read without passing a
# read, following jumps: the check holds wherever the compiler places a
# block (the unlikely preempt_schedule() call of preempt_enable() goes after
# the return, and may have its own copy of the closing read). Exactly one
# read must open the window on every path from the entry, and no path from
# it may return without a closing read. In the window, allowed are:
#   - the primitive's own instructions: cli, sti, and for the irq ones
#     pushf/pop and the test of the flags (6.12's local_irq_disable() reads
#     them too); for the preempt ones an update or a read of the per-CPU
#     preempt count (%gs-relative on x86-64, %fs on i386, relocated against
#     __preempt_count or pcpu_hot);
#   - arm64: msr daifset/daifclr/daif and mrs daif for the irq ones; for
#     the preempt ones loads and stores through the register that mrs of
#     sp_el0 (current's thread_info, which holds the preempt count) set;
#     the isb of the ordered read and the load that orders what follows
#     after it (ldr xzr, arch_counter_enforce_ordering()); the PMU
#     counter's selection (msr pmselr_el0) of the closing read;
#   - arm64 with KASAN (the debug kernel): in the preempt ones, KASAN's
#     checks of those loads and stores: a byte load from the shadow, at
#     (address >> 3) plus the shadow offset of a register derived from
#     sp_el0, added or as an index, the compares of what it read, and the
#     report calls on the bad paths. x86 keeps the count per CPU (%gs),
#     which KASAN does not instrument;
#   - i386: the opening read's %edx:%eax stored to the stack, which the
#     empty (none) window does alike;
#   - x86, a PMU clock: the closing read's load of the counter selector
#     (%ecx of rdpmc) from the per-CPU tb_pmc_sel, as the empty window's;
#   - calls of the primitive's own hooks, per primitive (below), the
#     paravirt irq ops (indirect calls through pv_ops) and, in _work
#     windows, simulate_critical_section;
#   - register-only arithmetic, moves and jumps within the function, which
#     the batch loop and the empty (none) window share;
#   - nops (alternatives padding, alignment).
# Anything else fails the check: any other memory access (a sample or
# histogram store moved inside), any other call, a third clock read, a
# return or a jump out of the function.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
TB_TOP=$top
# shellcheck source=tools/lib/cli.sh
. "$top/tools/lib/cli.sh"
# shellcheck source=tools/lib/harness.sh
. "$top/tools/lib/harness.sh"

usage()
{
	cat <<EOF
usage: tools/disasm.sh [--sizes] [--clocks LIST] MODULE.ko
Check that every timed window of the built module (x86-64, i386 or arm64)
holds its primitive and nothing else: exit 0 if so, 1 with a line per
offending instruction if not, 2 on a usage or tool error.
options (--opt VALUE or --opt=VALUE):
  --clocks LIST    hold only these clocks' windows to the check, of
                   $(tb_clocks | paste -sd ,);
                   the others' are warnings on stderr
  --sizes          also print "size WINDOW INSTRUCTIONS BYTES CALLS" for
                   each window: what lies between its two clock reads
  -h, --help       print this and exit
EOF
}

tb_cli_name=disasm.sh
tb_cli_values="--clocks"
tb_cli_switches="--sizes"
tb_cli_parse "$@"
set -- "${tb_cli_argv[@]}"
sizes=0 clocks=
while [ "$1" != -- ]; do
	case $1 in
	--sizes)	sizes=1 ;;
	--clocks)	clocks=$(tb_list "$2"); clocks=${clocks// /,} ;;
	esac
	shift 2
done
shift
[ $# = 1 ] || tb_usage_error "one MODULE.ko"
ko=$1
[ -r "$ko" ] || { echo "disasm: cannot read $ko" >&2; exit 2; }
command -v readelf >/dev/null || { echo "disasm: no readelf" >&2; exit 2; }
for c in ${clocks//,/ }; do
	tb_clocks | grep -qx -- "$c" ||
		{ echo "disasm: --clocks: no clock '$c' of the module's" >&2; exit 2; }
done

# The module's architecture, and the binutils that read it.
tb_elf_tools "$ko" ||
	{ echo "disasm: $ko: not an x86-64, i386 or arm64 object" >&2; exit 2; }
arch=$elf_arch
command -v "$objdump" >/dev/null || { echo "disasm: no $objdump" >&2; exit 2; }

# The windows the module must have, as windows.h defines them (every
# primitive, the empty one, "none", included, for each clock, without and
# with work), each "FUNCTION:PRIMITIVE:CLOCK:WORK", and the traced
# primitives with their untraced forms, "TRACED:UNTRACED" (prims.h), as
# tools/cfacts.py reads them.
tb_cfacts || exit 2
WINDOWS=$TB_C_WINDOWS

# Every window must be there, so that the check cannot pass on nothing.
syms=$($nm -S "$ko") || exit 2
missing=0
for w in $WINDOWS; do
	f=${w%%:*}
	echo "$syms" | grep -q " $f\$" && continue
	echo "disasm: $ko: no window function $f"
	missing=1
done

$objdump -dr --no-show-raw-insn "$ko" |
awk -v windows="$WINDOWS" -v untraced="$TB_C_UNTRACED" -v ko="$ko" -v arch="$arch" -v sizes=$sizes \
    -v clocks=",$clocks," \
    -v fnsizes="$(echo "$syms" | awk '$4 ~ /^tb_win_/ { printf "%s:%s ", $4, $2 }')" '
BEGIN {
	# the size of each window function (nm -S): where its last instruction ends
	n = split(fnsizes, fs, " ")
	for (k = 1; k <= n; k++) {
		split(fs[k], kv, ":")
		fnsize[kv[1]] = kv[2]
	}
	# the primitive and clock of each window function
	n = split(windows, fs, " ")
	for (k = 1; k <= n; k++) {
		split(fs[k], kv, ":")
		win_prim[kv[1]] = kv[2]
		win_clock[kv[1]] = kv[3]
	}
	# the traced primitives, and their untraced forms
	n = split(untraced, fs, " ")
	for (k = 1; k <= n; k++) {
		split(fs[k], kv, ":")
		traced[kv[1]] = 1
		untraced_form[kv[2]] = 1
	}
}
# mawk has no strtonum()
function hex(s,    v, k) {
	v = 0
	for (k = 1; k <= length(s); k++)
		v = v * 16 + index("0123456789abcdef", substr(s, k, 1)) - 1
	return v
}
# The clock window name reads (windows.h).
function clock_of(name) {
	return win_clock[name]
}
# Whether window name is held to the check: all are without --clocks.
function held(name) {
	return clocks == ",," || index(clocks, "," clock_of(name) ",") > 0
}
function fail(msg) {
	if (!held(fn)) {
		printf "disasm: warning: %s: %s+0x%x: %s: %s (clock %s, not run)\n", ko, fn, addr[i] - base, text[i], msg, clock_of(fn) > "/dev/stderr"
		unheld[clock_of(fn)]++
		return
	}
	printf "disasm: %s: %s+0x%x: %s: %s\n", ko, fn, addr[i] - base, text[i], msg
	bad = 1
}
# The calls a window of primitive p may make, besides the work.
function hook_ok(p, sym) {
	# arm64: a kernel built for size (tinyconfig) makes the module keep
	# out-of-line copies of the inline helpers of the primitive
	if (arch == "arm64" && outlined_ok(p, sym))
		return 1
	# the irq ones: the paravirt ops, and the traced ones their hooks
	if (p ~ /irq/ && traced[p])
		return sym ~ /^(trace_hardirqs_on|trace_hardirqs_off|pv_ops)$/
	if (p ~ /irq/ && untraced_form[p])
		return sym == "pv_ops"
	if (arch == "arm64" && p ~ /^preempt/ &&
	    sym ~ /^__asan_report_(load|store)[0-9]+_noabort$/)
		return 1
	# the call of preempt_enable() to reschedule: a static call on x86, and
	# on arm64 with PREEMPT_DYNAMIC a function that tests a static key;
	# and for the traced one the count update, which calls the hooks
	if (p ~ /^preempt/ && traced[p])
		return sym ~ /^(preempt_count_add|preempt_count_sub|__SCT__preempt_schedule|preempt_schedule|preempt_schedule_thunk|dynamic_preempt_schedule)$/
	if (p ~ /^preempt/ && untraced_form[p])
		return sym ~ /^(__SCT__preempt_schedule_notrace|preempt_schedule_notrace|preempt_schedule_notrace_thunk|dynamic_preempt_schedule_notrace)$/
	return 0
}
function outlined_ok(p, sym) {
	sub(/\..*/, "", sym)
	if (p ~ /^(raw_)?irq$/)
		return sym ~ /^arch_local_irq_(disable|enable)$/
	if (p ~ /^(raw_)?irq_save$/)
		return sym ~ /^(arch_local_irq_save|arch_local_irq_restore|arch_local_save_flags|arch_irqs_disabled_flags)$/
	if (p ~ /^preempt/)
		return sym ~ /^__preempt_count_(add|sub|dec_and_test)$/
	return 0
}
function is_call(o) {
	return arch == "arm64" ? o ~ /^blr?$/ : o == "call"
}
# any branch but a call; conditional or not
function is_jump(o) {
	if (arch == "arm64")
		return o ~ /^(b|b\..*|cbn?z|tbn?z)$/
	return o ~ /^j/
}
function is_uncond(o) {
	return arch == "arm64" ? o == "b" : o == "jmp"
}
function is_read(j) {
	if (is_call(op[j]) && target[j] == "ktime_get_mono_fast_ns")
		return 1
	if (arch == "arm64")
		return op[j] == "mrs" && args[j] ~ /, (cntvct_el0|cntvctss_el0|s3_3_c14_c0_6|pmccntr_el0|pmxevcntr_el0)$/
	return op[j] ~ /^(rdtscp?|rdpmc)$/
}
function is_return(j) {
	return op[j] ~ /^ret/ || (is_uncond(op[j]) && target[j] == "__x86_return_thunk")
}
# The instruction at address a of the function, or 0.
function at(a) {
	return (a in idx) ? idx[a] : 0
}
# objdump shows a branch target as "ADDR <fn+OFF>", after any registers
function jump_target(j,    t) {
	if (!match(args[j], /[0-9a-f]+ </))
		return 0
	t = substr(args[j], RSTART, RLENGTH - 2)
	return at(hex(t))
}
# arm64: instruction i of a window of primitive p, 1 if it is allowed;
# 0 if it is not, and said why; -1 if the common rules below decide.
function allowed_arm64(p,    mem) {
	if (op[i] ~ /^(nop|hint|paciasp|autiasp|pacibsp|autibsp|bti|isb)$/)
		return 1
	# the closing read of clock=instructions selects its counter
	if (op[i] == "msr" && args[i] ~ /^pmselr_el0, x[0-9]+$/ &&
	    fn ~ /_instructions(_work)?$/)
		return 1
	if (p ~ /irq/ && (op[i] == "msr" && args[i] ~ /^daif(set|clr)?,/ ||
			  op[i] == "mrs" && args[i] ~ /, daif$/))
		return 1
	if (op[i] == "mrs" && args[i] ~ /, sp_el0$/) {
		if (p ~ /^preempt/)
			return 1
		fail("current task read in a window without a preempt count")
		return 0
	}
	mem = args[i] ~ /\[/
	if (!mem)
		return -1
	# arch_counter_enforce_ordering(): a load into xzr after the read
	if (op[i] == "ldr" && args[i] ~ /^xzr, \[x[0-9]+\]$/)
		return 1
	# the preempt count (offset 8 of thread_info; 12 is its
	# need_resched half), through a register holding the thread_info of
	# current at that point, or the KASAN shadow byte of it
	if (p ~ /^preempt/ && memkind[i] == "cur" &&
	    op[i] ~ /^(ldr|str|ldur|stur)$/ &&
	    args[i] ~ /^[wx][0-9]+, \[x[0-9]+, #(8|12)\]$/)
		return 1
	if (p ~ /^preempt/ && memkind[i] == "curoff" &&
	    op[i] ~ /^(ldr|str)$/ && args[i] ~ /^[wx][0-9]+, \[x[0-9]+(, #4)?\]$/)
		return 1
	if (p ~ /^preempt/ && memkind[i] == "shadow" && op[i] ~ /^ldrs?b$/ &&
	    args[i] ~ /^w[0-9]+, \[x[0-9]+\]$/)
		return 1
	# the shadow byte as (address >> 3) indexed by the shadow offset
	if (p ~ /^preempt/ && memkind[i] == "curshr" && op[i] ~ /^ldrs?b$/ &&
	    args[i] ~ /^w[0-9]+, \[x[0-9]+, x[0-9]+\]$/)
		return 1
	fail("memory access in the window")
	return 0
}
# arm64: what each register holds, in address order: "cur" after mrs of
# sp_el0 (the thread_info of current, which holds the preempt count),
# "curoff" after adding the offset 8 of the count to that, "shadow" after
# the KASAN (address >> 3) + offset of either, "curshr" after the shift
# alone (the offset then comes as the index of the load). Any other
# write of a register, a call (x0-x18 are for the callee to clobber) or a
# written-back base forgets it. memkind[j]: what the base of the memory
# operand of instruction j held. The windows read sp_el0 before their
# loop and never write it after, so address order is the order that
# matters.
function track_arm64(j,    r, n, d, b, k) {
	memkind[j] = ""
	b = ""
	if (args[j] ~ /\[/) {
		b = args[j]
		sub(/^[^[]*\[/, "", b)
		sub(/[],].*/, "", b)
		memkind[j] = regkind[b]
	}
	if (op[j] ~ /^(bl|blr)$/) {
		for (k = 0; k <= 18; k++)
			delete regkind["x" k]
		return
	}
	if (b != "" && (args[j] ~ /!$/ || args[j] ~ /\], #/))
		delete regkind[b]
	# what writes no register (stores, compares, branches, barriers)
	if (op[j] ~ /^(st|cmp$|cmn$|ccmp$|ccmn$|tst$|msr$|prfm$|nop$|hint$|isb$|dmb$|dsb$)/ ||
	    is_jump(op[j]) || op[j] == "ret")
		return
	n = split(args[j], r, ", ")
	d = r[1]
	sub(/^w/, "x", d)
	k = ""
	if (op[j] == "mrs" && r[2] == "sp_el0")
		k = "cur"
	else if (op[j] == "add" && n == 3 && regkind[r[2]] == "cur" &&
		 r[3] ~ /^#(0x8|8)$/)
		k = "curoff"
	else if (op[j] == "add" && n == 4 && r[4] == "lsr #3" &&
		 (regkind[r[3]] == "cur" || regkind[r[3]] == "curoff"))
		k = "shadow"
	else if (op[j] == "lsr" && n == 3 && r[3] == "#3" &&
		 (regkind[r[2]] == "cur" || regkind[r[2]] == "curoff"))
		k = "curshr"
	if (k != "")
		regkind[d] = k
	else
		delete regkind[d]
	# a pair load writes two
	if (op[j] ~ /^ldp/) {
		d = r[2]
		sub(/^w/, "x", d)
		delete regkind[d]
	}
}
# Check instruction i of a window of primitive p; 1 if it may be there.
function allowed(p,    sym, mem, a) {
	sym = target[i]
	if (arch == "arm64") {
		a = allowed_arm64(p)
		if (a >= 0)
			return a
		mem = 0
	} else {
		mem = args[i] ~ /\(|%[gf]s:/
		# i386 shows an absolute address (a relocated global) bare
		if (arch == "i386" && !is_call(op[i]) && !is_jump(op[i]) &&
		    args[i] ~ /(^|,)(0x)?[0-9a-f]+(,|$)/)
			mem = 1
	}
	if (op[i] ~ /^(nop|data16|cs|int3)/ || op[i] == "xchg" && args[i] == "%ax,%ax")
		return 1
	if (op[i] ~ /^(cli|sti|lfence)$/)
		return 1
	if (is_call(op[i])) {
		if (sym == "simulate_critical_section" && fn ~ /_work$/)
			return 1
		if (hook_ok(p, sym) && (!mem || sym == "pv_ops"))
			return 1
		fail("call in the window")
		return 0
	}
	if (is_jump(op[i])) {
		if (args[i] ~ ("<" fn "\\+0x"))
			return 1
		fail("jump out of the window function")
		return 0
	}
	if (op[i] ~ /^(pushf|popf)/ || op[i] ~ /^(push|pop)$/ && !mem) {
		if (p ~ /irq/)
			return 1
		fail("stack access in a window without irq flags")
		return 0
	}
	# the preempt count: changed, or read to test for zero
	if (mem && args[i] ~ /%[gf]s:/ && p ~ /^preempt/ &&
	    sym ~ /^(__preempt_count|pcpu_hot)$/ &&
	    (op[i] ~ /^(inc|dec|add|sub|cmp|test)/ ||
	     op[i] ~ /^mov/ && args[i] ~ /^%[gf]s:/))
		return 1
	# i386: too few registers to keep the opening read (%edx:%eax) in
	# them across the loop: its spill to the stack, which the empty (none)
	# window has alike
	if (arch == "i386" && op[i] == "mov" &&
	    args[i] ~ /^%e[ad]x,(0x[0-9a-f]+)?\(%esp\)$/)
		return 1
	# the closing read of a PMU clock loads its counter selector (%ecx
	# of rdpmc) from the per-CPU tb_pmc_sel, as the empty window does
	if (mem && fn ~ /_(instructions|core_cycles)(_work)?$/ &&
	    sym == "tb_pmc_sel" && op[i] == "mov" && args[i] ~ /^%[gf]s:[^,]*,%ecx( |$)/)
		return 1
	if (mem && op[i] !~ /^lea/) {
		fail("memory access in the window")
		return 0
	}
	if (arch != "arm64" &&
	    op[i] ~ /^(mov|lea|add|sub|inc|dec|and|or|xor|test|cmp|shl|shr|sar|neg|not|bt|set|cmov|adc|sbb)/)
		return 1
	# arm64 register-only arithmetic and moves
	if (arch == "arm64" &&
	    op[i] ~ /^(mov|movk|movz|movn|add|adds|sub|subs|and|ands|orr|eor|bic|cmp|cmn|ccmp|ccmn|tst|lsl|lsr|asr|neg|mvn|csel|csinc|cset|cinc|ubfx|sbfx|ubfiz|sxtw|uxtw|mul|madd|adrp|adr)$/)
		return 1
	fail("unexpected instruction in the window")
	return 0
}
# Walk the code reachable from instruction `from` without crossing a clock
# read; with check, every instruction on the way must be allowed, and is
# counted in win_insns, win_bytes and win_calls. Returns the number of
# distinct clock reads that end the walk.
function walk(from, check, p,    todo, n, seen, reads, j, t) {
	win_insns = win_bytes = 0
	win_calls = ""
	n = 0
	todo[++n] = from
	while (n) {
		j = todo[n--]
		if (!j || j > ni || (j in seen))
			continue
		seen[j] = 1
		if (is_read(j)) {
			reads++
			last_read = j
			continue
		}
		if (is_return(j)) {
			if (check) {
				i = j
				fail("return before the window is closed")
			}
			continue
		}
		if (check) {
			i = j
			allowed(p)
			win_insns++
			win_bytes += (j < ni ? addr[j + 1] : fn_end) - addr[j]
			if (is_call(op[j]) && index("," win_calls ",", "," target[j] ",") == 0)
				win_calls = win_calls (win_calls == "" ? "" : ",") target[j]
		}
		if (is_jump(op[j])) {
			t = jump_target(j)
			if (t)
				todo[++n] = t
			if (is_uncond(op[j]))
				continue
		}
		todo[++n] = j + 1
	}
	return reads
}
function check_window(    p, start) {
	if (fn == "")
		return
	nwin++
	p = win_prim[fn]
	# one read opens the window on every path from the entry ...
	if (walk(1, 0, p) != 1) {
		i = 1
		fail("not exactly one clock read opens the window")
		return
	}
	start = last_read
	# ... and every path from it reaches a read that closes it
	if (!walk(start + 1, 1, p)) {
		i = start
		fail("no clock read closes the window")
	}
	if (sizes)
		printf "size %s %d %d %s\n", fn, win_insns, win_bytes,
			win_calls == "" ? "-" : win_calls
}
/^[0-9a-f]+ <.*>:$/ {
	check_window()
	fn = ""
	ni = 0
	split("", idx)
	split("", regkind)
	name = $2
	gsub(/[<>:]/, "", name)
	if (name ~ /^tb_win_/) {
		fn = name
		base = hex($1)
		fn_end = base + hex(fnsize[fn])
	}
	next
}
fn != "" && /^[ \t]+[0-9a-f]+:[ \t]+R_(X86_64|386|AARCH64)_/ {
	# a relocation names the target of the instruction before it
	s = $NF
	sub(/[-+]0x[0-9a-f]+$/, "", s)
	target[ni] = s
	if (is_call(op[ni]) || is_jump(op[ni]))
		args[ni] = "<" s ">"
	next
}
fn != "" && /^ +[0-9a-f]+:\t/ {
	ni++
	line = $0
	sub(/^ +/, "", line)
	split(line, f, "\t")
	addr[ni] = hex(substr(f[1], 1, length(f[1]) - 1))
	idx[addr[ni]] = ni
	# x86 objdump pads the mnemonic with spaces, arm64 with a tab
	text[ni] = substr(line, length(f[1]) + 2)
	gsub(/\t/, " ", text[ni])
	op[ni] = text[ni]
	sub(/ .*/, "", op[ni])
	args[ni] = text[ni]
	if (!sub(/^[^ ]+ +/, "", args[ni]))
		args[ni] = ""
	# arm64 objdump comments a condition, e.g. "// b.none"
	sub(/ *\/\/.*$/, "", args[ni])
	if (arch == "arm64")
		track_arm64(ni)
	# a direct call within the object names its target in <...>
	target[ni] = ""
	if (match(args[ni], /<[^>+]+>/))
		target[ni] = substr(args[ni], RSTART + 1, RLENGTH - 2)
	next
}
END {
	check_window()
	if (!nwin) {
		print "disasm: " ko ": no window found"
		exit 1
	}
	printf "disasm: %s: %d windows checked\n", ko, nwin
	for (c in unheld)
		printf "disasm: warning: %s: the windows of clock %s do not check (%d findings): runs by it would not be exact\n", ko, c, unheld[c] > "/dev/stderr"
	exit bad
}'
rc=$?
[ $missing = 0 ] || rc=1
exit $rc
