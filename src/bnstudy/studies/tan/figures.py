"""Figures 2 and 3 of Roth & Pernkopf (2020) from our runs (one row per setting, errors in [0, 1])."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from bnstudy.plotting import style

__all__ = ["errors_by_group", "errors_by_model", "grid_label"]


def grid_label(value: object) -> str:
    """A grid value as the config writes it: a float column holds integers as ``8.0``, a CSV
    column mixing numbers and text as ``"8.0"``; both are ``"8"``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return str(int(number)) if number.is_integer() else str(value)


def _strip(ax, groups: Mapping[str, np.ndarray], rng: np.random.Generator) -> None:
    for i, values in enumerate(groups.values()):
        values = 100 * np.asarray(values, float)
        jitter = rng.uniform(-0.18, 0.18, size=len(values))
        ax.plot(np.full(len(values), i) + jitter, values, ".", ms=3, alpha=0.6)
        if len(values):
            ax.plot([i - 0.3, i + 0.3], [values.min()] * 2, "k-", lw=1)
    ax.set_xticks(range(len(groups)), list(groups), rotation=35, ha="right")
    ax.set_ylabel("test error [%]")


def errors_by_model(
    runs: pd.DataFrame, datasets: Sequence[str], models: Mapping[str, str], *, seed: int = 0
) -> Figure:
    """Fig. 2: the test error of every run (setting, fold-averaged), per model, one panel per dataset.

    The black bar marks each model's best run (the Table 1 entry).
    """
    rng = np.random.default_rng(seed)
    with style():
        fig, axes = plt.subplots(
            1, len(datasets), figsize=(3.0 * len(datasets), 3.2), squeeze=False
        )
        for ax, dataset in zip(axes.flat, datasets, strict=True):
            sub = runs[runs["dataset"] == dataset]
            groups = {
                label: sub.loc[sub["model"] == model, "error"].to_numpy()
                for model, label in models.items()
                if (sub["model"] == model).any()
            }
            _strip(ax, groups, rng)
            ax.set_title(dataset)
        fig.tight_layout()
    return fig


def errors_by_group(
    panels: Mapping[str, tuple[pd.DataFrame, str]], *, seed: int = 0, ncols: int = 2
) -> Figure:
    """Fig. 3: test errors of runs grouped by one setting (ordering, K, parent draw) per panel.

    ``panels`` maps a panel title to ``(runs, column)``: the runs to show and the column to group by.
    """
    rng = np.random.default_rng(seed)
    with style():
        nrows = int(np.ceil(len(panels) / ncols))
        fig, axes = plt.subplots(nrows, ncols, figsize=(3.4 * ncols, 2.8 * nrows), squeeze=False)
        for ax, (title, (runs, column)) in zip(axes.flat, panels.items(), strict=False):
            groups = {
                f"{column}={grid_label(value)}": group["error"].to_numpy()
                for value, group in runs.groupby(column, sort=True)
            }
            _strip(ax, groups, rng)
            ax.set_title(title)
        for ax in list(axes.flat)[len(panels) :]:
            ax.set_visible(False)
        fig.tight_layout()
    return fig
