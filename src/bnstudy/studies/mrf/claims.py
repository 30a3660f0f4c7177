"""Liu & Page (2013): the paper's claims about its simulations and the Senate votes, checked on ours.

Claim ids are ``mrf.<simulation>.<estimator>.<kind>`` for the claims every Bayesian estimator
makes on a simulation, ``mrf.<simulation>.<kind>`` otherwise. The catalog's ``value`` holds the
paper's training sizes where a claim is about "every n" or a trend in n (its smallest and largest
n; the evidence is complete when ours spans them), Table 1's sizes for the run-time claims, and
the group count the Senate claim is about.

The run-time claims compare the estimators' times at the paper's number of steps; their ``ours``
gives the order only (the seconds are in Table 1, ``reports/mrf/tables/table1_runtime.csv``), so
the claims table does not change from run to run unless the order does.

References
----------
.. [1] J. Liu and D. Page, "Bayesian Estimation of Latently-grouped Parameters in Undirected
   Graphical Models", NIPS 2013, Secs. 4-5, Tables 1-2, Figures 1-6.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from bnstudy.studies.claims import Catalog, Finding, assemble, judge, tolerance
from bnstudy.studies.mrf.experiments import BAYESIAN_ESTIMATORS
from bnstudy.studies.mrf.tables import LABELS, SIMULATIONS

__all__ = ["mrf_findings", "paper_claims"]

_TRIO = ("gibbs_exactl", "gibbs_sba", "mh_auxvar")


def _pivot(summary: pd.DataFrame, simulation: str, metric: str) -> pd.DataFrame:
    """Mean of ``metric`` with one row per ``n`` and one column per estimator."""
    rows = summary[summary["simulation"] == simulation]
    return rows.pivot(index="n", columns="estimator", values=f"{metric}_mean").sort_index()


def _count(mask: pd.Series) -> str:
    return f"{int(mask.sum())}/{len(mask)} sample sizes"


def _spans(ns: Sequence[float], paper_n: Sequence[float]) -> bool:
    """Our sample sizes reach the paper's smallest and largest."""
    return len(ns) > 0 and min(ns) <= min(paper_n) and max(ns) >= max(paper_n)


def _span_note(ns: Sequence[float], paper_n: Sequence[float]) -> str:
    if _spans(ns, paper_n):
        return ""
    return f"n = {', '.join(f'{n:g}' for n in ns)} run; the paper spans {min(paper_n):g}-{max(paper_n):g}"


def _simulation_findings(
    catalog: Catalog, summary: pd.DataFrame, simulation: str
) -> dict[str, Finding]:
    mae = _pivot(summary, simulation, "mae")
    ll = _pivot(summary, simulation, "test_loglik")
    vi = _pivot(summary, simulation, "vi_difference")
    ns = list(mae.index)
    out: dict[str, Finding] = {}
    for est in (e for e in BAYESIAN_ESTIMATORS if e in mae.columns):
        key = f"mrf.{simulation}.{est}"
        if "mle" in mae.columns:
            paper_n = catalog.values(f"{key}.beats_mle")
            lower, higher = mae[est] < mae["mle"], ll[est] > ll["mle"]
            out[f"{key}.beats_mle"] = Finding(
                f"error lower at {_count(lower)}, test LL higher at {_count(higher)}",
                judge(bool(lower.all() and higher.all()), complete=_spans(ns, paper_n)),
                _span_note(ns, paper_n),
            )
        if "oracle" in mae.columns:
            paper_n = catalog.values(f"{key}.worse_than_oracle")
            worse, lower_ll = mae[est] > mae["oracle"], ll[est] < ll["oracle"]
            out[f"{key}.worse_than_oracle"] = Finding(
                f"error higher at {_count(worse)}, test LL lower at {_count(lower_ll)}",
                judge(bool(worse.all() and lower_ll.all()), complete=_spans(ns, paper_n)),
                _span_note(ns, paper_n),
            )
        if est in vi.columns:
            paper_n = catalog.values(f"{key}.informative_groupings")
            values = vi[est]
            text = ", ".join(f"{v:.2f} (n={n})" for n, v in values.items())
            if len(values) < 2:
                out[f"{key}.informative_groupings"] = Finding(
                    text, "not tested", "a trend in n needs two sample sizes or more"
                )
            else:
                holds = bool((values > 0).all() and values.iloc[-1] > values.iloc[0])
                out[f"{key}.informative_groupings"] = Finding(
                    text, judge(holds, complete=_spans(ns, paper_n)), _span_note(ns, paper_n)
                )
    if simulation == "tree" and {"dp_gibbs_tree", "oracle"} <= set(mae.columns):
        paper_n = catalog.values("mrf.tree.gap_shrinks")
        gap = mae["dp_gibbs_tree"] - mae["oracle"]
        text = ", ".join(f"{v:.4f} (n={n})" for n, v in gap.items())
        if len(gap) < 2:
            out["mrf.tree.gap_shrinks"] = Finding(
                text, "not tested", "a trend in n needs two sample sizes or more"
            )
        else:
            out["mrf.tree.gap_shrinks"] = Finding(
                text,
                judge(bool(gap.iloc[-1] < gap.iloc[0]), complete=_spans(ns, paper_n)),
                _span_note(ns, paper_n),
            )
    return out


