"""Reed & Mengshoel (2014): the paper's claims about Tables 3 and 4, checked on our runs.

The paper's numbers come from ``workflow/published/``: its Table 3 (``em_table3.tsv``, the signs
the pigs claim expects and the rows of the spread claim) and the claims catalog (``claims.tsv``).
Our networks stand in for the paper's: pigs is the same network, ADAPT is adapt10_v7e, mini-ADAPT
is rebuilt from ADAPT.

The complete-data error claim is *calibrated*: the error metric is the candidate whose
complete-data value is closest to the printed 16.325 (:func:`~bnstudy.studies.em.tables.
error_metric_table`), so matching 16.325 is no evidence; it is never counted as agreement.

References
----------
.. [1] E. Reed and O. J. Mengshoel, "Bayesian Network Parameter Learning using EM with Parameter
   Sharing", BMAW 2014, Secs. 5.3.1-5.3.2, Tables 3-4.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnstudy.studies.claims import Catalog, Finding, assemble, judge, tolerance

__all__ = [
    "complete_data_error",
    "em_findings",
    "error_spread",
    "mini_adapt_change",
    "paper_claims",
    "pigs_iteration_signs",
]

_PIGS = "Pigs"


def _ours(table3: pd.DataFrame) -> pd.DataFrame:
    return table3[table3["network"].fillna("") != ""]


def error_spread(table3: pd.DataFrame, paper3: pd.DataFrame) -> Finding | None:
    """Sharing widens the error's spread: r(sigma) of the error > 0 on every row.

    Complete when every pigs sample size of the paper's Table 3 was run (pigs is the one network
    of the paper that is public).
    """
    ours = _ours(table3)
    if ours.empty:
        return None
    positive = ours["r_error_std"] > 0
    pigs_n = set(ours.loc[ours["paper_network"] == _PIGS, "n"])
    paper_n = set(paper3.loc[paper3["paper_network"] == _PIGS, "n"])
    complete = paper_n <= pigs_n
    notes = "" if complete else f"pigs at {len(pigs_n & paper_n)} of the paper's {len(paper_n)} n"
    return Finding(
        f"{int(positive.sum())}/{len(ours)} rows positive",
        judge(bool(positive.all()), complete=complete),
        notes,
    )


def pigs_iteration_signs(table3: pd.DataFrame, paper3: pd.DataFrame) -> Finding | None:
    """pigs: r(mu) of the iterations has the paper's sign at every sample size.

    ``partial`` when it holds on the sample sizes run but not all of the paper's were run.
    """
    expected = (
        paper3[paper3["paper_network"] == _PIGS].set_index("n")["r_iterations_mean"].map(np.sign)
    )
    ours = _ours(table3)
    pigs = ours[ours["paper_network"] == _PIGS].set_index("n")["r_iterations_mean"]
    run = [n for n in expected.index if n in pigs.index]
    if not run:
        return None
    signs = {n: int(np.sign(pigs[n])) for n in run}
    complete = len(run) == len(expected)
    notes = "" if complete else f"{len(run)} of the paper's {len(expected)} sample sizes run"
    return Finding(
        " ".join(f"{'+' if s > 0 else '-'} (n={n:g})" for n, s in signs.items()),
        judge(all(signs[n] == expected[n] for n in run), complete=complete),
        notes,
    )


def mini_adapt_change(
    table4: pd.DataFrame, observables: str, column: str, direction: str
) -> Finding | None:
    """mini-ADAPT: sharing SB moves ``column`` in ``direction`` ("up" or "down") for ``observables``."""
    if direction not in ("up", "down"):
        raise ValueError(f"direction must be 'up' or 'down', got {direction!r}")
    t4 = table4.set_index(["sharing", "observables"])
    if ("none", observables) not in t4.index or ("SB", observables) not in t4.index:
        return None
    before = float(t4.loc[("none", observables), column])
    after = float(t4.loc[("SB", observables), column])
    holds = after > before if direction == "up" else after < before
    return Finding(f"{before:.2f} -> {after:.2f}", judge(bool(holds)))


def complete_data_error(metrics: pd.DataFrame, target: float) -> Finding | None:
    """The complete-data error without sharing against the printed ``target`` (calibrated).

    The metric was chosen because it is the closest to ``target``, so the verdict is ``not
    tested`` when it is within the tolerance (agreement by construction) and ``disagrees`` when
    even the closest metric misses it.
    """
    chosen = metrics[metrics["closest_to_paper"].astype(bool) & (metrics["sharing"] == "none")]
    if chosen.empty:
        return None
    row = chosen.iloc[0]
    ratio = float(row["mean"]) / target
    within = tolerance("em_error_ratio")
    close = abs(ratio - 1) <= within
    return Finding(
        f"{row['mean']:.3f} ({row['metric']})",
        "not tested" if close else "disagrees",
        f"calibrated: the metric was chosen as the one closest to {target:g}; "
        f"{'within' if close else 'outside'} {within:.0%} of it (tolerance em_error_ratio)",
        calibrated=True,
    )


def em_findings(
    catalog: Catalog,
    table3: pd.DataFrame,
    table4: pd.DataFrame,
    metrics: pd.DataFrame,
    paper3: pd.DataFrame,
) -> dict[str, Finding]:
    """Our finding for every EM claim our runs can speak to.

    Parameters
    ----------
    catalog : Catalog
        The EM paper's claims.
    table3, table4, metrics : DataFrame
        The outputs of :func:`~bnstudy.studies.em.tables.sharing_table` (its table),
        :func:`~bnstudy.studies.em.tables.mini_adapt_table` and
        :func:`~bnstudy.studies.em.tables.error_metric_table`.
    paper3 : DataFrame
        The paper's Table 3 (``workflow/published/em_table3.tsv``).
    """
    findings = {
        "em.error_spread": error_spread(table3, paper3),
        "em.pigs_iteration_signs": pigs_iteration_signs(table3, paper3),
        "em.mini_adapt_ot_error_std": mini_adapt_change(table4, "O_T", "error_std", "up"),
        "em.mini_adapt_op_error_std": mini_adapt_change(table4, "O_P", "error_std", "up"),
        "em.mini_adapt_ot_iterations": mini_adapt_change(table4, "O_T", "iterations_mean", "down"),
        "em.complete_data_error": complete_data_error(
            metrics, catalog.value("em.complete_data_error")
        ),
    }
    return {k: v for k, v in findings.items() if v is not None}


def paper_claims(
    catalog: Catalog,
    table3: pd.DataFrame,
    table4: pd.DataFrame,
    metrics: pd.DataFrame,
    paper3: pd.DataFrame,
    *,
    scale: str,
) -> pd.DataFrame:
    """The EM paper's claims table (columns of :data:`bnstudy.studies.claims.COLUMNS`)."""
    return assemble(catalog, em_findings(catalog, table3, table4, metrics, paper3), scale=scale)
