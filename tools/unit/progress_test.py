#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Live progress (tools/lib/progress.sh), read from short runs while they
run:
- make check's parts (tools/check/parts.sh): stand-in parts write lines
  at different times, in pieces and all at once; each line is printed
  while its part runs, whole, behind its part's name;
- bench.sh's follower of a guest (tb_boot_progress, through tb_boot): a
  stand-in QEMU runs the guest's collect.sh --emit on stand-ins of the
  module's files; each run's round, state, run and time left are printed
  while the guest runs, and split_results keeps those lines out of the
  results;
- a kernel build's phases (tb_tree_build, its build a stand-in): a line
  as each phase begins on a pipe, a line redrawn with the time so far on
  a terminal.
Each step of a stand-in waits until the test has read what the step
before should have printed, so that output held back until the end fails
instead of passing late. KTAP on stdout, then "N passed, N failed";
exits 1 on any failure."""

import os
import pty
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(
    __file__)), "..", ".."))
TIMEOUT = 30

# go NAME: a stand-in's wait until the test has read what came before
# and made the file NAME; 10 s, then a line saying so
GO = r"""
go()
{
	local i
	for i in $(seq 100); do
		[ -e "$T/$1" ] && return 0
		sleep 0.1
	done
	echo "not ok - $1: not shown while it ran"
	return 1
}
"""


class Lines:
    """The lines of a child's stream, as they come."""

    def __init__(self, f):
        self.q = queue.Queue()
        self.lines = []
        threading.Thread(target=self._read, args=(f,), daemon=True).start()

    def _read(self, f):
        for raw in iter(f.readline, b""):
            self.q.put(raw.decode(errors="replace").rstrip("\n"))
        self.q.put(None)

    def next(self, deadline):
        """The next line, or None at the end or the deadline."""
        try:
            line = self.q.get(timeout=max(deadline - time.monotonic(), 0))
        except queue.Empty:
            return None
        if line is not None:
            self.lines.append(line)
        return line


def bash(script, tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
         env=None):
    return subprocess.Popen(
        ["bash", "-c", GO + script], cwd=TOP, stdin=subprocess.DEVNULL,
        stdout=stdout, stderr=stderr, start_new_session=True,
        env=dict(os.environ, T=tmp, TOP=TOP, TB_OUT=os.path.join(tmp, "out"),
                 **(env or {})))


def stop(p):
    """The child and what it started, gone."""
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    p.wait()


def follow(p, lines, triggers):
    """Read lines until the end; on a line of triggers (line -> action),
    the action, once. Returns the actions not taken."""
    deadline = time.monotonic() + TIMEOUT
    left = dict(triggers)
    while True:
        line = lines.next(deadline)
        if line is None:
            break
        for pattern in list(left):
            if re.search(pattern, line):
                left.pop(pattern)()
    return sorted(left)


def touch(path):
    return lambda: open(path, "w").close()


# --- make check's parts ---------------------------------------------------

PIECES = 300

PARTS_SCRIPT = r"""
set -u
. "$TOP/tools/lib.sh" || exit 1
. "$TOP/tools/check/parts.sh" || exit 1
TB_JOBS=3
mkdir -p "$TB_OUT"
run_part()
{
	local i
	case $2 in
	slow)
		echo "ok - slow begins"
		go slow1
		printf 'ok - slow, a line '
		sleep 0.5
		printf 'written in two\n'
		go slow2
		echo "ok - slow ends" ;;
	fast)
		echo "ok - fast begins"
		go fast1
		echo "ok - fast ends" ;;
	burst*)
		echo "ok - $2 ready"
		go burst
		for ((i = 0; i < PIECES; i++)); do
			printf 'ok - %s line %d ' "$2" $i
			printf '%0200d ' $i
			printf 'ends\n'
		done ;;
	esac
	echo "1 passed, 0 failed"
}
run_parts a:slow b:fast c:burst1 d:burst2
"""


