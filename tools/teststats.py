#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The statistical tests tools/report.py decides by, on the figures of
rounds: the exact sign-flip test of paired rounds, Mann-Whitney U of
unpaired ones (exact, ties included), the bootstrap interval of a
difference of medians, and Holm's adjustment. numpy and scipy are
imported where they are used, so that report.py can name the packages
a Python lacks before anything needs them."""

import math


def median(values):
    v = sorted(values)
    n = len(v)
    if not n:
        return float("nan")
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


# the sign-flip test enumerates all 2^n patterns up to this many nonzero
# differences, and draws FLIPS of them beyond
EXACT_FLIPS = 20
FLIPS = 100000
# Mann-Whitney with ties: the exact distribution of the rank sum up to
# this many rounds of both rows together, FLIPS random permutations beyond
EXACT_RANKS = 100


def sign_flip(d, rng):
    """Two-sided p of the sign-flip test of the differences d (their sum
    against that of every pattern of signs), and whether exact. A zero
    difference is the same under either sign: it changes no count."""
    import numpy as np
    d = np.asarray([x for x in d if x != 0], dtype=float)
    if not d.size:
        return 1.0, True
    t = abs(d.sum())
    tol = 1e-9 * float(np.abs(d).sum())
    if d.size <= EXACT_FLIPS:
        sums = np.zeros(1)
        for x in d:
            sums = np.concatenate((sums + x, sums - x))
        return float(np.count_nonzero(np.abs(sums) >= t - tol)) / sums.size, \
            True
    signs = rng.choice(np.array([-1.0, 1.0]), size=(FLIPS, d.size))
    hits = np.count_nonzero(np.abs(signs @ d) >= t - tol)
    return (hits + 1) / (FLIPS + 1), False


def flip_min_p(k):
    """The smallest p of the sign-flip test of k nonzero differences:
    every one the same way, 2 of the 2^k patterns (or the sampled test's
    floor)."""
    if not k:
        return 1.0
    return 2.0 / 2 ** k if k <= EXACT_FLIPS else \
        max(2.0 / 2 ** k, 1 / (FLIPS + 1))


def mann_whitney(a, b, rng):
    """Two-sided Mann-Whitney test of a against b: (p, the smallest p the
    test allows for these sizes and ties, whether exact). Without ties,
    scipy's exact distribution of U, whose smallest p is that of two
    samples apart. With ties, scipy's exact U is wrong and its normal
    approximation anti-conservative at a few rounds: the permutation test
    of the rank sum instead, by its exact distribution up to EXACT_RANKS
    rounds in all, and by FLIPS random permutations beyond."""
    import numpy as np
    from scipy.stats import mannwhitneyu, rankdata
    na, nb = len(a), len(b)
    if len(set(a) | set(b)) == na + nb:
        def p_of(x, y):
            return float(mannwhitneyu(x, y, alternative="two-sided",
                                      method="exact").pvalue)
        # computed as p is, so that rounding never takes p below it
        return p_of(a, b), p_of(range(na), range(na, na + nb)), True
    n = na + nb
    # midranks doubled: integers, summed exactly
    r2 = np.rint(2 * rankdata(list(a) + list(b))).astype(np.int64)
    mid = na * (n + 1)
    t = abs(int(r2[:na].sum()) - mid)
    if n > EXACT_RANKS:
        hits = 0
        for _ in range(FLIPS // 1000):
            pick = np.argsort(rng.random((1000, n)), axis=1)[:, :na]
            hits += np.count_nonzero(np.abs(r2[pick].sum(axis=1) - mid) >= t)
        return (hits + 1) / (FLIPS + 1), \
            max(1 / math.comb(n, na), 1 / (FLIPS + 1)), False
    # ways[k][s]: the subsets of k of the ranks seen so far that sum to s
    top = int(r2.sum())
    ways = np.zeros((na + 1, top + 1))
    ways[0][0] = 1
    for r in r2:
        ways[1:, r:] += ways[:-1, :top + 1 - r].copy()
    dist = ways[na]
    dev = np.abs(np.arange(top + 1) - mid)
    total = dist.sum()
    # the masses are added in one order for p and for its floor, and
    # adding masses never lowers a sum, so p is never below min_p
    far = dev[dist > 0].max()
    return (float(dist[dev >= t].sum() / total),
            float(dist[dev == far].sum() / total), True)


def bootstrap_ci(a, b, n, level, rng, pair):
    """The level interval of median(a) - median(b), resampling rounds:
    paired rows' rounds as pairs."""
    import numpy as np
    a = np.asarray(a)
    b = np.asarray(b)
    ia = rng.integers(0, len(a), size=(n, len(a)))
    ib = ia if pair else rng.integers(0, len(b), size=(n, len(b)))
    d = np.median(a[ia], axis=1) - np.median(b[ib], axis=1)
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(d, [tail, 100 - tail])
    return float(lo), float(hi)


def holm(ps):
    """Holm's step-down adjustment of the p values ps, in their order."""
    m = len(ps)
    adj = [0.0] * m
    run = 0.0
    for k, i in enumerate(sorted(range(m), key=lambda i: ps[i])):
        run = max(run, min(1.0, (m - k) * ps[i]))
        adj[i] = run
    return adj
