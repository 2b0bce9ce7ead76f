#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""report.py: the tables of a patch series' cover letter from the results
directories of tools/bench.sh (or tools/guest/collect.sh), with the
difference of each row to a reference row, its confidence interval and a
test of significance.

Per primitive, one row per kernel and state. Each figure of a row is the
median over its rounds of that figure of each round's run; "hook" is the
traced primitive less its raw form (raw_irq, raw_irq_save,
preempt_notrace) in the same run. The difference is that of the rows'
medians; its interval comes from a bootstrap over rounds. Rows of one
results directory were measured side by side, round by round: they are
paired on the rounds both have, and an exact sign-flip test of the
per-round differences gives p. Other rows (other directories: other
boots or machines) get a two-sided exact Mann-Whitney U test. The p
values of a report are Holm-corrected together; each interval is at
1 - alpha alone. Where every round of both rows gave the same figure
(icount), the difference is exact and the report says so instead.
"""

import argparse
import hashlib
import json
import math
import os
import signal
import sys

# teststats.py, beside this file, whatever directory runs it
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from teststats import (bootstrap_ci, flip_min_p, holm,  # noqa: E402
                       mann_whitney, median, sign_flip)
from plots import plot  # noqa: E402
from reportfmt import lab_words, machine_words, print_lkml, print_text  # noqa: E402
from reportcode import code_lines, code_table  # noqa: E402
from cfacts import CFactsError, facts  # noqa: E402

try:
    FACTS = facts()
except CFactsError as e:
    sys.exit(f"report.py: {e}")
# the primitives in the module's order, and the untraced form of each
# traced one (prims.h)
PRIMS = FACTS["prims"]
RAW = FACTS["untraced"]
STATE_ORDER = {"out": 0, "off": 1, "on": 2}
FIGURES = ["median", "average", "max_avg", "p99", "p99.9"]
# results.json's schemas read here: 1 has no "schema" key and no order
# of the runs within their rounds (meta's pos and after), 2 has both
SCHEMAS = (1, 2)
# of report.py's own --format json
REPORT_SCHEMA = 1
# When two runs' counter rates are one rate. counter_hz is the counter's
# ticks over ktime's nanoseconds across the run. The counters read have a
# fixed rate (x86's invariant TSC, arm64's generic timer); what varies is
# ktime's measure of it: on x86 ktime rests on the boot's calibration of
# the TSC, below 500 ppm off (arch/x86/kernel/tsc.c), and NTP slews it by
# at most 500 ppm (MAXFREQ). Two runs of one counter, in any boots, then
# measure rates at most 2 * (500 + 500) ppm apart. Under icount x86's TSC
# counts exactly 10^9 a second of guest time, and runs measured it at
# 1000006982 to 1000007191 Hz (compare.sh --icount on x86-64): 7 ppm
# from the truth, 0.2 ppm between boots. Rates further apart than this are
# different counters; within it ticks are taken as one unit, which may
# leave an error of that share of a figure (--ns leaves none).
HZ_TOLERANCE = 0.002
# The PMU clocks' units, each its clock's name (clocks.h, interface.c):
# counts of the core's own events, not of time. counter_hz is 0 for
# instructions; for core cycles it is the core's rate in the kernel over
# the run, which moves with its frequency, so neither turns into ns, and
# two runs' rates need not agree.
COUNT_UNITS = tuple(FACTS["pmu_clocks"])


class ReportError(Exception):
    pass


def need_modules(*names):
    """Import names, or say which Debian packages provide them."""
    pkgs = {"numpy": "python3-numpy", "scipy": "python3-scipy",
            "matplotlib": "python3-matplotlib"}
    for name in names:
        try:
            __import__(name)
        except ImportError:
            raise ReportError(
                f"{sys.executable} cannot import {name}: install "
                f"{' '.join(pkgs[n] for n in names)} (Debian), or run "
                f"report.py with a Python that has them (/usr/bin/python3)")


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and \
        math.isfinite(v)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_doc(path, doc):
    """That doc is a results document report.py can read, or why not."""
    def bad(what):
        return ReportError(f"{path}: malformed results: {what}")

    if not isinstance(doc, dict) or \
            doc.get("format") != "tracerbench-results 1":
        raise ReportError(f"{path}: not a tracerbench results document")
    schema = doc.get("schema", 1)
    if not isinstance(schema, int) or isinstance(schema, bool) or \
            schema not in SCHEMAS:
        raise ReportError(f"{path}: schema {schema!r}: report.py reads "
                          f"schemas {', '.join(map(str, SCHEMAS))}")
    for key in ("env", "kernels"):
        if not isinstance(doc.get(key, {}), dict):
            raise bad(f"{key} is not an object")
    for label, k in doc.get("kernels", {}).items():
        if not isinstance(k, dict):
            raise bad(f"kernels.{label} is not an object")
    runs = doc.get("runs")
    if not isinstance(runs, list):
        raise bad("runs is not a list")
    if not runs:
        raise ReportError(f"{path}: no runs")
    seen = set()
    for i, run in enumerate(runs):
        if not isinstance(run, dict):
            raise bad(f"run {i} is not an object")
        rid = run.get("id", f"#{i}")
        meta, summary = run.get("meta"), run.get("summary")
        if not isinstance(meta, dict) or not isinstance(summary, dict):
            raise bad(f"run {rid} lacks meta or summary")
        want = {"kernel": str, "state": str, "round": int}
        if schema >= 2:
            want.update(pos=int, after=str)
        for key, typ in want.items():
            if not isinstance(meta.get(key), typ) or \
                    isinstance(meta.get(key), bool):
                raise bad(f"run {rid}: meta.{key} is not a "
                          f"{typ.__name__}")
        if "boot_pos" in meta and not is_int(meta["boot_pos"]):
            raise bad(f"run {rid}: meta.boot_pos is not an int")
        key = (meta["kernel"], meta["state"], meta["round"])
        if key in seen:
            raise bad(f"two runs of {key[0]}.{key[1]} in round {key[2]}")
        seen.add(key)
        for k, v in summary.items():
            if (k == "counter_hz" or "." in k) and not is_num(v):
                raise bad(f"run {rid}: summary.{k} is not a number")
        for sect, what in (("histogram", "[LOW, COUNT]"),
                           ("per_cpu", "{cpu, median}")):
            if not isinstance(run.get(sect, {}), dict):
                raise bad(f"run {rid}: {sect} is not an object")
            for prim, items in run.get(sect, {}).items():
                ok = isinstance(items, list) and all(
                    (isinstance(x, list) and len(x) == 2 and
                     all(map(is_num, x))) if sect == "histogram" else
                    (isinstance(x, dict) and is_int(x.get("cpu")) and
                     is_num(x.get("median"))) for x in items)
                if not ok:
                    raise bad(f"run {rid}: {sect}.{prim} is not a list "
                              f"of {what}")


def load_dir(path):
    """The results document of one results directory."""
    doc_path = os.path.join(path, "results.json")
    if not os.path.isdir(path):
        raise ReportError(f"{path}: no such directory")

    def finite_only(name):
        raise ReportError(f"{doc_path}: malformed results: {name} is not "
                          f"a number")

    try:
        with open(doc_path) as f:
            # Python's json reads NaN and Infinity, which JSON has not
            doc = json.load(f, parse_constant=finite_only)
    except FileNotFoundError:
        raise ReportError(f"{path}: no results.json (tools/guest/json.sh "
                          f"{path} > {doc_path} makes one)")
    except (OSError, UnicodeDecodeError) as e:
        raise ReportError(f"{doc_path}: cannot read: {e}")
    except json.JSONDecodeError as e:
        raise ReportError(f"{doc_path}: not JSON: {e}")
    check_doc(doc_path, doc)
    return doc


def build_rows(dirs):
    real = [os.path.realpath(d) for d in dirs]
    for i, r in enumerate(real):
        if r in real[:i]:
            raise ReportError(f"{dirs[i]}: given twice")
    docs = [(d, load_dir(d)) for d in dirs]
    # a label that two directories use is told apart by the directory: by
    # its name, or by its path where two have the same name (results/ of
    # two machines), so that no row ever takes runs from two directories
    seen = {}
    for d, doc in docs:
        for run in doc["runs"]:
            seen.setdefault(run["meta"]["kernel"], set()).add(d)
    names = [os.path.basename(os.path.normpath(d)) for d, _ in docs]
    prefix = {d: names[i] if names.count(names[i]) == 1
              else os.path.normpath(d) for i, (d, _) in enumerate(docs)}
    rows = {}
    order = []
    for di, (d, doc) in enumerate(docs):
        env = doc.get("env", {})
        kernel_order = str(env.get("kernels", "")).split()
        for run in doc["runs"]:
            meta = run["meta"]
            label = meta["kernel"]
            if len(seen[label]) > 1:
                label = f"{prefix[d]}/{label}"
            name = f"{label}.{meta['state']}"
            if name in rows and rows[name]["dir"] != d:
                raise ReportError(f"{d}: rows named {name} in two directories")
            if name not in rows:
                k = meta["kernel"]
                rank = (kernel_order.index(k) if k in kernel_order
                        else len(kernel_order))
                rows[name] = {
                    "name": name, "label": label, "state": meta["state"],
                    "dir": d, "env": env, "schema": doc.get("schema", 1),
                    "kernel": doc.get("kernels", {}).get(meta["kernel"], {}),
                    "runs": [],
                    "key": (di, rank, k, STATE_ORDER.get(meta["state"], 9)),
                }
                order.append(name)
            rows[name]["runs"].append(run)
    for r in rows.values():
        r["runs"].sort(key=lambda run: run["meta"]["round"])
        r["rounds"] = [run["meta"]["round"] for run in r["runs"]]
    order.sort(key=lambda n: rows[n]["key"])
    return rows, order


def per_round(row, prim, fig):
    out = []
    for run in row["runs"]:
        v = run["summary"].get(f"{prim}.{fig}")
        if v is None:
            raise ReportError(f"{row['dir']}: run {run.get('id')} has no "
                              f"{prim}.{fig}")
        out.append(float(v))
    return out


def hook_rounds(row, prim):
    if prim not in RAW:
        return None
    return [a - b for a, b in zip(per_round(row, prim, "median"),
                                  per_round(row, RAW[prim], "median"))]


def run_hz(run):
    """A run's counter rate, or None where its unit is not time (0 or
    absent, or a PMU clock's: COUNT_UNITS)."""
    hz = run["summary"].get("counter_hz", 0)
    if run["summary"].get("unit") in COUNT_UNITS:
        return None
    return float(hz) if hz > 0 else None


