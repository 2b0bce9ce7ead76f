#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Tests of tools/report.py's PMU units and its code table
(tools/reportcode.py), on made-up results, run like report_test.py's."""

import os
import sys

from report_test import (GOLDEN, ICOUNT, PRIMS, edit, expect,
                         expect_refusal, irq_row, main, report, report_json,
                         results)


def t_pmu_units(tmp):
    """The PMU clocks' counts: compared as they are, never in ns, core
    cycles at any rate (it is the core's frequency), and named as their
    unit in every form; a count is never subtracted from another unit's."""
    a = results(f"{tmp}/p1", ICOUNT, {"a": [75] * 3}, hz=0,
                unit="instructions")
    b = results(f"{tmp}/p2", ICOUNT, {"b": [91] * 3}, hz=0,
                unit="instructions")
    doc = report_json([a, b])
    expect("unit", doc["unit"], "instructions")
    e = irq_row(doc, "b.off")
    expect("b against a", (e["diff"], e["counter_hz"]), (16.0, None))
    rc, out, err = report(["--format", "lkml", a, b])
    expect("lkml", (rc, err, "irq (instructions)" in out, "(ns)" in out),
           (0, "", True, False))
    rc, out, _ = report([a, b])
    expect("text", (rc, "instructions per pair" in out), (0, True))
    rc, _, err = report(["--ns", a, b])
    expect_refusal(rc, err, ["no counter_hz"])
    c = results(f"{tmp}/p3", ICOUNT, {"c": [75] * 3}, hz=2000000000,
                unit="core_cycles")
    d = results(f"{tmp}/p4", ICOUNT, {"d": [80] * 3}, hz=3000000000,
                unit="core_cycles")
    e = irq_row(report_json([c, d], ref="c.off"), "d.off")
    expect("core cycles at two rates", e["diff"], 5.0)
    rc, _, err = report(["--reference", "a.off", a, c])
    expect_refusal(rc, err, ["unit core_cycles", "unit instructions"])
    # arm64's tick_slack is the timer's: a PMU count under icount is exact
    s = results(f"{tmp}/p5", dict(ICOUNT, tick_slack=1),
                {"s": [75] * 3, "t": [91] * 3}, hz=0, unit="instructions")
    e = irq_row(report_json([s], ref="s.off"), "t.off")
    expect("exact with tick_slack", (e["diff"], e["exact"]), (16.0, True))


CODE_GOLDEN = os.path.join(os.path.dirname(GOLDEN), "code.txt")


def code_env(insns, nbytes, calls, text=None, hooks=None, out=None,
             jumps=0):
    """A kernel's code figures as tools/codesize.sh gives them: each
    primitive's site the same, out of its bytes out of line and with
    jumps jump table entries (16 bytes each), or without those figures
    (an older bench.sh's) where out is None; and vmlinux where text is
    given, its jump table 1600 bytes and 16 per entry of a site."""
    env = {"release": "test"}
    for p in PRIMS[:-1]:
        env.update({f"site.{p}.insns": str(insns),
                    f"site.{p}.bytes": str(nbytes),
                    f"site.{p}.calls": calls})
        if out is not None:
            env.update({f"site.{p}.inline_bytes": str(nbytes - out),
                        f"site.{p}.out_of_line_bytes": str(out),
                        f"site.{p}.jump_entries": str(jumps),
                        f"site.{p}.jump_bytes": str(16 * jumps)})
    if text is not None:
        env.update({"vmlinux.text": str(text), "vmlinux.data": "500",
                    "vmlinux.bss": "300", "vmlinux.functions": str(text - 100),
                    "vmlinux.jump_table": str(1600 + 16 * jumps),
                    "vmlinux.jump_entries": str(100 + jumps)})
        env.update({f"hook.{h}": str(n) for h, n in hooks.items()})
    return env


