#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The rules tools/report.py decides by, on results directories made up
for each case: when a difference is exact, which test it gets and with
what p, when it is significant, what it refuses, and the order of the
runs that tools/guest/collect.sh records (run here on a stand-in for the
module's debugfs files). KTAP on stdout, then "N passed, N failed";
exits 1 on any failure."""

import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
REPORT = os.path.join(TOOLS, "report.py")
COLLECT = os.path.join(TOOLS, "guest", "collect.sh")
PRIMS = ["irq", "preempt", "irq_save", "raw_irq", "raw_irq_save",
         "preempt_notrace", "none"]
FIGURES = ["median", "average", "max_avg", "p99", "p99.9"]
ICOUNT = {"mode": "tcg-icount"}
TCG = {"mode": "tcg", "arch": "x86_64"}


def results(path, env, rows, hz=1000000000, unit="cycles", schema=None,
            orders=None, kernels=None):
    """A results directory whose irq medians are rows[ROW] (a list, one
    per round, ROW "kernel" or "kernel.state"); every other figure is 1.
    orders: the runs of each round, in order, one boot for all (schema 2
    meta); rounds of a row may be given as {round: median}. kernels: the
    kernels' env by label, release "test" by default."""
    runs = []
    for row, medians in rows.items():
        kernel, _, state = row.partition(".")
        if not isinstance(medians, dict):
            medians = dict(enumerate(medians, 1))
        for rnd, m in medians.items():
            summary = {f"{p}.{f}": 1 for p in PRIMS for f in FIGURES}
            summary["irq.median"] = m
            summary["counter_hz"] = hz
            summary["unit"] = unit
            runs.append({"id": f"{kernel}.{state or 'off'}.r{rnd}",
                         "meta": {"kernel": kernel, "state": state or "off",
                                  "round": rnd},
                         "summary": summary})
    doc = {"format": "tracerbench-results 1",
           "env": dict(env, kernels=" ".join(r.split(".")[0] for r in rows)),
           "kernels": {k.split(".")[0]: (kernels or {}).get(
               k.split(".")[0], {"release": "test"}) for k in rows},
           "runs": runs}
    if orders:
        schema = schema or 2
        prev = "-"
        for rnd, names in enumerate(orders, 1):
            for pos, name in enumerate(names, 1):
                run = next(r for r in runs if r["id"] == f"{name}.r{rnd}")
                run["meta"].update(pos=pos, after=prev)
                prev = run["id"]
    if schema:
        doc["schema"] = schema
    os.makedirs(path)
    with open(os.path.join(path, "results.json"), "w") as f:
        json.dump(doc, f)
    return path


def edit(d, change, text=None):
    """Apply change to the results document of directory d, and then
    replace text[0] with text[1] in its JSON (what json.dump cannot
    write)."""
    p = os.path.join(d, "results.json")
    with open(p) as f:
        doc = json.load(f)
    change(doc)
    s = json.dumps(doc)
    if text:
        s = s.replace(*text)
    with open(p, "w") as f:
        f.write(s)
    return d


def setitem(path, value):
    def change(doc):
        x = doc
        for k in path[:-1]:
            x = x[k]
        x[path[-1]] = value
    return change


def delitem(path):
    def change(doc):
        x = doc
        for k in path[:-1]:
            x = x[k]
        del x[path[-1]]
    return change


def load_report():
    spec = importlib.util.spec_from_file_location("report", REPORT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def report(args, python=None):
    """report.py's exit code, stdout and stderr."""
    cmd = ([python, "-S", REPORT] if python else [REPORT]) + args
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def report_json(dirs, ref="a.off", alpha=0.05, extra=()):
    rc, out, err = report(["--format", "json", "--alpha", str(alpha),
                           "--reference", ref, *extra, *dirs])
    if rc:
        raise AssertionError(f"report.py failed: {err.strip()}")
    return json.loads(out)


def irq_row(doc, row):
    table = next(t for t in doc["tables"] if t["primitive"] == "irq")
    return next(e for e in table["rows"] if e["row"] == row)


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
    # 10 paired rounds, every one the same way: p = 2/2^10, times 3 tests
    ("clear shift over 10 rounds: significant, CI above 0", TCG,
     [100 + i for i in range(10)], [120 + i for i in range(10)], 0.01,
     {"significant": True, "ci_excludes_0": True, "p": 2 / 1024,
      "p_holm": 6 / 1024, "test": "sign-flip", "mark": "**"}),
    ("the same rounds: not significant", TCG,
     [100 + i for i in range(10)], [100 + i for i in range(10)], 0.05,
     {"significant": False, "p": 1.0}),
    # 7 of 16 rounds higher, the rest equal: p = 2/2^7 below alpha, but
    # the medians are equal and the interval holds 0
    ("p below alpha, CI holding 0: not significant", TCG,
     [0] * 16, [0] * 9 + [1] * 7, 0.05,
     {"p": 2 / 128, "ci_excludes_0": False, "significant": False}),
    # differences 1, 2, 3, -1: of the 16 sign patterns, 7, 5 (-1 +2 +3
    # +1), 5 (+1 +2 +3 -1) and their negatives reach |sum| >= 5
    ("paired by round: exact sign-flip p by hand", TCG,
     [10, 10, 10, 10], [11, 12, 13, 9], 0.05,
     {"test": "sign-flip", "paired": True, "p": 6 / 16,
      "min_p": 2 / 16}),
    # rounds that drift by 10 each, b 5 above a in every one: resampled
    # as pairs, the drift cancels in every resample
    ("paired rounds bootstrapped as pairs", TCG,
     [10 * i for i in range(10)], [10 * i + 5 for i in range(10)], 0.05,
     {"ci": [5.0, 5.0]}),
]


def check(e, want, alpha):
    """The ways row e differs from what is wanted, as text."""
    got = {k: e.get(k) for k in want}
    got["exact"] = bool(e.get("exact"))
    got["significant"] = bool(e.get("significant")) and not e.get("exact")
    ci = e.get("ci")
    got["ci_excludes_0"] = bool(ci) and (ci[0] > 0 or ci[1] < 0)
    bad = []
    for k, v in want.items():
        same = (abs(got[k] - v) < 1e-12 if isinstance(v, float) and
                got[k] is not None else got[k] == v)
        if not same:
            bad.append(f"{k}: got {got[k]}, want {v}")
    return bad


class Failed(Exception):
    pass


def expect(what, got, want):
    if got != want:
        raise Failed(f"{what}: got {got!r}, want {want!r}")


def expect_refusal(rc, err, words):
    """Exit 1 with one line that says words, and no traceback."""
    if rc != 1 or "Traceback" in err or len(err.strip().splitlines()) != 1:
        raise Failed(f"exit {rc}, stderr {err!r}: want exit 1, one line")
    for w in words:
        if w not in err:
            raise Failed(f"stderr {err.strip()!r} does not say {w!r}")


def t_unpaired(tmp):
    """Rows of two directories are not paired:
    Mann-Whitney, exact for 3 against 3 rounds: 2/C(6,3) at best."""
    a = results(f"{tmp}/m1", TCG, {"a": [1, 2, 3]})
    b = results(f"{tmp}/m2", TCG, {"b": [4, 5, 6]})
    e = irq_row(report_json([a, b]), "b.off")
    expect("test", (e["test"], e["paired"]), ("Mann-Whitney", False))
    expect("p, min_p", (round(e["p"], 12), round(e["min_p"], 12)),
           (0.1, 0.1))



def t_common_rounds(tmp):
    """Rows of one directory with some rounds in common are paired on
    those, and the report says so; rows with none are not paired."""
    c = results(f"{tmp}/c1", TCG, {"a": {1: 1, 2: 2, 3: 3, 4: 100},
                                   "b": {1: 2, 2: 3, 3: 4, 5: -50}})
    doc = report_json([c])
    e = irq_row(doc, "b.off")
    expect("test, paired rounds, diff", (e["test"], e["paired_rounds"],
                                         e["diff"]), ("sign-flip", 3, 1))
    if not any("paired with a.off on the 3 rounds both have" in w
               for w in doc["warnings"]):
        raise Failed(f"no word of the common rounds: {doc['warnings']}")
    if "paired with a.off on the 3 rounds" not in report([c])[1]:
        raise Failed("the text report does not say which rounds are paired")
    c = results(f"{tmp}/c2", TCG, {"a": {1: 1, 2: 2}, "b": {3: 4, 4: 5}})
    e = irq_row(report_json([c]), "b.off")
    expect("no common round", (e["test"], e["paired"]),
           ("Mann-Whitney", False))
    c = results(f"{tmp}/c3", TCG, {"a": [1, 2, 3], "b": [2, 3, 4]})
    expect("the same rounds: no warning", [
        w for w in report_json([c])["warnings"] if "paired with" in w], [])


def brute_rank_sum(a, b):
    """The permutation test of the rank sum by enumeration: p, and the
    smallest p of these sizes and ties."""
    import itertools
    pooled = sorted(a + b)
    # midranks
    rank = {v: pooled.index(v) + (pooled.count(v) + 1) / 2 for v in pooled}
    r = [rank[v] for v in a + b]
    mid = len(a) * (len(r) + 1) / 2
    devs = [abs(sum(r[i] for i in c) - mid)
            for c in itertools.combinations(range(len(r)), len(a))]
    t = abs(sum(r[:len(a)]) - mid)
    far = max(devs)
    return (sum(d >= t - 1e-9 for d in devs) / len(devs),
            sum(d >= far - 1e-9 for d in devs) / len(devs))


def t_mann_whitney(tmp):
    """Mann-Whitney is exact, with ties too, and its p is never below
    the smallest p the report prints."""
    a = results(f"{tmp}/w1", TCG, {"a": [1, 1, 1]})
    b = results(f"{tmp}/w2", TCG, {"b": [2, 2, 2]})
    e = irq_row(report_json([a, b]), "b.off")
    expect("3 ties against 3: p, min_p", (e["p"], e["min_p"]), (0.1, 0.1))
    a = results(f"{tmp}/w3", TCG, {"a": list(range(12))})
    b = results(f"{tmp}/w4", TCG, {"b": list(range(12, 24))})
    e = irq_row(report_json([a, b]), "b.off")
    expect("12 against 12 apart", (e["test"], round(
        e["p"] * math.comb(24, 12) / 2, 9)), ("Mann-Whitney", 1.0))
    expect("its min_p", e["p"], e["min_p"])
    mod = load_report()
    import numpy as np
    rng = np.random.default_rng(5)
    for _ in range(200):
        x = [int(v) for v in rng.integers(0, 4, rng.integers(2, 7))]
        y = [int(v) for v in rng.integers(0, 4, rng.integers(2, 7))]
        p, mp, exact = mod.mann_whitney(x, y, rng)
        want = brute_rank_sum(x, y)
        if not exact or abs(p - want[0]) > 1e-12 or \
                abs(mp - want[1]) > 1e-12 or p < mp:
            raise Failed(f"{x} vs {y}: p, min_p {p}, {mp}; by "
                         f"enumeration {want}")
    # above EXACT_RANKS: sampled, within 4 sigma of the exact p, and the
    # same every time
    x = [int(v) for v in rng.integers(0, 6, 60)]
    y = [int(v) for v in rng.integers(1, 7, 60)]
    p, mp, exact = mod.mann_whitney(x, y, np.random.default_rng(1))
    again = mod.mann_whitney(x, y, np.random.default_rng(1))[0]
    # the tests live in teststats.py, which report.py imports
    stats = sys.modules["teststats"]
    stats.EXACT_RANKS = 1000
    want, _, _ = mod.mann_whitney(x, y, None)
    sigma = (want * (1 - want) / stats.FLIPS) ** 0.5
    if exact or p != again or p < mp or abs(p - want) > 4 * sigma + 1e-5:
        raise Failed(f"sampled p {p} (again {again}, min {mp}), exact {want}")
    # ties: 8 ones against 3 ones and 5 twos allow no p below the
    # 1/39 of this one (scipy's default gave 0.011)
    d = results(f"{tmp}/w5", TCG, {"a": [1] * 8})
    e = results(f"{tmp}/w6", TCG, {"b": [1] * 3 + [2] * 5})
    rc, out, _ = report(["--reference", "a.off", d, e])
    e = irq_row(report_json([d, e]), "b.off")
    want = "Mann-Whitney over 8 against the reference's 8 rounds: 0.026"
    expect("p, min_p", (round(e["p"], 12), round(e["min_p"], 12)),
           (round(1 / 39, 12),) * 2)
    if rc or want not in out:
        raise Failed(f"the text report does not say {want!r}")


def t_flip_zeros(tmp):
    """Zero differences take no part in the sign-flip test: 5 nonzero of
    8 allow 2/2^5, not 2/2^8."""
    d = results(f"{tmp}/z", TCG, {"a": [1] * 8, "b": [1] * 3 + [2] * 5})
    e = irq_row(report_json([d]), "b.off")
    expect("p, min_p", (e["p"], e["min_p"]), (2 / 32, 2 / 32))


def t_min_p(tmp):
    """The smallest p of the rounds is shown; unreachable --alpha is
    warned of, per row and for Holm over the report."""
    d = results(f"{tmp}/p5", TCG, {"a": [1] * 5, "b": [2] * 5})
    doc = report_json([d])
    expect("min_p of 5 rounds", irq_row(doc, "b.off")["min_p"], 2 / 32)
    if not any("never below --alpha 0.05" in w for w in doc["warnings"]):
        raise Failed(f"no warning of 5 rounds at 0.05: {doc['warnings']}")
    rc, out, _ = report(["--reference", "a.off", d])
    for words in ("smallest p the rounds allow: sign-flip over 5 paired "
                  "rounds: 0.062", "warning: no difference can be "
                  "significant at 0.05"):
        if rc or words not in out:
            raise Failed(f"text report lacks {words!r}")
    # 8 rounds reach p < 0.01 once; Holm over 3 tests reaches 0.05
    d = results(f"{tmp}/p8", TCG, {"a": [1] * 8, "b": [2] * 8})
    doc = report_json([d])
    expect("min_p of 8 rounds", irq_row(doc, "b.off")["min_p"], 2 / 256)
    expect("warnings at 8 rounds", doc["warnings"], [])
    doc = report_json([d], alpha=0.01)
    if not any("Holm over 3 tests" in w for w in doc["warnings"]):
        raise Failed(f"no Holm warning at 0.01: {doc['warnings']}")


def t_holm(tmp):
    """Holm's adjustment of a known vector, and over a report's rows and
    primitives: the smallest p of m times m, the others no smaller."""
    spec = importlib.util.spec_from_file_location("report", REPORT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = [round(p, 12) for p in mod.holm([0.01, 0.04, 0.03, 0.005])]
    expect("holm([0.01, 0.04, 0.03, 0.005])", got, [0.03, 0.06, 0.06, 0.02])
    d = results(f"{tmp}/h", TCG, {"a": [1] * 8, "b": [2] * 8,
                                  "c": [1, 2, 1, 2, 1, 2, 1, 2]})
    doc = report_json([d], extra=["--primitives", "all"])
    m = 2 * len(PRIMS)
    expect("tests", (doc["tests"], doc["correction"]), (m, "holm"))
    expect("b's p Holm", irq_row(doc, "b.off")["p_holm"], m * 2 / 256)
    if f"Holm's method over the {m} tests" not in report(
            ["--primitives", "all", d])[1]:
        raise Failed("the text report does not state the correction")


def t_ci_level(tmp):
    """The interval is at 1 - alpha: wider at 0.01 than at 0.2."""
    d = results(f"{tmp}/ci", TCG, {"a": list(range(20)),
                                   "b": [x + 5 for x in range(20)][::-1]})
    wide = irq_row(report_json([d], alpha=0.01), "b.off")["ci"]
    narrow = irq_row(report_json([d], alpha=0.2), "b.off")["ci"]
    if not (wide[0] < narrow[0] and narrow[1] < wide[1]):
        raise Failed(f"99% CI {wide} does not hold the 80% CI {narrow}")
    if "99% CI" not in report(["--alpha", "0.01", d])[1]:
        raise Failed("the text report does not name the 99% CI")
    if "each at 99% alone: not corrected" not in \
            report(["--alpha", "0.01", d])[1]:
        raise Failed("the text report does not say the CI is marginal")


def t_seed(tmp):
    """A row's interval is the same whatever other rows the report has."""
    b = [7, 3, 9, 4, 8, 2, 6, 5, 1, 10]
    one = results(f"{tmp}/s1", TCG, {"a": list(range(10)), "b": b})
    # aa's comparisons come before b's, c's after
    two = results(f"{tmp}/s2", TCG, {"a": list(range(10)), "aa": [3] * 10,
                                     "b": b, "c": [4] * 10})
    expect("b's CI with other rows", irq_row(report_json([two]), "b.off")
           ["ci"], irq_row(report_json([one]), "b.off")["ci"])


def t_units(tmp):
    """Ticks of different counter rates, arches or units are never
    subtracted; --ns compares rows that both have a counter rate."""
    a = results(f"{tmp}/u1", TCG, {"a": [100] * 3})
    b = results(f"{tmp}/u2", TCG, {"b": [100] * 3}, hz=2000000000)
    rc, _, err = report(["--reference", "a.off", a, b])
    expect_refusal(rc, err, ["cannot subtract ticks", "b.off", "a.off",
                             "--ns"])
    e = irq_row(report_json([a, b], extra=["--ns"]), "b.off")
    expect("b in ns against a", e["diff"], -50.0)
    c = results(f"{tmp}/u3", dict(TCG, arch="arm64"), {"c": [100] * 3})
    rc, _, err = report(["--reference", "a.off", a, c])
    expect_refusal(rc, err, ["cannot subtract ticks", "arch arm64"])
    d = results(f"{tmp}/u4", TCG, {"d": [100] * 3}, hz=0,
                unit="instructions")
    for ns in ([], ["--ns"]):
        rc, _, err = report(ns + ["--reference", "a.off", a, d])
        expect_refusal(rc, err, ["d.off", "a.off"])
    e = results(f"{tmp}/u5", TCG, {"e": [100] * 3}, hz=1001000000)
    expect("a rate 0.1% off", report(["--reference", "a.off", a, e])[0], 0)


def t_rates(tmp):
    """Every run's counter rate is checked, not the rows' medians: one
    run of another rate in a row is refused in ticks and compared in ns;
    the rates are printed; beyond 0.2% two rates are not one counter."""
    def hz_of(rates):
        def change(doc):
            for run in doc["runs"]:
                if run["id"] in rates:
                    run["summary"]["counter_hz"] = rates[run["id"]]
        return change
    d = edit(results(f"{tmp}/r1", TCG, {"a": [100] * 3, "b": [100] * 3}),
             hz_of({"b.off.r3": 2000000000}))
    rc, _, err = report(["--reference", "a.off", d])
    expect_refusal(rc, err, ["cannot subtract ticks", "run b.off.r3",
                             "counter_hz 2000000000", "a.off", "--ns"])
    rc, out, _ = report(["--ns", "--reference", "a.off", d])
    if rc or "counter_hz 1000000000 to 2000000000" not in out:
        raise Failed(f"--ns: exit {rc}, or the rates not printed: {out}")
    e = irq_row(report_json([d], extra=["--ns"]), "b.off")
    expect("b in ns, a run at twice the rate", e["median_rounds"],
           [100, 100, 100])
    # the reference row's own runs too
    d = edit(results(f"{tmp}/r2", TCG, {"a": [100] * 3, "b": [100] * 3}),
             hz_of({"a.off.r1": 1500000000}))
    expect_refusal(*report(["--reference", "a.off", d])[::2],
                   ["run a.off.r1"])
    a = results(f"{tmp}/r3", TCG, {"a": [100] * 3})
    b = results(f"{tmp}/r4", TCG, {"b": [100] * 3}, hz=1003000000)
    expect_refusal(*report(["--reference", "a.off", a, b])[::2],
                   ["run b.off.r1", "counter_hz 1003000000"])


def t_order(tmp):
    """The order of each round recorded in meta is shown, and an order
    that never varies is warned of as confounded."""
    fixed = [["a.off", "b.off"]] * 6
    d = results(f"{tmp}/o1", TCG, {"a.off": [1] * 6, "b.off": [1] * 6},
                orders=fixed)
    doc = report_json([d])
    expect("fixed order", irq_row(doc, "b.off")["order"],
           {"rounds": 6, "before_ref": 0, "leads": 0, "ref_leads": 1})
    if not any("confounded" in w for w in doc["warnings"]):
        raise Failed(f"no warning of a fixed order: {doc['warnings']}")
    turns = [["a.off", "b.off"], ["b.off", "a.off"]] * 3
    d = results(f"{tmp}/o2", TCG, {"a.off": [1] * 6, "b.off": [1] * 6},
                orders=turns)
    doc = report_json([d])
    expect("alternating order", irq_row(doc, "b.off")["order"]["before_ref"],
           3)
    expect("warnings", [w for w in doc["warnings"] if "confounded" in w], [])
    # a boot per kernel, whose place in the round (bench.sh's boot_pos)
    # comes before the place within the boot
    d = results(f"{tmp}/o4", TCG, {"a.off": [1] * 4, "b.off": [1] * 4},
                orders=[["a.off", "b.off"]] * 4)
    p = os.path.join(d, "results.json")
    with open(p) as f:
        doc = json.load(f)
    for run in doc["runs"]:
        m = run["meta"]
        m.update(pos=1, after="-",
                 boot_pos=1 + ((m["kernel"] == "a") ^ (m["round"] % 2)))
    with open(p, "w") as f:
        json.dump(doc, f)
    expect("boots in turn", irq_row(report_json([d]), "b.off")["order"],
           {"rounds": 4, "before_ref": 2, "leads": 4, "ref_leads": 4})
    d = results(f"{tmp}/o3", TCG, {"a.off": [1] * 2, "b.off": [1] * 2})
    if "not recorded" not in report([d])[1]:
        raise Failed("schema 1: the report does not say the order is "
                     "unknown")


def fake_tracerbench(root):
    """The module's debugfs files and the events' switch, as files."""
    tb = os.path.join(root, "tb")
    ev = os.path.join(root, "tracing", "events", "preemptirq")
    os.makedirs(ev)
    with open(os.path.join(ev, "enable"), "w") as f:
        f.write("0\n")
    os.makedirs(tb)
    lines = ["run 1", "preemptirq_tracepoints yes", "unit cycles",
             "counter_hz 1000000000"]
    lines += [f"{p}.{f} 5" for p in PRIMS for f in FIGURES]
    with open(os.path.join(tb, "summary"), "w") as f:
        f.write("\n".join(lines) + "\n")
    for name in ("benchmark", "nr_samples", "do_work", "batch", "cpus"):
        open(os.path.join(tb, name), "w").close()
    for p in PRIMS:
        os.makedirs(os.path.join(tb, p))
        with open(os.path.join(tb, p, "histogram"), "w") as f:
            f.write("5 10\n")
        with open(os.path.join(tb, p, "per_cpu"), "w") as f:
            f.write("cpu median\n0 5\n")
    return {"TB": tb, "TRACING": os.path.join(root, "tracing")}


def t_rotation(tmp):
    """collect.sh reverses the states every other round and rotates the
    labels every two: over 4 rounds of two labels each label runs first
    and last against the other, after a toggle, as often; report.py reads
    that order from meta (schema 2)."""
    env = dict(os.environ, **fake_tracerbench(f"{tmp}/fake"))
    out = f"{tmp}/fake/out"
    subprocess.run(["sh", COLLECT, "--rounds", "4", "--labels", "a,b", out],
                   env=env, check=True, capture_output=True)
    orders = []
    for r in range(1, 5):
        with open(f"{out}/runs/a.off.r{r}/meta") as f:
            orders += [ln.split(" ", 1)[1].strip() for ln in f
                       if ln.startswith("order ")]
    expect("the rounds' orders", orders, [
        "a.off b.off a.on b.on", "a.on b.on a.off b.off",
        "b.off a.off b.on a.on", "b.on a.on b.off a.off"])
    doc = report_json([out])
    expect("schema", json.load(open(f"{out}/results.json"))["schema"], 2)
    expect("b.off against a.off", irq_row(doc, "b.off")["order"],
           {"rounds": 4, "before_ref": 2, "leads": 1, "ref_leads": 2})
    expect("a.on against a.off", irq_row(doc, "a.on")["order"]["before_ref"],
           2)


def t_negative_average(tmp):
    """An average below 0 (the mean empty window above the mean window)
    keeps its sign from the module's files to every form of the report:
    collect.sh's copies, json.sh's numbers, report.py's tables."""
    env = dict(os.environ, **fake_tracerbench(f"{tmp}/fake"))
    summary = os.path.join(env["TB"], "summary")
    with open(summary) as f:
        text = f.read().replace("none.average 5", "none.average -0.407")
    with open(summary, "w") as f:
        f.write(text.replace("irq.average 5", "irq.average -12.500"))
    with open(os.path.join(env["TB"], "none", "per_cpu"), "w") as f:
        f.write("cpu median average\n0 0 -0.407\n")
    out = f"{tmp}/fake/out"
    subprocess.run(["sh", COLLECT, "--rounds", "2", "--labels", "a", out],
                   env=env, check=True, capture_output=True)
    with open(f"{out}/runs/a.off.r1/summary") as f:
        expect("collect.sh's summary", "none.average -0.407" in f.read(),
               True)
    run = json.load(open(f"{out}/results.json"))["runs"][0]
    expect("json.sh: summary", (run["summary"]["none.average"],
                                run["summary"]["irq.average"]),
           (-0.407, -12.5))
    expect("json.sh: per_cpu", run["per_cpu"]["none"][0]["average"], -0.407)
    doc = report_json([out], extra=["--primitives", "irq,none"])
    none = next(e for t in doc["tables"] if t["primitive"] == "none"
                for e in t["rows"] if e["row"] == "a.off")
    expect("report.py --format json", (irq_row(doc, "a.off")["average"],
                                       none["average"]), (-12.5, -0.407))
    for fmt, want in (("text", ("-12.500", "-0.407")),
                      ("markdown", ("| -12.500 |", "| -0.407 |")),
                      ("lkml", ("-12.50", "-0.41"))):
        rc, text, err = report(["--format", fmt, "--primitives", "irq,none",
                                out])
        for w in want:
            if rc or w not in text:
                raise Failed(f"--format {fmt}: exit {rc}, no {w!r} in "
                             f"{text!r} {err!r}")


def t_plot_empty(tmp):
    """--plot of runs without histograms or per-CPU rows: empty axes."""
    d = results(f"{tmp}/pl", TCG, {"a": [1] * 2, "b": [1] * 2})
    rc, _, err = report(["--plot", f"{tmp}/fig", d])
    expect("exit, stderr lines", (rc, "Traceback" in err), (0, False))
    expect("cdf.svg", os.path.exists(f"{tmp}/fig/cdf.svg"), True)


def t_plot_legend(tmp):
    """The legend holds every row, wherever its series are drawn: here
    only preempt (the second plot) has histograms."""
    d = edit(results(f"{tmp}/pl", TCG, {"a": [1] * 2, "b": [1] * 2}),
             lambda doc: [run.update(histogram={"preempt": [[1, 5]]})
                          for run in doc["runs"]])
    rc, _, err = report(["--plot", f"{tmp}/fig", d])
    with open(f"{tmp}/fig/cdf.svg") as f:
        svg = f.read()
    for row in ("a.off", "b.off"):
        if f"cdf-preempt-{row}" not in svg or f">{row}<" not in svg:
            raise Failed(f"exit {rc}: no series or legend entry of {row}")


def t_tick_slack(tmp):
    """tick_slack as a number: 0 keeps icount rounds exact, 1 does not."""
    for slack, want in ((0, True), (1, False), ("0", True)):
        d = results(f"{tmp}/ts{slack!r}", dict(ICOUNT, tick_slack=slack),
                    {"a": [75] * 3, "b": [91] * 3})
        expect(f"exact at tick_slack {slack!r}",
               bool(irq_row(report_json([d]), "b.off").get("exact")), want)


def t_schema(tmp):
    """report.py's JSON has its schema; results of an unknown one are
    refused."""
    d = results(f"{tmp}/sc", TCG, {"a": [1] * 2, "b": [1] * 2})
    expect("report schema", report_json([d])["schema"], 1)
    d = results(f"{tmp}/sc9", TCG, {"a": [1] * 2}, schema=9)
    expect_refusal(*report([d])[::2], ["schema 9"])


def t_malformed(tmp):
    """Bad input: exit 1, one line, no traceback."""
    def doc_with(name, change, text=None):
        return edit(results(f"{tmp}/{name}", TCG,
                            {"a": [1] * 2, "b": [1] * 2}), change, text)

    def fig(value):
        return setitem(["runs", 1, "summary", "irq.median"], value)

    cases = [
        ([f"{tmp}/nosuch"], "no such directory"),
        ([os.makedirs(f"{tmp}/empty") or f"{tmp}/empty"], "no results.json"),
        ([doc_with("list", lambda d: d.clear())], "not a tracerbench"),
        ([doc_with("runs", setitem(["runs"], {}))], "runs is not a list"),
        ([doc_with("meta", delitem(["runs", 0, "meta", "round"]))],
         "meta.round is not a int"),
        ([doc_with("kern", setitem(["runs", 0, "meta", "kernel"], 5))],
         "meta.kernel is not a str"),
        ([doc_with("fig", setitem(["runs", 1, "summary", "irq.median"],
                                  "x"))], "irq.median is not a number"),
        ([doc_with("nofig", delitem(["runs", 1, "summary", "irq.p99"]))],
         "has no irq.p99"),
        ([doc_with("hist", setitem(["runs", 0, "histogram"],
                                   {"irq": [[1]]}))], "histogram.irq"),
        ([doc_with("twice", lambda d: d["runs"].append(d["runs"][0]))],
         "two runs of a.off in round 1"),
        ([doc_with("sch2", setitem(["schema"], 2))], "meta.pos"),
        (["--ns", doc_with("hz0", setitem(["runs", 1, "summary",
                                           "counter_hz"], 0))],
         "a.off (run a.off.r2"),
        (["--ns", doc_with("nohz", delitem(["runs", 2, "summary",
                                            "counter_hz"]))],
         "b.off (run b.off.r1"),
        ([doc_with("hlist", setitem(["runs", 0, "histogram"], []))],
         "histogram is not an object"),
        ([doc_with("plist", setitem(["runs", 0, "per_cpu"], []))],
         "per_cpu is not an object"),
        ([doc_with("pcpu", setitem(["runs", 0, "per_cpu"], {"irq": [
            {"cpu": 1.5, "median": 1}]}))], "per_cpu.irq"),
        ([doc_with("kent", setitem(["kernels", "a"], 5))],
         "kernels.a is not an object"),
        ([doc_with("nan", fig(float("nan")))], "NaN is not a number"),
        ([doc_with("inf", fig(float("-inf")))], "-Infinity is not a number"),
        ([doc_with("big", fig("BIG"), ('"BIG"', "1e999"))],
         "irq.median is not a number"),
        ([doc_with("bpos", setitem(["runs", 0, "meta", "boot_pos"], True))],
         "meta.boot_pos is not an int"),
    ]
    os.makedirs(f"{tmp}/badjson")
    with open(f"{tmp}/badjson/results.json", "w") as f:
        f.write("{\"format\": ")
    cases.append(([f"{tmp}/badjson"], "not JSON"))
    for dirs, words in cases:
        try:
            expect_refusal(*report(dirs)[::2], [words])
        except Failed as e:
            raise Failed(f"{words}: {e}")


def t_no_numpy(tmp):
    """A Python without numpy and scipy (here /usr/bin/python3 -S, which
    leaves out the site directories that hold them): the Debian packages
    named, no traceback."""
    d = results(f"{tmp}/np", TCG, {"a": [1] * 2, "b": [1] * 2})
    probe = subprocess.run([sys.executable, "-S", "-c", "import numpy"],
                           capture_output=True)
    if probe.returncode == 0:
        raise Failed("python3 -S still imports numpy: the case is not made")
    rc, _, err = report([d], python=sys.executable)
    expect_refusal(rc, err, ["cannot import numpy",
                             "python3-numpy python3-scipy"])


def t_reference_kernel(tmp):
    """--reference KERNEL: each row against that kernel's row of the same
    state; a state it lacks is compared with nothing; no such kernel or
    row is refused."""
    d = results(f"{tmp}/k", ICOUNT, {"a.off": [75] * 3, "a.on": [1000] * 3,
                                    "b.off": [91] * 3, "b.on": [1016] * 3,
                                    "c.out": [4] * 3})
    doc = report_json([d], ref="a")
    for row, ref, diff in (("b.off", "a.off", 16), ("b.on", "a.on", 16)):
        e = irq_row(doc, row)
        expect(f"{row}'s reference", e["reference_row"], ref)
        expect(f"{row} against {ref}", (e["diff"], e["exact"]), (diff, True))
    expect("a.on is a reference", irq_row(doc, "a.on").get("reference"),
           True)
    e = irq_row(doc, "c.out")
    expect("c.out against nothing", (e["reference_row"], "diff" in e),
           (None, False))
    rc, _, err = report(["--reference", "zz", d])
    expect_refusal(rc, err, ["no row zz and no kernel zz", "b.on"])


# The synthetic results of the golden cover letter's table
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden",
                      "lkml.txt")


TESTS = [
    ("unpaired rows: Mann-Whitney, exact p", t_unpaired),
    ("rows of one directory paired on their common rounds", t_common_rounds),
    ("Mann-Whitney exact with ties, p never below min_p", t_mann_whitney),
    ("sign-flip min_p of the nonzero differences", t_flip_zeros),
    ("smallest p shown, unreachable alpha warned of", t_min_p),
    ("Holm over the report's rows and primitives", t_holm),
    ("the interval at 1 - alpha", t_ci_level),
    ("a row's bootstrap seed is its own", t_seed),
    ("counter rates, arches and units refused; --ns", t_units),
    ("every run's counter rate checked and printed", t_rates),
    ("the recorded order shown, a fixed one warned of", t_order),
    ("collect.sh rotates the order and records it", t_rotation),
    ("an average below 0 keeps its sign everywhere", t_negative_average),
    ("--plot without histograms", t_plot_empty),
    ("--plot's legend from every plot", t_plot_legend),
    ("tick_slack as a number", t_tick_slack),
    ("schema versions", t_schema),
    ("malformed input: exit 1, one line", t_malformed),
    ("no numpy or scipy: the packages named", t_no_numpy),
    ("--reference KERNEL: each row against the same state", t_reference_kernel),
]


def main(cases=None, tests=None):
    """Run the cases and tests (this file's by default), as KTAP."""
    cases = CASES if cases is None else cases
    tests = TESTS if tests is None else tests
    passed = failed = 0
    print("KTAP version 1")
    print(f"1..{len(cases) + len(tests)}")
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, env, a, b, alpha, want in cases:
            n += 1
            path = results(os.path.join(tmp, str(n)), env, {"a": a, "b": b})
            e = irq_row(report_json([path], alpha=alpha), "b.off")
            bad = check(e, want, alpha)
            for line in bad + [f"row: {json.dumps(e)}"] if bad else []:
                print(f"# {line}")
            print(f"{'not ok' if bad else 'ok'} {n} report: {name}")
            failed += bool(bad)
            passed += not bad
        for name, t in tests:
            n += 1
            work = os.path.join(tmp, t.__name__)
            os.makedirs(work)
            try:
                t(work)
                bad = None
            except (Failed, AssertionError, subprocess.CalledProcessError,
                    OSError, KeyError, StopIteration) as e:
                bad = f"{type(e).__name__}: {e}"
            if bad:
                print(f"# {bad}")
            print(f"{'not ok' if bad else 'ok'} {n} report: {name}")
            failed += bool(bad)
            passed += not bad
            shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
