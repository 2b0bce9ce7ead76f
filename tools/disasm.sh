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
# out: "size WINDOW INSTRUCTIONS BYTES CALLS INLINE OUT_OF_LINE JUMPS
# JUMP_BYTES", CALLS the functions called (comma-separated, "-" for none).
# Every instruction counts once, taken or not, as the window's code is
# laid out. BYTES is INLINE plus OUT_OF_LINE: INLINE the bytes of the
# window's instructions that lie in the straight line, at addresses after
# the opening read and before the closing read that comes first after it
# in the function (the one its fall-through reaches, as laid out);
# OUT_OF_LINE the others, blocks that only jumps reach: placed after the
# return, before the opening read, or in the function's cold part
# (tb_win_X.cold, in .text.unlikely). JUMPS: the __jump_table entries
# (static branches, jump labels) whose code is one of the window's
# instructions, and JUMP_BYTES the bytes they take in the kernel's or
# module's data (tb_elf_tools's elf_jump_entry each).
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
# it may return without a closing read. A cold part the compiler split off
# the function (tb_win_X.cold, another section) is part of the window:
# jumps into it and back are followed, each instruction known by its
# section and address. In the window, allowed are:
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
#   - x86, the irq ones: a register stored to the stack and loaded back
#     (the flags, kept across a hook call by a static-key guard's block);
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
# return or a jump out of the function (and its cold part).
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
  --sizes          also print "size WINDOW INSTRUCTIONS BYTES CALLS INLINE
                   OUT_OF_LINE JUMPS JUMP_BYTES" for each window: what
                   lies between its two clock reads, its bytes in the
                   straight line and out of it, and its jump table entries
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

# Each __jump_table entry (one every elf_jump_entry bytes) as
# "CODE>TARGET", each "SYMBOL:VALUE:ADDEND" (value hex, addend decimal):
# the static branch at VALUE + ADDEND in SYMBOL's section, from the code
# field, and where it jumps when its key is flipped, from the target field
# after it. i386 (REL) keeps the addend in the field, as its hex dump has.
jump_entries()
{
	{
		readelf -rW "$ko"
		[ "$arch" != i386 ] || readelf -x __jump_table "$ko" 2>/dev/null
	} | awk -v n="$elf_jump_entry" '
	/^Relocation section / { rel = $3 ~ /^.\.rela?__jump_table.$/; next }
	/^Hex dump of section / { rel = 0; dump = $NF ~ /__jump_table/; next }
	rel && $1 ~ /^[0-9a-f]+$/ && NF >= 5 {
		off = hex($1)
		k = int(off / n)
		if (off % n > 4)
			next
		field[k, off % n] = $5 ":" $4 ":" (NF >= 7 ? hex($7) * ($6 == "-" ? -1 : 1) : "rel")
		at[k, off % n] = off
		if (k + 1 > nk)
			nk = k + 1
	}
	dump && $1 ~ /^0x[0-9a-f]+$/ {
		o = hex(substr($1, 3))
		for (k = 2; k <= NF && $k ~ /^[0-9a-f]+$/ && length($k) == 8; k++)
			for (b = 0; b < 4; b++)
				byte[o++] = hex(substr($k, 2 * b + 1, 2))
	}
	# mawk has no strtonum()
	function hex(s,    v, k) {
		v = 0
		for (k = 1; k <= length(s); k++)
			v = v * 16 + index("0123456789abcdef", substr(s, k, 1)) - 1
		return v
	}
	function value(k, f,    c, o, v) {
		c = field[k, f]
		if (c ~ /:rel$/) {
			o = at[k, f]
			v = byte[o] + 256 * (byte[o + 1] + 256 * (byte[o + 2] + 256 * byte[o + 3]))
			sub(/rel$/, v >= 2^31 ? v - 2^32 : v, c)
		}
		return c
	}
	END {
		for (k = 0; k < nk; k++)
			if ((k, 0) in field && (k, 4) in field)
				printf "%s>%s ", value(k, 0), value(k, 4)
	}'
}