def tick_unit(rows, order):
    """What the rows' figures count when not in ns: a PMU clock's unit
    where every run has the same one, else ticks of a counter."""
    units = {r["summary"].get("unit") for n in order for r in rows[n]["runs"]}
    return units.pop() if len(units) == 1 and units <= set(COUNT_UNITS) \
        else "ticks"


def counter_hz(row):
    """The row's counter rate, the median of its runs', or None."""
    hz = [h for h in map(run_hz, row["runs"]) if h is not None]
    return median(hz) if hz else None


def hz_text(hz):
    return "none" if hz is None else f"{hz:.0f}"


def rates_text(runs):
    """The counter rates of runs, lowest to highest, in Hz."""
    hz = sorted({run_hz(r) or 0 for r in runs})
    lo, hi = hz_text(hz[0] or None), hz_text(hz[-1] or None)
    return lo if lo == hi else f"{lo} to {hi}"


def same_rate(h1, h2):
    return abs(h1 - h2) <= HZ_TOLERANCE * max(h1, h2)


def reference_rows(rows, order, arg):
    """Each row's reference row, and the words for it: ARG a row
    (KERNEL.STATE) for every row, the first row without ARG, or a kernel:
    for each row that kernel's row of the same state (None where it has
    no such state, and that row is compared with nothing)."""
    arg = arg or order[0]
    if arg in rows:
        return {n: arg for n in order}, f"{arg}'s"
    if any(rows[n]["label"] == arg for n in order):
        refs = {}
        for n in order:
            r = f"{arg}.{rows[n]['state']}"
            refs[n] = r if r in rows else None
        return refs, f"that of the same state of {arg}"
    raise ReportError(f"no row {arg} and no kernel {arg}; the rows are: "
                      f"{', '.join(order)}")


