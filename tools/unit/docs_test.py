#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/docs.py on made-up documents and outputs: a pasted block that
matches passes, one that differs fails, in both modes, a dead link is
found, and so are a tools/ path that does not exist, an option a tool
does not take, and a list of clocks, primitives or variants that is not
the code's (a sixth clock). KTAP on stdout, then "N passed, N failed"; exits 1 on any
failure."""

import contextlib
import importlib.util
import io
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "docs", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "..", "docs.py"))
docs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(docs)

DOC = """# Title

## A section

<!-- output: tool MODE -->
```
$ tools/tool.sh --long \\
      --option
tracerbench on host, counter_hz 2596260564
irq        52      43.442 n.s.
preempt     0       5.192
```
"""

OUT = """tracerbench on host, counter_hz 999
irq        52      43.442 n.s.
preempt     0       5.192
"""

# name, mode, fresh output, links in the doc, passed and failed wanted
CASES = [
    ("masked: a warning in the fresh output alone passes", "masked",
     OUT + "warning: b.off: 16 rounds allow no p below 1\n", (1, 0)),
    ("exact: a warning in the fresh output alone fails", "exact",
     OUT + "warning: b.off: 16 rounds allow no p below 1\n", (0, 1)),
    ("exact: the same output passes", "exact", OUT, (1, 0)),
    ("exact: a number changed fails", "exact",
     OUT.replace("43.442", "43.443"), (0, 1)),
    ("exact: a column's width changed fails", "exact",
     OUT.replace("52      43", "52     43"), (0, 1)),
    ("exact: a line more fails", "exact", OUT + "none 0 0\n", (0, 1)),
    ("masked: other numbers and widths pass", "masked",
     OUT.replace("43.442", "1043.5").replace("52 ", "7 "), (1, 0)),
    ("masked: a significance mark changed passes", "masked",
     OUT.replace("n.s.", "***"), (1, 0)),
    ("exact: a significance mark changed fails", "exact",
     OUT.replace("n.s.", "***"), (0, 1)),
    ("masked: a significance mark for a word fails", "masked",
     OUT.replace("n.s.", "exact"), (0, 1)),
    ("masked: a word changed fails", "masked",
     OUT.replace("preempt", "preempt_notrace"), (0, 1)),
    ("masked: a line less fails", "masked",
     "\n".join(OUT.split("\n")[:2]) + "\n", (0, 1)),
    ("an environment line need only be one in both", "exact",
     OUT.replace("on host", "on another host"), (1, 0)),
]


def run_outputs(mode, fresh):
    with tempfile.TemporaryDirectory() as d:
        doc = os.path.join(d, "doc.md")
        with open(doc, "w") as f:
            f.write(DOC.replace("MODE", mode))
        with open(os.path.join(d, "tool.txt"), "w") as f:
            f.write(fresh)
        with contextlib.redirect_stdout(io.StringIO()):
            return docs.check_outputs(d, [doc])


def run_links(text, other):
    with tempfile.TemporaryDirectory() as d:
        doc = os.path.join(d, "doc.md")
        with open(doc, "w") as f:
            f.write(text)
        with open(os.path.join(d, "other.md"), "w") as f:
            f.write(other)
        with contextlib.redirect_stdout(io.StringIO()):
            return docs.check_links([doc])


LINKS = [
    ("a link to a file and its heading", "[x](other.md#the-reports-figures)",
     "## The report's figures\n", 0),
    ("a link to a missing file is dead", "[x](missing.md)", "", 1),
    ("a link to a missing heading is dead", "[x](other.md#nowhere)",
     "## Somewhere\n", 1),
    ("a link to a heading of its own file", "## Here\n\n[x](#here)", "", 0),
    ("a heading inside a code block is no heading",
     "[x](other.md#not-one)", "```\n# not one\n```\n", 1),
    ("a web link is left alone", "[x](https://example.org/a#b)", "", 0),
]


# tools/docs.py facts on made-up documents: what, the document, the
# check (paths, options, lists), and whether it must find a problem
FACTS = [
    ("a path that exists, and one with a placeholder",
     "See `tools/bench.sh` and tools/arch/ARCH.conf, tools/kconfig/.\n",
     "paths", 0),
    ("a path that does not exist",
     "The helpers are in `tools/nosuch.sh`.\n", "paths", 1),
    ("a missing path in a command",
     "```sh\ntools/nosuch/bench.sh --rounds 3\n```\n", "paths", 1),
    ("options the tools take, both forms, in commands and code spans",
     "```sh\ntools/bench.sh --rounds 3 --out /tmp/x trace \\\n"
     "    --clock=ns\nsudo tools/compare.sh --host\n```\n\n"
     "Run `tools/report.py --code --reference trace.off DIR`, and "
     "`collect.sh --label x`.\n", "options", 0),
    ("an option bench.sh does not take, in a command",
     "```sh\ntools/bench.sh --rounds 3 --sundial trace\n```\n",
     "options", 1),
    ("an option bench.sh does not take, in a code span",
     "Run `tools/bench.sh --sundial 3`.\n", "options", 1),
    ("an option in an output block's command",
     "<!-- output: x masked -->\n```\n$ tools/report.py --sundial \\\n"
     "      .out/x\nirq --sundial 5\n```\n", "options", 1),
    ("a line of output is no command",
     "<!-- output: x masked -->\n```\n$ tools/report.py --code .out/x\n"
     "irq --sundial 5\n  tools/report.py --sundial\n```\n", "options", 0),
    ("an option alone, which a tool its paragraph names takes",
     "With `--code`, `tools/report.py` prints the code table.\n",
     "options", 0),
    ("an option alone, which no tool its paragraph names takes",
     "With `--sundial`, `tools/report.py` prints the code table.\n",
     "options", 1),
    ("an option alone under a heading that names the tool",
     "## bench.sh\n\n`--rounds N` sets the rounds; `--sundial` nothing.\n",
     "options", 1),
    ("an old spelling the tool still accepts",
     "Old: `boot.sh --cpus N`, `collect.sh --labels LIST`.\n",
     "options", 0),
    ("the clocks, marked and in full",
     "<!-- list: clocks -->\n`cycles`, `ordered`, `ns`, `instructions` "
     "and `core_cycles`.\n", "lists", 0),
    ("a sixth clock in a marked list",
     "<!-- list: clocks -->\n`cycles`, `ordered`, `ns`, `instructions`, "
     "`core_cycles` and `sundial`.\n", "lists", 1),
    ("a sixth clock in a list of clocks",
     "The clocks are `cycles`, `ordered`, `ns`, `instructions`, "
     "`core_cycles` and `sundial`.\n", "lists", 1),
    ("three clocks of five in a marked list",
     "Clocks: <!-- list: clocks -->`cycles`, `ordered` and `ns`.\n",
     "lists", 1),
    ("a variant that is none, beside three that are",
     "Built: `notrace`, `trace`, `debug` or `lockdep`.\n", "lists", 1),
    ("an arch's built kernels, marked, commas in one span",
     "Default <!-- list: built:x86_64 -->`notrace,trace,debug,rt-debug`.\n",
     "lists", 0),
    ("the primitives, marked, one left out",
     "<!-- list: prims -->`irq`, `preempt`, `irq_save`, `raw_irq`, "
     "`raw_irq_save` and `none`.\n", "lists", 1),
    ("a subset of the clocks, unmarked",
     "`cycles` and `ordered` read the same counter.\n", "lists", 0),
]


def run_facts(text, check):
    fn = {"paths": docs.docfacts.check_paths,
          "options": docs.docfacts.check_options,
          "lists": docs.docfacts.check_lists}[check]
    with tempfile.TemporaryDirectory() as d:
        doc = os.path.join(d, "doc.md")
        with open(doc, "w") as f:
            f.write(text)
        return fn(doc)


def skipped_without_output():
    """A block with no fresh output file: neither passed nor failed."""
    with tempfile.TemporaryDirectory() as d:
        doc = os.path.join(d, "doc.md")
        with open(doc, "w") as f:
            f.write(DOC.replace("MODE", "exact"))
        with contextlib.redirect_stdout(io.StringIO()):
            return docs.check_outputs(d, [doc])


def updated_then_checked():
    """update rewrites a block that differs, its command kept; then exact
    passes: (passed, failed, the command still there)"""
    with tempfile.TemporaryDirectory() as d:
        doc = os.path.join(d, "doc.md")
        with open(doc, "w") as f:
            f.write(DOC.replace("MODE", "exact"))
        with open(os.path.join(d, "tool.txt"), "w") as f:
            f.write(OUT.replace("43.442", "99.999"))
        with contextlib.redirect_stdout(io.StringIO()):
            docs.update_outputs(d, [doc])
            got = docs.check_outputs(d, [doc])
        with open(doc) as f:
            text = f.read()
    return got + ("$ tools/tool.sh --long \\" in text and "99.999" in text,)


def main():
    results = []
    for name, mode, fresh, want in CASES:
        got = run_outputs(mode, fresh)
        results.append((name, got == want, f"got {got}, want {want}"))
    for name, text, other, want in LINKS:
        got = run_links(text, other)
        results.append((name, got == want, f"got {got} dead, want {want}"))
    for name, text, check, want in FACTS:
        bad = run_facts(text, check)
        results.append((f"facts, {check}: {name}", bool(bad) == bool(want),
                        f"got {bad}, want " + ("some" if want else "none")))
    got = updated_then_checked()
    results.append(("update rewrites a block from the fresh output",
                    got == (1, 0, True), f"got {got}, want (1, 0, True)"))
    got = skipped_without_output()
    results.append(("a block without a fresh output is skipped",
                    got == (0, 0), f"got {got}, want (0, 0)"))
    return ktap.report(results)


if __name__ == "__main__":
    sys.exit(main())
