#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""report.py: the tables of a patch series' cover letter from the results
directories of tools/bench.sh (or tools/guest/collect.sh), with the
difference of each row to a reference row, its 95% confidence interval
and a test of significance.

Per primitive, one row per kernel and state. Each figure of a row is the
median over its rounds of that figure of each round's run; "hook" is the
traced primitive less its raw form (raw_irq, raw_irq_save,
preempt_notrace) in the same run. The difference is that of the rows'
medians; its interval comes from a bootstrap over rounds, and the
significance mark from a two-sided Mann-Whitney U test over the rounds'
medians. Where every round of both rows gave the same figure (icount),
the difference is exact and the report says so instead.
"""

import argparse
import json
import math
import os
import sys

PRIMS = ["irq", "preempt", "irq_save", "raw_irq", "raw_irq_save",
         "preempt_notrace", "none"]
RAW = {"irq": "raw_irq", "irq_save": "raw_irq_save",
       "preempt": "preempt_notrace"}
STATE_ORDER = {"out": 0, "off": 1, "on": 2}
FIGURES = ["median", "average", "max_avg", "p99", "p99.9"]


class ReportError(Exception):
    pass


def median(values):
    v = sorted(values)
    n = len(v)
    if not n:
        return float("nan")
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def load_dir(path):
    """The runs of one results directory, grouped into rows."""
    doc_path = os.path.join(path, "results.json")
    if not os.path.isdir(path):
        raise ReportError(f"{path}: no such directory")
    try:
        with open(doc_path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise ReportError(f"{path}: no results.json (tools/guest/json.sh "
                          f"{path} > {doc_path} makes one)")
    except json.JSONDecodeError as e:
        raise ReportError(f"{doc_path}: not JSON: {e}")
    if doc.get("format") != "tracerbench-results 1":
        raise ReportError(f"{doc_path}: not a tracerbench results document")
    if not doc.get("runs"):
        raise ReportError(f"{doc_path}: no runs")
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
        kernel_order = env.get("kernels", "").split()
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
                    "dir": d, "env": env,
                    "kernel": doc.get("kernels", {}).get(meta["kernel"], {}),
                    "runs": [],
                    "key": (di, rank, k, STATE_ORDER.get(meta["state"], 9)),
                }
                order.append(name)
            rows[name]["runs"].append(run)
    for r in rows.values():
        r["runs"].sort(key=lambda run: run["meta"].get("round", 0))
    order.sort(key=lambda n: rows[n]["key"])
    return rows, order


def per_round(row, prim, fig):
    out = []
    for run in row["runs"]:
        v = run["summary"].get(f"{prim}.{fig}")
        if v is None:
            raise ReportError(f"{row['dir']}: run {run['id']} has no "
                              f"{prim}.{fig}")
        out.append(float(v))
    return out


def hook_rounds(row, prim):
    if prim not in RAW:
        return None
    return [a - b for a, b in zip(per_round(row, prim, "median"),
                                  per_round(row, RAW[prim], "median"))]


def counter_hz(row):
    hz = [float(r["summary"].get("counter_hz", 0)) for r in row["runs"]]
    hz = [h for h in hz if h > 0]
    return median(hz) if hz else None


def repeats_exactly(row, vals):
    """Whether a row's rounds are known to give the same figure: the clock
    is exact (icount), where one round stands for every other, and all of
    them did. Equal rounds on a timed clock prove nothing: TCG's counter
    moves in steps of 10 to 20 ticks, so medians often coincide. Nor are
    icount figures exact where a tick spans several instructions and a
    median may sit on its edge (tick_slack, arm64's 16 instructions)."""
    return (len(set(vals)) == 1 and row["env"].get("mode") == "tcg-icount"
            and row["env"].get("tick_slack", "0") == "0")


def bootstrap_ci(a, b, n, rng):
    """95% interval of median(a) - median(b), resampling rounds."""
    import numpy as np
    a = np.asarray(a)
    b = np.asarray(b)
    ia = rng.integers(0, len(a), size=(n, len(a)))
    ib = rng.integers(0, len(b), size=(n, len(b)))
    d = np.median(a[ia], axis=1) - np.median(b[ib], axis=1)
    lo, hi = np.percentile(d, [2.5, 97.5])
    return float(lo), float(hi)


def compare(a, b, exact_rows, args, rng):
    """The difference of row a to reference b, for one primitive; with
    exact_rows, both rows are known to repeat exactly."""
    from scipy.stats import mannwhitneyu
    diff = median(a) - median(b)
    res = {"diff": diff, "ci": None, "p": None, "mark": ""}
    if exact_rows:
        res["exact"] = True
        res["significant"] = diff != 0
        res["mark"] = "exact" if diff else "="
        return res
    res["exact"] = False
    if len(a) < 2 or len(b) < 2:
        res["mark"] = "n<2"
        return res
    res["ci"] = bootstrap_ci(a, b, args.bootstrap, rng)
    p = float(mannwhitneyu(a, b, alternative="two-sided").pvalue)
    res["p"] = p
    # Mann-Whitney tests the order of the rounds, not the difference of
    # medians shown: a difference is marked only if its interval also
    # leaves out 0, so that no mark stands beside a difference of 0.
    lo, hi = res["ci"]
    res["significant"] = p < args.alpha and (lo > 0 or hi < 0)
    if not res["significant"]:
        res["mark"] = "n.s."
    else:
        res["mark"] = "*" * sum(p < level for level in (0.05, 0.01, 0.001))
        res["mark"] = res["mark"] or "+"
    return res


def analyse(rows, order, ref, prims, args):
    import numpy as np
    rng = np.random.default_rng(args.seed)
    tables = []
    for prim in prims:
        ref_rounds = per_round(rows[ref], prim, "median")
        ref_exact = repeats_exactly(rows[ref], ref_rounds)
        entries = []
        for name in order:
            row = rows[name]
            e = {"row": name, "kernel": row["label"], "state": row["state"],
                 "rounds": len(row["runs"])}
            for fig in FIGURES:
                vals = per_round(row, prim, fig)
                e[fig] = median(vals)
                if fig == "median":
                    e["median_rounds"] = vals
                    e["identical_rounds"] = repeats_exactly(row, vals)
            h = hook_rounds(row, prim)
            e["hook"] = median(h) if h is not None else None
            hz = counter_hz(row)
            e["counter_hz"] = hz
            if name == ref:
                e["reference"] = True
            else:
                e.update(compare(e["median_rounds"], ref_rounds,
                                 e["identical_rounds"] and ref_exact,
                                 args, rng))
            entries.append(e)
        tables.append({"primitive": prim, "rows": entries})
    return tables


def ns(ticks, hz):
    if ticks is None or not hz:
        return None
    return ticks * 1e9 / hz


def fmt(v, nd=1):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if float(v).is_integer():
        return str(int(v))
    return f"{v:.{nd}f}"


def sfmt(v, nd=1):
    if v is None:
        return "-"
    s = fmt(v, nd)
    return s if v < 0 or s == "0" else "+" + s


def diff_cells(e):
    """(difference, CI, ns, p, mark) as strings."""
    if e.get("reference"):
        return "ref", "", "", "", ""
    d = e["diff"]
    d_ns = ns(d, e["counter_hz"])
    ns_s = sfmt(d_ns, 2) if d_ns is not None else "-"
    if e.get("exact"):
        return sfmt(d), "exact", ns_s, "-", e["mark"]
    if e["ci"] is None:
        return sfmt(d), "-", ns_s, "-", e["mark"]
    lo, hi = e["ci"]
    return (sfmt(d), f"[{sfmt(lo)}, {sfmt(hi)}]", ns_s,
            f"{e['p']:.2g}", e["mark"])


HEAD = ["kernel.state", "n", "median", "(ns)", "average", "max_avg", "p99",
        "p99.9", "hook", "diff", "95% CI", "diff ns", "p", "sig"]


def table_cells(t):
    out = []
    for e in t["rows"]:
        d, ci, dns, p, mark = diff_cells(e)
        out.append([e["row"], str(e["rounds"]), fmt(e["median"]),
                    fmt(ns(e["median"], e["counter_hz"]), 2),
                    fmt(e["average"], 3), fmt(e["max_avg"], 1),
                    fmt(e["p99"]), fmt(e["p99.9"]), fmt(e["hook"]),
                    d, ci, dns, p, mark])
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
        lines.append(f"{d}: {env.get('arch', '?')}, {where}; "
                     f"host CPU {env.get('host_cpu', '?')}, "
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
            hz = counter_hz(r)
            lines.append(f"  {r['label']}: {k.get('release', '?')}, config "
                         f"{k.get('config_hash', '?')}, "
                         f"counter {f'{hz / 1e6:.1f} MHz' if hz else '?'}, "
                         f"{k.get('spec', k.get('kind', ''))}")
    return lines


def exact_note(t):
    ex = [e for e in t["rows"] if e["identical_rounds"]]
    if ex and len(ex) == len(t["rows"]):
        return ("every round of every row gave the same median: "
                "no spread to show")
    return None


def print_text(tables, rows, order, ref, args, md):
    print("tracerbench: tracepoint cost per primitive, ticks per pair "
          "(ns at the runs' counter_hz)")
    for line in describe(rows, order):
        print(("- " if md else "") + line)
    print(f"each figure: the median over rounds of that figure of each "
          f"round's run; diff: median minus {ref}'s,")
    print(f"95% CI by bootstrap over rounds ({args.bootstrap} resamples), "
          f"p from a two-sided Mann-Whitney U over rounds;")
    print(f"sig: significant at p<{args.alpha:g} with a CI that leaves out 0: "
          f"* p<0.05, ** p<0.01, *** p<0.001")
    print("(+ above 0.05); n.s. otherwise; exact where both rows ran under "
          "icount and every round of each is identical, = where they are equal")
    for t in tables:
        cells = table_cells(t)
        print()
        if md:
            print(f"**{t['primitive']}**")
            print()
            print("| " + " | ".join(HEAD) + " |")
            print("|" + "|".join("---" for _ in HEAD) + "|")
            for c in cells:
                print("| " + " | ".join(c) + " |")
        else:
            print(t["primitive"])
            widths = [max(len(x) for x in col)
                      for col in zip(HEAD, *cells)]
            for c in [HEAD] + cells:
                print("  " + " ".join(x.ljust(w) if i == 0 else x.rjust(w)
                                     for i, (x, w) in
                                     enumerate(zip(c, widths))).rstrip())
        note = exact_note(t)
        if note:
            print()
            print(("_" + note + "_") if md else "  " + note)


def merged_histogram(row, prim):
    acc = {}
    for run in row["runs"]:
        for low, count in run.get("histogram", {}).get(prim, []):
            acc[low] = acc.get(low, 0) + count
    return sorted(acc.items())


def per_cpu_medians(row, prim):
    acc = {}
    for run in row["runs"]:
        for c in run.get("per_cpu", {}).get(prim, []):
            acc.setdefault(int(c["cpu"]), []).append(float(c["median"]))
    return sorted((cpu, median(v)) for cpu, v in acc.items())


def plot(rows, order, prims, outdir):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["svg.hashsalt"] = "tracerbench"
    import matplotlib.pyplot as plt

    os.makedirs(outdir, exist_ok=True)
    ncol = 3
    nrow = (len(prims) + ncol - 1) // ncol
    written = []
    for what in ("cdf", "per_cpu"):
        fig, axes = plt.subplots(nrow, ncol, figsize=(5 * ncol, 3.6 * nrow),
                                 squeeze=False)
        for i, prim in enumerate(prims):
            ax = axes[i // ncol][i % ncol]
            for name in order:
                if what == "cdf":
                    h = merged_histogram(rows[name], prim)
                    if not h:
                        continue
                    total = sum(c for _, c in h)
                    # from 0 at the lowest sample, so that the step shows
                    xs, ys, run = [h[0][0]], [0.0], 0
                    for low, c in h:
                        run += c
                        xs.append(low)
                        ys.append(run / total)
                    line, = ax.step(xs, ys, where="post", label=name)
                else:
                    pc = per_cpu_medians(rows[name], prim)
                    if not pc:
                        continue
                    line, = ax.plot([c for c, _ in pc], [m for _, m in pc],
                                    marker="o", label=name)
                line.set_gid(f"{what}-{prim}-{name}")
            ax.set_title(prim)
            if what == "cdf":
                ax.set_xscale("symlog", linthresh=1)
                ax.set_xlabel("ticks per pair (log)")
                ax.set_ylabel("fraction of samples")
                ax.set_ylim(0, 1.02)
            else:
                ax.set_xlabel("CPU")
                ax.set_ylabel("median, ticks per pair")
                ax.xaxis.get_major_locator().set_params(integer=True)
            ax.grid(True, alpha=0.3)
        for j in range(len(prims), nrow * ncol):
            axes[j // ncol][j % ncol].set_visible(False)
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center",
                   ncol=min(len(labels), 4), frameon=False)
        fig.suptitle("cumulative distribution of the samples, all rounds"
                     if what == "cdf" else "each CPU's median, median over "
                     "rounds")
        fig.tight_layout(rect=(0, 0.12, 1, 0.95))
        for ext in ("svg", "png"):
            path = os.path.join(outdir, f"{what}.{ext}")
            fig.savefig(path, dpi=80)
            written.append(path)
        plt.close(fig)
    return written


def main():
    ap = argparse.ArgumentParser(
        description="Tables of tracepoint cost from tools/bench.sh results")
    ap.add_argument("dirs", nargs="+", metavar="RESULTS_DIR")
    ap.add_argument("--format", choices=["text", "markdown", "json"],
                    default="text")
    ap.add_argument("--reference", metavar="KERNEL.STATE",
                    help="the row to compare with (default: the first)")
    ap.add_argument("--primitives", metavar="LIST",
                    default="irq,preempt,irq_save",
                    help="comma-separated, or 'all' (default: "
                         "irq,preempt,irq_save)")
    ap.add_argument("--plot", metavar="DIR",
                    help="write cdf.svg/png and per_cpu.svg/png there")
    ap.add_argument("--alpha", type=float, default=0.05)
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
        rows, order = build_rows(args.dirs)
        ref = args.reference or order[0]
        if ref not in rows:
            raise ReportError(f"no row {ref}; the rows are: "
                              f"{', '.join(order)}")
        tables = analyse(rows, order, ref, prims, args)
        figures = plot(rows, order, prims, args.plot) \
            if args.plot else []
    except ReportError as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 1
    if args.format == "json":
        json.dump({"reference": ref, "alpha": args.alpha,
                   "environment": {d: load_dir(d).get("env", {})
                                   for d in args.dirs},
                   "tables": tables, "figures": figures},
                  sys.stdout, indent=1)
        print()
    else:
        print_text(tables, rows, order, ref, args, args.format == "markdown")
        for f in figures:
            print(f"figure: {f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