def check_units(rows, order, refs, in_ns):
    """Refuse to subtract figures of runs that count differently: in
    ticks, every run of every row needs its reference row's arch and
    unit, and its counter rate (the median of its runs') within
    HZ_TOLERANCE; in ns, every run needs a counter rate (an instruction
    count has none)."""
    for name in order:
        ref = refs[name]
        if ref is None:
            continue
        rr = rows[ref]
        r_arch = rr["env"].get("arch")
        r_unit = rr["runs"][0]["summary"].get("unit")
        r_hz = counter_hz(rr)
        row = rows[name]
        arch = row["env"].get("arch")
        for run in row["runs"]:
            unit, hz = run["summary"].get("unit"), run_hz(run)
            this = (f"{name} (run {run.get('id', '?')}: arch {arch}, unit "
                    f"{unit}, counter_hz {hz_text(hz)})")
            if in_ns:
                if hz is None:
                    raise ReportError(f"cannot compare in ns with {ref}: "
                                      f"{this} has no counter_hz, no time "
                                      f"unit")
                continue
            if arch == r_arch and unit == r_unit and (
                    hz == r_hz if None in (hz, r_hz)
                    else same_rate(hz, r_hz)):
                continue
            hint = ("; --ns compares them in ns" if hz and r_hz
                    else "; without a counter_hz each, not in ns either")
            raise ReportError(
                f"cannot subtract ticks across {this} vs {ref} (arch "
                f"{r_arch}, unit {r_unit}, counter_hz {hz_text(r_hz)}, the "
                f"median of its runs'; rates within "
                f"{HZ_TOLERANCE * 100:g}% are one counter's){hint}")


