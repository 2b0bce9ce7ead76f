#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/cfacts.py, the tools' one reader of the module's C, on copies of
the tree's prims.h, windows.h, clocks.h (the clock table), results.h and
defaults.h laid out otherwise, as the compiler would still take them: other
blanks, entries broken over lines or run together, comments inside and
between them (a commented-out entry among them), directives spaced out.
Each copy must give the tree's facts; a broken entry must be refused.
KTAP on stdout, then "N passed, N failed"; exits 1 on any failure."""

import importlib.util
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TOP = os.path.normpath(os.path.join(TOOLS, ".."))
spec = importlib.util.spec_from_file_location(
    "cfacts", os.path.join(TOOLS, "cfacts.py"))
cfacts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cfacts)

HEADERS = ["prims.h", "windows.h", "clocks.h", "results.h", "defaults.h"]
ENTRY = re.compile(r"^(TB_[A-Z_]+)\((.*)\)$", re.M)


def spread(m):
    """An entry over several lines, blanks and comments in it."""
    args = [a.strip() for a in m.group(2).split(",")]
    return (f"{m.group(1)} (\t/* (, ) */\n  " +
            " ,\n\t\t".join(f"{a} /* {a}, */" for a in args) +
            "\n) // an entry (x, y)\n")


def squeeze(text):
    """Every entry on one line, no blanks after commas, a commented-out
    entry among them."""
    entries = [f"{m.group(1)}({','.join(a.strip() for a in m.group(2).split(','))})"
               for m in ENTRY.finditer(text)]
    entries.insert(1, "/* TB_PRIM(FAKE, fake, FAKE) TB_CLOCK(FAKE, fake) */")
    return ENTRY.sub("", text) + "\n" + " ".join(entries) + "\n"


def windows(text):
    """windows.h's directives spaced out, its definitions over two lines."""
    text = re.sub(r"^#define TB_PRIM\((\w+), (\w+), \.\.\.\)\t",
                  r"#  define   TB_PRIM( \1,\2 , ... )  \\\n\t\t", text,
                  flags=re.M)
    text = re.sub(r'^#include "prims.h"$',
                  '#\tinclude\t"prims.h"   /* again */', text, flags=re.M)
    return text.replace(", 0)", ", \\\n\t\t0 )").replace(", 1)", " , 1)")


def defaults(text):
    return re.sub(r"^#define (TB_DEFAULT_\w+)\t+(\d+)$",
                  r"# define \1 /* 1, 2 */ ( \2U )", text, flags=re.M)


LAYOUTS = {
    "spread over lines, with comments": {
        "prims.h": lambda t: ENTRY.sub(spread, t),
        "clocks.h": lambda t: ENTRY.sub(spread, t),
        "results.h": lambda t: ENTRY.sub(spread, t),
        "windows.h": windows,
        "defaults.h": defaults,
    },
    "run together on one line": {
        "prims.h": squeeze, "clocks.h": squeeze, "results.h": squeeze,
        "windows.h": windows, "defaults.h": defaults,
    },
}


def copy(d, layout):
    for name in HEADERS:
        with open(os.path.join(TOP, name), encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(layout.get(name, lambda t: t)(text))


def refused(d, name, old, new):
    """facts() of the tree with one header's text changed: the error, or
    None if it read it."""
    for h in HEADERS:
        shutil.copy(os.path.join(TOP, h), d)
    path = os.path.join(d, name)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert old in text, (name, old)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new, 1))
    try:
        cfacts.parse(cfacts.preprocess(d), d)
    except cfacts.CFactsError as e:
        return str(e)
    return None


def main():
    results = []
    tree = cfacts.facts(TOP)
    results.append(("the tree: seven primitives, three traced, five clocks, "
                    "two of the PMU", (len(tree["prims"]), len(tree["untraced"]),
                                       len(tree["clocks"]),
                                       len(tree["pmu_clocks"])) == (7, 3, 5, 2),
                    f"got {tree['prims']}, {tree['untraced']}, "
                    f"{tree['clocks']}, {tree['pmu_clocks']}"))
    for what, layout in LAYOUTS.items():
        with tempfile.TemporaryDirectory() as d:
            copy(d, layout)
            try:
                got = cfacts.parse(cfacts.preprocess(d), d)
                diff = [k for k in tree if got.get(k) != tree[k]]
            except cfacts.CFactsError as e:
                got, diff = None, [str(e)]
        results.append((f"headers {what}: the tree's facts", not diff,
                        f"differ in {diff}"))
    for what, name, old, new in [
            ("an entry without its untraced form", "prims.h",
             "TB_PRIM(IRQ, irq, RAW_IRQ)", "TB_PRIM(IRQ, irq)"),
            ("an untraced form that is no primitive", "prims.h",
             "TB_PRIM(IRQ, irq, RAW_IRQ)", "TB_PRIM(IRQ, irq, RAW)"),
            ("a clock without windows", "clocks.h",
             "TB_CLOCK(NS, ns)", "TB_CLOCK(NS, ns)\nTB_CLOCK(SUNDIAL, sundial)"),
            ("a default that is no number", "defaults.h",
             "10000", "TB_MANY")]:
        with tempfile.TemporaryDirectory() as d:
            err = refused(d, name, old, new)
        results.append((f"refused: {what}", err is not None,
                        "read without a complaint"))
    return ktap.report(results)


if __name__ == "__main__":
    sys.exit(main())
