#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The text forms of tools/report.py's tables: plain text, markdown, and
the cover letter's (lkml), from the tables report.py's analyse() made."""

import math
import sys
import textwrap

from teststats import EXACT_FLIPS, EXACT_RANKS


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


TEST_SHORT = {"sign-flip": "flip", "sign-flip (sampled)": "flip~",
              "Mann-Whitney": "MWU", "Mann-Whitney (sampled)": "MWU~"}


def diff_cells(e, in_ns):
    """(difference, CI, ns, test, p, p Holm, mark) as strings."""
    if e.get("reference"):
        return "ref", "", "", "", "", "", ""
    if e["reference_row"] is None:
        return "-", "", "", "", "", "", ""
    d = e["diff"]
    nd = 2 if in_ns else 1
    d_ns = d if in_ns else ns(d, e["counter_hz"])
    ns_s = sfmt(d_ns, 2) if d_ns is not None else "-"
    if e.get("exact"):
        return sfmt(d, nd), "exact", ns_s, "-", "-", "-", e["mark"]
    if e["ci"] is None:
        return sfmt(d, nd), "-", ns_s, "-", "-", "-", e["mark"]
    lo, hi = e["ci"]
    return (sfmt(d, nd), f"[{sfmt(lo, nd)}, {sfmt(hi, nd)}]", ns_s,
            TEST_SHORT[e["test"]], f"{e['p']:.2g}", f"{e['p_holm']:.2g}",
            e["mark"])


def head(args):
    level = f"{100 * (1 - args.alpha):.10g}% CI"
    return ["kernel.state", "n", "median", "(ns)", "average", "max_avg",
            "p99", "p99.9", "hook", "diff ns" if args.ns else "diff", level,
            "diff ns", "test", "p", "p Holm", "sig"]


def table_cells(t, in_ns):
    out = []
    for e in t["rows"]:
        cells = diff_cells(e, in_ns)
        out.append([e["row"], str(e["rounds"]), fmt(e["median"]),
                    fmt(ns(e["median"], e["counter_hz"]), 2),
                    fmt(e["average"], 3), fmt(e["max_avg"], 1),
                    fmt(e["p99"]), fmt(e["p99.9"]), fmt(e["hook"]),
                    *cells])
        if in_ns:
            del out[-1][11]
    return out


def exact_note(t):
    ex = [e for e in t["rows"] if e["identical_rounds"]]
    if ex and len(ex) == len(t["rows"]):
        return ("every round of every row gave the same median: "
                "no spread to show")
    return None


def smallest_p_lines(tables):
    """The smallest p each design of the report allows: the lowest over
    its rows (ties raise a Mann-Whitney test's floor, zero differences
    lower the rounds a sign-flip test counts)."""
    seen = {}
    for t in tables:
        for e in t["rows"]:
            if e.get("min_p") is not None:
                n = (f"{e['paired_rounds']} paired rounds" if e["paired"]
                     else f"{e['rounds']} against the reference's "
                     f"{e['ref_rounds']} rounds")
                key = (e["test"], n)
                seen[key] = min(seen.get(key, 1.0), e["min_p"])
    return [f"{test} over {n}: {p:.2g}" for (test, n), p in seen.items()]


def print_text(tables, lines, ref_words, args, md, ntests, warnings):
    """The report as text or markdown; lines are report.py's (the
    directories and kernels, the order of the runs)."""
    level = f"{100 * (1 - args.alpha):.10g}%"
    unit = "ns per pair" if args.ns else \
        "ticks per pair (ns at the runs' counter_hz)" \
        if args.tick_unit == "ticks" else f"{args.tick_unit} per pair"
    described, ordered = lines
    print(f"tracerbench: tracepoint cost per primitive, {unit}")
    for line in described:
        print(("- " if md else "") + line)
    print(f"each figure: the median over rounds of that figure of each "
          f"round's run; diff: median minus {ref_words}"
          f"{' in ns, each run at its counter_hz' if args.ns else ''};")
    print(f"{level} CI by bootstrap over rounds ({args.bootstrap} "
          f"resamples, paired rows' rounds resampled as pairs), each at "
          f"{level} alone: not corrected for the report's other tests as "
          f"p Holm is;")
    print("test: flip, exact sign-flip test of the per-round differences, "
          "for rows measured side by side in the same rounds of one "
          "directory, over the rounds both have (flip~: 10^5 random "
          f"flips, above {EXACT_FLIPS} nonzero differences);")
    print("MWU, two-sided Mann-Whitney U over the rounds, exact (with "
          "ties, the exact permutation test of the rank sum; MWU~: 10^5 "
          f"random permutations, above {EXACT_RANKS} rounds in all), for "
          "rows of different directories (boots, machines);")
    print(f"p Holm: p corrected by Holm's method over the {ntests} tests of "
          f"this report; sig: significant at p Holm<{args.alpha:g} with a "
          f"CI that leaves out 0:")
    print("* p Holm<0.05, ** <0.01, *** <0.001 (+ above 0.05); n.s. "
          "otherwise; exact where both rows ran under icount and every "
          "round of each is identical, = where they are equal")
    lines = smallest_p_lines(tables)
    if lines:
        print("smallest p the rounds allow: " + "; ".join(lines))
    for o in ordered:
        print(("- " if md else "") + o)
    for w in warnings:
        print(f"warning: {w}")
    hd = head(args)
    if args.ns:
        del hd[11]
    for t in tables:
        cells = table_cells(t, args.ns)
        print()
        if md:
            print(f"**{t['primitive']}**")
            print()
            print("| " + " | ".join(hd) + " |")
            print("|" + "|".join("---" for _ in hd) + "|")
            for c in cells:
                print("| " + " | ".join(c) + " |")
        else:
            print(t["primitive"])
            widths = [max(len(x) for x in col)
                      for col in zip(hd, *cells)]
            for c in [hd] + cells:
                print("  " + " ".join(x.ljust(w) if i == 0 else x.rjust(w)
                                     for i, (x, w) in
                                     enumerate(zip(c, widths))).rstrip())
        note = exact_note(t)
        if note:
            print()
            print(("_" + note + "_") if md else "  " + note)




# The cover letter's table: at most LKML_WIDTH columns, as a mail's body
LKML_WIDTH = 72
LKML_FIGURES = (("average", 2), ("max_avg", 1), ("median", 1), ("p99", 1))
MODES = {"tcg": "QEMU TCG", "tcg-icount": "QEMU TCG -icount shift=0,sleep=off"}


def hz_words(hz):
    """A counter's rate, as a reader says it."""
    hz = float(f"{hz:.4g}")
    for unit, scale in (("GHz", 1e9), ("MHz", 1e6), ("kHz", 1e3)):
        if hz >= scale:
            return f"{hz / scale:.4g} {unit}"
    return f"{hz:g} Hz"