def in_units(row, vals, in_ns):
    """Per-round figures, in ns at each run's counter_hz with in_ns."""
    if not in_ns:
        return vals
    return [v * 1e9 / float(r["summary"]["counter_hz"])
            for v, r in zip(vals, row["runs"])]


def repeats_exactly(row, vals):
    """Whether a row's rounds are known to give the same figure: the clock
    is exact (icount), where one round stands for every other, and all of
    them did. Equal rounds on a timed clock prove nothing: TCG's counter
    moves in steps of 10 to 20 ticks, so medians often coincide. Nor are
    icount figures exact where a tick spans several instructions and a
    median may sit on its edge (tick_slack, arm64's 16 instructions),
    unless the row counts with the PMU, which has no ticks to straddle."""
    slack = row["env"].get("tick_slack", 0)
    counts = row["runs"][0]["summary"].get("unit") in COUNT_UNITS
    return (len(set(vals)) == 1 and row["env"].get("mode") == "tcg-icount"
            and (counts or (slack == 0 or slack == "0") and
                 slack is not False))


def common_rounds(a, b):
    """The rounds in which rows a and b were measured side by side: those
    of one directory (one bench.sh or collect.sh invocation) that both
    have; none for rows of two directories."""
    if a["dir"] != b["dir"]:
        return []
    return [r for r in a["rounds"] if r in set(b["rounds"])]


