"""LSBN: the paper's statements about ROPART and about global vs LSBN-wrapped learners, checked
on our runs.

The paper's Tables VI-XIII are missing (targets.md D.5); its text says how LSBN's precision,
recall and F compare with the global learners' and where model averaging does well. Each
comparison uses the mean over networks (and replicates) of a metric, LSBN minus global.
"Slightly below/above" is read as the sign of that difference; "comparable F" as ``|dF|`` within
the tolerance ``lsbn_f_comparable``. "Model averaging performs well except on pigs": on every
network but pigs its F is at least the median F of the global baselines minus
``lsbn_model_avg_margin``, and on pigs it is below that bound. The catalog's ``value`` is the
number of the paper's networks a comparison covers (5); fewer networks run make it ``partial``.

ROPART (Tables I-IV, also missing; Sec. V text) is judged on our ROPART tables, whose ranks are
among the partitions of a network (7 weighted-network partitions and the second-order one;
1 = smallest = best; ties share the lowest rank):

* the second-order partition's mean rank over the networks on average shortest path (Table II)
  and diameter (Table III) is the paper's 2.4 and 2 within ``lsbn_mean_rank_halfwidth``
  (catalog ``value``: the paper's mean rank, then its number of networks);
* its results "always belong to the best ones": on every network and both measures its rank is
  at most ``lsbn_best_ones_fraction`` times the number of partitions (4 of 8), the better half;
* "no dominating weight function": for neither measure does one weight function give the best
  weighted-network partition (rank 1 among the seven, ties included) on every network; one
  network cannot show this, so it is ``not tested`` there;
* "the size of the majority of communities [is] less or equal than 25": more than half of the
  second-order communities have at most 25 nodes on every network (singletons count);
* "no significant difference in numbers of remaining edges" (Table I): on every network the
  largest remaining-edge share of the seven elbow-pruned weighted graphs is at most
  ``lsbn_remaining_edges_ratio`` times the smallest (the second-order graph is not pruned by the
  elbow method and is left out).

Their catalog ``value`` ends with the number of networks the paper covers (5), as above.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnstudy.studies.claims import Catalog, Finding, assemble, judge, tolerance
from bnstudy.studies.lsbn.tables import (  # the same means as the comparison tables
    SECOND_ORDER,
    _mean_runs,
)

__all__ = ["DIRECTIONS", "MEAN_RANKS", "lsbn_findings", "paper_claims", "ropart_findings"]

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

#: Mean-rank claims of the second-order partition: claim id -> measure (Tables II-III).
MEAN_RANKS = {
    "lsbn.second_order_mean_rank.avg_shortest_path": "avg_shortest_path",
    "lsbn.second_order_mean_rank.diameter": "diameter",
}
_MEASURES = ("avg_shortest_path", "diameter")
_MEASURE_LABELS = {"avg_shortest_path": "average shortest path", "diameter": "diameter"}
# Mean ranks are means of a few integers: compare them with the tolerance up to rounding.
_RANK_EPS = 1e-9


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


def _coverage(n_paper: float, networks: list[str]) -> tuple[bool, str]:
    """Whether our networks cover the paper's number of them, and a note when they do not."""
    complete = len(networks) >= int(n_paper)
    return (
        complete,
        "" if complete else f"{len(networks)} of the paper's {int(n_paper)} networks run",
    )


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def ropart_findings(
    catalog: Catalog,
    *,
    thresholds: pd.DataFrame | None = None,
    quality: pd.DataFrame | None = None,
    sizes: pd.DataFrame | None = None,
) -> dict[str, Finding]:
    """Our finding for every ROPART claim (Tables I-IV) the given tables can speak to.

    Parameters
    ----------
    catalog : Catalog
        The LSBN paper's claims.
    thresholds : DataFrame, optional
        Table I (``reports/lsbn/tables/table1_thresholds.csv``): ``network``, ``partition``,
        ``remaining_edges_pct``.
    quality : DataFrame, optional
        Tables II-III (``table2_3_partition_quality.csv``): ``network``, ``partition`` and the
        rank columns ``avg_shortest_path_rank``, ``diameter_rank``.
    sizes : DataFrame, optional
        Table IV (``table4_community_sizes.csv``): ``network``, ``pct_size_le_25``.

    A table not given leaves its claims out (``not tested``: not run).
    """
    out: dict[str, Finding] = {}
    if quality is not None and len(quality):
        out |= _quality_findings(catalog, quality)
    if sizes is not None and len(sizes):
        networks = list(sizes["network"])
        complete, note = _coverage(catalog.value("lsbn.communities_mostly_small"), networks)
        pct = dict(zip(sizes["network"], sizes["pct_size_le_25"], strict=True))
        holds = all(v > 50 for v in pct.values())
        out["lsbn.communities_mostly_small"] = Finding(
            "communities of <= 25 nodes: " + ", ".join(f"{n} {v:.1f}%" for n, v in pct.items()),
            judge(bool(holds), complete=complete),
            _join("majority: more than half of the second-order communities", note),
        )
    if thresholds is not None and len(thresholds):
        weighted = thresholds[thresholds["partition"] != SECOND_ORDER]
        networks = list(dict.fromkeys(weighted["network"]))
        ratio_tol = tolerance("lsbn_remaining_edges_ratio")
        ratios = {}
        for network, group in weighted.groupby("network", sort=False):
            low, high = group["remaining_edges_pct"].min(), group["remaining_edges_pct"].max()
            ratios[network] = high / low if low > 0 else np.inf
        complete, note = _coverage(catalog.value("lsbn.remaining_edges_similar"), networks)
        out["lsbn.remaining_edges_similar"] = Finding(
            "largest / smallest remaining-edge share of the weight functions: "
            + ", ".join(f"{n} {r:.2f}x" for n, r in ratios.items()),
            judge(bool(all(r <= ratio_tol for r in ratios.values())), complete=complete),
            _join(
                f"similar: within a factor {ratio_tol:g} (tolerance lsbn_remaining_edges_ratio); "
                "the second-order graph is left out",
                note,
            ),
        )
    return out