def _small_grid_findings(
    catalog: Catalog, summary: pd.DataFrame, runtime: pd.DataFrame
) -> dict[str, Finding]:
    mae = _pivot(summary, "small_grid", "mae")
    ll = _pivot(summary, "small_grid", "test_loglik")
    vi = _pivot(summary, "small_grid", "vi_difference")
    ns = list(mae.index)
    out: dict[str, Finding] = {}
    if {"mle", "gibbs_exactl", "gibbs_sba"} <= set(mae.columns):
        paper_n = catalog.values("mrf.small_grid.sba_close_to_exactl")
        m = mae[["mle", "gibbs_exactl", "gibbs_sba"]].mean()
        gain = m["mle"] - m["gibbs_exactl"]
        fraction = tolerance("mrf_sba_close_fraction")
        close = gain > 0 and abs(m["gibbs_sba"] - m["gibbs_exactl"]) <= fraction * gain
        out["mrf.small_grid.sba_close_to_exactl"] = Finding(
            f"mean error MLE {m['mle']:.4f}, ExactL {m['gibbs_exactl']:.4f}, "
            f"SBA {m['gibbs_sba']:.4f}",
            judge(bool(close), complete=_spans(ns, paper_n)),
            "; ".join(
                t
                for t in (
                    f"close = within {fraction:g} of ExactL's gain over MLE "
                    "(tolerance mrf_sba_close_fraction)",
                    _span_note(ns, paper_n),
                )
                if t
            ),
        )
    if set(_TRIO) <= set(mae.columns):
        paper_n = catalog.values("mrf.small_grid.exactl_best")
        lowest = mae[list(_TRIO)].mean().idxmin()
        highest = ll[list(_TRIO)].mean().idxmax()
        out["mrf.small_grid.exactl_best"] = Finding(
            f"lowest error: {LABELS[lowest]}, highest test LL: {LABELS[highest]}",
            judge(
                bool(lowest == "gibbs_exactl" and highest == "gibbs_exactl"),
                complete=_spans(ns, paper_n),
            ),
            _span_note(ns, paper_n),
        )
        small, large = mae.index.min(), mae.index.max()
        out["mrf.small_grid.mh_worse_at_small_n"] = Finding(
            f"n={small}: MH_AuxVar {mae.loc[small, 'mh_auxvar']:.4f}, "
            f"Gibbs_SBA {mae.loc[small, 'gibbs_sba']:.4f}",
            judge(bool(mae.loc[small, "mh_auxvar"] > mae.loc[small, "gibbs_sba"])),
        )
        if small == large:
            out["mrf.small_grid.mh_better_groupings_at_large_n"] = Finding(
                f"n={large}: MH_AuxVar {vi.loc[large, 'mh_auxvar']:.2f}, "
                f"Gibbs_SBA {vi.loc[large, 'gibbs_sba']:.2f}",
                "not tested",
                "one sample size: no 'more training data' to compare",
            )
        else:
            paper_n = catalog.values("mrf.small_grid.mh_better_groupings_at_large_n")
            out["mrf.small_grid.mh_better_groupings_at_large_n"] = Finding(
                f"n={large}: MH_AuxVar {vi.loc[large, 'mh_auxvar']:.2f}, "
                f"Gibbs_SBA {vi.loc[large, 'gibbs_sba']:.2f}",
                judge(
                    bool(vi.loc[large, "mh_auxvar"] > vi.loc[large, "gibbs_sba"]),
                    complete=_spans(ns, paper_n),
                ),
                _span_note(ns, paper_n),
            )
    timed = runtime.pivot(index="n", columns="estimator", values="seconds_at_paper_steps")
    if set(_TRIO) <= set(timed.columns):
        table1_n = set(catalog.values("mrf.small_grid.sba_fastest"))
        complete = table1_n <= set(timed.index)
        note = "" if complete else f"{len(table1_n & set(timed.index))} of Table 1's 3 sizes run"
        ranked = "; ".join(
            f"n={n}: " + " < ".join(LABELS[e] for e in row[list(_TRIO)].sort_values().index)
            for n, row in timed.iterrows()
        )
        out["mrf.small_grid.sba_fastest"] = Finding(
            f"fastest first, at the paper's steps: {ranked}",
            judge(bool((timed["gibbs_sba"] < timed["mh_auxvar"]).all()), complete=complete),
            note,
        )
        out["mrf.small_grid.exactl_slowest"] = Finding(
            f"fastest first, at the paper's steps: {ranked}",
            judge(
                bool(
                    (timed["gibbs_exactl"] > timed["mh_auxvar"]).all()
                    and (timed["gibbs_exactl"] > timed["gibbs_sba"]).all()
                ),
                complete=complete,
            ),
            note,
        )
    return out