def of_rounds(row, vals, rounds):
    """The per-round values vals of row, in the given rounds only."""
    by = dict(zip(row["rounds"], vals))
    return [by[r] for r in rounds]


def row_seed(seed, row, ref, prim):
    """A bootstrap seed for one comparison, the same whatever other rows
    the report holds."""
    h = hashlib.sha256(f"{seed}\0{row}\0{ref}\0{prim}".encode()).digest()
    return int.from_bytes(h[:8], "little")


def compare(a, b, pair, exact_rows, args, rng):
    """The difference of row a to reference b, for one primitive; with
    exact_rows, both rows are known to repeat exactly; with pair, a and b
    are the same rounds' figures. p is the test's, before Holm."""
    diff = median(a) - median(b)
    res = {"diff": diff, "ci": None, "p": None, "p_holm": None,
           "test": None, "min_p": None, "mark": ""}
    if exact_rows:
        res["exact"] = True
        res["significant"] = diff != 0
        res["mark"] = "exact" if diff else "="
        return res
    res["exact"] = False
    res["significant"] = False
    if len(a) < 2 or len(b) < 2:
        res["mark"] = "n<2"
        return res
    res["ci"] = bootstrap_ci(a, b, args.bootstrap, 1 - args.alpha, rng, pair)
    if pair:
        d = [x - y for x, y in zip(a, b)]
        res["p"], exact = sign_flip(d, rng)
        res["test"] = "sign-flip" if exact else "sign-flip (sampled)"
        # zero differences take no part in the test
        res["min_p"] = flip_min_p(sum(x != 0 for x in d))
    else:
        res["p"], res["min_p"], exact = mann_whitney(a, b, rng)
        res["test"] = "Mann-Whitney" if exact else "Mann-Whitney (sampled)"
    return res


def judge(entries, alpha):
    """Holm over every test of the report, then the marks. The tests rank
    (Mann-Whitney) or sum (sign-flip) rounds, not the difference of
    medians shown: a difference is marked only if its interval also
    leaves out 0, so that no mark stands beside a difference of 0."""
    tested = [e for e in entries if e.get("p") is not None]
    for e, p in zip(tested, holm([e["p"] for e in tested])):
        e["p_holm"] = p
        lo, hi = e["ci"]
        e["significant"] = p < alpha and (lo > 0 or hi < 0)
        if not e["significant"]:
            e["mark"] = "n.s."
        else:
            e["mark"] = "*" * sum(p < lv for lv in (0.05, 0.01, 0.001)) \
                or "+"
    return len(tested)


def run_order(row):
    """Per round: (place in the round, first after an events toggle or
    the boot), from meta's boot_pos, pos and after; None for schema 1."""
    if row["schema"] < 2:
        return None
    out = []
    for run in row["runs"]:
        m = run["meta"]
        after = m["after"]
        # an id is LABEL.STATE.rROUND
        lead = after == "-" or after.split(".")[-2:-1] != [m["state"]]
        out.append(((m.get("boot_pos", 1), m["pos"]), lead))
    return out


def order_of(row, ref):
    """How the order of the runs in the rounds fell for row against ref:
    rounds where it ran first, rounds each led after a toggle or boot."""
    a, b = run_order(row), run_order(ref)
    rounds = common_rounds(row, ref)
    if a is None or b is None or not rounds:
        return None
    a, b = of_rounds(row, a, rounds), of_rounds(ref, b, rounds)
    return {"rounds": len(a),
            "before_ref": sum(x[0] < y[0] for x, y in zip(a, b)),
            "leads": sum(x[1] for x in a), "ref_leads": sum(y[1] for y in b)}


