# SPDX-License-Identifier: GPL-2.0-only
"""The host tests' KTAP: one place that prints a list of results."""


def report(results):
    """Print (name, ok, why) results as KTAP, a why after each failure,
    then "N passed, N failed"; return the exit status, 1 on any failure."""
    print("KTAP version 1")
    print(f"1..{len(results)}")
    for n, (name, ok, why) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {n} {name}"
              + ("" if ok else f" # {why}"))
    failed = sum(not ok for _, ok, _ in results)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0
