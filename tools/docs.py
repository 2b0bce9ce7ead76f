#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Keep the documentation true to the tree:
#
#   tools/docs.py links FILE...
#	every relative link of the markdown FILEs names a file that exists
#	and, where it has an #anchor into a markdown file, one of its headings
#   tools/docs.py outputs DIR FILE...
#	every pasted output in the FILEs, a fenced block right after a line
#	<!-- output: NAME MODE -->, matches DIR/NAME.txt, a fresh output of
#	the tool; a block whose NAME.txt is missing is skipped, and said so
#   tools/docs.py update DIR FILE...
#	rewrite each such block from DIR/NAME.txt, its "$ command" lines
#	kept: how the pasted outputs are regenerated from make check's
#	(.out/docs/) or a tool's own run
#   tools/docs.py facts FILE...
#	what the FILEs say of the tree is true of it: every tools/ path
#	they name exists, every option they show for a tool is one the
#	tool's --help lists, every list of clocks, primitives and variants
#	they give is the code's (tools/docfacts.py says how)
#
# MODE is "exact", for outputs that repeat to the instruction (icount):
# every line byte for byte, or "masked", for outputs timed in plain TCG:
# the same lines with every number and every significance mark (n.s., *,
# ** or ***: whether a noisy difference came out significant is what a
# run measured) masked, and runs of blanks squeezed.
# In both, the block's "$ command" lines (with their "\" continuations)
# are not output and are left out, and a line saying where and when it
# ran (the host's CPU and load, the measured counter_hz, the paths, the
# tree's version: "tracerbench 0.3.0-g...", a kernel's release, spec and
# commit in the lkml header: "  LABEL: 6.12...") need only be such a
# line in both. A masked block's warnings (lines that begin
# "warning: "), which what a plain-TCG run measured brings or not, are
# left out of both. Prints a line per problem and, last,
# "N passed, N failed"; exits 1 on any failure.
import argparse
import os
import re
import sys

# docfacts.py and cfacts.py, beside this file, whatever directory runs it
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docfacts  # noqa: E402

ENV = re.compile(r"host CPU|counter_hz|tracerbench [0-9]|"
                 r"^  [A-Za-z0-9_+-]+: [0-9]")
