#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The command-line convention of doc/cli.md, held by every tool a user
runs: each script of tools/ and tools/guest/ (a file whose first line is
a #!, or a .py file with a __main__ block), found in the tree, so that a
new one is held to it too; only tools/guest/'s files marked
"tb-cli: guest-only" (the initramfs's own) are left out. Each must be
executable; -h and --help print a usage on stdout, nothing on stderr, and
exit 0; an unknown option prints nothing on stdout, says why on stderr
and exits 2. Then the options the convention renamed or added, on input
refused before any work. Every tool runs with make, apt-get, dpkg-query,
QEMU and insmod replaced by stand-ins that fail, and TB_OUT and TB_CACHE
in a temporary directory, so that one that went on to work would fail
here and change nothing. KTAP on stdout, then "N passed, N failed";
exits 1 on any failure."""

import os
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402
# tools/docfacts.py: which files are tools
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
import docfacts  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(
    __file__)), "..", ".."))
TRIPWIRES = ["make", "apt-get", "dpkg-query", "insmod", "modprobe",
             "qemu-system-x86_64", "qemu-system-aarch64", "qemu-system-i386"]

# the options and lists doc/cli.md renamed or added, each on input the
# tool refuses before any work: arguments, extra environment, exit status,
# what stderr must say (make check's refusals are results on stdout too)
CASES = [
    (["tools/bench.sh", "--rounds=0", "trace"], {}, 2, "want a count"),
    (["tools/bench.sh", "--states", "off on,up", "trace"], {}, 2,
     "not 'off,on,up'"),
    (["tools/bench.sh", "--label", "me", "trace"], {}, 2, "with --host"),
    (["tools/bench.sh", "--vcpus=0", "trace"], {}, 2, "--vcpus wants"),
    (["tools/bench.sh", "--mem", "1T", "trace"], {}, 2, "--mem wants"),
    (["tools/bench.sh", "--host", "--mem=1G"], {}, 2,
     "apply to QEMU guests only"),
    (["tools/bench.sh", "--icount=1", "trace"], {}, 2,
     "--icount takes no value"),
    (["tools/bench.sh", "--target", "ssh://box", "--icount", "trace"], {},
     2, "--icount applies to QEMU guests only"),
    (["tools/bench.sh", "--target=ftp://box", "trace"], {}, 2,
     "is no ssh://[USER@]HOST[:PORT]"),
    (["tools/bench.sh", "--target", "ssh://box", "6.12"], {}, 2,
     "name it installed:RELEASE"),
    (["tools/bench.sh", "installed:6.12.1-amd64"], {}, 2,
     "names a kernel of the --target box"),
    (["tools/bench.sh", "--cpus", "0-1", "trace"], {}, 2,
     "a guest's are --vcpus"),
    (["tools/bench.sh", "--host", "--cpus=0-x"], {}, 2,
     "--cpus wants a CPU list"),
    (["tools/bench.sh", "--cmdline", "quiet", "trace"], {}, 2,
     "--cmdline applies to --target alone"),
    (["tools/bench.sh", "--box-config", "trace"], {}, 2,
     "--box-config applies to --target alone"),
    (["tools/bench.sh", "--switch", "kexec", "trace"], {}, 2,
     "--switch applies to --target alone"),
    (["tools/bench.sh", "--target=ssh://box", "--switch=reboot", "trace"],
     {}, 2, "--switch wants kexec or grub-reboot, not 'reboot'"),
    (["tools/bench.sh", "--target=ssh://box", "--switch", "grub-reboot",
      "--cmdline", 'quiet dyndbg="+p"', "trace"], {}, 2,
     "a command line without quotes or backslashes"),
    (["tools/bench.sh", "--lava", "ftp://lab.example", "trace"], {}, 2,
     "a LAVA server's http:// or https:// URL"),
    (["tools/bench.sh", "--lava", "https://me:s3cret@lab.example", "trace"],
     {}, 2, "no token in the URL"),
    (["tools/bench.sh", "--lava=local", "--lava-token=/dev/null", "trace"],
     {}, 2, "--lava-token goes with --lava URL"),
    (["tools/bench.sh", "--lava-token", "/dev/null", "trace"], {}, 2,
     "go with --lava or --lava-dry-run"),
    (["tools/bench.sh", "--lava=https://me@lab.example",
      "--lava-token=/nonexistent/token", "trace"], {}, 2,
     "--lava-token: cannot read /nonexistent/token"),
    (["tools/bench.sh", "--lava-token=", "trace"], {}, 2,
     "--lava-token wants a value"),
    (["tools/bench.sh", "--lava=https://me@lab.example",
      "--lava-token=/dev/null", "trace"], {"TB_LAVA_POLL": "0"}, 2,
     "TB_LAVA_POLL: seconds between two looks at a job, not '0'"),
    (["tools/bench.sh", "--device-type=qemu", "trace"], {}, 2,
     "go with --lava or --lava-dry-run"),
    (["tools/bench.sh", "--lava=local", "--lava-dry-run", "d", "trace"], {},
     2, "one of the two"),
    (["tools/bench.sh", "--lava-dry-run", "d", "--device-type", "rpi",
      "trace"], {}, 2, "no rpi for x86_64 in tools/lava/device-types"),
    (["tools/bench.sh", "--lava-dry-run=d", "--device-type=x86", "--icount",
      "trace"], {}, 2, "not to x86 boards"),
    (["tools/bench.sh", "--lava=local", "--target=ssh://box", "trace"], {},
     2, "not on --host or --target"),
    (["tools/bench.sh", "--lava-dry-run", "d", "--device-type=q.*", "trace"],
     {}, 2, "no q.* for x86_64"),
    (["tools/bench.sh", "--lava-dry-run=", "trace"], {}, 2,
     "--lava-dry-run wants a value"),
    (["tools/bench.sh", "--lava=local", "--device-type=x86", "trace"], {}, 2,
     "--lava local runs qemu devices alone"),
    (["tools/compare.sh", "--lava=local"], {}, 2, "bench.sh's"),
    (["tools/lava.py", "console"], {}, 2, "usage: lava.py"),
    (["tools/lava.py", "identity", "/dev/null"], {}, 2, "usage: lava.py"),
    (["tools/bench.sh", "--resume=/nonexistent"], {}, 2,
     "no results directory of bench.sh"),
    (["tools/bench.sh", "--resume", "/nonexistent", "trace"], {}, 2,
     "--rounds N alone"),
    (["tools/compare.sh", "--target=ssh://box"], {}, 2, "bench.sh's"),
    (["tools/compare.sh", "--clock=sundial"], {}, 2, "not 'sundial'"),
    (["tools/compare.sh", "trace"], {}, 2, "no KERNEL"),
    (["tools/boot.sh", "--cpus", "0", "trace"], {}, 2, "--vcpus wants"),
    (["tools/boot.sh", "--vcpus=2", "--arch=arm64", "6.12"], {}, 2,
     "arm64 has no kernel '6.12'"),
    (["tools/scale.sh", "--arch", "arm64"], {}, 2, "x86_64 only"),
    (["tools/scale.sh", "--arch=x86_64", "100000,1e6"], {}, 2,
     "not '1e6'"),
    (["tools/speed.sh", "--arch=i386"], {}, 2, "x86_64 only"),
    (["tools/speed.sh", "--kernel=nosuch"], {}, 2, "no kernel 'nosuch'"),
    (["tools/check.sh", "--"], {}, 2, "takes no argument"),
    (["tools/check.sh", "TB_PARTS=host"], {}, 2, "takes no argument"),
    (["tools/check.sh"], {"TB_PARTS": "host,lng"}, 2, "not 'lng'"),
    (["tools/check.sh"], {"TB_PARTS": "host", "TB_JOBS": "0"}, 2,
     "TB_JOBS is a count"),
    (["tools/style.sh", "--checks=shellcheck,nope"], {}, 2, "no check 'nope'"),
    (["tools/disasm.sh", "--clocks=cycles,sundial", "/etc/hostname"], {}, 2,
     "no clock 'sundial'"),
    (["tools/codesize.sh", "a", "b", "c", "d"], {}, 2, "at most"),
    (["tools/guest/collect.sh", "--labels=", "/nonexistent"],
     {"TB": "/nonexistent"}, 2, "--label names no kernel"),
    (["tools/guest/collect.sh", "--do-work=2", "/nonexistent"],
     {"TB": "/nonexistent"}, 2, "--do-work wants 0 or 1"),
    (["tools/guest/collect.sh", "--emit=1", "/nonexistent"],
     {"TB": "/nonexistent"}, 2, "--emit takes no value"),
    (["tools/guest/machine.sh", "--cpus", "1-"], {}, 2,
     "--cpus wants a CPU list"),
]


def scripts():
    """Every tool a user runs, from the top of the tree; and the guest's
    own, left out (tools/docfacts.py says which is which)."""
    files = docfacts.tool_files(TOP)
    return ([rel for rel, guest in files if not guest],
            [rel for rel, guest in files if guest])


def tripwires(d):
    """Stand-ins for the commands that would start work."""
    os.makedirs(d)
    for name in TRIPWIRES:
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write(f"#!/bin/sh\necho 'TRIPWIRE: {name} ran' >&2\nexit 99\n")
        os.chmod(p, 0o755)


def run(tmp, argv, extra=None):
    env = dict(os.environ, TB_OUT=os.path.join(tmp, "out"),
               TB_CACHE=os.path.join(tmp, "cache"),
               PATH=os.path.join(tmp, "bin") + os.pathsep +
               os.environ.get("PATH", ""))
    env.update(extra or {})
    try:
        p = subprocess.run([os.path.join(TOP, argv[0])] + argv[1:], cwd=TOP,
                           env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after 60 s"
    return (p.returncode, p.stdout.decode(errors="replace"),
            p.stderr.decode(errors="replace"))


def why(rc, out, err):
    return (f"exit {rc}, stdout {out[:200]!r}, stderr {err[:300]!r}"
            .replace("\n", "\\n"))


def check_help(tmp, script, flag):
    rc, out, err = run(tmp, [script, flag])
    ok = rc == 0 and "usage" in out.lower() and err == ""
    return (f"{script} {flag}: usage on stdout, exit 0", ok,
            why(rc, out, err))


def check_bad(tmp, script):
    rc, out, err = run(tmp, [script, "--no-such-option"])
    ok = rc == 2 and out == "" and err.strip() != "" and "TRIPWIRE" not in err
    return (f"{script} --no-such-option: refused on stderr, exit 2", ok,
            why(rc, out, err))


def check_case(tmp, argv, extra, want_rc, words):
    rc, out, err = run(tmp, argv, extra)
    ok = rc == want_rc and words in err and "TRIPWIRE" not in err
    env = " ".join(f"{k}={v}" for k, v in extra.items())
    return (f"{env + ' ' if env else ''}{' '.join(argv)}: exit {want_rc}, "
            f"'{words}'", ok, why(rc, out, err))


def main():
    results = []
    found, left = scripts()
    results.append(("the tools are found in the tree",
                    "tools/bench.sh" in found and
                    "tools/report.py" in found and
                    "tools/guest/collect.sh" in found, f"found {found}"))
    results.append(("only tools/guest/ has guest-only files",
                    all(f.startswith("tools/guest/") for f in left),
                    f"guest-only: {left}"))
    with tempfile.TemporaryDirectory() as tmp:
        tripwires(os.path.join(tmp, "bin"))
        for script in found:
            mode = os.stat(os.path.join(TOP, script)).st_mode
            if not mode & stat.S_IXUSR:
                results.append((f"{script} is executable", False,
                                "chmod +x it, or it is no tool"))
                continue
            for flag in ("--help", "-h"):
                results.append(check_help(tmp, script, flag))
            results.append(check_bad(tmp, script))
        for argv, extra, rc, words in CASES:
            results.append(check_case(tmp, argv, extra, rc, words))
    return ktap.report(results)


if __name__ == "__main__":
    sys.exit(main())