def t_code(tmp):
    """The code table: per site and kernel-wide, against the reference
    kernel, beside the executed median, in JSON and as
    tools/unit/golden/code.txt has it (TB_UPDATE_GOLDEN=1 rewrites it); a
    kernel without its vmlinux gets the site figures, and the note. The
    guard kernel's sites grow, out of line: their bytes apart, and the
    jump table entries they add; a kernel of an older bench.sh, without
    those figures, shows "-" for them."""
    hooks = {"trace_hardirqs_off": 40, "trace_hardirqs_on": 38}
    d = results(f"{tmp}/code", ICOUNT, {"base.off": [75] * 3,
                                        "guard.off": [34] * 3,
                                        "host.out": [70] * 3}, hz=0,
                unit="instructions")

    def kernels(doc):
        doc["kernels"]["base"] = code_env(4, 10, "trace_hardirqs_off,"
                                          "trace_hardirqs_on", 1000, hooks,
                                          out=0)
        doc["kernels"]["guard"] = code_env(
            6, 18, "trace_hardirqs_off,trace_hardirqs_on", 1024,
            dict(hooks, guard_fn=78), out=11, jumps=2)
        doc["kernels"]["host"] = code_env(2, 2, "-")
    edit(d, kernels)
    doc = report_json([d], ref="base.off")
    g = next(e for e in doc["code"]["kernels"] if e["kernel"] == "guard")
    expect("guard against base",
           (g["diff"]["sites"]["irq"], g["diff"]["executed"]["irq"],
            g["diff"]["vmlinux"]["text"], g["diff"]["hooks"]),
           ({"insns": 2, "bytes": 8, "inline_bytes": -3,
             "out_of_line_bytes": 11, "jump_entries": 2, "jump_bytes": 32},
            -41.0, 24, {"guard_fn": 78, "trace_hardirqs_off": 0,
                        "trace_hardirqs_on": 0}))
    expect("guard: jump table", (g["jump_table"], g["diff"]["jump_table"]),
           ({"bytes": 1632, "entries": 102}, {"bytes": 32, "entries": 2}))
    h = next(e for e in doc["code"]["kernels"] if e["kernel"] == "host")
    expect("host: sites, no vmlinux",
           (h["sites"]["irq"]["insns"], h["sites"]["irq"]["calls"],
            h["vmlinux"], h["diff"]["vmlinux"], h["executed"]["irq"]),
           (2, [], None, None, {"median": 70.0, "state": "out"}))
    expect("host: no parts from an older bench.sh",
           (h["sites"]["irq"]["out_of_line_bytes"], h["jump_table"]),
           (None, None))
    for form in ("lkml", "text", "markdown"):
        rc, out, err = report(["--format", form, "--reference", "base.off",
                               "--primitives", "irq,preempt", d])
        expect(f"{form} without --code", "code: one call site" in out, False)
    rc, out, err = report(["--format", "markdown", "--code", "--reference",
                           "base.off", d])
    expect("markdown --code", "    irq_save " in out, True)
    rc, out, err = report(["--format", "lkml", "--code", "--reference",
                           "base.off", "--primitives", "irq,preempt", d])
    expect("exit", (rc, err), (0, ""))
    out = out[out.index("code:"):]
    expect("the guard's irq site, out of line apart",
           [x.split() for x in out.splitlines()
            if x.startswith("guard ")][0][:7],
           ["guard", "6", "18", "7", "11", "32", "+2/+8"])
    if os.environ.get("TB_UPDATE_GOLDEN"):
        with open(CODE_GOLDEN, "w") as f:
            f.write(out)
    with open(CODE_GOLDEN) as f:
        expect("the code table", out, f.read())
    expect("lines over 72 columns",
           [x for x in out.splitlines() if len(x) > 72], [])


TESTS = [
    ("PMU counts: own units, no ns, core cycles at any rate", t_pmu_units),
    ("code: per site and kernel-wide against the reference, golden",
     t_code),
]


if __name__ == "__main__":
    sys.exit(main([], TESTS))
