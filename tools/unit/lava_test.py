#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench.sh --lava's pieces on the host, on made-up inputs: tools/lava.py's
console lines from a LAVA log (lava-run's and lavacli's forms, the
board's quotes escaped, other levels and broken lines left out), a
result's outcome (lava-run's result.yaml, a job log), a job's state
(lavacli's YAML), lavacli's identity of a server, --lava-token's token
handed to lavacli (a stand-in) and masked, a job followed on a
stand-in server (tb_lava_submit) and a Ctrl-C during it
(lava_interrupt), a device dictionary rendered with a job's context
and a lab's settings; and tb_lava_job (tools/lib/lava.sh): for every device
type of tools/lava/device-types, a job that is YAML, deploys and boots as
its line says, waits for the prompt the guest's init gives its shell,
and carries a name with a quote whole. KTAP, then "N passed, N failed"."""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time

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


def test_log_result(tmp):
    """the job's own result in a job log (lavacli's raw form): an
    action's results and errors are not the job's"""
    log = os.path.join(tmp, "joblog")
    rec = ('- {"dt": "t", "lvl": "results", "msg": {"case": "%s", '
           '"definition": "lava", "error_msg": "%s", "error_type": '
           '"%s", "result": "%s"}}\n')
    with open(log, "w") as f:
        f.write(rec % ("boot-image-retry", "x", "Bug", "fail"))
        f.write('- {"dt": "t", "lvl": "error", "msg": "Connection closed"}\n')
        f.write(rec % ("job", "Connection closed", "Infrastructure", "fail"))
    rc, out, err = run(LAVA + ["result", log])
    if rc != 0 or out.strip() != "fail Infrastructure: Connection closed":
        return False, f"exit {rc}, {out!r} {err!r}"
    with open(log, "w") as f:
        f.write(rec % ("job", "", "", "pass"))
    rc, out, err = run(LAVA + ["result", log])
    if rc != 0 or out.strip() != "pass":
        return False, f"a job that passed: exit {rc}, {out!r} {err!r}"
    return True, ""


def test_job(tmp):
    """a job's fields from lavacli jobs show --yaml; a comment of
    several lines on one; what is not a job refused"""
    show = os.path.join(tmp, "show.yaml")
    with open(show, "w") as f:
        f.write("id: 7\nstate: Finished\nhealth: Incomplete\n"
                "device: rpi-04\nfailure_comment: 'board did\n\n  not "
                "answer'\n")
    rc, out, err = run(LAVA + ["job", show])
    want = ["state Finished", "health Incomplete", "device rpi-04",
            "failure_comment board did not answer"]
    if rc != 0 or out.splitlines() != want:
        return False, f"exit {rc}, {out!r} {err!r}"
    with open(show, "w") as f:
        f.write("Unable to call 'jobs.show': <Fault 404>\n")
    rc, out, err = run(LAVA + ["job", show])
    if rc != 1 or "not a job as lavacli shows one" not in err:
        return False, f"not a job: exit {rc}, {err!r}"
    return True, ""


def test_identity(tmp):
    """lavacli's identity of a server: the URL's scheme, host, port (its
    default named or not), path and /RPC2 compared, the user's too if
    the URL names one; none, or two that match, refused; a broken file
    refused without a quote of it"""
    conf = os.path.join(tmp, "lavacli.yaml")
    with open(conf, "w") as f:
        f.write("lab: {uri: 'https://lava.example.org/RPC2', username: me,"
                " token: t1}\n"
                "lab2: {uri: 'https://lava.example.org:443/RPC2/', "
                "username: you, token: t2}\n"
                "home: {uri: 'http://127.0.0.1:8000/lava/RPC2', "
                "username: me, token: t3}\n")
    # URL, exit status, what stdout (0) or stderr (1) holds
    for url, want_rc, want in (
            ("https://me@lava.example.org", 0, "lab\n"),
            ("https://you@LAVA.example.org:443/", 0, "lab2\n"),
            ("http://127.0.0.1:8000/lava/", 0, "home\n"),
            ("https://lava.example.org/", 1, "identities lab, lab2"),
            ("http://lava.example.org/", 1, "no identity"),
            ("http://127.0.0.1:8000/", 1, "no identity")):
        rc, out, err = run(LAVA + ["identity", conf, url])
        said = out if want_rc == 0 else err
        if rc != want_rc or (said != want if want_rc == 0 else want not in said):
            return False, f"{url}: exit {rc}, {out!r} {err!r}, not {want!r}"
    # a broken file: said, not quoted (its lines may hold a token)
    with open(conf, "w") as f:
        f.write("lab: {uri: 'https://a/RPC2', token: s3cret-t0ken\n")
    rc, out, err = run(LAVA + ["identity", conf, "https://a/"])
    if rc != 1 or "not YAML" not in err or "s3cret" in err:
        return False, f"a broken configuration: exit {rc}, {err!r}"
    return True, ""


def test_token(tmp):
    """tb_lava_connect with --lava-token's file: lavacli (a stand-in,
    which fails as a server that refuses the token does) finds the
    token in a configuration of its own, mode 600 in a directory of mode
    700, with the URL's user (an e-mail address here) and host; the
    token is masked in what is said, in a URL or bare; tb_lava_disconnect
    leaves no copy"""
    token = "s3cr3t-" + os.urandom(8).hex()
    with open(os.path.join(tmp, "token"), "w") as f:
        f.write(token + "\n")
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir, exist_ok=True)
    fake = os.path.join(bindir, "lavacli")
    with open(fake, "w") as f:
        f.write('#!/bin/sh\nc=$XDG_CONFIG_HOME/lavacli.yaml\n'
                'echo "mode $(stat -c %a "$XDG_CONFIG_HOME") '
                '$(stat -c %a "$c")" >&2\n'
                't=$(sed -n "s/^  token: .\\(.*\\).$/\\1/p" "$c")\n'
                'u=$(sed -n "s/^  username: .\\(.*\\).$/\\1/p" "$c")\n'
                'h=$(sed -n "s/^  uri: .\\(.*\\).$/\\1/p" "$c")\n'
                'echo "the token, bare: $t" >&2\n'
                'echo "Unable to connect: 401 for url: '
                'https://$u:$t@${h#https://}"\nexit 1\n')
    os.chmod(fake, 0o755)
    script = ('. "$1/tools/lib.sh" && PATH=$2:$PATH && '
              'TMPDIR=$3 && tb_lava_connect https://me@corp.example@lab.example/ '
              '"$3/token";'
              ' rc=$?; d=$tb_lava_confdir; tb_lava_disconnect; '
              'echo "rc $rc left $(ls -d "$d" 2>/dev/null)"')
    rc, out, err = run(["bash", "-c", script, "sh", TOP, bindir, tmp])
    said = err + out
    if token in said:
        return False, f"the token said: {said!r}"
    want = ["mode 700 600", "the token, bare: <token>",
            "https://me@corp.example:<token>@lab.example/RPC2"]
    missing = [w for w in want if w not in said]
    if missing or out.split() != ["rc", "1", "left"]:
        return False, f"{missing} not said, or {out!r}: {said!r}"
    if [n for n in os.listdir(tmp) if n.startswith("tracerbench-lavacli")]:
        return False, "the token's directory is left"
    return True, ""


# the stand-in lavacli, driven by the files of a state directory
STANDIN = os.path.join(TOP, "tools", "unit", "lavacli-standin")

REC = ('- {"dt": "t", "lvl": "results", "msg": {"case": "job", '
       '"definition": "lava", "error_msg": "%s", "error_type": "%s", '
       '"result": "%s"}}\n')


def fake_server(tmp, name, log=REC % ("", "", "pass"), states=(), **files):
    """a stand-in server's state directory, with the lavacli that reads
    it (bin/lavacli), the --lava-token file (token), its job's log and
    the FILES given (submit, lost, health, comment: the stand-in's own
    defaults for the others), STATES a line each"""
    state = os.path.join(tmp, name)
    os.makedirs(os.path.join(state, "bin"))
    if states:
        files["states"] = "\n".join(states)
    files.update(log=log, token="tok-" + os.urandom(6).hex())
    for f, text in files.items():
        with open(os.path.join(state, f), "w") as fh:
            fh.write(f"{text}\n" if f != "log" else text)
    os.symlink(STANDIN, os.path.join(state, "bin", "lavacli"))
    return state


def calls(state, what):
    with open(os.path.join(state, "calls")) as f:
        return [c for c in f.read().splitlines() if what in c]


# tb_lava_submit's job to the stand-in, its outcome in $S/job: its exit
# status, then its result and page
SUBMIT = ('. "$1/tools/lib.sh" && export S=$2 && PATH=$S/bin:$PATH && '
          'TMPDIR=$S && TB_LAVA_POLL=0 && '
          'tb_lava_connect https://me@lab.example/ "$S/token" && '
          '{ tb_lava_submit /dev/null "$S/job"; echo "exit $?"; '
          'cat "$S/job/result" "$S/job/url"; tb_lava_disconnect; }')


def test_submit(tmp):
    """tb_lava_submit against a stand-in server: the job followed to its
    end, each state said once as it changes, its page, device and log
    kept; a job that ended Incomplete named with the server's health,
    the dispatcher's error and the server's comment; a refused job; a
    server that does not answer on the job given up after five looks,
    and one that answers again after four not"""
    url = "https://lab.example/scheduler/job/42"
    failed = REC % ("Connection closed", "Infrastructure", "fail")
    cases = [
        ("complete", {}, ["exit 0", "pass", url],
         ["Submitted", "Running", "Finished"]),
        ("incomplete", {"health": "Incomplete", "comment": "board hung",
                        "log": failed},
         ["exit 1", "fail Incomplete, Infrastructure: Connection closed "
          "(board hung)", url], ["Submitted", "Running", "Finished"]),
        ("refused", {"submit": "Invalid job definition: no actions"},
         ["exit 1", "fail submit: Invalid job definition: no actions "],
         []),
        ("lost", {"lost": 9},
         ["exit 1", "fail server: no answer on the job five times, it "
          "may still run there: Unable to connect: "
          "http://me:<token>@lab.example/RPC2", url], []),
        ("back", {"lost": 4}, ["exit 0", "pass", url],
         ["Submitted", "Running", "Finished"])]
    for name, opts, want, states in cases:
        states_seen = ["Submitted", "Submitted", "Running", "Running",
                       "Finished"]
        state = fake_server(tmp, name, states=states_seen, **opts)
        rc, out, err = run(["bash", "-c", SUBMIT, "sh", TOP, state])
        said = re.findall(r"^tracerbench: job \S+: (\w+)$", err, re.M)
        if out.splitlines() != want or said != states:
            return False, f"{name}: {out!r}, states {said}: {err!r}"
        shows = len(calls(state, "jobs show 42"))
        if name == "lost" and shows != 5:
            return False, f"lost: {shows} looks at the job, not 5"
        with open(os.path.join(state, "token")) as f:
            token = f.read().strip()
        if token in out + err + open(os.path.join(
                state, "job", "result")).read():
            return False, f"{name}: the token said"
        if name == "complete":
            with open(os.path.join(state, "job", "device")) as f:
                if f.read() != "qemu-07\n":
                    return False, "complete: not the job's device"
    return True, ""


# the job followed as bench.sh follows it, with its Ctrl-C (SIGINT to
# the script, after a job is under way) handled by lava_interrupt; die
# and the stderr its messages go to as bench.sh's
INTERRUPT = ('. "$1/tools/lib.sh" && . "$1/tools/lib/bench_lava.sh" && '
             'export S=$2 && PATH=$S/bin:$PATH && TMPDIR=$S && '
             'TB_LAVA_POLL=1 && out=$S/out stop_asked=0 && '
             'die() { echo "bench.sh: $*" >&2; exit 1; } && '
             'exec {bench_stderr}>&2 && '
             'tb_lava_connect https://me@lab.example/ "$S/token" && '
             'trap lava_interrupt INT && '
             '{ tb_lava_submit /dev/null "$S/job"; '
             'echo "exit $? stop_asked $stop_asked"; }')


def sigint_default():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_interrupt(tmp):
    """Ctrl-C while a job runs on a server: the first one lets it run to
    its end, saying so; a second one cancels it on the server, naming
    the job"""
    results = {}
    for name, sigints in [("once", 1), ("twice", 2)]:
        state = fake_server(tmp, "int-" + name,
                            states=["Running"] * 6 + ["Finished"])
        # in a session of its own, whose process group gets the SIGINT,
        # as a terminal's Ctrl-C reaches the foreground command too; with
        # SIGINT's default, as from a terminal, whatever this test got (a
        # background job of make check's ignores it, and bash cannot
        # trap a signal ignored when it starts)
        p = subprocess.Popen(["bash", "-c", INTERRUPT, "sh", TOP, state],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True,
                             preexec_fn=sigint_default)
        # the job under way: its first look was made
        for _ in range(600):
            if os.path.exists(os.path.join(state, "job", "show.yaml")):
                break
            time.sleep(0.05)
        for _ in range(sigints):
            os.killpg(p.pid, signal.SIGINT)
            time.sleep(0.5)
        out, err = p.communicate(timeout=120)
        results[name] = (p.returncode, out, err, calls(state, "jobs cancel"))
    rc, out, err, cancels = results["once"]
    if (rc != 0 or out.strip() != "exit 0 stop_asked 1" or cancels or
            "stopping after the job under way" not in err):
        return False, f"once: exit {rc}, {out!r}, {cancels}: {err!r}"
    rc, out, err, cancels = results["twice"]
    if (rc != 1 or out or cancels != ["-i tracerbench jobs cancel 42"] or
            "stopped, job https://lab.example/scheduler/job/42 canceled: "
            "bench.sh --resume" not in err):
        return False, f"twice: exit {rc}, {out!r}, {cancels}: {err!r}"
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
        # the machine and CPU in the context where the template reads
        # them (arm64), else among the options (x86_64's reads neither)
        if arch == "arm64":
            given, extra = ("virt", "max,pauth-impdef=on"), []
        else:
            given, extra = (None, None), ["-M virt", "-cpu max,pauth-impdef=on"]
        want += [("memory", ctx["memory"], 1024),
                 ("machine", ctx.get("machine"), given[0]),
                 ("cpu", ctx.get("cpu"), given[1]),
                 ("extra", ctx["extra_options"], extra + ["-smp 4"]),
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
                ("a job's outcome from its log", test_log_result, (tmp,)),
                ("a job's state from lavacli", test_job, (tmp,)),
                ("lavacli's identity of a server", test_identity, (tmp,)),
                ("--lava-token: a copy for lavacli alone, masked, removed",
                 test_token, (tmp,)),
                ("a job on a server followed to its end, or given up",
                 test_submit, (tmp,)),
                ("Ctrl-C: once after the job, twice cancels it",
                 test_interrupt, (tmp,)),
                ("a device dictionary from a job's context and a lab's "
                 "settings", test_device, (tmp,)),
                ("a job for each device type, as its line says",
                 test_jobs, ())]:
            ok, why = fn(*args)
            results.append((name, ok, why))
    return ktap.report(results)


if __name__ == "__main__":
    sys.exit(main())