def _quality_findings(catalog: Catalog, quality: pd.DataFrame) -> dict[str, Finding]:
    """The claims on the partitions' ranks (Tables II-III)."""
    out: dict[str, Finding] = {}
    networks = list(dict.fromkeys(quality["network"]))
    n_parts = quality.groupby("network", sort=False).size()
    second = quality[quality["partition"] == SECOND_ORDER].set_index("network")
    ties = "ties share the lowest rank"
    if len(second):
        halfwidth = tolerance("lsbn_mean_rank_halfwidth")
        for claim_id, measure in MEAN_RANKS.items():
            paper_rank, n_paper = catalog.values(claim_id)
            ranks = second[f"{measure}_rank"]
            mean = float(ranks.mean())
            complete, note = _coverage(n_paper, list(second.index))
            out[claim_id] = Finding(
                f"mean rank {mean:.2f} of {int(n_parts.max())} partitions ("
                + ", ".join(f"{n} {r:g}" for n, r in ranks.items())
                + ")",
                judge(bool(abs(mean - paper_rank) <= halfwidth + _RANK_EPS), complete=complete),
                _join(
                    f"|mean rank - paper's {paper_rank:g}| <= {halfwidth:g} "
                    "(tolerance lsbn_mean_rank_halfwidth)",
                    ties,
                    note,
                ),
            )
        fraction = tolerance("lsbn_best_ones_fraction")
        outside = []
        for network, row in second.iterrows():
            bound = int(fraction * n_parts[network])
            outside += [
                f"{network} {_MEASURE_LABELS[m]} {row[f'{m}_rank']:g} of {n_parts[network]}"
                for m in _MEASURES
                if row[f"{m}_rank"] > bound
            ]
        worst = int(max(second[f"{m}_rank"].max() for m in _MEASURES))
        complete, note = _coverage(
            catalog.value("lsbn.second_order_among_best"), list(second.index)
        )
        out["lsbn.second_order_among_best"] = Finding(
            f"worst rank {worst}; outside the better half: " + (", ".join(outside) or "none"),
            judge(not outside, complete=complete),
            _join(
                f"best ones: rank <= {int(fraction * n_parts.max())} of {int(n_parts.max())} (the "
                "better half, tolerance lsbn_best_ones_fraction) on every network and measure",
                ties,
                note,
            ),
        )
    weighted = quality[quality["partition"] != SECOND_ORDER]
    claim_id = "lsbn.no_dominating_weight_function"
    if len(weighted):
        best, dominating = {}, []
        for m in _MEASURES:
            col = f"{m}_rank"
            top = weighted[weighted[col] == weighted.groupby("network")[col].transform("min")]
            best[m] = top.groupby("network", sort=False)["partition"].agg("/".join)
            winners = set.intersection(*(set(g["partition"]) for _, g in top.groupby("network")))
            dominating += [f"{p} ({_MEASURE_LABELS[m]})" for p in sorted(winners)]
        ours = "; ".join(
            f"best weight function by {_MEASURE_LABELS[m]}: "
            + ", ".join(f"{n} {p}" for n, p in best[m].items())
            for m in _MEASURES
        )
        if len(networks) < 2:
            out[claim_id] = Finding(
                ours,
                "not tested",
                "one network cannot show a weight function doing well on some and poorly on others",
            )
        else:
            complete, note = _coverage(catalog.value(claim_id), networks)
            out[claim_id] = Finding(
                ours,
                judge(not dominating, complete=complete),
                _join(
                    "dominating = the best of the weight functions on every network; "
                    + (f"dominating: {', '.join(dominating)}" if dominating else "none is"),
                    note,
                ),
            )
        mi = _mi_example(weighted)
        if mi is not None:
            out["lsbn.mi_best_alarm_worst_win95pts"] = mi
    return out


