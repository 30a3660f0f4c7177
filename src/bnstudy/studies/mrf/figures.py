"""Figures 1-6 of Liu & Page (2013) from our runs: metric curves, group counts, run times."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from bnstudy.plotting import style
from bnstudy.studies.mrf.tables import LABELS, summarize_runs

__all__ = ["groups_and_runtime", "groups_boxplots", "metric_curves", "paper_figures"]

_MARKERS = {
    "mle": "o",
    "oracle": "s",
    "dp_gibbs_tree": "^",
    "gibbs_exactl": "^",
    "gibbs_sba": "D",
    "mh_auxvar": "v",
}
_COLOURS = {
    "mle": "C0",
    "oracle": "C1",
    "dp_gibbs_tree": "C2",
    "gibbs_exactl": "C2",
    "gibbs_sba": "C3",
    "mh_auxvar": "C4",
}
_X_LABEL = "training sample size"


def metric_curves(
    summary: pd.DataFrame,
    panels: Sequence[tuple[str, str]],
    *,
    estimators: Sequence[str],
    title: str,
    no_error_bars: Collection[str] = ("test_loglik", "test_loglik_per_sample"),
) -> Figure:
    """Figs. 1, 4, 5: mean ± standard error over replicates of each metric against ``n``.

    Parameters
    ----------
    summary : DataFrame
        Rows of one simulation from :func:`bnstudy.studies.mrf.tables.summarize_runs`.
    panels : sequence of (metric, y label)
        One panel per metric (``mae``, ``test_loglik``, ``vi_difference``, ...), labelled (a),
        (b), ... as in the paper.
    estimators : sequence of str
        Estimators to draw, in legend order; those without a value of a panel's metric (the MLEs
        have no VI difference) are left out of that panel.
    title : str
    no_error_bars : collection of str, optional
        Metrics drawn as means only. By default the test log-likelihoods: each replicate draws
        its own true parameters, whose entropy moves the test log-likelihood of every estimator
        alike, so its spread over replicates says little about the estimators.
    """
    with style():
        fig, axes = plt.subplots(1, len(panels), figsize=(3.1 * len(panels), 2.7), squeeze=False)
        for k, (ax, (metric, ylabel)) in enumerate(zip(axes[0], panels, strict=True)):
            for est in estimators:
                rows = summary[summary["estimator"] == est].sort_values("n")
                mean = rows[f"{metric}_mean"].to_numpy(float)
                if rows.empty or not np.isfinite(mean).any():
                    continue
                se = rows[f"{metric}_sd"].to_numpy(float) / np.sqrt(rows["replicates"])
                ax.errorbar(
                    rows["n"],
                    mean,
                    yerr=None if metric in no_error_bars else np.where(np.isfinite(se), se, 0.0),
                    marker=_MARKERS[est],
                    color=_COLOURS[est],
                    ms=3.5,
                    lw=1.0,
                    capsize=2,
                    label=LABELS[est],
                )
            ax.set_xlabel(_X_LABEL)
            ax.set_ylabel(ylabel)
            ax.set_title(f"({'abcdef'[k]})", loc="left")
            ax.legend(frameon=False)
        fig.suptitle(title)
        fig.tight_layout()
    return fig


def _boxplot_by_n(ax, rows: pd.DataFrame, column: str) -> None:
    sizes = sorted(rows["n"].unique())
    data = [rows.loc[rows["n"] == n, column].to_numpy(float) for n in sizes]
    ax.boxplot(data, positions=range(len(sizes)), widths=0.5, showfliers=False)
    for k, values in enumerate(data):  # every replicate, so that few replicates stay visible
        ax.plot(np.full(values.size, k), values, ".", color="C0", ms=4, alpha=0.6)
    ax.set_xticks(range(len(sizes)), [str(n) for n in sizes])
    ax.set_xlabel(_X_LABEL)


def groups_boxplots(
    runs: pd.DataFrame, *, estimators: Sequence[str], true_groups: float, title: str
) -> Figure:
    """Fig. 3: boxplots over replicates of the number of groups inferred, one panel per estimator.

    ``runs`` holds the per-replicate rows of one simulation; the number of groups of a run is its
    mean over the kept MCMC steps. The dashed line is the true number of groups.
    """
    present = [e for e in estimators if (runs["estimator"] == e).any()]
    with style():
        fig, axes = plt.subplots(
            1, max(len(present), 1), figsize=(3.1 * max(len(present), 1), 2.7), squeeze=False
        )
        for k, (ax, est) in enumerate(zip(axes[0], present, strict=False)):
            _boxplot_by_n(ax, runs[runs["estimator"] == est], "n_groups")
            ax.axhline(true_groups, color="0.4", ls="--", lw=0.8, label=f"true ({true_groups:g})")
            ax.set_title(f"({'abc'[k]}) {LABELS[est]}", loc="left")
            ax.set_ylabel("# groups inferred")
            ax.legend(frameon=False)
        fig.suptitle(title)
        fig.tight_layout()
    return fig


def groups_and_runtime(
    runs: pd.DataFrame, *, estimator: str, true_groups: float, title: str
) -> Figure:
    """Figs. 2 and 6: number of groups inferred (boxplots) and run time (seconds) against ``n``."""
    rows = runs[runs["estimator"] == estimator]
    with style():
        fig, (left, right) = plt.subplots(1, 2, figsize=(6.4, 2.7))
        _boxplot_by_n(left, rows, "n_groups")
        left.axhline(true_groups, color="0.4", ls="--", lw=0.8, label=f"true ({true_groups:g})")
        left.set_ylabel("number of groups inferred")
        left.legend(frameon=False)
        _boxplot_by_n(right, rows, "seconds")
        right.set_ylabel("run time (seconds)")
        fig.suptitle(f"{title}: {LABELS[estimator]}")
        fig.tight_layout()
    return fig


#: Panel (b) of Figs. 1, 4 and 5: the paper plots the tree's test log-likelihood per test sample
#: (its axis runs -4160 to -4120 for 8,191 nodes) and the grids' summed over the 1,000 test samples.
_TEST_PANEL = {
    "tree": ("test_loglik_per_sample", "test log-likelihood per sample"),
    "small_grid": ("test_loglik", "test log-likelihood"),
    "large_grid": ("test_loglik", "test log pseudo-likelihood"),
}
_TITLES = {"tree": "Tree", "small_grid": "Small grid", "large_grid": "Large grid"}


def paper_figures(runs: pd.DataFrame) -> dict[str, Figure]:
    """Figures 1-6 of the paper from the per-replicate runs of all three simulations.

    Returns
    -------
    dict of str to Figure
        ``fig1`` (tree: error, test log-likelihood, VI difference), ``fig2`` (tree: groups and
        run time of the Bayesian estimator), ``fig3`` (small grid: groups of Gibbs_ExactL,
        MH_AuxVar, Gibbs_SBA), ``fig4`` (small grid metrics), ``fig5`` (large grid metrics) and
        ``fig6`` (large grid: groups and run time of Gibbs_SBA).
    """
    summary = summarize_runs(runs)
    estimators = {
        "tree": ["mle", "oracle", "dp_gibbs_tree"],
        "small_grid": ["mle", "oracle", "gibbs_exactl", "mh_auxvar", "gibbs_sba"],
        "large_grid": ["mle", "oracle", "gibbs_sba"],
    }
    figures = {}
    for fig, simulation in (("fig1", "tree"), ("fig4", "small_grid"), ("fig5", "large_grid")):
        panels = [
            ("mae", "error of estimate"),
            _TEST_PANEL[simulation],
            ("vi_difference", "VI difference"),
        ]
        figures[fig] = metric_curves(
            summary[summary["simulation"] == simulation],
            panels,
            estimators=estimators[simulation],
            title=_TITLES[simulation],
        )

    def rows(simulation):
        return runs[runs["simulation"] == simulation]

    def true_groups(simulation):
        return float(rows(simulation)["n_groups_true"].mean())

    figures["fig2"] = groups_and_runtime(
        rows("tree"), estimator="dp_gibbs_tree", true_groups=true_groups("tree"), title="Tree"
    )
    figures["fig3"] = groups_boxplots(
        rows("small_grid"),
        estimators=estimators["small_grid"][2:],
        true_groups=true_groups("small_grid"),
        title="Small grid",
    )
    figures["fig6"] = groups_and_runtime(
        rows("large_grid"),
        estimator="gibbs_sba",
        true_groups=true_groups("large_grid"),
        title="Large grid",
    )
    return {name: figures[name] for name in sorted(figures)}
