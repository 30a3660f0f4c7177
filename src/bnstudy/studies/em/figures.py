"""Figures 2-6 of Reed & Mengshoel (2014) from our EM trials."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from bnstudy.plotting import style

__all__ = ["error_histograms", "loglik_error_paths", "sharing_trends"]

_LABELS = {"iterations": "iterations", "loglik": "log-likelihood", "error": "error"}


def sharing_trends(levels: pd.DataFrame, *, title: str) -> Figure:
    """Fig. 2: mean ± std of iterations, log-likelihood and error against the number of shared nodes."""
    levels = levels.sort_values("n_shared")
    with style():
        fig, axes = plt.subplots(3, 1, figsize=(3.6, 6.0), sharex=True)
        for ax, metric in zip(axes, ("iterations", "loglik", "error"), strict=True):
            ax.errorbar(
                levels["n_shared"],
                levels[f"{metric}_mean"],
                yerr=levels[f"{metric}_std"],
                fmt="o-",
                ms=3,
                capsize=2,
            )
            ax.set_ylabel(_LABELS[metric])
        axes[-1].set_xlabel("number of shared nodes $n_S$")
        axes[0].set_title(title)
        fig.align_ylabels(axes)
    return fig


def loglik_error_paths(
    panels: Mapping[str, tuple[np.ndarray, np.ndarray]],
    *,
    n_paths: int,
    rng: np.random.Generator,
    ncols: int = 2,
) -> Figure:
    """Figs. 3, 5, 6: log-likelihood (x) against error (y) after each EM iteration, per trial.

    ``panels`` maps a panel title to ``(loglik_traces, error_traces)`` of shape (trials, steps),
    NaN-padded; ``n_paths`` trials per panel are drawn at random with ``rng``. The start of a path
    is the random initialisation, its end (marked) the converged estimate.
    """
    with style():
        nrows = int(np.ceil(len(panels) / ncols))
        fig, axes = plt.subplots(nrows, ncols, figsize=(3.3 * ncols, 2.6 * nrows), squeeze=False)
        for ax, (title, (ll, err)) in zip(axes.flat, panels.items(), strict=False):
            chosen = rng.choice(len(ll), size=min(n_paths, len(ll)), replace=False)
            for i in chosen:
                keep = np.isfinite(ll[i]) & np.isfinite(err[i])
                # skip the random start: its log-likelihood dwarfs the rest of the path
                x, y = ll[i][keep][1:], err[i][keep][1:]
                ax.plot(x, y, "-", lw=0.8, alpha=0.8)
                ax.plot(x[-1:], y[-1:], "k.", ms=4)
            ax.set_title(title)
            ax.set_xlabel("log-likelihood")
            ax.set_ylabel("error")
        for ax in list(axes.flat)[len(panels) :]:
            ax.set_visible(False)
        fig.tight_layout()
    return fig


def error_histograms(
    panels: Mapping[str, Sequence[float]], *, bins: int = 20, ncols: int = 2
) -> Figure:
    """Fig. 4: histograms of the error at convergence, one panel per condition."""
    with style():
        nrows = int(np.ceil(len(panels) / ncols))
        fig, axes = plt.subplots(nrows, ncols, figsize=(3.3 * ncols, 2.4 * nrows), squeeze=False)
        for ax, (title, errors) in zip(axes.flat, panels.items(), strict=False):
            ax.hist(np.asarray(errors, float), bins=bins, color="C0", edgecolor="white")
            ax.set_title(title)
            ax.set_xlabel("error at convergence")
            ax.set_ylabel("trials")
        for ax in list(axes.flat)[len(panels) :]:
            ax.set_visible(False)
        fig.tight_layout()
    return fig