def part_lines(part):
    if part == "slow":
        return ["ok - slow begins", "ok - slow, a line written in two",
                "ok - slow ends", "1 passed, 0 failed"]
    if part == "fast":
        return ["ok - fast begins", "ok - fast ends", "1 passed, 0 failed"]
    return ([f"ok - {part} ready"] +
            [f"ok - {part} line {i} {i:0200d} ends" for i in range(PIECES)] +
            ["1 passed, 0 failed"])


def check_parts(tmp):
    p = bash(PARTS_SCRIPT, tmp, env={"PIECES": str(PIECES)})
    out = Lines(p.stdout)
    ready = set()

    def burst(name):
        def act():
            ready.add(name)
            if len(ready) == 2:
                touch(os.path.join(tmp, "burst"))()
        return act

    try:
        missed = follow(p, out, {
            r"^\[a slow\] ok - slow begins$": touch(f"{tmp}/slow1"),
            r"^\[a slow\] ok - slow, a line written in two$":
                touch(f"{tmp}/slow2"),
            r"^\[b fast\] ok - fast begins$": touch(f"{tmp}/fast1"),
            r"^\[c burst1\] ok - burst1 ready$": burst(1),
            r"^\[d burst2\] ok - burst2 ready$": burst(2),
        })
        p.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        missed = ["did not end"]
    finally:
        stop(p)
    err = p.stderr.read().decode(errors="replace")
    got = {part: [] for part in ("slow", "fast", "burst1", "burst2")}
    stray = []
    for line in out.lines:
        m = re.match(r"^\[(a|b|c|d) (\w+)\] (.*)$", line)
        if m and m.group(2) in got:
            got[m.group(2)].append(m.group(3))
        elif not re.match(r"^# [a-d] \w+: started, log in \S+$", line):
            stray.append(line)
    shown = [part for part in got if got[part] == part_lines(part)]
    late = [line for line in out.lines if "not shown while it ran" in line]
    return [
        ("make check: each part's lines printed while the part runs",
         not missed and not late and p.returncode == 0,
         f"not seen in time: {missed or late}, exit {p.returncode}, "
         f"stderr {err!r}"),
        ("make check: every line whole, behind its part's name, no line "
         "of another mixed in", not stray and len(shown) == len(got),
         f"stray lines {stray[:3]}, parts not as written: "
         f"{sorted(set(got) - set(shown))}"),
        ("make check: a line written in two pieces printed whole",
         "ok - slow, a line written in two" in got["slow"],
         f"slow part: {got['slow']}"),
        ("make check: the parts' logs keep every line",
         all(open(os.path.join(tmp, "out", f"check-{a}-{part}.log")).read()
             == "".join(s + "\n" for s in part_lines(part))
             for a, part in (("a", "slow"), ("b", "fast"), ("c", "burst1"),
                             ("d", "burst2"))), "a log differs"),
    ]


# --- bench.sh's guest -----------------------------------------------------

QEMU = r"""#!/bin/sh
# a guest: the bench group's collect.sh, its lines as a serial port's
for a; do
	case $a in
	file:*.ktap)	ktap=${a#file:} ;;
	file:*.console)	console=${a#file:} ;;
	esac
done
: >"$console"
{
	echo "KTAP version 1"
	if $GUEST_SH "$TOP/tools/guest/collect.sh" --emit --rounds 2 \
		--label trace --nr-samples 10 "$T/guest" 2>&1; then
		echo "ok 1 collect"
	else
		echo "not ok 1 collect"
	fi
	echo "1..1"
} | while IFS= read -r l; do printf '%s\r\n' "$l"; done >"$ktap"
"""