$objdump -dr --no-show-raw-insn "$ko" |
awk -v windows="$WINDOWS" -v untraced="$TB_C_UNTRACED" -v ko="$ko" -v arch="$arch" -v sizes=$sizes \
    -v clocks=",$clocks," -v jumps="$(jump_entries)" -v jump_entry="$elf_jump_entry" \
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
		printf "disasm: warning: %s: %s+0x%x: %s: %s (clock %s, not run)\n", ko, part[i], addr[i] - partbase[part[i]], text[i], msg, clock_of(fn) > "/dev/stderr"
		unheld[clock_of(fn)]++
		return
	}
	printf "disasm: %s: %s+0x%x: %s: %s\n", ko, part[i], addr[i] - partbase[part[i]], text[i], msg
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
# The window function (or its cold part) that instruction j is of.
function window_of(j,    w) {
	w = part[j]
	sub(/\.cold(\.[0-9]+)?$/, "", w)
	return w
}
# The instruction at address a of section sec, if it is of window fn; or 0.
function at(sec, a,    k) {
	k = sec ":" a
	return (k in idx) && window_of(idx[k]) == fn ? idx[k] : 0
}
# Where the instruction after j begins, in its part.
function next_addr(j) {
	return j < ni && part[j + 1] == part[j] ? addr[j + 1] : partend[part[j]]
}
# The section and value of a symbol: a section symbol (".text.unlikely")
# is its own at 0, a function is where objdump showed it; "" if neither.
function sym_sec(s) {
	return s ~ /^\./ ? s : (s in symsec) ? symsec[s] : ""
}
function sym_val(s) {
	return s ~ /^\./ ? 0 : symaddr[s]
}
# "SECTION:ADDRESS" of a jump table field, "SYMBOL:VALUE:ADDEND"; or "".
function code_addr(f,    kv) {
	split(f, kv, ":")
	return sym_sec(kv[1]) == "" ? "" : sym_sec(kv[1]) ":" (hex(kv[2]) + kv[3])
}
# The instruction branch j goes to, if it is of the window; or 0.
# objdump shows a branch target as "ADDR <fn+OFF>", after any registers;
# a branch to another section (a cold part and back) has a relocation
# instead, against a symbol plus an addend, relative to the field on x86
# (the target is the end of the instruction plus the displacement), to
# the instruction on arm64. i386 (REL) keeps the addend in the field,
# which objdump shows added to the end of the instruction.
function jump_target(j,    sec, a) {
	if (rsym[j] == "")
		return shown[j] == "" ? 0 : at(partsec[part[j]], shown[j])
	sec = sym_sec(rsym[j])
	if (sec == "")
		return 0
	a = raddend[j]
	if (a == "")
		a = shown[j] - next_addr(j)
	a += sym_val(rsym[j])
	if (arch != "arm64")
		a += next_addr(j) - roff[j]
	return at(sec, a)
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
		if (jump_target(i))
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
	# the irq ones: the flags kept on the stack across a hook call, as
	# the out-of-line block of a hook guarded by a static key may keep them
	if (p ~ /irq/ && op[i] ~ /^mov[lq]?$/ &&
	    (args[i] ~ /^%[a-z0-9]+,(0x[0-9a-f]+)?\(%[er]sp\)$/ ||
	     args[i] ~ /^(0x[0-9a-f]+)?\(%[er]sp\),%[a-z0-9]+$/))
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
# counted in win_insns, win_bytes and win_calls, and kept in counted[].
# The reads that end the walk are kept in closing[]. Returns their number.
function walk(from, check, p,    todo, n, seen, reads, j, t, k, m, ts) {
	win_insns = win_bytes = 0
	win_calls = ""
	split("", counted)
	split("", closing)
	n = 0
	todo[++n] = from
	while (n) {
		j = todo[n--]
		if (!j || j > ni || (j in seen) || window_of(j) != fn)
			continue
		seen[j] = 1
		if (is_read(j)) {
			reads++
			closing[j] = 1
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
			win_bytes += next_addr(j) - addr[j]
			counted[j] = 1
			if (is_call(op[j]) && index("," win_calls ",", "," target[j] ",") == 0)
				win_calls = win_calls (win_calls == "" ? "" : ",") target[j]
		}
		# a static branch (a nop, or a jump) may go to its target too
		k = partsec[part[j]] ":" addr[j]
		if (k in jump_to) {
			m = split(jump_to[k], ts, " ")
			for (; m > 0; m--) {
				t = ts[m] in idx && window_of(idx[ts[m]]) == fn ? idx[ts[m]] : 0
				if (t)
					todo[++n] = t
				else if (check) {
					i = j
					fail("static branch out of the window function")
				}
			}
		}
		if (is_jump(op[j])) {
			t = jump_target(j)
			if (t)
				todo[++n] = t
			if (is_uncond(op[j]))
				continue
		}
		if (j < ni && part[j + 1] == part[j])
			todo[++n] = j + 1
	}
	return reads
}
# Of the instructions counted, the bytes in the straight line from the
# opening read `start` to the first closing read after it in the function,
# in win_inline; those of the others in win_out. The jump table entries of the
# counted instructions in win_jumps.
function layout(start,    j, end) {
	win_inline = win_out = win_jumps = 0
	end = -1
	# (the keys are strings: +0 for the numbers they are)
	for (j in closing)
		if (part[j += 0] == fn && addr[j] > addr[start] &&
		    (end < 0 || addr[j] < end))
			end = addr[j]
	for (j in counted) {
		if (part[j += 0] == fn && addr[j] > addr[start] && addr[j] < end)
			win_inline += next_addr(j) - addr[j]
		else
			win_out += next_addr(j) - addr[j]
		win_jumps += jump_at[partsec[part[j]] ":" addr[j]]
	}
}
function check_window(    p, start) {
	nwin++
	p = win_prim[fn]
	# one read opens the window on every path from the entry ...
	if (walk(partfirst[fn], 0, p) != 1) {
		i = partfirst[fn]
		fail("not exactly one clock read opens the window")
		return
	}
	start = last_read
	# ... and every path from it reaches a read that closes it
	if (!walk(start + 1, 1, p)) {
		i = start
		fail("no clock read closes the window")
	}
	layout(start)
	if (sizes)
		printf "size %s %d %d %s %d %d %d %d\n", fn, win_insns, win_bytes,
			win_calls == "" ? "-" : win_calls, win_inline, win_out,
			win_jumps, win_jumps * jump_entry
}
/^Disassembly of section / {
	sec = $4
	sub(/:$/, "", sec)
	next
}
/^[0-9a-f]+ <.*>:$/ {
	cur = ""
	split("", regkind)
	name = $2
	gsub(/[<>:]/, "", name)
	symaddr[name] = hex($1)
	symsec[name] = sec
	if (name ~ /^tb_win_/) {
		cur = name
		partbase[cur] = hex($1)
		partsec[cur] = sec
		partend[cur] = partbase[cur] + hex(fnsize[cur])
		partfirst[cur] = ni + 1
		parts[++nparts] = cur
	}
	next
}
cur != "" && /^[ \t]+[0-9a-f]+:[ \t]+R_(X86_64|386|AARCH64)_/ {
	# a relocation names the target of the instruction before it
	s = $NF
	rsym[ni] = s
	sub(/[-+]0x[0-9a-f]+$/, "", rsym[ni])
	raddend[ni] = ""
	if (match(s, /[-+]0x[0-9a-f]+$/))
		raddend[ni] = hex(substr(s, RSTART + 3)) * (substr(s, RSTART, 1) == "-" ? -1 : 1)
	else if (arch != "i386")
		raddend[ni] = 0
	roff[ni] = $1
	sub(/:$/, "", roff[ni])
	roff[ni] = hex(roff[ni])
	target[ni] = rsym[ni]
	if (is_call(op[ni]) || is_jump(op[ni]))
		args[ni] = "<" rsym[ni] ">"
	next
}
cur != "" && /^ +[0-9a-f]+:\t/ {
	ni++
	part[ni] = cur
	line = $0
	sub(/^ +/, "", line)
	split(line, f, "\t")
	addr[ni] = hex(substr(f[1], 1, length(f[1]) - 1))
	idx[sec ":" addr[ni]] = ni
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
	rsym[ni] = ""
	shown[ni] = ""
	if (match(args[ni], /<[^>+]+>/))
		target[ni] = substr(args[ni], RSTART + 1, RLENGTH - 2)
	if (match(args[ni], /[0-9a-f]+ </))
		shown[ni] = hex(substr(args[ni], RSTART, RLENGTH - 2))
	next
}
END {
	# the static branches, by section and address: how many entries,
	# and where they may jump
	n = split(jumps, js, " ")
	for (k = 1; k <= n; k++) {
		split(js[k], ct, ">")
		c = code_addr(ct[1])
		if (c == "")
			continue
		jump_at[c]++
		t = code_addr(ct[2])
		jump_to[c] = jump_to[c] " " (t == "" ? "?" : t)
	}
	# the windows in the order of the object
	for (k = 1; k <= nparts; k++) {
		fn = parts[k]
		if (fn in win_prim)
			check_window()
	}
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