def _group_count_findings(catalog: Catalog, summary: pd.DataFrame) -> dict[str, Finding]:
    out: dict[str, Finding] = {}
    for simulation in ("small_grid", "large_grid"):
        sba = summary[(summary["simulation"] == simulation) & (summary["estimator"] == "gibbs_sba")]
        if sba.empty:
            continue
        claim_id = f"mrf.{simulation}.sba_overestimates_groups"
        paper_n = catalog.values(claim_id)
        true = float(sba["n_groups_true"].mean())
        over = sba["n_groups_mean"] > sba["n_groups_true"]
        ns = list(sba["n"])
        out[claim_id] = Finding(
            f"{', '.join(f'{v:.1f}' for v in sba['n_groups_mean'])} against {true:g} "
            f"(above at {_count(over)})",
            judge(bool(over.all()), complete=_spans(ns, paper_n)),
            _span_note(ns, paper_n),
        )
    trio = summary[(summary["simulation"] == "small_grid") & summary["estimator"].isin(_TRIO)]
    if set(trio["estimator"]) == set(_TRIO):
        paper_n = catalog.values("mrf.small_grid.groups_reasonable")
        factor = tolerance("mrf_groups_reasonable_factor")
        true = float(trio["n_groups_true"].mean())
        low, high = true / factor, true * factor
        within = trio["n_groups_mean"].between(low, high)
        ranges = "; ".join(
            f"{LABELS[e]} {g['n_groups_mean'].min():.1f}-{g['n_groups_mean'].max():.1f}"
            for e, g in trio.groupby("estimator")
        )
        ns = sorted(set(trio["n"]))
        out["mrf.small_grid.groups_reasonable"] = Finding(
            f"mean groups over n: {ranges}, against {true:g}",
            judge(bool(within.all()), complete=_spans(ns, paper_n)),
            "; ".join(
                t
                for t in (
                    f"reasonable = {low:g} to {high:g} groups, within a factor {factor:g} of the "
                    "truth (tolerance mrf_groups_reasonable_factor)",
                    _span_note(ns, paper_n),
                )
                if t
            ),
        )
    if ((summary["simulation"] == "large_grid") & (summary["estimator"] == "gibbs_sba")).any():
        out["mrf.large_grid.sba_hundreds_of_minutes"] = Finding(
            "see the run-time table",
            "not tested",
            "a wall-clock time of the paper's machine; ours are in "
            "reports/mrf/tables/summary.csv (seconds_mean), on other hardware",
        )
    return out