def analyse(rows, order, refs, prims, args):
    tables = []
    for prim in prims:
        entries = []
        for name in order:
            row = rows[name]
            ref = refs[name]
            e = {"row": name, "kernel": row["label"], "state": row["state"],
                 "rounds": len(row["runs"]), "reference_row": ref}
            for fig in FIGURES:
                vals = per_round(row, prim, fig)
                e[fig] = median(vals)
                if fig == "median":
                    e["median_rounds"] = vals
                    vals = in_units(row, vals, args.ns)
                    e["identical_rounds"] = repeats_exactly(row, vals)
                    compared = vals
            h = hook_rounds(row, prim)
            e["hook"] = median(h) if h is not None else None
            e["counter_hz"] = counter_hz(row)
            if ref is None:
                entries.append(e)
                continue
            rref = rows[ref]
            ref_rounds = in_units(rref, per_round(rref, prim, "median"),
                                  args.ns)
            e["ref_rounds"] = len(rref["runs"])
            if name == ref:
                e["reference"] = True
            else:
                ref_exact = repeats_exactly(rref, ref_rounds)
                rounds = common_rounds(row, rref)
                e["paired"] = bool(rounds)
                e["paired_rounds"] = len(rounds)
                e["order"] = order_of(row, rref)
                a, b = compared, ref_rounds
                if rounds:
                    a = of_rounds(row, a, rounds)
                    b = of_rounds(rref, b, rounds)
                import numpy as np
                rng = np.random.default_rng(
                    row_seed(args.seed, name, ref, prim))
                e.update(compare(a, b, bool(rounds),
                                 e["identical_rounds"] and ref_exact,
                                 args, rng))
            entries.append(e)
        tables.append({"primitive": prim, "rows": entries})
    return tables


def machine_warnings(rows, order):
    """What tools/guest/machine.sh found amiss on a measured machine
    (--host, --target: env's machine_warning.WHAT) before the first run,
    and at a kernel's boots (--target: its runs' meta) where that was
    not found before; and the runs that began with a load average above
    0.5 (meta's load)."""
    out, dirs, at_boot = [], [], {}
    for n in order:
        d = rows[n]["dir"]
        before = [v for k, v in sorted(rows[n]["env"].items())
                  if k.startswith("machine_warning.")]
        if d not in dirs:
            dirs.append(d)
            out += [f"{d}: {v}" for v in before]
        # a boot's, once for its kernel (not for each state it ran)
        kernel = at_boot.setdefault(rows[n]["label"], {})
        for run in rows[n]["runs"]:
            for k, v in sorted(run["meta"].items()):
                if k.startswith("machine_warning.") and v not in before:
                    kernel.setdefault(v, set()).add(run["meta"]["round"])
    for label, warned in at_boot.items():
        for v, rounds in warned.items():
            s = "s" if len(rounds) > 1 else ""
            out.append(f"kernel {label}: at its boot{s} of round{s} "
                       f"{', '.join(map(str, sorted(rounds)))}: {v}")
    for n in order:
        loaded = [run["meta"] for run in rows[n]["runs"]
                  if float(run["meta"].get("load", 0) or 0) > 0.5]
        if loaded:
            worst = max(float(m["load"]) for m in loaded)
            out.append(f"{n}: {len(loaded)} of its {len(rows[n]['runs'])} "
                       f"runs began with a load average above 0.5 (up to "
                       f"{worst:g}): other work shared the CPUs")
    return out


