#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The module's facts that the tools need, read from its C: the one reader
of the C in tools/. It runs the C preprocessor (cpp) over the lists the
module itself is made from, with their macros defined to print what they
hold, so that any layout the compiler takes (blanks, line breaks,
comments) reads the same:

  prims.h     the primitives in order, and each one's untraced form
  clocks.h    the clocks in order, and which are counters of the PMU
  results.h   the result files of a primitive's directory
  windows.h   every timed window: its function, primitive, clock, work
  defaults.h  the settings' defaults at load (nr_samples, nr_highest)

report.py imports it (facts()); the bash tools take its --format sh
output through tb_cfacts (tools/lib/harness.sh); a guest, which has no
Python, gets that output in its initramfs (tb_make_initramfs).
tools/unit/cfacts_test.py holds it to the same facts on a reformatted
copy of the headers."""

import argparse
import functools
import json
import os
import shlex
import subprocess
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(
    __file__)), ".."))

# Each entry prints as its kind and fields, ended by ";": cpp may join or
# break lines, never a token.
PROGRAM = """
#define TB_PRIM(id, name, untraced) tb_prim id name untraced ;
#include "prims.h"
#undef TB_PRIM
#define TB_CLOCK(id, name) tb_clock id name 0 ;
#define TB_PMU_CLOCK(id, name) tb_clock id name 1 ;
#include "clocks.h"
#undef TB_CLOCK
#undef TB_PMU_CLOCK
#define TB_STAT(id, name) tb_stat id name ;
#include "results.h"
#undef TB_STAT
#define TB_WINDOW(name, id, clock, work) tb_window name id clock work ;
#include "windows.h"
#undef TB_WINDOW
#include "defaults.h"
tb_default nr_samples TB_DEFAULT_SAMPLES ;
tb_default nr_highest TB_DEFAULT_HIGHEST ;
"""

FIELDS = {"tb_prim": 3, "tb_clock": 3, "tb_stat": 2, "tb_window": 4,
          "tb_default": 2}


class CFactsError(Exception):
    pass


def preprocess(top):
    """PROGRAM through cpp, the headers from top: no predefined macros
    (-undef: "linux" would read as 1), no system headers."""
    for cpp in (["cpp"], ["gcc", "-E", "-x", "c"]):
        try:
            p = subprocess.run(cpp + ["-P", "-undef", "-nostdinc", "-I", top,
                                      "-"],
                               input=PROGRAM, capture_output=True,
                               text=True, cwd=top)
        except FileNotFoundError:
            continue
        if p.returncode != 0:
            raise CFactsError(f"cpp on the headers of {top}: "
                              f"{p.stderr.strip()}")
        return p.stdout
    raise CFactsError("no C preprocessor: install cpp (Debian: apt install "
                      "cpp)")


def parse(text, top):
    """The facts of cpp's output: a dict (see facts())."""
    entries = {k: [] for k in FIELDS}
    for chunk in text.split(";"):
        words = chunk.split()
        if not words:
            continue
        kind = words[0]
        if kind == "tb_default" and len(words) > 2:
            # a constant as C may write it: (10000), 10000U
            words = words[:2] + ["".join(words[2:]).strip("()").rstrip(
                "uUlL")]
        if kind not in FIELDS or len(words) != FIELDS[kind] + 1:
            raise CFactsError(f"{top}: cannot read '{' '.join(words)}': a "
                              "list entry with the wrong fields?")
        entries[kind].append(words[1:])

    prim_name = {pid: name for pid, name, _ in entries["tb_prim"]}
    clock_name = {cid: name for cid, name, _ in entries["tb_clock"]}
    if not prim_name or not clock_name or not entries["tb_stat"]:
        raise CFactsError(f"{top}: no primitives, clocks or result files")
    untraced = {}
    for pid, name, raw in entries["tb_prim"]:
        if raw not in prim_name:
            raise CFactsError(f"prims.h: {name}'s untraced form {raw} is "
                              "no primitive")
        if raw != pid:
            untraced[name] = prim_name[raw]
    windows = []
    for name, pid, cid, work in entries["tb_window"]:
        if pid not in prim_name or cid not in clock_name or \
                work not in ("0", "1"):
            raise CFactsError(f"windows.h: window {name}: no primitive "
                              f"{pid}, clock {cid} or work {work}")
        windows.append(("tb_win_" + name, prim_name[pid], clock_name[cid],
                        int(work)))
    cover = {(p, c, w) for _, p, c, w in windows}
    if len(cover) != len(windows) or \
            len(cover) != 2 * len(prim_name) * len(clock_name):
        raise CFactsError("windows.h: not one window per primitive, clock "
                          "and work")
    defaults = {}
    for key, value in entries["tb_default"]:
        if not value.isdigit():
            raise CFactsError(f"defaults.h: {key} is {value}, no number")
        defaults[key] = int(value)
    return {
        "prims": [name for _, name, _ in entries["tb_prim"]],
        "untraced": untraced,
        "clocks": [name for _, name, _ in entries["tb_clock"]],
        "pmu_clocks": [name for _, name, pmu in entries["tb_clock"]
                       if pmu == "1"],
        "stats": [name for _, name in entries["tb_stat"]],
        "windows": windows,
        "defaults": defaults,
    }


@functools.lru_cache(maxsize=None)
def facts(top=TOP):
    """{"prims": [name...], "untraced": {traced: untraced},
    "clocks": [name...], "pmu_clocks": [name...], "stats": [name...],
    "windows": [(function, prim, clock, work)...],
    "defaults": {"nr_samples": N, "nr_highest": N}}"""
    return parse(preprocess(top), top)


def shell(f):
    """The facts as shell assignments, TB_C_*: lists of words."""
    def words(items):
        return shlex.quote(" ".join(items))
    return "\n".join([
        f"TB_C_PRIMS={words(f['prims'])}",
        "TB_C_UNTRACED=" + words(f"{k}:{v}" for k, v in
                                 f["untraced"].items()),
        f"TB_C_CLOCKS={words(f['clocks'])}",
        f"TB_C_PMU_CLOCKS={words(f['pmu_clocks'])}",
        f"TB_C_STATS={words(f['stats'])}",
        "TB_C_WINDOWS=" + words(f"{fn}:{p}:{c}:{w}" for fn, p, c, w in
                                f["windows"]),
        f"TB_C_DEFAULT_SAMPLES={f['defaults']['nr_samples']}",
        f"TB_C_DEFAULT_HIGHEST={f['defaults']['nr_highest']}",
    ]) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(
        prog="tools/cfacts.py",
        description="Print the module's facts the tools read from its C "
        "(prims.h, clocks.h, results.h, windows.h, defaults.h) by the C "
        "preprocessor: as shell assignments (TB_C_*), which the bash tools "
        "and the guests read, or as JSON.")
    ap.add_argument("--format", choices=("sh", "json"), default="sh",
                    help="sh: TB_C_NAME='WORD...' lines (default); json: "
                    "one document")
    ap.add_argument("--top", metavar="DIR", default=TOP,
                    help="the module's source (default: this tree's)")
    args = ap.parse_args(argv)
    try:
        f = facts(os.path.abspath(args.top))
    except CFactsError as e:
        print(f"cfacts.py: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(shell(f) if args.format == "sh" else
                     json.dumps(f, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
