#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Show, from a built vmlinux, that a function's static branches on a key
are NOPs in the image: what a disabled tracepoint costs with
CONFIG_JUMP_LABEL.

    tools/jump_nop.py [--objdump CMD] VMLINUX FUNCTION KEY_SYMBOL

Every jump table entry whose code lies in FUNCTION, or in a part the
compiler split off it (FUNCTION.part.0, .isra.0, .cold, ...), and whose
key lies in KEY_SYMBOL (for a tracepoint, __tracepoint_NAME, whose static
key is a member) must point at a NOP. Prints each such site as objdump shows it
and exits 0; exits 1 if there is none, or if one is not a NOP (the key
test was compiled as a load and a branch, or the site was left a jump).

The entries are relative (ARCH_HAS_RELATIVE_JUMP_LABEL, as on x86 and
arm64): s32 code, s32 target, long key, each relative to its own field;
the key's two low bits are flags.
"""

import argparse
import re
import struct
import subprocess
import sys


JT_START = "__start___jump_table"
JT_STOP = "__stop___jump_table"


def fail(msg):
    print(f"jump_nop: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd):
    try:
        return subprocess.run(cmd, check=True, capture_output=True,
                              text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail(f"{' '.join(cmd)}: {e}")


def symbols(nm, vmlinux, names, parts_of=None):
    """{name: (address, size)} for the symbols asked for, and for the parts
    the compiler split off parts_of; size 0 for an unsized symbol (a linker
    script's)."""
    found = {}
    for line in run([nm, "-S", vmlinux]).splitlines():
        f = line.split()
        if len(f) == 4 and (f[3] in names or is_part(f[3], parts_of)):
            found[f[3]] = (int(f[0], 16), int(f[1], 16))
        elif len(f) == 3 and f[2] in names:
            found.setdefault(f[2], (int(f[0], 16), 0))
    for n in names:
        if n not in found:
            fail(f"{vmlinux} has no symbol {n}")
    return found


def is_part(name, function):
    """name is a piece gcc split off function: function.part.0 and the
    like."""
    return function is not None and name.startswith(function + ".")


def jump_table(objdump, vmlinux, start, stop):
    """(address, bytes) of the jump table, which the linker script puts
    between __start___jump_table and __stop___jump_table in a data
    section, from objdump -s."""
    base, data = None, bytearray()
    for line in run([objdump, "-s", f"--start-address={start:#x}",
                     f"--stop-address={stop:#x}", vmlinux]).splitlines():
        m = re.match(r"^ ([0-9a-f]+) ((?:[0-9a-f]{2,8} ){1,4})", line)
        if not m:
            continue
        if base is None:
            base = int(m.group(1), 16)
        data += bytes.fromhex(m.group(2).replace(" ", ""))
    if base != start or len(data) != stop - start:
        fail(f"{vmlinux}: cannot read the jump table at {start:#x}")
    return base, bytes(data)


def sites(table, func, key):
    """Code addresses of the entries in func on key."""
    base, data = table
    out = []
    for off in range(0, len(data) - 15, 16):
        code, _target, k = struct.unpack_from("<iiq", data, off)
        addr = base + off
        code_addr = addr + code
        key_addr = (addr + 8 + k) & ~3 & (2**64 - 1)
        if func[0] <= code_addr < func[0] + func[1] and \
           key[0] <= key_addr < key[0] + key[1]:
            out.append(code_addr)
    return sorted(out)


def instruction(objdump, vmlinux, addr):
    """objdump's line for the instruction at addr: (text, mnemonic)."""
    # past the instruction's end, or objdump decodes its first byte alone
    out = run([objdump, "-d", "--no-show-raw-insn",
               f"--start-address={addr:#x}",
               f"--stop-address={addr + 16:#x}", vmlinux])
    for line in out.splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S.*)$", line)
        if m and int(m.group(1), 16) == addr:
            return m.group(2).strip()
    fail(f"no instruction at {addr:#x}")


def is_nop(text):
    # x86: nop, nopw/nopl with operands, and the 2-byte xchg %ax,%ax;
    # arm64: nop
    return re.match(r"^(nop[wlq]?\b|xchg\s+%ax,%ax\b)", text) is not None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--objdump", default="objdump")
    ap.add_argument("--nm", default="nm")
    ap.add_argument("vmlinux")
    ap.add_argument("function")
    ap.add_argument("key")
    a = ap.parse_args()
    syms = symbols(a.nm, a.vmlinux, {a.function, a.key, JT_START, JT_STOP},
                   a.function)
    table = jump_table(a.objdump, a.vmlinux, syms[JT_START][0],
                       syms[JT_STOP][0])
    bad = found = 0
    for name in sorted(n for n in syms
                       if n == a.function or is_part(n, a.function)):
        for addr in sites(table, syms[name], syms[a.key]):
            text = instruction(a.objdump, a.vmlinux, addr)
            ok = is_nop(text)
            found += 1
            bad += not ok
            print(f"{name}+{addr - syms[name][0]:#x}: {text}"
                  f"{'' if ok else '  <- not a NOP'}")
    if not found:
        fail(f"{a.function} has no static branch on {a.key}: "
             "not a jump label (CONFIG_JUMP_LABEL?)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