def warnings_of(tables, alpha):
    """What the reader must know of the tests' power and of the order."""
    out = []
    tested = [e for t in tables for e in t["rows"] if e.get("p") is not None]
    m = len(tested)
    if m and min(e["min_p"] for e in tested) * m >= alpha:
        out.append(f"no difference can be significant at {alpha:g}: the "
                   f"smallest p the rounds allow is "
                   f"{min(e['min_p'] for e in tested):.2g}, and Holm over "
                   f"{m} tests needs one below {alpha / m:.2g}: give more "
                   f"rounds")
    first = tables[0]["rows"] if tables else []
    for e in first:
        ref, nref = e["reference_row"], e.get("ref_rounds")
        if e.get("paired") and not e["paired_rounds"] == e["rounds"] == nref:
            out.append(f"{e['row']}: paired with {ref} on the "
                       f"{e['paired_rounds']} rounds both have (of its "
                       f"{e['rounds']} and {ref}'s {nref}): its diff, CI "
                       f"and test are of those rounds only")
    seen = set()
    for e in tested:
        if e["row"] in seen:
            continue
        seen.add(e["row"])
        if e["min_p"] >= alpha:
            n = e["paired_rounds"] if e["paired"] else e["rounds"]
            out.append(f"{e['row']}: {n} rounds ({e['test']}) "
                       f"allow no p below {e['min_p']:.2g}, never below "
                       f"--alpha {alpha:g}")
        o = e.get("order")
        if o and o["rounds"] >= 2 and (o["before_ref"] in (0, o["rounds"])
                                       or abs(o["leads"] - o["ref_leads"])
                                       == o["rounds"]):
            out.append(f"{e['row']}: the order of the runs did not vary "
                       f"against {e['reference_row']} (first in {o['before_ref']} of "
                       f"{o['rounds']} rounds, first after a toggle in "
                       f"{o['leads']} against {o['ref_leads']}): an effect "
                       f"of the order is confounded with the difference")
    return out


def describe(rows, order):
    lines = []
    dirs = []
    for name in order:
        if rows[name]["dir"] not in dirs:
            dirs.append(rows[name]["dir"])
    for d in dirs:
        env = next(rows[n]["env"] for n in order if rows[n]["dir"] == d)
        mode = env.get("mode", "?")
        where = {"tcg": "QEMU TCG", "tcg-icount":
                 "QEMU TCG, -icount shift=0,sleep=off",
                 "host": "the running kernel of the host"}.get(mode, mode)
        if "target" in env:
            where = f"the test box {env['target']}"
        if "machine_cpu_model" in env:
            where += f" ({machine_words(env)})"
        if "lava" in env:
            where = lab_words(env) if mode == "host" else \
                f"{where}, {lab_words(env)}"
        # the host ran the guests, unless a lab's worker did
        host = "submitted from a host with CPU" \
            if env.get("lava", "local") != "local" else "host CPU"
        lines.append(f"{d}: {env.get('arch', '?')}, {where}; "
                     f"{host} {env.get('host_cpu', '?')}, "
                     f"load {env.get('host_load', '?')}; "
                     f"nr_samples {env.get('nr_samples', '?')}, "
                     f"rounds {env.get('rounds', '?')}, "
                     f"tracerbench {env.get('tracerbench', '?')}")
        for name in order:
            r = rows[name]
            if r["dir"] != d or r["state"] != min(
                    (rows[n]["state"] for n in order
                     if rows[n]["label"] == r["label"]),
                    key=lambda s: STATE_ORDER.get(s, 9)):
                continue
            k = r["kernel"]
            runs = [run for n in order if rows[n]["label"] == r["label"]
                    for run in rows[n]["runs"]]
            lines.append(f"  {r['label']}: {k.get('release', '?')}, config "
                         f"{k.get('config_hash', '?')}, "
                         f"counter_hz {rates_text(runs)}, "
                         f"{k.get('spec', k.get('kind', ''))}")
    return lines


def order_lines(tables, rows):
    """How the rounds ordered each row's runs against its reference's."""
    out = []
    for e in tables[0]["rows"] if tables else []:
        ref = e["reference_row"]
        if ref is None:
            continue
        if rows[ref]["schema"] < 2:
            line = (f"order of the runs within rounds: not recorded in "
                    f"{rows[ref]['dir']} (results schema 1)")
            if line not in out:
                out.append(line)
            continue
        o = e.get("order")
        if o:
            out.append(f"order: {e['row']} ran before {ref} in "
                       f"{o['before_ref']} of {o['rounds']} rounds; first "
                       f"after an events toggle or the boot in {o['leads']} "
                       f"({ref}: {o['ref_leads']})")
    return out


