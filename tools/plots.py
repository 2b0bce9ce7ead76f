#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""tools/report.py's figures (--plot): the cumulative distribution of
each primitive's samples per kernel and state, and each CPU's median,
as SVG and PNG. matplotlib is imported when a figure is drawn."""

import os

from teststats import median


def merged_histogram(row, prim):
    acc = {}
    for run in row["runs"]:
        for low, count in run.get("histogram", {}).get(prim, []):
            acc[low] = acc.get(low, 0) + count
    return sorted(acc.items())


def per_cpu_medians(row, prim):
    acc = {}
    for run in row["runs"]:
        for c in run.get("per_cpu", {}).get(prim, []):
            acc.setdefault(int(c["cpu"]), []).append(float(c["median"]))
    return sorted((cpu, median(v)) for cpu, v in acc.items())


def plot(rows, order, prims, outdir):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["svg.hashsalt"] = "tracerbench"
    import matplotlib.pyplot as plt

    os.makedirs(outdir, exist_ok=True)
    ncol = 3
    nrow = (len(prims) + ncol - 1) // ncol
    written = []
    for what in ("cdf", "per_cpu"):
        fig, axes = plt.subplots(nrow, ncol, figsize=(5 * ncol, 3.6 * nrow),
                                 squeeze=False)
        for i, prim in enumerate(prims):
            ax = axes[i // ncol][i % ncol]
            for name in order:
                if what == "cdf":
                    h = merged_histogram(rows[name], prim)
                    if not h:
                        continue
                    total = sum(c for _, c in h)
                    # from 0 at the lowest sample, so that the step shows
                    xs, ys, run = [h[0][0]], [0.0], 0
                    for low, c in h:
                        run += c
                        xs.append(low)
                        ys.append(run / total)
                    line, = ax.step(xs, ys, where="post", label=name)
                else:
                    pc = per_cpu_medians(rows[name], prim)
                    if not pc:
                        continue
                    line, = ax.plot([c for c, _ in pc], [m for _, m in pc],
                                    marker="o", label=name)
                line.set_gid(f"{what}-{prim}-{name}")
            ax.set_title(prim)
            if what == "cdf":
                ax.set_xscale("symlog", linthresh=1)
                ax.set_xlabel("ticks per pair (log)")
                ax.set_ylabel("fraction of samples")
                ax.set_ylim(0, 1.02)
            else:
                ax.set_xlabel("CPU")
                ax.set_ylabel("median, ticks per pair")
                ax.xaxis.get_major_locator().set_params(integer=True)
            ax.grid(True, alpha=0.3)
        for j in range(len(prims), nrow * ncol):
            axes[j // ncol][j % ncol].set_visible(False)
        # every row's series, wherever it was drawn; results without
        # histograms or per-CPU rows draw none
        legend = {}
        for ax in axes.flat:
            for h, lb in zip(*ax.get_legend_handles_labels()):
                legend.setdefault(lb, h)
        handles, labels = list(legend.values()), list(legend)
        if labels:
            fig.legend(handles, labels, loc="lower center",
                       ncol=min(len(labels), 4), frameon=False)
        fig.suptitle("cumulative distribution of the samples, all rounds"
                     if what == "cdf" else "each CPU's median, median over "
                     "rounds")
        fig.tight_layout(rect=(0, 0.12, 1, 0.95))
        for ext in ("svg", "png"):
            path = os.path.join(outdir, f"{what}.{ext}")
            fig.savefig(path, dpi=80)
            written.append(path)
        plt.close(fig)
    return written
