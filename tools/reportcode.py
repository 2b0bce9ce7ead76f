#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The code table of tools/report.py: what one call site of each
primitive costs in code, beside what it costs when it runs, and what the
kernel's text and the hooks' call sites come to, per kernel against the
reference kernel. The figures are those bench.sh took of each kernel
with tools/codesize.sh (kernels/LABEL.env: site.P.*, vmlinux.*, hook.*)."""

# size -B's, and the bytes of all functions (nm -S), where a few bytes show
VMLINUX = ("text", "data", "bss", "functions")
# a site's bytes apart, in the straight line and out of it (they add up to
# its bytes), and its jump table entries and their bytes; absent from the
# results of an older bench.sh
SITE_PARTS = ("inline_bytes", "out_of_line_bytes", "jump_entries",
              "jump_bytes")
# the state whose median is "executed": the hooks built in, events off
EXECUTED_STATES = ("off", "out", "on")


def to_int(v):
    try:
        return int(str(v))
    except ValueError:
        return None


def kernel_code(env, prims):
    """One kernel's figures, or None where bench.sh took none."""
    sites = {}
    for p in prims:
        i, b = to_int(env.get(f"site.{p}.insns", "")), \
            to_int(env.get(f"site.{p}.bytes", ""))
        if i is not None and b is not None:
            calls = str(env.get(f"site.{p}.calls", "-"))
            sites[p] = {"insns": i, "bytes": b,
                        "calls": [] if calls == "-" else calls.split(","),
                        **{f: to_int(env.get(f"site.{p}.{f}", ""))
                           for f in SITE_PARTS}}
    if not sites:
        return None
    vm = {f: to_int(env.get(f"vmlinux.{f}", "")) for f in VMLINUX}
    jt = {"bytes": to_int(env.get("vmlinux.jump_table", "")),
          "entries": to_int(env.get("vmlinux.jump_entries", ""))}
    hooks = {k[len("hook."):]: to_int(v) for k, v in env.items()
             if k.startswith("hook.") and to_int(v) is not None}
    return {"sites": sites,
            "vmlinux": vm if None not in vm.values() else None,
            "jump_table": jt if None not in jt.values() else None,
            "hooks": hooks}


def executed_median(tables, rows, order, label, prim):
    """The median of the kernel's off state (else out, else on) for prim,
    and that state; (None, None) where the report has no such row."""
    t = next((t for t in tables if t["primitive"] == prim), None)
    for state in EXECUTED_STATES:
        name = next((n for n in order if rows[n]["label"] == label and
                     rows[n]["state"] == state), None)
        if t and name:
            e = next(e for e in t["rows"] if e["row"] == name)
            return e["median"], state
    return None, None


def code_table(tables, rows, order, refs, prims):
    """The code table, for the JSON and the text forms: a kernel a row,
    each with its reference kernel's label (that of its first row's
    reference row) and the differences to it. None where no kernel has
    code figures (results of an older bench.sh)."""
    labels, ref_of = [], {}
    for n in order:
        label = rows[n]["label"]
        if label not in ref_of:
            labels.append(label)
            ref_of[label] = rows[refs[n]]["label"] if refs[n] else None
    first = {label: next(n for n in order if rows[n]["label"] == label)
             for label in labels}
    code = {label: kernel_code(rows[first[label]]["kernel"], prims)
            for label in labels}
    out = {}
    for label in labels:
        c = code[label]
        if c is None:
            continue
        out[label] = {"kernel": label, "reference": ref_of[label], **c,
                      "executed": {}}
        for p in c["sites"]:
            m, state = executed_median(tables, rows, order, label, p)
            out[label]["executed"][p] = {"median": m, "state": state}
    for label, e in out.items():
        ref = out.get(ref_of[label])
        e["diff"] = None if ref is None or ref is e else diff(e, ref)
    return {"kernels": list(out.values())} if out else None


def diff(c, r):
    """Kernel c's figures less its reference r's; a hook that one of them
    lacks has no call site there."""
    d = {"sites": {}, "executed": {}, "vmlinux": None, "jump_table": None,
         "hooks": {}}
    for p, s in c["sites"].items():
        if p in r["sites"]:
            rs = r["sites"][p]
            d["sites"][p] = {f: None if s.get(f) is None or rs.get(f) is None
                             else s[f] - rs[f]
                             for f in ("insns", "bytes") + SITE_PARTS}
        m = c["executed"][p]["median"]
        rm = r["executed"].get(p, {}).get("median")
        d["executed"][p] = None if m is None or rm is None else m - rm
    if c["vmlinux"] and r["vmlinux"]:
        d["vmlinux"] = {f: c["vmlinux"][f] - r["vmlinux"][f]
                        for f in VMLINUX}
        if c["jump_table"] and r["jump_table"]:
            d["jump_table"] = {f: c["jump_table"][f] - r["jump_table"][f]
                               for f in ("bytes", "entries")}
        for h in sorted(set(c["hooks"]) | set(r["hooks"])):
            d["hooks"][h] = c["hooks"].get(h, 0) - r["hooks"].get(h, 0)
    return d