def main():
    # a reader that stops early (| head) ends us quietly, as it would cat
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    ap = argparse.ArgumentParser(
        description="Tables of tracepoint cost from tools/bench.sh results")
    ap.add_argument("dirs", nargs="+", metavar="RESULTS_DIR")
    ap.add_argument("--format", choices=["text", "markdown", "json", "lkml"],
                    default="text",
                    help="lkml: the cover letter's table, plain text in 72 "
                         "columns")
    ap.add_argument("--code", action="store_true",
                    help="the code table after the timing tables (JSON "
                         "always has it)")
    ap.add_argument("--reference", metavar="KERNEL[.STATE]",
                    help="the row to compare with (default: the first), or "
                         "a kernel: each row with its row of the same state")
    ap.add_argument("--primitives", metavar="LIST",
                    default="irq,preempt,irq_save",
                    help="comma-separated, or 'all' (default: "
                         "irq,preempt,irq_save)")
    ap.add_argument("--ns", action="store_true",
                    help="compare in ns, each run at its counter_hz: rows "
                         "of different counter rates or arches")
    ap.add_argument("--plot", metavar="DIR",
                    help="write cdf.svg/png and per_cpu.svg/png there")
    ap.add_argument("--alpha", type=float, default=0.05,
                    help="the level of the tests, after Holm; the "
                         "intervals are at 1 - alpha (default 0.05)")
    ap.add_argument("--bootstrap", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    if not 0 < args.alpha < 1:
        ap.error("--alpha wants a level between 0 and 1")
    if args.bootstrap < 100:
        ap.error("--bootstrap wants at least 100 resamples")
    prims = (PRIMS if args.primitives == "all"
             else args.primitives.split(","))
    for p in prims:
        if p not in PRIMS:
            ap.error(f"unknown primitive {p} (one of {', '.join(PRIMS)})")
    try:
        need_modules("numpy", "scipy")
        rows, order = build_rows(args.dirs)
        refs, ref_words = reference_rows(rows, order, args.reference)
        check_units(rows, order, refs, args.ns)
        args.tick_unit = tick_unit(rows, order)
        tables = analyse(rows, order, refs, prims, args)
        code = code_table(tables, rows, order, refs,
                          [p for p in prims if p != "none"])
        ntests = judge([e for t in tables for e in t["rows"]], args.alpha)
        warnings = warnings_of(tables, args.alpha) + \
            machine_warnings(rows, order)
        if args.plot:
            need_modules("matplotlib")
        figures = plot(rows, order, prims, args.plot) \
            if args.plot else []
    except ReportError as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 1
    if args.format == "json":
        for w in warnings:
            print(f"report.py: warning: {w}", file=sys.stderr)
        json.dump({"schema": REPORT_SCHEMA,
                   "reference": args.reference or order[0],
                   "alpha": args.alpha, "ci_level": 1 - args.alpha,
                   "unit": "ns" if args.ns else args.tick_unit,
                   "correction": "holm", "tests": ntests,
                   "warnings": warnings,
                   "environment": {d: rows[next(
                       n for n in order if rows[n]["dir"] == d)]["env"]
                       for d in args.dirs},
                   "tables": tables, "code": code, "figures": figures},
                  sys.stdout, indent=1)
        print()
    else:
        lines = describe(rows, order), order_lines(tables, rows)
        if args.format == "lkml":
            # the table is pasted as it is: what to know goes to stderr
            for w in warnings:
                print(f"report.py: warning: {w}", file=sys.stderr)
            print_lkml(tables, rows, order, ref_words, args)
        else:
            print_text(tables, lines, ref_words, args,
                       args.format == "markdown", ntests, warnings)
        if args.code:
            # the executed medians stay in ticks (or counts) with --ns
            for line in code_lines(code, args.tick_unit,
                                   args.format == "markdown"):
                print(line)
        for f in figures:
            print(f"figure: {f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
