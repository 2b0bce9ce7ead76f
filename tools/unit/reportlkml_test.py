#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Tests of tools/report.py's cover letter's table (--format lkml), on
made-up results, run like report_test.py's: the table against its golden
copy, and a header that tells results directories apart by their
kernels."""

import json
import os
import sys

from report_test import GOLDEN, ICOUNT, expect, main, report, results


# the kernels of the golden table, as bench.sh describes them: a tree at
# two commits, the second with changes not committed, one a variant
LKML_TREE = "/home/dev/src/linux"
LKML_KERNELS = {
    "master": {"release": "6.12.0", "kind": "builtin",
               "spec": "master=notrace"},
    "master-trace": {"release": "6.13.0-rc1", "kind": "tree",
                     "spec": "master-trace=trace,tree=~/src/linux@for-next/core",
                     "tree": LKML_TREE, "tree_state": "git " + "1a2b3c4d" * 5},
    "patched-trace": {"release": "6.13.0-rc1+", "kind": "tree",
                      "spec": "patched-trace=trace,tree=~/src/linux,"
                              "patches=/home/dev/series/v2/",
                      "tree": LKML_TREE,
                      "tree_state": "git " + "5e6f7a8b" * 5 + " 0123abcd"},
}


def t_lkml(tmp):
    """--format lkml: the cover letter's table, as tools/unit/golden/
    lkml.txt has it (TB_UPDATE_GOLDEN=1 rewrites it), within 72 columns:
    kernel.state rows, ticks then ns at arm64's 62.5 MHz, each row
    against the same state of master-trace; the header names each kernel
    by its release, spec (paths by their last part) and commit."""
    env = dict(ICOUNT, arch="arm64", nr_samples=10000000, rounds=3,
               tracerbench="0.3.0")
    d = results(f"{tmp}/lkml", env, {
        "master.out": [1] * 3, "master-trace.off": [75, 76, 75],
        "master-trace.on": [159] * 3, "patched-trace.off": [77] * 3,
        "patched-trace.on": [161, 161, 162]}, hz=62500000,
        kernels=LKML_KERNELS)
    rc, out, err = report(["--format", "lkml", "--reference", "master-trace",
                           d])
    expect("exit", rc, 0)
    expect("stderr: warnings alone", [x for x in err.splitlines()
                                      if "warning" not in x], [])
    if os.environ.get("TB_UPDATE_GOLDEN"):
        with open(GOLDEN, "w") as f:
            f.write(out)
    with open(GOLDEN) as f:
        expect("the table", out, f.read())
    wide = [x for x in out.splitlines() if len(x) > 72]
    expect("lines over 72 columns", wide, [])


def t_lkml_dirs(tmp):
    """--format lkml of two hosts' directories, alike in all but their
    kernels: each directory's lines name its kernel's release, so that
    their headers differ."""
    env = dict(mode="host", arch="x86_64", host_cpu="AMD EPYC",
               nr_samples=10000, rounds=10, tracerbench="0.3.0")
    dirs = []
    for name, rel in (("master", "6.12.0-rc1-00001-g1a2b3c4d5e6f"),
                      ("patched", "6.12.0-rc1-00003-g5e6f7a8b9c0d")):
        dirs.append(results(f"{tmp}/{name}/results", env,
                            {f"{name}.off": [75] * 10, f"{name}.on": [150] * 10},
                            kernels={name: {"release": rel}}))
    rc, out, err = report(["--format", "lkml", "--reference", "master"]
                          + dirs)
    expect("exit", rc, 0)
    head = out.split("  per pair")[0].splitlines()
    expect("the header", head, [
        "x86_64, CPU AMD EPYC, counter 1 GHz",
        "  10000 samples/CPU/run, 10 rounds, tracerbench 0.3.0",
        "  master: 6.12.0-rc1-00001-g1a2b3c4d5e6f",
        "x86_64, CPU AMD EPYC, counter 1 GHz",
        "  10000 samples/CPU/run, 10 rounds, tracerbench 0.3.0",
        "  patched: 6.12.0-rc1-00003-g5e6f7a8b9c0d"])


def t_lkml_box(tmp):
    """--format lkml of a test box's directory (bench.sh --target): the
    header names the box and its CPU, cores, SMT, governor and turbo;
    machine.sh's warnings before the first run, those of a kernel's
    boots that were not found before (with the rounds), and the runs
    begun with a load above 0.5, are said on stderr, the rest of the
    report as it is."""
    env = dict(mode="host", arch="x86_64", host_cpu="AMD EPYC",
               nr_samples=10000, rounds=2, tracerbench="0.3.0",
               target="ssh://root@lab-box:22", machine_hostname="lab-box",
               machine_cpu_model="Xeon Silver 4310", machine_cores=12,
               machine_smt="on", machine_governor="powersave",
               machine_turbo="on")
    env["machine_warning.governor"] = "the cpufreq governor is powersave"
    env["machine_warning.turbo"] = "turbo/boost is on"
    d = results(f"{tmp}/box", env, {"a.off": [75] * 2, "b.off": [80] * 2,
                                    "b.on": [90] * 2})
    with open(f"{d}/results.json") as f:
        doc = json.load(f)
    for run in doc["runs"]:
        run["meta"]["load"] = "0.93" if run["id"] == "b.off.r2" else "0.12"
        # at each boot: turbo, as before the first run (not said again),
        # and b's governor in both rounds (both states: said once), a's
        # in round 2 alone
        run["meta"]["machine_warning.turbo"] = "turbo/boost is on"
        if run["id"] != "a.off.r1":
            run["meta"]["machine_warning.governor"] = \
                "the cpufreq governor is schedutil"
    with open(f"{d}/results.json", "w") as f:
        json.dump(doc, f)
    rc, out, err = report(["--format", "lkml", "--reference", "a", d])
    expect("exit", rc, 0)
    expect("the header's first lines", out.splitlines()[:2], [
           "x86_64, lab-box: CPU Xeon Silver 4310, 12 cores, SMT on, "
           "governor",
           "    powersave, turbo on, counter 1 GHz"])
    warned = [x for x in err.splitlines() if "lab-box" in x or "box:" in x
              or "load" in x or "boot" in x]
    expect("the machine's warnings", warned, [
        f"report.py: warning: {d}: the cpufreq governor is powersave",
        f"report.py: warning: {d}: turbo/boost is on",
        "report.py: warning: kernel a: at its boot of round 2: the "
        "cpufreq governor is schedutil",
        "report.py: warning: kernel b: at its boots of rounds 1, 2: the "
        "cpufreq governor is schedutil",
        "report.py: warning: b.off: 1 of its 2 runs began with a load "
        "average above 0.5 (up to 0.93): other work shared the CPUs"])


def t_lkml_lab(tmp):
    """--format lkml of a board's jobs in a LAVA lab (bench.sh --lava
    URL --device-type TYPE): the header names the device type and the
    lab, not the CPU of the host that submitted the jobs."""
    env = dict(mode="host", arch="arm64", host_cpu="AMD EPYC",
               nr_samples=10000, rounds=2, tracerbench="0.3.0",
               lava="https://lava.example.org/",
               lava_device_type="bcm2711-rpi-4-b")
    d = results(f"{tmp}/lab", env, {"a.off": [75] * 2, "b.off": [80] * 2})
    rc, out, err = report(["--format", "lkml", "--reference", "a", d])
    expect("exit", rc, 0)
    expect("the header's first lines", out.splitlines()[:2], [
           "arm64, LAVA device type bcm2711-rpi-4-b, "
           "https://lava.example.org/,", "    counter 1 GHz"])


TESTS = [
    ("--format lkml: the cover letter's table, golden", t_lkml),
    ("--format lkml: each directory's kernels by release", t_lkml_dirs),
    ("--format lkml: a test box named; its warnings said", t_lkml_box),
    ("--format lkml: a LAVA lab's board named", t_lkml_lab),
]


if __name__ == "__main__":
    sys.exit(main([], TESTS))