def signed(v):
    return "-" if v is None else f"{v:+g}"


def plain(v):
    return "-" if v is None else str(v)


def columns(cells):
    """Left-aligned first column, the others right-aligned."""
    widths = [max(len(x) for x in col) for col in zip(*cells)]
    return [" ".join(x.ljust(w) if i == 0 else x.rjust(w)
                     for i, (x, w) in enumerate(zip(c, widths))).rstrip()
            for c in cells]


def code_lines(code, unit, md=False):
    """The code table as text lines: per primitive, each kernel's site
    (instructions and bytes, as laid out: every instruction once, taken or
    not) beside its executed median in the report's unit, with both
    differences to the reference kernel; then the kernels' vmlinux sizes
    and the hooks' call sites."""
    if not code:
        return []
    ks = code["kernels"]
    pre = "    " if md else ""
    lines = ["", "code: one call site of each primitive, in the module built "
             "for each", "  kernel: instructions and bytes between its "
             "clock reads, less the", "  empty window's; of the bytes, "
             "inline: in the straight line between", "  the reads; out: "
             "in blocks only jumps reach (after the return, a",
             "  .cold part); jump: its __jump_table entries' bytes, in "
             "data;", f"  executed: its median in {unit} (off, else out);",
             "  diff: insns/bytes against the reference kernel"]
    prims = [p for p in ks[0]["sites"]]
    for p in prims:
        cells = [[p, "insns", "bytes", "inline", "out", "jump", "diff",
                  "executed", "diff"]]
        for e in ks:
            s, x = e["sites"].get(p), e["executed"].get(p, {})
            if s is None:
                continue
            d = e["diff"]
            if d is None:
                dc = dx = "ref" if e["reference"] == e["kernel"] else "-"
            else:
                ds = d["sites"].get(p)
                dc = "-" if ds is None else \
                    f"{signed(ds['insns'])}/{signed(ds['bytes'])}"
                dx = signed(d["executed"].get(p))
            m = x.get("median")
            cells.append([e["kernel"], str(s["insns"]), str(s["bytes"]),
                          plain(s.get("inline_bytes")),
                          plain(s.get("out_of_line_bytes")),
                          plain(s.get("jump_bytes")), dc,
                          "-" if m is None else f"{m:g}", dx])
        lines += [""] + [pre + x for x in columns(cells)]
    if any(e["vmlinux"] for e in ks):
        cells = [["vmlinux (bytes)", *VMLINUX, "diff text/fn"]]
        for e in ks:
            v, d = e["vmlinux"], e["diff"]
            if v is None:
                cells.append([e["kernel"]] + ["-"] * (len(VMLINUX) + 1))
                continue
            dt = "ref" if d is None and e["reference"] == e["kernel"] else \
                f"{signed(d['vmlinux']['text'])}/" \
                f"{signed(d['vmlinux']['functions'])}" \
                if d and d["vmlinux"] else "-"
            cells.append([e["kernel"], *(str(v[f]) for f in VMLINUX), dt])
        lines += [""] + [pre + x for x in columns(cells)]
        if any(e["jump_table"] for e in ks):
            cells = [["__jump_table", "bytes", "entries", "diff"]]
            for e in ks:
                j, d = e["jump_table"], e["diff"]
                if j is None:
                    cells.append([e["kernel"], "-", "-", "-"])
                    continue
                dj = "ref" if d is None and e["reference"] == e["kernel"] \
                    else signed(d["jump_table"]["bytes"]) \
                    if d and d["jump_table"] else "-"
                cells.append([e["kernel"], str(j["bytes"]),
                              str(j["entries"]), dj])
            lines += [""] + [pre + x for x in columns(cells)]
        hooks = sorted({h for e in ks for h in e["hooks"]})
        with_vm = [e for e in ks if e["vmlinux"]]
        cells = [["call sites"] + [e["kernel"] for e in with_vm]]
        for h in hooks:
            row = [h]
            for e in with_vm:
                d = e["diff"]
                n = e["hooks"].get(h, 0)
                row.append(f"{n} ({signed(d['hooks'][h])})"
                           if d and h in d["hooks"] else str(n))
            cells.append(row)
        lines += [""] + [pre + x for x in columns(cells)]
    if not all(e["vmlinux"] for e in ks):
        lines += ["", "kernel-wide sizes need a kernel's build tree "
                  "(its vmlinux), which", "  these had not: " + ", ".join(
                      e["kernel"] for e in ks if not e["vmlinux"])]
    return lines