def _mi_example(weighted: pd.DataFrame) -> Finding | None:
    """MI's rank among the weight functions by average shortest path: best on alarm, among the
    worst on win95pts (the worse half, mirroring ``lsbn_best_ones_fraction``)."""
    col = "avg_shortest_path_rank"
    ranks = {}
    for network in ("alarm", "win95pts"):
        rows = weighted[weighted["network"] == network]
        if "MI" not in set(rows["partition"]):
            return None
        # rank among the weight functions alone (the tables rank the second-order one too)
        ranks[network] = (
            int((rows[col] < rows.loc[rows["partition"] == "MI", col].item()).sum()) + 1,
            len(rows),
        )
    (alarm, n_alarm), (win, n_win) = ranks["alarm"], ranks["win95pts"]
    worst_from = n_win - int(tolerance("lsbn_best_ones_fraction") * n_win) + 1
    return Finding(
        f"MI by average shortest path: alarm {alarm} of {n_alarm}, win95pts {win} of {n_win} "
        "weight functions",
        judge(bool(alarm == 1 and win >= worst_from)),
        f"among the worst: rank {worst_from} or below of {n_win} (the worse half, tolerance "
        "lsbn_best_ones_fraction); ties share the best rank",
    )


def paper_claims(
    catalog: Catalog,
    runs: pd.DataFrame,
    *,
    scale: str,
    thresholds: pd.DataFrame | None = None,
    quality: pd.DataFrame | None = None,
    sizes: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The LSBN paper's claims table (columns of :data:`bnstudy.studies.claims.COLUMNS`).

    ``runs`` is ``reports/lsbn/tables/runs.csv``; ``thresholds``, ``quality`` and ``sizes`` are
    the ROPART tables of :func:`ropart_findings` (their claims are not tested without them).
    """
    findings = lsbn_findings(catalog, runs)
    findings |= ropart_findings(catalog, thresholds=thresholds, quality=quality, sizes=sizes)
    return assemble(catalog, findings, scale=scale)
