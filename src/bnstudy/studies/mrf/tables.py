"""The MRF paper's tables from our runs, with the published numbers beside ours.

* :func:`summarize_runs`: mean and standard deviation over replicates of every metric, per
  simulation, estimator and training size (the data behind Figures 1-6).
* :func:`runtime_table`: Table 1, the run times of the three Bayesian estimators on the small grid.
* :func:`senate_table`: Table 2, log pseudo-likelihoods on the Senate votes.

References
----------
.. [1] J. Liu and D. Page, "Bayesian Estimation of Latently-grouped Parameters in Undirected
   Graphical Models", NIPS 2013, Secs. 4-5, Tables 1-2, Figures 1-6.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from bnstudy.studies.mrf.experiments import ESTIMATORS, SIMULATIONS

__all__ = [
    "LABELS",
    "PAPER_SENATE_STEPS",
    "PAPER_STEPS",
    "SIMULATIONS",
    "concat_runs",
    "runtime_table",
    "senate_table",
    "summarize_runs",
]

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
