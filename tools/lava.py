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
                                 result.yaml, or from a job log:
                                 "pass", or "fail TYPE: MSG"
  lava.py job SHOW               a job's state, health, device and
                                 failure comment, a "NAME VALUE" line
                                 each, from lavacli jobs show --yaml
  lava.py identity CONFIG URL    the name of lavacli's identity in
                                 CONFIG (its lavacli.yaml) for the
                                 server at URL

It needs python3-yaml and python3-jinja2 (lava-dispatcher's own)."""

import os
import sys
from urllib.parse import urlsplit

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
    for msg in log_records(log_file, 'target'):
        # LAVA keeps the board's quotes escaped
        if isinstance(msg, str):
            print(msg.replace('\\"', '"'))


def log_records(log_file, level):
    """the messages of LEVEL in a LAVA job log (lava-run's or lavacli's
    raw form: a YAML flow mapping a line, alone or as a list's item)"""
    loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)
    with open(log_file, errors='replace') as f:
        for line in f:
            line = line.strip()
            if line.startswith('- '):
                line = line[2:]
            if f'"lvl": "{level}"' not in line:
                continue
            try:
                rec = yaml.load(line, Loader=loader)
            except yaml.YAMLError:
                continue
            if isinstance(rec, dict):
                yield rec.get('msg', '')


def result(result_file):
    """pass, or fail with LAVA's error type and message: of lava-run's
    result.yaml, or of the job's own result in a job log"""
    # a job log's every line is a record; result.yaml's first is not
    with open(result_file, errors='replace') as f:
        first = f.readline()
        res = None if '"lvl": ' in first else \
            yaml.safe_load(first + f.read()) or {}
    if res is None:
        res = next((m for m in log_records(result_file, 'results')
                    if isinstance(m, dict) and m.get('case') == 'job'
                    and m.get('definition') == 'lava'), {})
    if res.get('result') == 'pass':
        print('pass')
    else:
        print(f"fail {res.get('error_type', 'unknown')}: "
              f"{res.get('error_msg', 'no message')}")


def job(show_file):
    """the fields of a job a poll needs, from lavacli's YAML of it"""
    with open(show_file) as f:
        show = yaml.safe_load(f) or {}
    if not isinstance(show, dict) or 'state' not in show:
        fail(f'{show_file}: not a job as lavacli shows one')
    for k in ('state', 'health', 'device', 'failure_comment'):
        v = show.get(k)
        print(k, ' '.join(str(v).split()) if v is not None else '-')


def server_key(url):
    """a server's URL as host, port and path: its scheme's default port
    named, its user and lavacli's /RPC2 left out"""
    u = urlsplit(url)
    try:
        port = u.port or {'http': 80, 'https': 443}.get(u.scheme)
    except ValueError:
        return None
    path = u.path.rstrip('/')
    if path.endswith('/RPC2'):
        path = path[:-len('/RPC2')]
    return (u.scheme, (u.hostname or '').lower(), port, path)


def identity(config, url):
    """the identity of lavacli's own configuration whose uri is URL's
    server (and whose username URL's, if it names one): its token stays
    there, lavacli reads it (lavacli -i NAME)"""
    try:
        with open(config) as f:
            ids = yaml.safe_load(f) or {}
    except OSError as e:
        fail(f'no lavacli configuration: {e.strerror}: {config}')
    except yaml.YAMLError:
        # not YAML's message, which quotes the line: a token, maybe
        fail(f'{config}: not YAML')
    if not isinstance(ids, dict):
        fail(f'{config}: not a mapping of identities')
    want = server_key(url)
    user = urlsplit(url).username
    names = [n for n, v in sorted(ids.items()) if isinstance(v, dict)
             and want and server_key(str(v.get('uri', ''))) == want
             and user in (None, v.get('username'))]
    if not names:
        fail(f'no identity for {url} in {config}')
    if len(names) > 1:
        fail(f'identities {", ".join(names)} of {config} all name {url}')
    print(names[0])


def main(argv):
    if len(argv) >= 2 and argv[1] in ('-h', '--help'):
        print(__doc__)
        return 0
    cmds = {'device': (device, 2), 'console': (console, 1),
            'result': (result, 1), 'job': (job, 1),
            'identity': (identity, 2)}
    if len(argv) < 2 or argv[1] not in cmds or \
       len(argv) - 2 < cmds[argv[1]][1] or \
       (argv[1] != 'device' and len(argv) - 2 > cmds[argv[1]][1]):
        fail('usage: lava.py device TEMPLATES JOB [NAME=VALUE...] | '
             'console LOG | result RESULT | job SHOW | '
             'identity CONFIG URL (--help)', 2)
    cmds[argv[1]][0](*argv[2:])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
