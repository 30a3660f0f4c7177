"""LSBN: the paper's statements about global vs LSBN-wrapped learners, checked on our runs.

The paper's Tables VI-XIII are missing (targets.md D.5); its text says how LSBN's precision,
recall and F compare with the global learners' and where model averaging does well. Each
comparison uses the mean over networks (and replicates) of a metric, LSBN minus global.
"Slightly below/above" is read as the sign of that difference; "comparable F" as ``|dF|`` within
the tolerance ``lsbn_f_comparable``. "Model averaging performs well except on pigs": on every
network but pigs its F is at least the median F of the global baselines minus
``lsbn_model_avg_margin``, and on pigs it is below that bound. The catalog's ``value`` is the
number of the paper's networks a comparison covers (5); fewer networks run make it ``partial``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnstudy.studies.claims import Catalog, Finding, assemble, judge, tolerance
from bnstudy.studies.lsbn.tables import _mean_runs  # the same means as the comparison tables

__all__ = ["DIRECTIONS", "lsbn_findings", "paper_claims"]

#: Direction claims: claim id -> (metric, method, "below" or "above" global).
DIRECTIONS = {
    "lsbn.precision_below_global.aracne": ("precision", "aracne", "below"),
    "lsbn.precision_below_global.pc": ("precision", "pc", "below"),
    "lsbn.precision_below_global.mmhc": ("precision", "mmhc", "below"),
    "lsbn.precision_above_global.hill_climb": ("precision", "hill_climb", "above"),
    "lsbn.recall_above_global.aracne": ("recall", "aracne", "above"),
    "lsbn.recall_above_global.pc": ("recall", "pc", "above"),
    "lsbn.recall_below_global.hill_climb": ("recall", "hill_climb", "below"),
    "lsbn.recall_below_global.mmhc": ("recall", "mmhc", "below"),
}

_F_METHODS = ("aracne", "pc", "hill_climb", "mmhc")
_MODEL_AVG_NETWORKS = ("alarm", "insurance", "win95pts", "link")


def lsbn_findings(catalog: Catalog, runs: pd.DataFrame) -> dict[str, Finding]:
    """Our finding for every LSBN claim our runs can speak to.

    Parameters
    ----------
    catalog : Catalog
        The LSBN paper's claims.
    runs : DataFrame
        One row per network, method, framework and replicate with ``precision``, ``recall`` and
        ``f_score`` (``reports/lsbn/tables/runs.csv``).
    """
    mean = _mean_runs(runs)
    networks = sorted(set(mean["network"]))
    per_method = mean.groupby(["method", "framework"])[["precision", "recall", "f_score"]].mean()
    out: dict[str, Finding] = {}

    def compare(claim_id: str, metric: str, method: str) -> tuple[float, float] | None:
        try:
            return (
                per_method.loc[(method, "global"), metric],
                per_method.loc[(method, "lsbn"), metric],
            )
        except KeyError:
            return None

    def coverage(claim_id: str) -> tuple[bool, str]:
        n_paper = int(catalog.value(claim_id))
        complete = len(networks) >= n_paper
        note = "" if complete else f"{len(networks)} of the paper's {n_paper} networks run"
        return complete, note

    for claim_id, (metric, method, direction) in DIRECTIONS.items():
        pair = compare(claim_id, metric, method)
        if pair is None:
            continue
        g, lsbn = pair
        diff = lsbn - g
        complete, note = coverage(claim_id)
        holds = diff < 0 if direction == "below" else diff > 0
        out[claim_id] = Finding(
            f"global {g:.3f}, LSBN {lsbn:.3f} (diff {diff:+.3f})",
            judge(bool(holds), complete=complete),
            note,
        )
    f_tol = tolerance("lsbn_f_comparable")
    for method in _F_METHODS:
        claim_id = f"lsbn.f_comparable.{method}"
        pair = compare(claim_id, "f_score", method)
        if pair is None:
            continue
        g, lsbn = pair
        complete, note = coverage(claim_id)
        out[claim_id] = Finding(
            f"global {g:.3f}, LSBN {lsbn:.3f} (diff {lsbn - g:+.3f})",
            judge(bool(abs(lsbn - g) <= f_tol), complete=complete),
            "; ".join(t for t in (f"|dF| <= {f_tol:g} (tolerance lsbn_f_comparable)", note) if t),
        )
    margin = tolerance("lsbn_model_avg_margin")
    ma = mean[(mean["method"] == "model_averaging") & (mean["framework"] == "lsbn")]
    glob = mean[mean["framework"] == "global"].groupby("network")["f_score"].median()
    for network, f in zip(ma["network"], ma["f_score"], strict=True):
        median = glob.get(network, np.nan)
        if network == "pigs":
            claim_id = "lsbn.model_avg_disparity.pigs"
        elif network in _MODEL_AVG_NETWORKS:
            claim_id = f"lsbn.model_avg_well.{network}"
        else:
            continue
        ours = f"Model Avg F {f:.3f}, global median F {median:.3f}"
        if np.isnan(median):
            out[claim_id] = Finding(ours, "not tested", "no global baseline run on this network")
            continue
        holds = f < median - margin if network == "pigs" else f >= median - margin
        out[claim_id] = Finding(
            ours,
            judge(bool(holds)),
            f"bound: global median F - {margin:g} (tolerance lsbn_model_avg_margin)",
        )
    return out


def paper_claims(catalog: Catalog, runs: pd.DataFrame, *, scale: str) -> pd.DataFrame:
    """The LSBN paper's claims table (columns of :data:`bnstudy.studies.claims.COLUMNS`)."""
    return assemble(catalog, lsbn_findings(catalog, runs), scale=scale)