BENCH_SCRIPT = r"""
set -u
. "$TOP/tools/lib.sh" || exit 1
tb_vmlinuz() { echo /dev/null; }
TB_QEMU=$T/qemu
tb_cli_name=bench.sh
mkdir -p "$TB_OUT" "$T/results"
export TB=$T/tb TRACING=$T/tracing
tb_boot_progress 1 1 2 "$SECONDS" bench-trace /dev/null bench 60 \
	"$T/out/r1-trace" tb.round=1
echo "boot $?"
out=$T/results
eval "$(sed -n '/^split_results()$/,/^}$/p' "$TOP/tools/bench.sh")"
split_results "$T/out/r1-trace.ktap"
echo "split $?"
"""


def module_standins(tmp):
    """The module's debugfs files and the events' switch, as files; the
    benchmark file a FIFO, so that each run waits for the test."""
    tb = os.path.join(tmp, "tb")
    os.makedirs(os.path.join(tb, "irq"))
    with open(os.path.join(tb, "summary"), "w") as f:
        f.write("run 1\nirq.median 10\npreemptirq_tracepoints yes\n"
                "preemption full\n")
    for name in ("irq/histogram", "irq/per_cpu", "nr_samples", "do_work",
                 "batch", "cpus", "clock"):
        with open(os.path.join(tb, name), "w") as f:
            f.write("0\n")
    os.mkfifo(os.path.join(tb, "benchmark"))
    events = os.path.join(tmp, "tracing", "events", "preemptirq")
    os.makedirs(events)
    with open(os.path.join(events, "enable"), "w") as f:
        f.write("0\n")
    with open(os.path.join(tmp, "qemu"), "w") as f:
        f.write(QEMU)
    os.chmod(os.path.join(tmp, "qemu"), 0o755)
    return os.path.join(tb, "benchmark")


def check_bench(tmp):
    fifo = module_standins(tmp)
    sh = "busybox sh" if shutil.which("busybox") else "sh"
    p = bash(BENCH_SCRIPT, tmp, env={"GUEST_SH": sh})
    err = Lines(p.stderr)
    re_run = (r"^bench\.sh: round (\d+) of 2: trace (on|off) "
              r"\(run (\d+) of 4(, about \d+ s left)?\)$")

    def let_run():
        threading.Thread(target=lambda: open(fifo).read(),
                         daemon=True).start()

    try:
        missed = follow(p, err, {rf"\(run {n} of 4": let_run
                                 for n in range(1, 5)})
        out = p.communicate(timeout=TIMEOUT)[0].decode(errors="replace")
    except subprocess.TimeoutExpired:
        missed, out = ["did not end"], ""
    finally:
        stop(p)
    runs = [re.match(re_run, line) for line in err.lines]
    order = [(m.group(1), m.group(2), m.group(3)) for m in runs if m]
    left = [bool(m.group(4)) for m in runs if m]
    leaked = []
    for d, _, files in os.walk(os.path.join(tmp, "results")):
        for name in files:
            with open(os.path.join(d, name)) as f:
                if "progress" in f.read():
                    leaked.append(name)
    metas = sorted(os.listdir(os.path.join(tmp, "results", "runs"))
                   if os.path.isdir(os.path.join(tmp, "results", "runs"))
                   else [])
    return [
        ("bench.sh: each run's round, state and run printed while the "
         "guest runs", not missed and "boot 0" in out and
         order == [("1", "off", "1"), ("1", "on", "2"), ("2", "on", "3"),
                   ("2", "off", "4")],
         f"not seen in time: {missed}, printed {err.lines}, stdout {out!r}"),
        ("bench.sh: the time left, from the second run on",
         left == [False, True, True, True], f"printed {err.lines}"),
        ("bench.sh: nothing else of the guest's printed",
         all(runs), f"printed {err.lines}"),
        ("bench.sh: split_results keeps the progress lines out of the "
         "results", "split 0" in out and not leaked and
         metas == ["trace.off.r1", "trace.off.r2", "trace.on.r1",
                   "trace.on.r2"],
         f"stdout {out!r}, runs {metas}, progress in {leaked}"),
    ]


