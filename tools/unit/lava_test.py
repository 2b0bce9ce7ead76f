#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench.sh --lava's pieces on the host, on made-up inputs: tools/lava.py's
console lines from a LAVA log (lava-run's and lavacli's forms, the
board's quotes escaped, other levels and broken lines left out), a
result's outcome, a device dictionary rendered with a job's context and
a lab's settings; and tb_lava_job (tools/lib/lava.sh): for every device
type of tools/lava/device-types, a job that is YAML, deploys and boots as
its line says, waits for the prompt the guest's init gives its shell,
and carries a name with a quote whole. KTAP, then "N passed, N failed"."""

import os
import re
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(
    __file__)), "..", ".."))
LAVA = [sys.executable, os.path.join(TOP, "tools", "lava.py")]

LOG = r'''{"dt": "2026-11-26T10:00:00.1", "lvl": "info", "msg": "start: 1 deployimages"}
{"dt": "2026-11-26T10:00:01.2", "lvl": "target", "msg": "KTAP version 1"}
{"dt": "2026-11-26T10:00:01.3", "lvl": "target", "msg": "# @@ runs/a.off.r1/meta"}
{"dt": "2026-11-26T10:00:01.4", "lvl": "target", "msg": "# label \\\"a b\\\" 'c'"}
{"dt": "2026-11-26T10:00:01.5", "lvl": "target", "msg": "
{"dt": "2026-11-26T10:00:01.6", "lvl": "results", "msg": {"case": "x", "result": "pass"}}
- {"dt": "2026-11-26T10:00:01.7", "lvl": "target", "msg": "1..5"}
{"dt": "2026-11-26T10:00:01.8", "lvl": "target", "msg": ""}
'''
CONSOLE = ["KTAP version 1", "# @@ runs/a.off.r1/meta", "# label \"a b\" 'c'",
           "1..5", ""]


def run(argv, stdin=None):
    p = subprocess.run(argv, input=stdin, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def test_console(tmp):
    log = os.path.join(tmp, "log")
    with open(log, "w") as f:
        f.write(LOG)
    rc, out, err = run(LAVA + ["console", log])
    if rc != 0 or out.split("\n")[:-1] != CONSOLE:
        return False, f"exit {rc}, {out!r} {err!r}"
    return True, ""


def test_result(tmp):
    cases = [("case: job\ndefinition: lava\nresult: pass\n", "pass"),
             ("case: job\nerror_msg: Connection closed\n"
              "error_type: Infrastructure\nresult: fail\n",
              "fail Infrastructure: Connection closed"),
             ("", "fail unknown: no message")]
    f = os.path.join(tmp, "result.yaml")
    for text, want in cases:
        with open(f, "w") as fh:
            fh.write(text)
        rc, out, err = run(LAVA + ["result", f])
        if rc != 0 or out.strip() != want:
            return False, f"{text!r}: exit {rc}, {out!r}, not {want!r}"
    return True, ""


def test_device(tmp):
    tdir = os.path.join(tmp, "types")
    os.makedirs(tdir)
    with open(os.path.join(tdir, "base.jinja2"), "w") as f:
        f.write("arch: {{ arch }}\n{% block body %}{% endblock %}\n")
    with open(os.path.join(tdir, "board.jinja2"), "w") as f:
        f.write("{% extends 'base.jinja2' %}\n{% block body %}\n"
                "memory: {{ memory|default(512) }}\n"
                "connect: '{{ connection_command }}'\n{% endblock %}\n")
    job = os.path.join(tmp, "job.yaml")
    with open(job, "w") as f:
        f.write("device_type: board\ncontext: {arch: arm64, memory: 2048}\n")
    rc, out, err = run(LAVA + ["device", tdir, job,
                               "connection_command=telnet a 7001"])
    want = {"arch": "arm64", "memory": 2048, "connect": "telnet a 7001"}
    if rc != 0 or yaml.safe_load(out) != want:
        return False, f"exit {rc}: {out!r} {err!r}"
    with open(job, "w") as f:
        f.write("device_type: nosuch\n")
    rc, out, err = run(LAVA + ["device", tdir, job])
    if rc != 1 or "no device-type template nosuch.jinja2" not in err:
        return False, f"a missing template: exit {rc}, {err!r}"
    return True, ""


def types():
    with open(os.path.join(TOP, "tools", "lava", "device-types")) as f:
        return [line.split() for line in f
                if line.strip() and not line.startswith("#")]


def init_prompt():
    with open(os.path.join(TOP, "tools", "guest", "init")) as f:
        return re.search(r"PS1='([^']*)'", f.read()).group(1)


def lava_job(row, name):
    type_, arch = row[0], row[1]
    script = ('. "$1/tools/lib.sh" && tb_lava_job "$2" "$3" "$4" '
              'http://a/k http://a/i http://a/d "tb.x=1 tb.shell" 600 1024 '
              '"-M virt" "-cpu max,pauth-impdef=on" "-smp 4"')
    return run(["bash", "-c", script, "sh", TOP, name, type_, arch])


def check_job(row, job, name):
    type_, arch, kernel, deploy, boot, commands, console, dtb = row
    acts = {k: v for a in job["actions"] for k, v in a.items()}
    want = [("job_name", job["job_name"], name),
            ("device_type", job["device_type"], type_),
            ("deploy", acts["deploy"]["to"], deploy),
            ("boot", acts["boot"]["method"], boot),
            ("prompt", acts["boot"]["prompts"], [init_prompt()]),
            ("command", acts["test"]["interactive"][0]["script"][0]["command"],
             "/tests/suite.sh bench")]
    ctx = job["context"]
    if boot == "qemu":
        img = acts["deploy"]["images"]["kernel"]
        want += [("memory", ctx["memory"], 1024),
                 ("machine", ctx.get("machine"), "virt"),
                 ("cpu", ctx.get("cpu"), "max,pauth-impdef=on"),
                 ("extra", ctx["extra_options"], ["-smp 4"]),
                 ("append", "tb.x=1 tb.shell" in img["image_arg"], True)]
    else:
        want += [("commands", acts["boot"]["commands"], commands),
                 ("console", ctx["console_device"], console),
                 ("args", ctx["extra_kernel_args"], "tb.x=1 tb.shell"),
                 ("type", acts["deploy"]["kernel"].get("type"),
                  None if kernel == "bzimage" else kernel),
                 ("dtb", "dtb" in acts["deploy"], dtb != "-")]
    for what, got, expected in want:
        if got != expected:
            return f"{what}: {got!r}, not {expected!r}"
    return ""


def test_jobs():
    name = "tracerbench: it's a, round 1"
    for row in types():
        rc, out, err = lava_job(row, name)
        if rc != 0:
            return False, f"{row[0]}/{row[1]}: exit {rc}: {err}"
        try:
            why = check_job(row, yaml.safe_load(out), name)
        except (yaml.YAMLError, KeyError, TypeError, IndexError) as e:
            why = f"{type(e).__name__} {e}: {out}"
        if why:
            return False, f"{row[0]}/{row[1]}: {why}"
    rc, out, err = lava_job(["nosuch", "x86_64"], name)
    if rc == 0 or "no LAVA device type nosuch for x86_64" not in err:
        return False, f"an unknown type: exit {rc}, {err!r}"
    return True, ""


def main():
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, fn, args in [
                ("console lines of a LAVA log, whole and unescaped",
                 test_console, (tmp,)),
                ("a job's outcome from result.yaml", test_result, (tmp,)),
                ("a device dictionary from a job's context and a lab's "
                 "settings", test_device, (tmp,)),
                ("a job for each device type, as its line says",
                 test_jobs, ())]:
            ok, why = fn(*args)
            results.append((name, ok, why))
    return ktap.report(results)


if __name__ == "__main__":
    sys.exit(main())