WARNING = re.compile(r"^(report\.py: )?warning: ")
NUMBER = re.compile(r"[-+]?[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?")
SIGNIFICANCE = re.compile(r"(?<!\S)(?:n\.s\.|\*{1,3})(?!\S)")
MARK = re.compile(r"^<!-- output: ([A-Za-z0-9_.-]+) (exact|masked) -->$")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading):
    """GitHub's anchor of a heading: lower case, no punctuation but - and
    _, blanks as -."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def headings(path):
    out = set()
    fence = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fence = not fence
            elif not fence and line.startswith("#"):
                out.add(slug(line.lstrip("#")))
    return out


def check_links(files):
    bad = 0
    for path in files:
        fence = False
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.startswith("```"):
                    fence = not fence
                if fence:
                    continue
                for target in LINK.findall(line):
                    if re.match(r"[a-z]+:", target):
                        continue
                    name, _, anchor = target.partition("#")
                    dest = (os.path.normpath(os.path.join(
                        os.path.dirname(path), name)) if name else path)
                    why = None
                    if not os.path.exists(dest):
                        why = "no such file"
                    elif anchor and dest.endswith(".md") and \
                            anchor not in headings(dest):
                        why = "no such heading"
                    if why:
                        print(f"{path}:{n}: dead link {target}: {why}")
                        bad += 1
    return bad


def blocks(path):
    """(line, NAME, MODE, [lines]) of each marked block of path"""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if m and i + 1 < len(lines) and lines[i + 1].startswith("```"):
            j = i + 2
            while j < len(lines) and lines[j] != "```":
                j += 1
            yield i + 1, m.group(1), m.group(2), lines[i + 2:j]
            i = j
        elif m:
            yield i + 1, m.group(1), m.group(2), None
        i += 1


def output_lines(block):
    """the block less its "$ command" lines and their continuations"""
    out = []
    cont = False
    for line in block:
        if cont or line.startswith("$ "):
            cont = line.endswith("\\")
            continue
        out.append(line)
    return out


def norm(line, mode):
    if mode == "masked":
        line = SIGNIFICANCE.sub("S", NUMBER.sub("N", line))
        line = re.sub(r"\s+", " ", line).strip()
    return line


def differ(doc, fresh, mode):
    """the first difference of two outputs, or None"""
    if mode == "masked":
        # a warning comes with what a run measured, not with the tool
        doc = [x for x in doc if not WARNING.match(x)]
        fresh = [x for x in fresh if not WARNING.match(x)]
    for n in range(max(len(doc), len(fresh))):
        a = doc[n] if n < len(doc) else "(nothing)"
        b = fresh[n] if n < len(fresh) else "(nothing)"
        if ENV.search(a) and ENV.search(b):
            continue
        if norm(a, mode) != norm(b, mode):
            return f"line {n + 1}:\n  doc:   {a}\n  fresh: {b}"
    return None


def check_outputs(outdir, files):
    passed = failed = 0
    for path in files:
        for line, name, mode, block in blocks(path):
            where = f"{path}:{line}: {name} ({mode})"
            if block is None:
                print(f"not ok - {where}: no fenced block after the mark")
                failed += 1
                continue
            fresh = os.path.join(outdir, name + ".txt")
            if not os.path.exists(fresh):
                print(f"# skip {where}: no {fresh}")
                continue
            diff = differ(output_lines(block), fresh_lines(fresh), mode)
            if diff:
                print(f"not ok - {where} differs from {fresh}, {diff}")
                failed += 1
            else:
                print(f"ok - {where} is what the tool prints")
                passed += 1
    return passed, failed


def fresh_lines(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def update_outputs(outdir, files):
    """Rewrite the blocks that have a fresh output; the number rewritten"""
    done = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        for line, name, _, block in reversed(list(blocks(path))):
            fresh = os.path.join(outdir, name + ".txt")
            if block is None or not os.path.exists(fresh):
                continue
            commands = [b for b in block if b not in output_lines(block)]
            lines[line + 1:line + 1 + len(block)] = (commands +
                                                     fresh_lines(fresh))
            done += 1
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
    return done


def main(argv):
    ap = argparse.ArgumentParser(
        prog="tools/docs.py",
        description="Keep the documentation true to the tree.")
    sub = ap.add_subparsers(dest="command", required=True,
                            metavar="{links,facts,outputs,update}")
    p = sub.add_parser("links", help="every relative link of the FILEs "
                       "names a file and heading that exist")
    p.add_argument("files", nargs="+", metavar="FILE")
    p = sub.add_parser("facts", help="every tools/ path the FILEs name "
                       "exists, every option they show for a tool is one "
                       "it takes, every list of clocks, primitives and "
                       "variants they give is the code's")
    p.add_argument("files", nargs="+", metavar="FILE")
    for name, what in (("outputs", "every pasted output of the FILEs "
                        "matches DIR/NAME.txt, a fresh output"),
                       ("update", "rewrite each pasted output of the "
                        "FILEs from DIR/NAME.txt")):
        p = sub.add_parser(name, help=what)
        p.add_argument("dir", metavar="DIR")
        p.add_argument("files", nargs="+", metavar="FILE")
    args = ap.parse_args(argv)
    if args.command == "links":
        bad = check_links(args.files)
        print(f"{0 if bad else 1} passed, {1 if bad else 0} failed")
        return 1 if bad else 0
    if args.command == "facts":
        passed, failed = docfacts.check(args.files)
        print(f"{passed} passed, {failed} failed")
        return 1 if failed else 0
    if args.command == "outputs":
        passed, failed = check_outputs(args.dir, args.files)
        print(f"{passed} passed, {failed} failed")
        return 1 if failed else 0
    print(f"{update_outputs(args.dir, args.files)} blocks rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
