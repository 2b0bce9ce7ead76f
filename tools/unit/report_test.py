#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The rules tools/report.py decides by, on results directories made up
for each case: when a difference is exact, and when it is significant.
KTAP on stdout, then "N passed, N failed"; exits 1 on any failure."""

import json
import os
import subprocess
import sys
import tempfile

REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                      "report.py")
PRIMS = ["irq", "preempt", "irq_save", "raw_irq", "raw_irq_save",
         "preempt_notrace", "none"]
FIGURES = ["median", "average", "max_avg", "p99", "p99.9"]


def results(path, env, rows):
    """A results directory whose irq medians are rows[kernel] (a list, one
    per round); every other figure is 1."""
    runs = []
    for kernel, medians in rows.items():
        for rnd, m in enumerate(medians, 1):
            summary = {f"{p}.{f}": "1" for p in PRIMS for f in FIGURES}
            summary["irq.median"] = str(m)
            summary["counter_hz"] = "1000000000"
            runs.append({"id": f"{kernel}.off.r{rnd}",
                         "meta": {"kernel": kernel, "state": "off",
                                  "round": rnd},
                         "summary": summary})
    doc = {"format": "tracerbench-results 1",
           "env": dict(env, kernels=" ".join(rows)),
           "kernels": {k: {"release": "test"} for k in rows},
           "runs": runs}
    os.makedirs(path)
    with open(os.path.join(path, "results.json"), "w") as f:
        json.dump(doc, f)


def irq_row(path, row, alpha):
    out = subprocess.run([REPORT, "--format", "json", "--alpha", str(alpha),
                          "--reference", "a.off", path],
                         capture_output=True, text=True, check=True).stdout
    table = next(t for t in json.loads(out)["tables"]
                 if t["primitive"] == "irq")
    return next(e for e in table["rows"] if e["row"] == row)


ICOUNT = {"mode": "tcg-icount"}
TCG = {"mode": "tcg"}
# name, env, rounds of a and b, alpha, what b's row must say
CASES = [
    ("icount, every round alike: exact", ICOUNT,
     [75] * 3, [91] * 3, 0.05, {"exact": True, "diff": 16}),
    ("icount, rounds that differ: not exact", ICOUNT,
     [75, 75, 76], [91] * 3, 0.05, {"exact": False}),
    ("plain TCG, every round alike: not exact", TCG,
     [75] * 3, [91] * 3, 0.05, {"exact": False}),
    ("icount with a tick of slack (arm64): not exact",
     dict(ICOUNT, tick_slack="1"), [75] * 3, [76] * 3, 0.05,
     {"exact": False}),
    ("icount without tick_slack (results before it): exact", ICOUNT,
     [75] * 3, [76] * 3, 0.05, {"exact": True}),
    ("clear shift over 10 rounds: significant, CI above 0", TCG,
     [100 + i for i in range(10)], [120 + i for i in range(10)], 0.001,
     {"significant": True, "ci_excludes_0": True}),
    ("the same rounds: not significant", TCG,
     [100 + i for i in range(10)], [100 + i for i in range(10)], 0.05,
     {"significant": False}),
    # b ranks above a (p < 0.05), but its median equals a's and the
    # interval holds 0: not significant
    ("p below alpha, CI holding 0: not significant", TCG,
     [0] * 11, [0] * 6 + [5] * 5, 0.05,
     {"p_below_alpha": True, "ci_excludes_0": False, "significant": False}),
]


def check(e, want, alpha):
    """The ways row e differs from what is wanted, as text."""
    got = {
        "exact": bool(e.get("exact")),
        "diff": e.get("diff"),
        "significant": bool(e.get("significant")) and not e.get("exact"),
        "p_below_alpha": e.get("p") is not None and e["p"] < alpha,
    }
    ci = e.get("ci")
    got["ci_excludes_0"] = bool(ci) and (ci[0] > 0 or ci[1] < 0)
    return [f"{k}: got {got[k]}, want {v}" for k, v in want.items()
            if got[k] != v]


def main():
    passed = failed = 0
    print("KTAP version 1")
    print(f"1..{len(CASES)}")
    with tempfile.TemporaryDirectory() as tmp:
        for n, (name, env, a, b, alpha, want) in enumerate(CASES, 1):
            path = os.path.join(tmp, str(n))
            results(path, env, {"a": a, "b": b})
            e = irq_row(path, "b.off", alpha)
            bad = check(e, want, alpha)
            for line in bad + [f"row: {json.dumps(e)}"] if bad else []:
                print(f"# {line}")
            print(f"{'not ok' if bad else 'ok'} {n} report: {name}")
            failed += bool(bad)
            passed += not bad
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
