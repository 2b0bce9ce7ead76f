#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/jump_nop.py's reading of __jump_table and of objdump's lines, on
tables made up for each case. KTAP on stdout, then "N passed, N failed";
exits 1 on any failure."""

import importlib.util
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "jump_nop", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "..", "jump_nop.py"))
jump_nop = importlib.util.module_from_spec(spec)
spec.loader.exec_module(jump_nop)

BASE = 0xffffffff82000000
FUNC = (0xffffffff81000100, 0x40)
KEY = (0xffffffff83000000, 0x30)


def table(entries):
    """__jump_table at BASE holding (code, key, flags) entries, each field
    relative to itself as the kernel stores them."""
    data = b""
    for i, (code, key, flags) in enumerate(entries):
        addr = BASE + 16 * i
        data += struct.pack("<iiq", code - addr, 0, key + flags - (addr + 8))
    return BASE, data


# name, entries, the sites that must be found
SITES = [
    ("one entry in the function on the key", [(FUNC[0] + 0x10, KEY[0] + 8, 0)],
     [FUNC[0] + 0x10]),
    ("an entry with the key's flag bits set",
     [(FUNC[0] + 0x10, KEY[0] + 8, 3)], [FUNC[0] + 0x10]),
    ("an entry of another function is left out",
     [(FUNC[0] + FUNC[1], KEY[0] + 8, 0), (FUNC[0] - 1, KEY[0] + 8, 0)], []),
    ("an entry on another key is left out",
     [(FUNC[0] + 0x10, KEY[0] + KEY[1], 0)], []),
    ("entries come out sorted",
     [(FUNC[0] + 0x30, KEY[0], 1), (FUNC[0], KEY[0] + 8, 0)],
     [FUNC[0], FUNC[0] + 0x30]),
]

# objdump's instruction text, and whether it is a NOP
NOPS = [
    ("xchg   %ax,%ax", True),
    ("nopl   0x0(%rax,%rax,1)", True),
    ("nopw   0x0(%rax,%rax,1)", True),
    ("nop", True),
    ("jmp    ffffffff81000180 <trace_hardirqs_off+0x80>", False),
    ("xchg   %eax,%ebx", False),
    ("b\tffff800080010000 <trace_hardirqs_off+0x40>", False),
    ("cmpl   $0x0,0x0(%rip)", False),
]


# a symbol, and whether gcc split it off trace_hardirqs_off
PARTS = [
    ("trace_hardirqs_off.part.0", True),
    ("trace_hardirqs_off.cold", True),
    ("trace_hardirqs_off.isra.0", True),
    ("trace_hardirqs_off", False),
    ("trace_hardirqs_off_finish", False),
    ("trace_hardirqs_on.part.0", False),
]


def main():
    results = []
    for name, want in PARTS:
        got = jump_nop.is_part(name, "trace_hardirqs_off")
        results.append((f"is_part: {name} is {'' if want else 'not '}a part",
                        got == want, f"got {got}"))
    for name, entries, want in SITES:
        got = jump_nop.sites(table(entries), FUNC, KEY)
        results.append((f"sites: {name}", got == want,
                        f"got {[hex(a) for a in got]}, want "
                        f"{[hex(a) for a in want]}"))
    for text, want in NOPS:
        got = jump_nop.is_nop(text)
        results.append((f"is_nop: '{text}' is {'' if want else 'not '}a NOP",
                        got == want, f"got {got}"))
    return ktap.report(results)


if __name__ == "__main__":
    sys.exit(main())