# the keys of a kernel spec whose values are paths (doc/bench.md, "Kernels")
SPEC_PATHS = ("patches", "config", "tree", "bzimage", "build")


def kernel_words(k):
    """A kernel as the cover letter names it: its release, its spec
    without its label and with each path by its last component (a quilt
    series file by its directory's too), and the commit of a tree (with
    "+changes" for its files as they were)."""
    words = [str(k.get("release", "?"))]
    spec = str(k.get("spec", ""))
    if spec:
        fields = spec.split(",")
        if "=" in fields[0] and not fields[0].startswith("bzimage="):
            fields[0] = fields[0].split("=", 1)[1]
        for i, f in enumerate(fields):
            key, eq, val = f.partition("=")
            if eq and key in SPEC_PATHS:
                if key == "tree" and k.get("tree"):
                    val = str(k["tree"])
                parts = val.rstrip("/").split("/")
                fields[i] = f"{key}=" + "/".join(
                    parts[-2:] if parts[-1] == "series" else parts[-1:])
        words.append(",".join(fields))
    state = str(k.get("tree_state", "")).split()
    if state[:1] == ["git"] and len(state) > 1:
        words.append(state[1][:12] +
                     ("+changes" if len(state) > 2 and state[2] != "-"
                      else ""))
    return ", ".join(words)


def machine_words(env):
    """The machine a --host or --target run measured, as a reviewer asks
    for it: its name, CPU, cores and SMT, governor and turbo."""
    return (f"{env.get('machine_hostname', '?')}: CPU "
            f"{env.get('machine_cpu_model', '?')}, "
            f"{env.get('machine_cores', '?')} cores, SMT "
            f"{env.get('machine_smt', '?')}, governor "
            f"{env.get('machine_governor', '?')}, turbo "
            f"{env.get('machine_turbo', '?')}")


def lab_words(env):
    """Where a bench.sh --lava run's jobs ran: its device type and lab
    (a server's URL, or lava-run on the machine bench.sh ran on)."""
    lab = env.get("lava", "?")
    lab = "lava-run on the host" if lab == "local" else lab
    return f"LAVA device type {env.get('lava_device_type', '?')}, {lab}"