def _senate_findings(catalog: Catalog, senate: pd.DataFrame) -> dict[str, Finding]:
    if senate.empty:
        return {}
    complete = {"Exp1", "Exp2"} <= set(senate["experiment"])
    note = "" if complete else "one of the paper's two experiments run"
    both = ", ".join(
        f"{r.experiment}: {r.lpl_test_sba:.2f} vs {r.lpl_test_mle:.2f}" for r in senate.itertuples()
    )
    train = ", ".join(
        f"{r.experiment}: {r.lpl_train_sba:.2f} vs {r.lpl_train_mle:.2f}"
        for r in senate.itertuples()
    )
    groups = ", ".join(f"{r.experiment}: {r.n_groups:.2f}" for r in senate.itertuples())
    centre = catalog.value("mrf.senate.about_eight_groups")
    halfwidth = tolerance("mrf_senate_groups_halfwidth")
    low, high = centre - halfwidth, centre + halfwidth
    return {
        "mrf.senate.gain_comparable": Finding(
            "; ".join(
                f"{r.experiment}: {r.lpl_test_sba - r.lpl_test_mle:+.2f}"
                for r in senate.itertuples()
            ),
            "not tested",
            "the simulations' gains are given only by Figs 1b, 4b and 5b's axis ranges, per test "
            "sample on the tree and summed over the test samples on the grids: 'comparable' has "
            "no number to check",
        ),
        "mrf.senate.sba_generalizes": Finding(
            both,
            judge(bool((senate["lpl_test_sba"] > senate["lpl_test_mle"]).all()), complete=complete),
            note,
        ),
        "mrf.senate.sba_fits_train_less": Finding(
            train,
            judge(
                bool((senate["lpl_train_sba"] < senate["lpl_train_mle"]).all()), complete=complete
            ),
            note,
        ),
        "mrf.senate.about_eight_groups": Finding(
            groups,
            judge(bool(senate["n_groups"].between(low, high).all()), complete=complete),
            "; ".join(
                t
                for t in (
                    f"around {centre:g} = {low:g} to {high:g} groups "
                    "(tolerance mrf_senate_groups_halfwidth)",
                    note,
                )
                if t
            ),
        ),
    }


def mrf_findings(
    catalog: Catalog, summary: pd.DataFrame, runtime: pd.DataFrame, senate: pd.DataFrame
) -> dict[str, Finding]:
    """Our finding for every MRF claim our runs can speak to.

    Parameters
    ----------
    catalog : Catalog
        The MRF paper's claims.
    summary, runtime, senate : DataFrame
        The outputs of :func:`~bnstudy.studies.mrf.tables.summarize_runs`,
        :func:`~bnstudy.studies.mrf.tables.runtime_table` and
        :func:`~bnstudy.studies.mrf.tables.senate_table`.
    """
    out: dict[str, Finding] = {}
    for simulation in SIMULATIONS:
        if (summary["simulation"] == simulation).any():
            out |= _simulation_findings(catalog, summary, simulation)
    if (summary["simulation"] == "small_grid").any():
        out |= _small_grid_findings(catalog, summary, runtime)
    out |= _group_count_findings(catalog, summary)
    out |= _senate_findings(catalog, senate)
    return out


def paper_claims(
    catalog: Catalog,
    summary: pd.DataFrame,
    runtime: pd.DataFrame,
    senate: pd.DataFrame,
    *,
    scale: str,
) -> pd.DataFrame:
    """The MRF paper's claims table (columns of :data:`bnstudy.studies.claims.COLUMNS`)."""
    return assemble(catalog, mrf_findings(catalog, summary, runtime, senate), scale=scale)
