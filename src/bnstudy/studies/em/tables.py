"""The EM paper's tables from our trials, with the published numbers beside ours."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnstudy.studies.em.trials import METRICS, sharing_correlations, summarize_trials

__all__ = [
    "ENDPOINT_COLUMNS",
    "PAPER_NETWORK",
    "REGION_COLUMNS",
    "endpoints_table",
    "error_metric_table",
    "error_regions_table",
    "mini_adapt_table",
    "sharing_table",
]

#: Our network -> the paper's row it stands for in Table 3 (None: the paper has no such row).
PAPER_NETWORK = {"pigs": "Pigs", "adapt": None}

_R_COLUMNS = [f"r_{m}_{s}" for m in METRICS for s in ("mean", "std")]

#: Columns of :func:`endpoints_table`.
ENDPOINT_COLUMNS = (
    "figure",
    "network",
    "n_samples",
    "n_hidden",
    "arm",
    "n_shared",
    "trials",
    "error_min",
    "error_max",
    "error_range",
    "loglik_min",
    "loglik_max",
    "loglik_at_error_min",
    "above_best_none",
)

#: Columns of :func:`error_regions_table`.
REGION_COLUMNS = (
    "observables",
    "sharing",
    "trials",
    "error_min",
    "error_max",
    "error_p10",
    "error_p90",
    "error_spread_p10_p90",
    "middle_half_share",
    "below_none_min",
    "above_none_max",
)


def sharing_table(trials: pd.DataFrame, paper: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 3: per network and sample size, Pearson r of each metric's mean/std with n_shared.

    Parameters
    ----------
    trials : DataFrame
        Concatenated trials of :func:`~bnstudy.studies.em.trials.run_em_trials` with ``network``
        and ``n_samples`` columns.
    paper : DataFrame
        The paper's Table 3 (``paper_network``, ``n`` and the ``r_*`` columns).

    Returns
    -------
    levels : DataFrame
        Mean and std of every metric per network, sample size and number of shared nodes, the
        no-sharing level (``n_shared`` = 0) included.
    table : DataFrame
        One row per network and sample size: ours (``r_*``, over the ``levels`` with at least
        one shared node, as the paper's) beside the paper's (``r_*_paper``),
        followed by the paper's rows for networks that are not public (ours left empty).
    """
    levels = summarize_trials(trials, ["network", "n_samples", "n_shared"])
    # r runs over the levels of the gradual sharing method (Sec. 5.2: S starts with
    # Delta n_S >= 1 shared nodes; Eq. 10's example is n_S in {2, 4, ..., 10}, m = 5). The
    # no-sharing batch (n_shared = 0), there for Fig. 5 and 6's comparisons, is not one of them.
    sharing = levels[levels["n_shared"] > 0]
    ours = sharing_correlations(sharing, ["network", "n_samples"])
    ours = ours.rename(columns={"n_samples": "n"})
    ours["paper_network"] = ours["network"].map(PAPER_NETWORK)
    paper = paper.rename(columns={c: f"{c}_paper" for c in _R_COLUMNS})
    merged = ours.merge(paper, on=["paper_network", "n"], how="left")
    merged["note"] = np.where(
        merged["paper_network"].isna(),
        "the paper's ADAPT P2 (closest to adapt10_v7e) is not in its Table 3",
        "",
    )
    covered = set(ours["paper_network"].dropna())
    others = paper[~paper["paper_network"].isin(covered)].assign(
        network="", note="network not public"
    )
    table = pd.concat([merged, others], ignore_index=True)
    # how many of the six correlations have the paper's sign (where the paper has the row)
    ours_r = table[_R_COLUMNS].to_numpy(float)
    paper_r = table[[f"{c}_paper" for c in _R_COLUMNS]].to_numpy(float)
    comparable = np.isfinite(ours_r) & np.isfinite(paper_r)
    same_sign = (np.sign(ours_r) == np.sign(paper_r)) & comparable
    table["same_sign_as_paper"] = np.where(
        comparable.any(axis=1),
        [f"{a}/{b}" for a, b in zip(same_sign.sum(1), comparable.sum(1), strict=True)],
        "",
    )
    columns = ["network", "paper_network", "n", "levels"]
    for column in _R_COLUMNS:
        columns += [column, f"{column}_paper"]
    return levels, table[[*columns, "same_sign_as_paper", "note"]]


