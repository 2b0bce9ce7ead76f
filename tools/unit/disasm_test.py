#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/disasm.sh --sizes on x86-64 objects assembled on the host (as):
every window of the module's a bare pair of clock reads, and tb_win_irq
laid out as a static-key guard lays it out, its hook calls reached only
by a jump label or a jump, after the return and in a .cold part. KTAP on
stdout, then "N passed, N failed"; exits 1 on any failure."""

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DISASM = os.path.join(TOP, "tools", "disasm.sh")

# tb_win_irq: the opening read, a jump label (a 5-byte nop) whose target
# is a hook call after the return, and a jump to a .cold part in
# .text.unlikely that calls the other hook and jumps back; 14 bytes in
# the straight line (mov 3, nop 5, cli 1, jmp 5), 7 after the return
# (call 5, jmp 2) and 10 in the cold part (call 5, jmp 5).
IRQ = """\
	.text
	.globl tb_win_irq
	.type tb_win_irq,@function
tb_win_irq:
	rdtsc
	mov %rax,%rsi
1:	.byte 0x0f,0x1f,0x44,0x00,0x00
	cli
	jmp tb_win_irq.cold
.Lback:
	rdtsc
	ret
.Lhook:
	call trace_hardirqs_on
	jmp .Lback
	.size tb_win_irq,.-tb_win_irq
	.section .text.unlikely,"ax",@progbits
	.type tb_win_irq.cold,@function
tb_win_irq.cold:
	call trace_hardirqs_off
	jmp {back}
	.size tb_win_irq.cold,.-tb_win_irq.cold
	.section __jump_table,"aw"
	.long 1b - ., .Lhook - .
	.quad tb_key - .
	.data
tb_key:	.quad 0
"""


def windows():
    """The module's window functions, as tools/cfacts.py reads them."""
    out = subprocess.run([sys.executable, os.path.join(TOP, "tools",
                                                       "cfacts.py")],
                         check=True, capture_output=True, text=True).stdout
    line = next(x for x in out.splitlines()
                if x.startswith("TB_C_WINDOWS="))
    return [w.split(":")[0] for w in line.split("=", 1)[1].strip("'").split()]


def assemble(tmp, back):
    """An object of every window, tb_win_irq's cold part jumping to back."""
    src = []
    for f in windows():
        if f != "tb_win_irq":
            src.append(f"\t.text\n\t.globl {f}\n\t.type {f},@function\n"
                       f"{f}:\n\trdtsc\n\trdtsc\n\tret\n\t.size {f},.-{f}\n")
    src.append(IRQ.format(back=back))
    s, o = os.path.join(tmp, "t.s"), os.path.join(tmp, "t.o")
    with open(s, "w") as f:
        f.write("".join(src))
    subprocess.run(["as", "--64", "-o", o, s], check=True)
    return o


def disasm(obj):
    p = subprocess.run([DISASM, "--sizes", obj], capture_output=True,
                       text=True)
    sizes = {x.split()[1]: x.split()[2:] for x in p.stdout.splitlines()
             if x.startswith("size ")}
    return p.returncode, sizes, p.stdout


def t_out_of_line(tmp):
    """The blocks after the return and in the cold part are the window's,
    counted apart from the straight line, the hooks' calls among its
    calls, and the jump label's entry counted as the window's."""
    rc, sizes, out = disasm(assemble(tmp, ".Lback"))
    got = (rc, sizes.get("tb_win_irq"), sizes.get("tb_win_none"))
    want = (0, ["8", "31", "trace_hardirqs_off,trace_hardirqs_on", "14",
                "17", "1", "16"], ["0", "0", "-", "0", "0", "0", "0"])
    return got == want, f"got {got}, want {want}"


def t_cold_jumps_out(tmp):
    """A cold part that jumps to another function fails the check."""
    rc, _, out = disasm(assemble(tmp, "tb_win_none"))
    ok = rc == 1 and "tb_win_irq.cold+0x5" in out and \
        "jump out of the window function" in out
    return ok, f"exit {rc}: {out.splitlines()[-2:]!r}"


TESTS = [
    ("disasm: out-of-line blocks, a cold part, a jump label", t_out_of_line),
    ("disasm: a cold part's jump out of the window fails", t_cold_jumps_out),
]


def main():
    if not shutil.which("as") or os.uname().machine != "x86_64":
        print("KTAP version 1\n1..0 # SKIP needs as on x86-64")
        return 0
    results = []
    for name, t in TESTS:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                ok, why = t(tmp)
            except (OSError, subprocess.CalledProcessError) as e:
                ok, why = False, f"{type(e).__name__}: {e}"
        results.append((name, ok, why))
    return ktap.report(results)


if __name__ == "__main__":
    sys.exit(main())