# --- a kernel build -------------------------------------------------------

BUILD_SCRIPT = r"""
set -u
. "$TOP/tools/lib.sh" || exit 1
# step LINE...: kbuild's lines, into the log
step()
{
	printf '%s\n' "$@" >>"$T/tree/b/build.log"
	sleep "${PAUSE:-0}"
}
tb_tree_make()
{
	local i
	step "  GEN     Makefile" "  HOSTCC  scripts/basic/fixdep"
	go configure
	step "  SYNC    include/config/auto.conf"
	for ((i = 0; i < ${COMPILE:-1}; i++)); do
		step "  CC      init/main$i.o"
	done
	go compile
	step "  AR      vmlinux.a" "  LD      vmlinux.o" "  LD      vmlinux"
	go link
	step "  BUILD   arch/x86/boot/bzImage" "Kernel: arch/x86/boot/bzImage is ready  (#1)"
	go image
	return "$STATUS"
}
mkdir -p "$T/tree/b"
tb_tree_build "$T/tree" trace
echo "build $?"
"""

PHASES = ["configuring", "compiling", "linking", "making the image"]
GOS = ["configure", "compile", "link", "image"]


def check_build_pipe(tmp):
    p = bash(BUILD_SCRIPT, tmp, env={"STATUS": "0"})
    err = Lines(p.stderr)
    try:
        missed = follow(p, err, {
            rf"^tracerbench: kernel build: {ph}, at \d+ s$":
                touch(os.path.join(tmp, go))
            for ph, go in zip(PHASES, GOS)})
        out = p.communicate(timeout=TIMEOUT)[0].decode(errors="replace")
    except subprocess.TimeoutExpired:
        missed, out = ["did not end"], ""
    finally:
        stop(p)
    shown = [re.sub(r", at \d+ s$", "", line) for line in err.lines]
    return [
        ("kernel build, not on a terminal: a line as each phase begins, "
         "while it builds", not missed and out == "build 0\n" and
         shown == [f"tracerbench: kernel build: {ph}" for ph in PHASES],
         f"not seen in time: {missed}, printed {err.lines}, stdout {out!r}"),
    ]


def check_build_tty(tmp):
    for go in GOS:
        touch(os.path.join(tmp, go))()
    master, slave = pty.openpty()
    p = bash(BUILD_SCRIPT, tmp, stderr=slave,
             env={"STATUS": "3", "PAUSE": "0.5", "COMPILE": "10"})
    os.close(slave)
    got = b""
    deadline = time.monotonic() + TIMEOUT
    try:
        while time.monotonic() < deadline:
            try:
                chunk = os.read(master, 4096)
            except OSError:     # EIO: the terminal's last writer is gone
                break
            if not chunk:
                break
            got += chunk
        out = p.communicate(timeout=TIMEOUT)[0].decode(errors="replace")
    except subprocess.TimeoutExpired:
        out = ""
    finally:
        stop(p)
        os.close(master)
    text = got.decode(errors="replace")
    draws = re.findall(r"\rtracerbench: kernel build: ([a-z ]+), (\d+) s"
                       r"\x1b\[K", text)
    compiling = {secs for ph, secs in draws if ph == "compiling"}
    return [
        ("kernel build on a terminal: one line, its phase and time so far "
         "redrawn every 2 s, ended", len(compiling) >= 2 and
         draws and draws[-1][0] == "making the image" and
         text.endswith("\n") and ", at " not in text,
         f"drawn {draws}, output {text[-200:]!r}"),
        ("kernel build: a failed build's status comes back", "build 3" in out,
         f"stdout {out!r}"),
    ]


def main():
    results = []
    for check in (check_parts, check_bench, check_build_pipe,
                  check_build_tty):
        with tempfile.TemporaryDirectory() as tmp:
            results += check(tmp)
    return ktap.report(results)


if __name__ == "__main__":
    sys.exit(main())
