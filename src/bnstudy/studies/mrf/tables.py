"""The MRF paper's tables from our runs, with the published numbers beside ours, and its claims.

* :func:`summarize_runs`: mean and standard deviation over replicates of every metric, per
  simulation, estimator and training size (the data behind Figures 1-6).
* :func:`runtime_table`: Table 1, the run times of the three Bayesian estimators on the small grid.
* :func:`senate_table`: Table 2, log pseudo-likelihoods on the Senate votes.
* :func:`paper_claims`: each statement the paper makes about its results, checked on ours.

References
----------
.. [1] J. Liu and D. Page, "Bayesian Estimation of Latently-grouped Parameters in Undirected
   Graphical Models", NIPS 2013, Secs. 4-5, Tables 1-2, Figures 1-6.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from bnstudy.studies.mrf.experiments import BAYESIAN_ESTIMATORS, ESTIMATORS

__all__ = [
    "LABELS",
    "PAPER_SENATE_STEPS",
    "PAPER_STEPS",
    "SIMULATIONS",
    "concat_runs",
    "paper_claims",
    "runtime_table",
    "senate_table",
    "summarize_runs",
]

#: The simulations in the paper's order (Secs. 4.1, 4.2, 4.3).
SIMULATIONS = ("tree", "small_grid", "large_grid")

#: The paper's names of the estimators (figure legends).
LABELS = {
    "mle": "MLE",
    "oracle": "Oracle",
    "dp_gibbs_tree": "Bayesian",
    "gibbs_exactl": "Gibbs_ExactL",
    "gibbs_sba": "Gibbs_SBA",
    "mh_auxvar": "MH_AuxVar",
}

#: MCMC steps of the paper: 500 Gibbs steps on the tree (Sec. 4.1); 100 Gibbs steps for
#: Gibbs_ExactL and Gibbs_SBA and 500 MH steps for MH_AuxVar on the grids (Secs. 4.2-4.3).
PAPER_STEPS = {"dp_gibbs_tree": 500, "gibbs_exactl": 100, "gibbs_sba": 100, "mh_auxvar": 500}
#: Gibbs_SBA steps on the Senate votes (Sec. 5).
PAPER_SENATE_STEPS = 3000

_METRICS = ("mae", "test_loglik", "test_loglik_per_sample", "vi_difference", "n_groups", "seconds")
_SOURCES = {
    "tree": ("Sec. 4.1", "Fig. 1"),
    "small_grid": ("Sec. 4.2", "Fig. 4"),
    "large_grid": ("Sec. 4.3", "Fig. 5"),
}
_NAMES = {"tree": "tree", "small_grid": "small grid", "large_grid": "large grid"}


def _order(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Sort by simulation and estimator in the paper's order, then by the remaining columns."""
    keys = {
        "simulation": {s: i for i, s in enumerate(SIMULATIONS)},
        "estimator": {e: i for i, e in enumerate(ESTIMATORS)},
    }
    return frame.sort_values(
        list(columns),
        key=lambda col: col.map(keys[col.name]) if col.name in keys else col,
        kind="stable",
    ).reset_index(drop=True)


