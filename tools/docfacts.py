# SPDX-License-Identifier: GPL-2.0-only
"""tools/docs.py facts: what the documents say of the tree, held to the
tree itself rather than to a copy of it:

- paths: every tools/... path a document names exists (a word in
  capitals, ARCH in tools/arch/ARCH.conf, stands for any name);
- options: every option a document shows for a tool is one the tool
  takes, as its --help lists it: an option line ("  --opt", "-h, --opt"),
  the synopsis ("[--opt"), or a line that says an old spelling is still
  accepted. An option belongs to the tool it follows on a command line
  (in a ```sh block, an output block's "$ " lines, or a code span such as
  `tools/bench.sh --rounds 3` or `bench.sh --host`); an option alone in a
  code span (`--code`) to the tools the same paragraph or table row and
  the headings above it name, and one of them must take it (`--opt`,
  doc/cli.md's word for any option, excepted);
- lists: a list of code spans (`a`, `b` and `c`) with at least two
  clocks, primitives or variants and more of them than other words names
  only clocks, primitives or variants; and the list (or the one code
  span of words with commas) next after a mark <!-- list: KIND --> holds
  exactly the KIND the code has: clocks, pmu-clocks, prims, traced,
  untraced (tools/cfacts.py, from the C), variants (tools/lib/kernel.sh),
  built:ARCH and kernels:ARCH (the arch's built and Debian kernels,
  tools/arch/ARCH.conf, as tb_arch_load reads them), parts (make check's,
  tools/lib/harness.sh).

check() prints a line per problem, then a KTAP result per check."""

import functools
import glob
import os
import re
import subprocess

from cfacts import facts as cfacts

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(
    __file__)), ".."))
TOOL_DIRS = ["tools", os.path.join("tools", "guest")]
GUEST_ONLY = "tb-cli: guest-only"

PATH = re.compile(r"(?<![A-Za-z0-9_.-])tools/[A-Za-z0-9_.*/-]*")
PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_]+")
SPAN = re.compile(r"`([^`]+)`")
OPTION = re.compile(r"--[a-z][a-z0-9-]*")
HELP_OPTIONS = re.compile(r"^\s*(?:-[a-zA-Z], )?(--[a-z][a-z0-9-]*)")
LIST_SEP = re.compile(r"\s*(?:,|,?\s*and|,?\s*or|/)\s*")
WORD = re.compile(r"[a-z][a-z0-9_-]*")
MARKER = re.compile(r"<!-- list: ([a-z0-9:_-]+) -->")
END = {"|", "||", ";", "&&", "&"}
# doc/cli.md's word for any option
PLACEHOLDERS = {"--opt"}


def tool_files(top=TOP):
    """[(path relative to top, guest_only)] of every tool in the tree:
    an executable script (a shebang) or a Python file with a main, not a
    file sourced or imported; guest_only where its head says the guest
    alone runs it (GUEST_ONLY)."""
    found = []
    for d in TOOL_DIRS:
        for name in sorted(os.listdir(os.path.join(top, d))):
            rel = os.path.join(d, name)
            path = os.path.join(top, rel)
            if not os.path.isfile(path):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            if name.endswith(".py"):
                if "if __name__ == \"__main__\":" not in text:
                    continue    # a module report.py imports
            elif not text.startswith("#!"):
                continue        # sourced: lib.sh
            found.append((rel, GUEST_ONLY in
                          "".join(text.splitlines(True)[:20])))
    return found


@functools.lru_cache(maxsize=None)
def tools(top=TOP):
    """{basename: path relative to top} of every tool a user runs."""
    return {os.path.basename(rel): rel
            for rel, guest_only in tool_files(top) if not guest_only}