def lkml_header(tables, rows, order):
    """Lines per results directory: arch, QEMU mode or the host's CPU,
    the counter's rate; what was run; then each kernel, by its release,
    spec and commit (kernel_words), which tell apart directories of the
    same machine or of two of one kind."""
    out, dirs = [], []
    for n in order:
        if rows[n]["dir"] not in dirs:
            dirs.append(rows[n]["dir"])
    for d in dirs:
        names = [n for n in order if rows[n]["dir"] == d]
        env = rows[names[0]]["env"]
        mode = env.get("mode", "?")
        where = MODES.get(mode) or f"CPU {env.get('host_cpu', '?')}"
        if "machine_cpu_model" in env:
            where = machine_words(env)
        if "lava" in env:
            # a board's CPU is not the host's
            where = lab_words(env) if mode == "host" else \
                f"{where}, {lab_words(env)}"
        hz = sorted(e["counter_hz"] for e in tables[0]["rows"]
                    if e["row"] in names and e["counter_hz"]) \
            if tables else []
        rate = f"counter {hz_words(hz[len(hz) // 2])}" if hz else \
            "no counter rate"
        out += textwrap.wrap(f"{env.get('arch', '?')}, {where}, {rate}",
                             LKML_WIDTH, subsequent_indent="    ",
                             break_long_words=False, break_on_hyphens=False)
        rounds = env.get("rounds", "?")
        out.append(f"  {env.get('nr_samples', '?')} samples/CPU/run, "
                   f"{rounds} round{'' if rounds in (1, '1') else 's'}, "
                   f"tracerbench {env.get('tracerbench', '?')}")
        labels = []
        for n in names:
            if rows[n]["label"] not in labels:
                labels.append(rows[n]["label"])
                out += textwrap.wrap(
                    f"{rows[n]['label']}: {kernel_words(rows[n]['kernel'])}",
                    LKML_WIDTH, initial_indent="  ", subsequent_indent="    ",
                    break_long_words=False, break_on_hyphens=False)
    return out


def lkml_block(t, title, scale, diff_scale):
    """One primitive's rows. scale(e) is what turns a row's ticks into
    the unit shown, diff_scale(e) its difference's (None: not shown)."""
    cells = []
    for e in t["rows"]:
        k, dk = scale(e), diff_scale(e)
        row = [e["row"]]
        for fig, nd in LKML_FIGURES:
            row.append("-" if e[fig] is None else f"{e[fig] * k:.{nd}f}")
        if e.get("reference"):
            row.append("ref")
        elif e["reference_row"] is None or dk is None:
            row.append("")
        else:
            row.append(f"{e['diff'] * dk:+.1f} {e['mark']}")
        cells.append(row)
    hd = [title] + [f for f, _ in LKML_FIGURES] + ["diff"]
    widths = [max(len(x) for x in col) for col in zip(hd, *cells)]
    return [" ".join(x.ljust(w) if i == 0 else x.rjust(w)
                     for i, (x, w) in enumerate(zip(c, widths))).rstrip()
            for c in [hd] + cells]


def print_lkml(tables, rows, order, ref_words, args):
    """The table a cover letter carries: per primitive, kernel.state rows
    of average, max_avg, median and p99 per pair in counter ticks, then
    in ns where every row's counter rate is known and a tick is not a ns;
    diff is the median's against the reference row, with its mark
    (report.py's text form says how each is tested)."""
    lines = lkml_header(tables, rows, order)
    lines.append("  per pair, each figure the median over rounds; diff: the "
                 "median minus")
    lines.append(f"  {ref_words};")
    lines.append("  * ** *** p Holm<0.05 0.01 0.001, n.s. not significant, "
                 "exact: every")
    lines.append("  round the same under icount (report.py's text form has "
                 "the tests)")
    rates = [e["counter_hz"] for t in tables for e in t["rows"]]
    ticks_are_ns = all(h and abs(h - 1e9) < 1e6 for h in rates)
    in_ns = all(rates) and not ticks_are_ns
    for t in tables:
        name = t["primitive"]
        lines.append("")
        # the difference is in ns already with --ns
        lines += lkml_block(t, name if ticks_are_ns
                            else f"{name} ({args.tick_unit})",
                            lambda e: 1,
                            lambda e: None if args.ns and not ticks_are_ns
                            else 1)
        if in_ns:
            lines.append("")
            lines += lkml_block(t, name + " (ns)",
                                lambda e: 1e9 / e["counter_hz"],
                                lambda e: 1 if args.ns
                                else 1e9 / e["counter_hz"])
    for line in lines:
        print(line)
    wide = [x for x in lines if len(x) > LKML_WIDTH]
    if wide:
        print(f"report.py: warning: {len(wide)} lines are wider than "
              f"{LKML_WIDTH} columns: shorter labels make them fit",
              file=sys.stderr)