def concat_runs(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The per-run rows of every block in one table, ordered as one file per run would be.

    Blocks arrive in the order simulation, estimator, block and hold their runs in the order
    ``n``, replicate; the result keeps each (simulation, estimator) where it first appears and
    sorts its runs by ``n``, then replicate.
    """
    runs = pd.concat(list(frames), ignore_index=True)
    missing = {"simulation", "estimator", "n", "rep"} - set(runs.columns)
    if missing:
        raise ValueError(f"run tables lack the columns {sorted(missing)}")
    first = runs.groupby(["simulation", "estimator"], sort=False).ngroup().rename("_first")
    order = pd.concat([first, runs[["n", "rep"]]], axis=1)
    order = order.sort_values(["_first", "n", "rep"], kind="stable").index
    return runs.loc[order].reset_index(drop=True)


def summarize_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation of each metric over replicates.

    Parameters
    ----------
    runs : DataFrame
        One row per simulation, estimator, ``n`` and replicate (the per-run metrics of
        :func:`~bnstudy.studies.mrf.experiments.run_simulation_fit` with ``simulation``, ``estimator``,
        ``n`` and ``rep`` columns).

    Returns
    -------
    DataFrame
        One row per simulation, estimator and ``n``: ``replicates``, ``<metric>_mean`` and
        ``<metric>_sd`` (sample standard deviation; NaN from one replicate) for ``mae``,
        ``test_loglik``, ``test_loglik_per_sample``, ``vi_difference``, ``n_groups`` and
        ``seconds``, and ``n_groups_true``, ``test_metric`` and ``n_steps``.
    """
    keys = ["simulation", "estimator", "n"]
    grouped = runs.groupby(keys, sort=False)
    out = grouped.size().rename("replicates").to_frame()
    for metric in _METRICS:
        out[f"{metric}_mean"] = grouped[metric].mean()
        out[f"{metric}_sd"] = grouped[metric].std(ddof=1)
    out["n_groups_true"] = grouped["n_groups_true"].mean()
    out["test_metric"] = grouped["test_metric"].first()
    out["n_steps"] = grouped["n_steps"].max()
    return _order(out.reset_index(), keys)


def runtime_table(runs: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Table 1: run time (seconds) of the Bayesian estimators on the small grid, beside the paper's.

    Our runs may use fewer MCMC steps than the paper; ``seconds_at_paper_steps`` scales our time
    per step to the paper's number of steps (:data:`PAPER_STEPS`) so that the two are comparable.
    The grouping-blind MLE (PCD), which every sampler starts from and which is not in its time, is
    listed as its own row.

    Parameters
    ----------
    runs : DataFrame
        Per-run metrics (see :func:`summarize_runs`).
    paper : DataFrame
        The paper's Table 1: ``method``, ``n``, ``seconds``.

    Returns
    -------
    DataFrame
        ``estimator``, ``n``, ``replicates``, ``n_steps``, ``seconds_mean``, ``seconds_sd``,
        ``seconds_per_step``, ``paper_steps``, ``seconds_at_paper_steps``, ``seconds_paper`` and
        ``paper_over_ours`` (the paper's time over ours at the paper's steps).
    """
    wanted = ("mle", "gibbs_exactl", "mh_auxvar", "gibbs_sba")
    grid = runs[(runs["simulation"] == "small_grid") & runs["estimator"].isin(wanted)]
    grouped = grid.groupby(["estimator", "n"], sort=False)
    table = grouped.size().rename("replicates").to_frame()
    table["n_steps"] = grouped["n_steps"].max()
    table["seconds_mean"] = grouped["seconds"].mean()
    table["seconds_sd"] = grouped["seconds"].std(ddof=1)
    table = table.reset_index()
    steps = table["n_steps"].where(table["n_steps"] > 0)
    table["seconds_per_step"] = table["seconds_mean"] / steps
    table["paper_steps"] = table["estimator"].map(PAPER_STEPS)
    table["seconds_at_paper_steps"] = table["seconds_per_step"] * table["paper_steps"]
    published = paper.rename(columns={"method": "estimator", "seconds": "seconds_paper"})
    table = table.merge(published[["estimator", "n", "seconds_paper"]], how="left")
    table["paper_over_ours"] = table["seconds_paper"] / table["seconds_at_paper_steps"]
    order = {e: i for i, e in enumerate(wanted)}
    table = table.sort_values(
        ["estimator", "n"], key=lambda c: c.map(order) if c.name == "estimator" else c
    )
    return table.reset_index(drop=True)


def senate_table(runs: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Table 2: Senate log pseudo-likelihoods of MLE (PCD) and Gibbs_SBA, beside the paper's.

    Parameters
    ----------
    runs : DataFrame
        One row per training session and estimator (``mle``, ``gibbs_sba``) with the columns of
        :func:`~bnstudy.studies.mrf.experiments.run_senate_fit` and ``train_session``, ``test_session``.
    paper : DataFrame
        The paper's Table 2 (``experiment``, ``train_session``, ``test_session``,
        ``lpl_train_mle``, ``lpl_train_sba``, ``lpl_test_mle``, ``lpl_test_sba``, ``n_groups``,
        ``runtime_minutes``).

    Returns
    -------
    DataFrame
        One row per experiment (Exp1 trains on session 1, Exp2 on session 2): vote counts, the
        number of edges of our learned graph, each quantity beside its ``*_paper`` value, the
        test gain of Gibbs_SBA over MLE (``test_gain``) and a note on the graph.
    """
    rows = []
    for session, group in runs.groupby("train_session", sort=True):
        by = group.set_index("estimator")
        mle, sba = by.loc["mle"], by.loc["gibbs_sba"]
        rows.append(
            {
                "train_session": int(session),
                "test_session": int(mle["test_session"]),
                "train_votes": int(mle["n_train"]),
                "test_votes": int(mle["n_test"]),
                "graph_edges": int(mle["n_edges"]),
                "lpl_train_mle": mle["lpl_train"],
                "lpl_train_sba": sba["lpl_train"],
                "lpl_test_mle": mle["lpl_test"],
                "lpl_test_sba": sba["lpl_test"],
                "test_gain": sba["lpl_test"] - mle["lpl_test"],
                "n_groups": sba["n_groups"],
                "runtime_minutes": sba["seconds"] / 60.0,
                "n_steps": int(sba["n_steps"]),
            }
        )
    ours = pd.DataFrame(rows)
    quantities = [
        "lpl_train_mle",
        "lpl_train_sba",
        "lpl_test_mle",
        "lpl_test_sba",
        "test_gain",
        "n_groups",
        "runtime_minutes",
    ]
    paper = paper.assign(test_gain=paper["lpl_test_sba"] - paper["lpl_test_mle"])
    paper = paper.rename(columns={q: f"{q}_paper" for q in quantities})
    merged = ours.merge(
        paper.drop(columns="test_session"), on="train_session", how="left", validate="one_to_one"
    )
    merged["paper_steps"] = PAPER_SENATE_STEPS
    merged["note"] = (
        "graph: " + merged["graph_edges"].astype(str) + " edges by L1 neighbourhood selection on "
        "the training session (the paper's 279-edge graph from Banerjee et al. 2008 is not public)"
    )
    columns = ["experiment", "train_session", "test_session", "train_votes", "test_votes"]
    columns += ["graph_edges"]
    for quantity in quantities:
        columns += [quantity, f"{quantity}_paper"]
    return merged[[*columns, "n_steps", "paper_steps", "note"]]


# --------------------------------------------------------------------------------------------
# claims
# --------------------------------------------------------------------------------------------


def _pivot(summary: pd.DataFrame, simulation: str, metric: str) -> pd.DataFrame:
    """Mean of ``metric`` with one row per ``n`` and one column per estimator."""
    rows = summary[summary["simulation"] == simulation]
    return rows.pivot(index="n", columns="estimator", values=f"{metric}_mean").sort_index()


def _claim(claim: str, source: str, paper: str, ours: str, agrees: bool | None) -> dict:
    verdict = "not tested" if agrees is None else ("agrees" if agrees else "disagrees")
    return {
        "claim": claim,
        "source": source,
        "paper": paper,
        "ours": ours,
        "agrees": agrees,
        "verdict": verdict,
    }


def _count(mask: pd.Series) -> str:
    return f"{int(mask.sum())}/{len(mask)} sample sizes"


def _simulation_claims(summary: pd.DataFrame, simulation: str) -> list[dict]:
    section, figure = _SOURCES[simulation]
    name = _NAMES[simulation]
    mae = _pivot(summary, simulation, "mae")
    ll = _pivot(summary, simulation, "test_loglik")
    vi = _pivot(summary, simulation, "vi_difference")
    rows = []
    bayes = [e for e in BAYESIAN_ESTIMATORS if e in mae.columns]
    for est in bayes:
        label = LABELS[est]
        if "mle" in mae.columns:
            lower, higher = mae[est] < mae["mle"], ll[est] > ll["mle"]
            rows.append(
                _claim(
                    f"{name}: {label} beats the grouping-blind MLE (lower error and higher test "
                    "log-(pseudo)likelihood) at every n",
                    f"{section}, {figure}a-b",
                    "every n from 100 to 1,000",
                    f"error lower at {_count(lower)}, test LL higher at {_count(higher)}",
                    bool(lower.all() and higher.all()),
                )
            )
        if "oracle" in mae.columns:
            worse, lower_ll = mae[est] > mae["oracle"], ll[est] < ll["oracle"]
            rows.append(
                _claim(
                    f"{name}: {label} stays worse than the oracle MLE (higher error, lower test "
                    "log-(pseudo)likelihood)",
                    f"{section}, {figure}a-b",
                    "every n from 100 to 1,000",
                    f"error higher at {_count(worse)}, test LL lower at {_count(lower_ll)}",
                    bool(worse.all() and lower_ll.all()),
                )
            )
        if est in vi.columns:
            values = vi[est]
            text = ", ".join(f"{v:.2f} (n={n})" for n, v in values.items())
            growing = None if len(values) < 2 else bool(values.iloc[-1] > values.iloc[0])
            rows.append(
                _claim(
                    f"{name}: the groupings of {label} are informative (VI difference > 0) and "
                    "improve as n grows",
                    f"{section}, {figure}c",
                    "VI difference > 0, rising with n",
                    text,
                    None if growing is None else bool((values > 0).all() and growing),
                )
            )
    if simulation == "tree" and {"dp_gibbs_tree", "oracle"} <= set(mae.columns):
        gap = mae["dp_gibbs_tree"] - mae["oracle"]
        rows.append(
            _claim(
                "tree: the Bayesian estimator approaches the oracle MLE as n grows (error gap "
                "shrinks)",
                "Sec. 4.1, Fig. 1a",
                "gap shrinks with n",
                ", ".join(f"{v:.4f} (n={n})" for n, v in gap.items()),
                None if len(gap) < 2 else bool(gap.iloc[-1] < gap.iloc[0]),
            )
        )
    return rows


def _small_grid_claims(summary: pd.DataFrame, runtime: pd.DataFrame) -> list[dict]:
    mae = _pivot(summary, "small_grid", "mae")
    ll = _pivot(summary, "small_grid", "test_loglik")
    vi = _pivot(summary, "small_grid", "vi_difference")
    trio = ["gibbs_exactl", "gibbs_sba", "mh_auxvar"]
    rows = []
    if {"mle", "gibbs_exactl", "gibbs_sba"} <= set(mae.columns):
        m = mae[["mle", "gibbs_exactl", "gibbs_sba"]].mean()
        gain = m["mle"] - m["gibbs_exactl"]
        close = gain > 0 and abs(m["gibbs_sba"] - m["gibbs_exactl"]) <= 0.5 * gain
        rows.append(
            _claim(
                "small grid: Gibbs_SBA performs close to Gibbs_ExactL (their error differs by at "
                "most half of ExactL's gain over MLE, averaged over n)",
                "Abstract; Sec. 4.2, Fig. 4",
                "close",
                f"mean error MLE {m['mle']:.4f}, ExactL {m['gibbs_exactl']:.4f}, "
                f"SBA {m['gibbs_sba']:.4f}",
                bool(close),
            )
        )
    if set(trio) <= set(mae.columns):
        lowest = mae[trio].mean().idxmin()
        highest = ll[trio].mean().idxmax()
        rows.append(
            _claim(
                "small grid: Gibbs_ExactL has the lowest error and the highest test log-likelihood "
                "of the three Bayesian estimators (averaged over n)",
                "Sec. 4.2, Fig. 4a-b",
                "Gibbs_ExactL best on both",
                f"lowest error: {LABELS[lowest]}, highest test LL: {LABELS[highest]}",
                bool(lowest == "gibbs_exactl" and highest == "gibbs_exactl"),
            )
        )
        small, large = mae.index.min(), mae.index.max()
        rows.append(
            _claim(
                "small grid: MH_AuxVar is slightly worse than Gibbs_SBA with little training data "
                "(higher error at the smallest n)",
                "Sec. 4.2, Fig. 4a",
                "worse at small n",
                f"n={small}: MH_AuxVar {mae.loc[small, 'mh_auxvar']:.4f}, "
                f"Gibbs_SBA {mae.loc[small, 'gibbs_sba']:.4f}",
                bool(mae.loc[small, "mh_auxvar"] > mae.loc[small, "gibbs_sba"]),
            )
        )
        rows.append(
            _claim(
                "small grid: MH_AuxVar recovers better groupings than Gibbs_SBA with more training "
                "data (higher VI difference at the largest n)",
                "Sec. 4.2, Fig. 4c",
                "better at large n",
                f"n={large}: MH_AuxVar {vi.loc[large, 'mh_auxvar']:.2f}, "
                f"Gibbs_SBA {vi.loc[large, 'gibbs_sba']:.2f}",
                None
                if small == large
                else bool(vi.loc[large, "mh_auxvar"] > vi.loc[large, "gibbs_sba"]),
            )
        )
    timed = runtime.pivot(index="n", columns="estimator", values="seconds_at_paper_steps")
    if set(trio) <= set(timed.columns):
        text = "; ".join(
            f"n={n}: ExactL {r['gibbs_exactl']:.1f}, MH {r['mh_auxvar']:.1f}, "
            f"SBA {r['gibbs_sba']:.1f} s"
            for n, r in timed.iterrows()
        )
        rows.append(
            _claim(
                "small grid: Gibbs_SBA is the fastest Bayesian estimator, MH_AuxVar slower "
                "(seconds at the paper's number of steps)",
                "Sec. 4.2, Table 1",
                "SBA 8.1-14.2 s < MH 540-4,547 s",
                text,
                bool((timed["gibbs_sba"] < timed["mh_auxvar"]).all()),
            )
        )
        rows.append(
            _claim(
                "small grid: Gibbs_ExactL is by far the slowest (exponential in the number of "
                "nodes)",
                "Sec. 4.2, Table 1",
                "88,136-92,503 s, > 20x MH_AuxVar",
                text,
                bool(
                    (timed["gibbs_exactl"] > timed["mh_auxvar"]).all()
                    and (timed["gibbs_exactl"] > timed["gibbs_sba"]).all()
                ),
            )
        )
    return rows


def _group_count_claims(summary: pd.DataFrame) -> list[dict]:
    rows = []
    for simulation, figure in (("small_grid", "Fig. 3c"), ("large_grid", "Fig. 6")):
        sba = summary[(summary["simulation"] == simulation) & (summary["estimator"] == "gibbs_sba")]
        if sba.empty:
            continue
        true = float(sba["n_groups_true"].mean())
        over = sba["n_groups_mean"] > sba["n_groups_true"]
        rows.append(
            _claim(
                f"{_NAMES[simulation]}: Gibbs_SBA over-estimates the number of groups",
                f"Sec. 4.{2 if simulation == 'small_grid' else 3}, {figure}",
                "slightly over 5" if simulation == "small_grid" else "20-80 against 10",
                f"{', '.join(f'{v:.1f}' for v in sba['n_groups_mean'])} against {true:g} "
                f"(above at {_count(over)})",
                bool(over.all()),
            )
        )
    return rows


def _senate_claims(senate: pd.DataFrame) -> list[dict]:
    if senate.empty:
        return []
    both = ", ".join(
        f"{r.experiment}: {r.lpl_test_sba:.2f} vs {r.lpl_test_mle:.2f}" for r in senate.itertuples()
    )
    train = ", ".join(
        f"{r.experiment}: {r.lpl_train_sba:.2f} vs {r.lpl_train_mle:.2f}"
        for r in senate.itertuples()
    )
    groups = ", ".join(f"{r.experiment}: {r.n_groups:.2f}" for r in senate.itertuples())
    return [
        _claim(
            "Senate: Gibbs_SBA generalizes better than MLE (higher test LPL) in both experiments",
            "Sec. 5, Table 2",
            "-8989.87 vs -9022.01; -11446.45 vs -11490.47",
            both,
            bool((senate["lpl_test_sba"] > senate["lpl_test_mle"]).all()),
        ),
        _claim(
            "Senate: Gibbs_SBA fits the training session slightly less well than MLE (lower "
            "train LPL)",
            "Table 2",
            "-10721.34 vs -10716.75; -8322.34 vs -8306.17",
            train,
            bool((senate["lpl_train_sba"] < senate["lpl_train_mle"]).all()),
        ),
        _claim(
            "Senate: Gibbs_SBA infers around eight types of relations (taken as 6 to 10 groups)",
            "Sec. 5, Table 2",
            "7.89; 7.29",
            groups,
            bool(senate["n_groups"].between(6, 10).all()),
        ),
    ]


def paper_claims(
    summary: pd.DataFrame, runtime: pd.DataFrame, senate: pd.DataFrame
) -> pd.DataFrame:
    """The paper's statements about its results, each checked on ours.

    Parameters
    ----------
    summary, runtime, senate : DataFrame
        The outputs of :func:`summarize_runs`, :func:`runtime_table` and :func:`senate_table`.

    Returns
    -------
    DataFrame
        ``claim``, ``source`` (where the paper says it), ``paper`` and ``ours`` (the numbers
        behind it), ``agrees`` (True, False, or empty where our runs cannot test it, e.g. a trend
        in n from a single sample size) and ``verdict`` (agrees / disagrees / not tested).
    """
    rows = []
    for simulation in SIMULATIONS:
        if (summary["simulation"] == simulation).any():
            rows += _simulation_claims(summary, simulation)
    if (summary["simulation"] == "small_grid").any():
        rows += _small_grid_claims(summary, runtime)
    rows += _group_count_claims(summary)
    rows += _senate_claims(senate)
    columns = ["claim", "source", "paper", "ours", "agrees", "verdict"]
    return pd.DataFrame(rows, columns=columns).astype({"agrees": object})