@functools.lru_cache(maxsize=None)
def accepted(rel, top=TOP):
    """The options tool rel takes, as its --help lists them."""
    p = subprocess.run([os.path.join(top, rel), "--help"], cwd=top,
                       capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    opts, entries = set(), []
    for line in p.stdout.splitlines():
        m = HELP_OPTIONS.match(line)
        if m:
            opts.add(m.group(1))
        opts.update(re.findall(r"\[(--[a-z][a-z0-9-]*)", line))
        # an option's entry: its line and the more indented ones after
        if m or not line[:1].isspace() or not entries:
            entries.append(line)
        else:
            entries[-1] += " " + line.strip()
    for e in entries:
        if "accepted" in e or "the old " in e:
            opts.update(OPTION.findall(e))
    return frozenset(opts)


def tool_of(token, top=TOP):
    """The tool a word of a command line runs, or None: its name alone,
    or a path that ends in the tool's own (tools/bench.sh, not
    tools/check/benchmarks.sh)."""
    base = token.rsplit("/", 1)[-1]
    rel = tools(top).get(base)
    if rel is None or (token != base and not token.endswith(rel)):
        return None
    return base


@functools.lru_cache(maxsize=None)
def lists(top=TOP):
    """{KIND: [name...]} of the code, for the list checks."""
    f = cfacts(top)
    out = {"clocks": f["clocks"], "pmu-clocks": f["pmu_clocks"],
           "prims": f["prims"], "traced": list(f["untraced"]),
           "untraced": list(f["untraced"].values())}
    sh = subprocess.run(
        ["bash", "-c", '. "$1/tools/lib.sh" || exit 1\n'
         'echo "variants $TB_VARIANTS"\n'
         'echo "parts $TB_ALL_PARTS"\n'
         'for a in $(tb_all_archs); do (tb_arch_load "$a" &&\n'
         '  echo "built:$a $TB_ARCH_BUILT" &&\n'
         '  echo "kernels:$a $TB_ARCH_KERNELS"); done', "_", top],
        capture_output=True, text=True, timeout=60)
    for line in sh.stdout.splitlines():
        kind, _, names = line.partition(" ")
        out[kind] = names.split()
    return out


def blocks(path):
    """The document's parts: ("text", absolute offset, text, headings)
    for each paragraph, list item or table row outside code blocks, and
    ("command", offset, text, headings) for each command line of a code
    block: every line of a ```sh block (a line that begins with a blank,
    or follows one that ends in \\, goes on the line before), an output
    block's "$ " lines with their \\ continuations."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    offsets, at = [], 0
    for line in lines:
        offsets.append(at)
        at += len(line) + 1
    heads, fence, para, cmd = [], None, [], []

    def flush_para():
        if para:
            yield ("text", offsets[para[0]],
                   "\n".join(lines[i] for i in para), list(heads))
            para.clear()

    def flush_cmd():
        if cmd:
            yield ("command", offsets[cmd[0]],
                   " ".join(lines[i].rstrip("\\").strip() for i in cmd),
                   list(heads))
            cmd.clear()

    for n, line in enumerate(lines):
        if line.startswith("```"):
            yield from flush_para()
            yield from flush_cmd()
            fence = None if fence is not None else line[3:].strip()
            continue
        if fence is not None:
            cont = cmd and lines[cmd[-1]].endswith("\\")
            if fence == "sh" and line[:1].isspace() and cmd:
                cont = True
            if cont:
                cmd.append(n)
                continue
            yield from flush_cmd()
            if fence == "sh" and line.strip():
                cmd.append(n)
            elif line.startswith("$ "):
                lines[n] = line[2:]
                cmd.append(n)
            continue
        if line.startswith("#"):
            yield from flush_para()
            level = len(line) - len(line.lstrip("#"))
            heads = heads[:level - 1] + [line.lstrip("#").strip()]
            continue
        if not line.strip() or line.startswith("|") or \
                re.match(r"\s*(?:[-*]|\d+\.)\s", line):
            yield from flush_para()
        if line.strip():
            para.append(n)
    yield from flush_para()
    yield from flush_cmd()


def line_of(path, offset, cache={}):
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            cache[path] = f.read()
    return cache[path].count("\n", 0, offset) + 1


def check_paths(path, top=TOP):
    bad = []
    for kind, at, text, _ in blocks(path):
        for m in PATH.finditer(text):
            name = m.group(0).rstrip(".,:;")
            pattern = PLACEHOLDER.sub("*", name)
            if not glob.glob(os.path.join(top, pattern)):
                bad.append(f"{path}:{line_of(path, at + m.start())}: "
                           f"{name}: no such file in the tree")
    return bad


def command_options(words, top=TOP):
    """(tool, option) of each option a command line shows for a tool."""
    tool = None
    for w in words:
        if w in END or w.startswith("#"):
            tool = None
            continue
        t = tool_of(w, top)
        if t:
            tool = t
            continue
        m = re.match(r"\[*(--[a-z][a-z0-9-]*)", w)
        if tool and m:
            yield tool, m.group(1)


def named_tools(text, top=TOP):
    return {t for t in map(lambda w: tool_of(w, top),
                           re.findall(r"[\w./$~-]+\.(?:sh|py)\b", text))
            if t}


def check_options(path, top=TOP):
    bad = []
    for kind, at, text, heads in blocks(path):
        where = f"{path}:{line_of(path, at)}"
        if kind == "command":
            shown = [(t, o, where) for t, o in command_options(text.split(),
                                                               top)]
            lone = []
        else:
            shown, lone = [], []
            for m in SPAN.finditer(text):
                w = m.group(1).split()
                where = f"{path}:{line_of(path, at + m.start())}"
                if w and w[0].split("=")[0].strip("[]") in PLACEHOLDERS:
                    continue
                if w and OPTION.fullmatch(w[0].split("=")[0].strip("[]")):
                    lone.append((w[0].split("=")[0].strip("[]"), where))
                else:
                    shown += [(t, o, where) for t, o in
                              command_options(w, top)]
        for t, o, where in shown:
            if o not in accepted(tools(top)[t], top):
                bad.append(f"{where}: {t} takes no {o} (its --help)")
        if not lone:
            continue
        near = named_tools(text, top)
        for h in heads:
            near |= named_tools(h, top)
        for o, where in lone:
            if near and not any(o in accepted(tools(top)[t], top)
                                for t in near):
                bad.append(f"{where}: {o}: none of {', '.join(sorted(near))}"
                           " takes it (their --help)")
    return bad


def item(span):
    """A list item as the code names it: without a label before it
    ([LABEL=]notrace)."""
    return re.sub(r"^\[?[A-Z]+=\]?", "", span.strip())


def enumerations(text):
    """(offset, [item...]) of each list of code spans in text: spans one
    after another with only a comma, "and", "or" or "/" between them, or
    one span of words with commas (`6.1,6.12`)."""
    runs, cur, end = [], None, None
    for m in SPAN.finditer(text):
        if cur and LIST_SEP.fullmatch(text[end:m.start()]):
            cur[1].append(item(m.group(1)))
        else:
            cur = [m.start(), [item(m.group(1))]]
            runs.append(cur)
        end = m.end()
    for r in runs:
        if len(r[1]) == 1 and re.fullmatch(r"[\w.-]+(,[\w.-]+)+", r[1][0]):
            r[1] = r[1][0].split(",")
    return runs


def check_lists(path, top=TOP):
    bad = []
    facts = lists(top)
    with open(path, encoding="utf-8") as f:
        marks = [(m.start(), m.group(1)) for m in MARKER.finditer(f.read())]
    runs = []
    for kind, at, text, _ in blocks(path):
        if kind == "text":
            runs += [(at + off, items) for off, items in enumerations(text)]
    for off, items in runs:
        if len(items) < 2:
            continue
        where = f"{path}:{line_of(path, off)}"
        for kind in ("clocks", "prims", "variants"):
            known = [i for i in items if i in facts[kind]]
            odd = [i for i in items if i not in facts[kind] and
                   WORD.fullmatch(i)]
            if len(known) >= 2 and len(known) > len(odd) and odd:
                bad.append(f"{where}: {', '.join(odd)}: in a list of "
                           f"{kind}, but the code's {kind} are "
                           f"{' '.join(facts[kind])}")
    for mark, kind in marks:
        where = f"{path}:{line_of(path, mark)}"
        if kind not in facts:
            bad.append(f"{where}: no list {kind} to hold the list to")
            continue
        after = [items for off, items in runs if off > mark]
        if not after:
            bad.append(f"{where}: list: {kind} marks no list")
        elif set(after[0]) != set(facts[kind]):
            got, want = set(after[0]), set(facts[kind])
            bad.append(f"{where}: the list of {kind} has "
                       f"{' '.join(after[0])}; the code's: "
                       f"{' '.join(facts[kind])}"
                       + (f" (not: {' '.join(sorted(got - want))})"
                          if got - want else "")
                       + (f" (missing: {' '.join(sorted(want - got))})"
                          if want - got else ""))
    return bad


CHECKS = [
    ("every tools/ path the documents name exists", check_paths),
    ("every option the documents show for a tool is one its --help lists",
     check_options),
    ("every list of clocks, primitives and variants the documents give "
     "is the code's", check_lists),
]


def check(files, top=TOP):
    """Print each problem and a KTAP line per check; (passed, failed)."""
    passed = failed = 0
    for name, fn in CHECKS:
        bad = [b for path in files for b in fn(path, top)]
        for b in bad:
            print(b)
        print(f"{'not ok' if bad else 'ok'} - docs: {name}")
        failed += bool(bad)
        passed += not bad
    return passed, failed