def mini_adapt_table(trials: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Table 4: mean and std of error, log-likelihood and iterations per condition, beside the paper."""
    ours = summarize_trials(trials, ["sharing", "observables"])
    stats = [f"{m}_{s}" for m in ("error", "loglik", "iterations") for s in ("mean", "std")]
    merged = ours.merge(
        paper.rename(columns={c: f"{c}_paper" for c in stats}),
        on=["sharing", "observables"],
        how="left",
    )
    columns = ["sharing", "observables", "trials"]
    for column in stats:
        columns += [column, f"{column}_paper"]
    # no sharing first, as the paper's table
    merged = merged.assign(_shared=merged["sharing"] != "none").sort_values(
        ["_shared", "observables"]
    )
    return merged[columns].reset_index(drop=True)


def error_metric_table(trials: pd.DataFrame, paper_value: float) -> pd.DataFrame:
    """Each candidate error metric on complete data (O_C) beside the paper's printed error.

    The paper's Eq. (1) is ambiguous (targets.md C.7); the metric whose complete-data value is
    closest to the printed one (16.325 without sharing) is the one to use.
    """
    complete = trials[trials["observables"] == "O_C"]
    rows = []
    for column in sorted(c for c in complete.columns if c.startswith("error_")):
        for sharing, group in complete.groupby("sharing"):
            values = group[column].to_numpy(float)
            rows.append(
                {
                    "metric": column.removeprefix("error_"),
                    "sharing": sharing,
                    "mean": values.mean(),
                    "std": values.std(ddof=1) if len(values) > 1 else np.nan,
                    "paper": paper_value,
                    "ratio_to_paper": values.mean() / paper_value,
                }
            )
    table = pd.DataFrame(rows)
    closest = (
        table[table["sharing"] == "none"]
        .assign(gap=lambda t: (t["ratio_to_paper"] - 1).abs())
        .sort_values("gap")["metric"]
        .iloc[0]
    )
    table["closest_to_paper"] = table["metric"] == closest
    return table


def endpoints_table(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Figs. 5 and 6: where the trials end, without sharing and with every hidden node shared.

    Parameters
    ----------
    runs : dict of str to DataFrame
        Per figure (e.g. ``"Fig. 5"``), the trials of one run (:func:`~bnstudy.studies.em.trials.
        run_em_trials`, with ``network``, ``n_samples`` and ``n_hidden`` columns). Only its two
        endpoints are kept: no sharing (``n_shared`` = 0, arm ``none``) and the largest number of
        shared nodes it ran (arm ``all``: every hidden node shared); the levels between are
        dropped.

    Returns
    -------
    DataFrame
        One row per figure and arm, columns :data:`ENDPOINT_COLUMNS`: the number of trials, the
        smallest and largest error at convergence and their difference (``error_range``), the
        lowest and highest log-likelihood, the log-likelihood of the trial of smallest error, and
        for arm ``all`` how many of its trials end at a log-likelihood above the highest without
        sharing (``above_best_none``; empty for arm ``none``, and without unshared trials). A run
        without shared levels has only its ``none`` row, one without unshared trials only ``all``.
    """
    rows = []
    for figure, trials in runs.items():
        if trials.empty:
            continue
        first = trials.iloc[0]
        top = int(trials["n_shared"].max())
        arms = {"none": trials[trials["n_shared"] == 0]}
        if top > 0:
            arms["all"] = trials[trials["n_shared"] == top]
        none = arms["none"]
        best_none = none["loglik"].max() if not none.empty else np.nan
        for arm, group in arms.items():
            if group.empty:
                continue
            error, loglik = group["error"].astype(float), group["loglik"].astype(float)
            above = np.nan
            if arm == "all" and not none.empty:
                above = int((loglik > best_none).sum())
            rows.append(
                {
                    "figure": figure,
                    "network": first["network"],
                    "n_samples": int(first["n_samples"]),
                    "n_hidden": int(first["n_hidden"]),
                    "arm": arm,
                    "n_shared": int(group["n_shared"].iloc[0]),
                    "trials": len(group),
                    "error_min": error.min(),
                    "error_max": error.max(),
                    "error_range": error.max() - error.min(),
                    "loglik_min": loglik.min(),
                    "loglik_max": loglik.max(),
                    "loglik_at_error_min": loglik[error.idxmin()],
                    "above_best_none": above,
                }
            )
    return pd.DataFrame(rows, columns=list(ENDPOINT_COLUMNS))


def error_regions_table(
    trials: pd.DataFrame, observables: tuple[str, ...] = ("O_P", "O_T")
) -> pd.DataFrame:
    """Figs. 3-4 as numbers: where mini-ADAPT's trials end, per observable set and sharing.

    The paper reads Fig. 4's histograms as error *regions* (O_T: "four main error regions, with
    the middle two being greatest in frequency" without sharing, "three regions of error, with
    the outer two being most frequent" with sharing, "further apart than their non-sharing
    counterparts") and Fig. 3's paths as a few O_P trials with sharing ending at a more extreme
    error. No region boundaries are given, so the table gives counts that need none.

    Parameters
    ----------
    trials : DataFrame
        mini-ADAPT trials (:func:`~bnstudy.studies.em.trials.run_em_trials`, with ``observables``
        and ``sharing`` columns); observable sets outside ``observables`` are left out.
    observables : tuple of str, default ("O_P", "O_T")
        The observable sets of Figs. 3-4 (O_C, complete data, has no hidden node).

    Returns
    -------
    DataFrame
        One row per observable set and sharing (``none`` first), columns
        :data:`REGION_COLUMNS`: the trials; the smallest and largest error at convergence; its
        10th and 90th percentiles (in the outer regions when each holds a tenth of the trials)
        and their distance; ``middle_half_share``, the share of trials whose error lies in the
        middle half of that condition's own range, ``[min + range/4, max - range/4]`` (two middle
        regions of four evenly spread regions lie in it, the outer two of three do not); and,
        for rows with sharing, how many trials end below the smallest and above the largest
        error without sharing (empty for ``none``, and without unshared trials).
    """
    rows = []
    for obs in observables:
        subset = trials[trials["observables"] == obs]
        none = subset.loc[subset["sharing"] == "none", "error"].astype(float)
        arms = sorted(subset["sharing"].unique(), key=lambda s: (s != "none", s))
        for sharing in arms:
            error = subset.loc[subset["sharing"] == sharing, "error"].to_numpy(float)
            lo, hi = error.min(), error.max()
            quarter = (hi - lo) / 4
            middle = (error >= lo + quarter) & (error <= hi - quarter)
            p10, p90 = np.percentile(error, [10, 90])
            below = above = np.nan
            if sharing != "none" and not none.empty:
                below = int((error < none.min()).sum())
                above = int((error > none.max()).sum())
            rows.append(
                {
                    "observables": obs,
                    "sharing": sharing,
                    "trials": len(error),
                    "error_min": lo,
                    "error_max": hi,
                    "error_p10": p10,
                    "error_p90": p90,
                    "error_spread_p10_p90": p90 - p10,
                    "middle_half_share": float(middle.mean()),
                    "below_none_min": below,
                    "above_none_max": above,
                }
            )
    return pd.DataFrame(rows, columns=list(REGION_COLUMNS))
