#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""LAVA's side of bench.sh --lava (tools/lib/lava.sh), where YAML and
Jinja2 are needed:

  lava.py device TEMPLATES JOB [NAME=VALUE...]
                                 the device dictionary a LAVA server
                                 would give JOB on a device of its type:
                                 TEMPLATES/TYPE.jinja2 rendered with the
                                 job's context, as lava-server renders it,
                                 and a lab's settings of the device
  lava.py console LOG            the lines the board printed (level
                                 "target"), from a LAVA job log: what
                                 lava-run writes, or lavacli's raw log
  lava.py result RESULT          a job's outcome from lava-run's
                                 result.yaml: "pass", or "fail TYPE: MSG"

It needs python3-yaml and python3-jinja2 (lava-dispatcher's own)."""

import os
import sys

import yaml


def fail(msg, status=1):
    print('lava.py: ' + msg, file=sys.stderr)
    sys.exit(status)


def device(templates, job_file, *settings):
    """The device dictionary of JOB's device type with its context, as
    lava-server's scheduler renders it (a sandbox, trim_blocks), and the
    SETTINGS (NAME=VALUE) a lab's dictionary of such a device would set:
    its connection and power commands."""
    from jinja2 import FileSystemLoader
    from jinja2.sandbox import SandboxedEnvironment

    with open(job_file) as f:
        job = yaml.safe_load(f)
    name = job.get('device_type', '') + '.jinja2'
    if not os.path.isfile(os.path.join(templates, name)):
        fail(f'no device-type template {name} in {templates}')
    env = SandboxedEnvironment(loader=FileSystemLoader([templates]),
                               autoescape=False, trim_blocks=True)
    values = dict(job.get('context', {}))
    for s in settings:
        if '=' not in s:
            fail(f'a setting is NAME=VALUE, not {s!r}', 2)
        values.update([s.split('=', 1)])
    text = env.get_template(name).render(**values)
    yaml.safe_load(text)
    sys.stdout.write(text)


def console(log_file):
    """Each line a LAVA log holds at level "target", as the board printed
    it; a log's line is a YAML flow mapping, alone (lava-run) or as a
    list's item (lavacli jobs logs --raw)."""
    loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)
    with open(log_file, errors='replace') as f:
        for line in f:
            line = line.strip()
            if line.startswith('- '):
                line = line[2:]
            if '"lvl": "target"' not in line:
                continue
            try:
                rec = yaml.load(line, Loader=loader)
            except yaml.YAMLError:
                continue
            msg = rec.get('msg', '') if isinstance(rec, dict) else ''
            # LAVA keeps the board's quotes escaped
            if isinstance(msg, str):
                print(msg.replace('\\"', '"'))


def result(result_file):
    """pass, or fail with LAVA's error type and message"""
    with open(result_file) as f:
        res = yaml.safe_load(f) or {}
    if res.get('result') == 'pass':
        print('pass')
    else:
        print(f"fail {res.get('error_type', 'unknown')}: "
              f"{res.get('error_msg', 'no message')}")


def main(argv):
    if len(argv) >= 2 and argv[1] in ('-h', '--help'):
        print(__doc__)
        return 0
    cmds = {'device': (device, 2), 'console': (console, 1),
            'result': (result, 1)}
    if len(argv) < 2 or argv[1] not in cmds or \
       len(argv) - 2 < cmds[argv[1]][1] or \
       (argv[1] != 'device' and len(argv) - 2 > cmds[argv[1]][1]):
        fail('usage: lava.py device TEMPLATES JOB [NAME=VALUE...] | '
             'console LOG | result RESULT (--help)', 2)
    cmds[argv[1]][0](*argv[2:])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
