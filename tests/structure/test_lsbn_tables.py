"""The LSBN paper's tables and claims from per-run rows (bnstudy.studies.lsbn.tables)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bnstudy.studies.claims import read_catalog
from bnstudy.studies.lsbn.claims import paper_claims as lsbn_claims
from bnstudy.studies.lsbn.tables import (
    aracne_threshold_table,
    community_size_table,
    comparison_table,
    metric_summary,
    partition_quality_table,
    threshold_table,
)

REPO_ROOT = Path(__file__).resolve().parents[2]


def _run(network, method, framework, p, r, runtime=1.0, rep=0):
    f = 2 * p * r / (p + r)
    return {
        "network": network,
        "method": method,
        "framework": framework,
        "rep": rep,
        "hit": 10,
        "additional": 2,
        "missing": 3,
        "precision": p,
        "recall": r,
        "f_score": f,
        "runtime_s": runtime,
    }


@pytest.fixture
def runs():
    rows = []
    for net in ("alarm", "pigs"):
        rows += [
            _run(net, "aracne", "global", 0.80, 0.60),
            _run(net, "aracne", "lsbn", 0.78, 0.64),
            _run(net, "pc", "global", 0.95, 0.70),
            _run(net, "pc", "lsbn", 0.93, 0.72),
            _run(net, "hill_climb", "global", 0.60, 0.90),
            _run(net, "hill_climb", "lsbn", 0.64, 0.88),
            _run(net, "mmhc", "global", 0.95, 0.80),
            _run(net, "mmhc", "lsbn", 0.94, 0.79),
        ]
    rows.append(_run("alarm", "model_averaging", "lsbn", 0.85, 0.85))
    rows.append(_run("pigs", "model_averaging", "lsbn", 0.30, 0.40))
    return pd.DataFrame(rows)


def test_comparison_table_puts_global_beside_lsbn_and_model_avg_global_is_na(runs):
    table = comparison_table(runs)
    assert len(table) == 10
    assert table["network"].tolist()[:5] == ["alarm"] * 5
    assert table["paper_method"].tolist()[:5] == [
        "ARACNE",
        "PC",
        "Greedy Search",
        "MMHC",
        "Model Avg",
    ]
    ma = table[table["method"] == "model_averaging"]
    assert ma["precision_global"].isna().all() and ma["precision_lsbn"].notna().all()
    pc = table[(table["network"] == "alarm") & (table["method"] == "pc")].iloc[0]
    assert pc["precision_global"] == 0.95 and pc["precision_lsbn"] == 0.93


def test_metric_summary_has_a_mean_row(runs):
    summary = metric_summary(runs, "precision")
    assert summary["network"].tolist() == ["alarm", "pigs", "mean"]
    assert summary.loc[2, "aracne_global"] == pytest.approx(0.80)
    assert "model_averaging_global" not in summary


def _catalog():
    return read_catalog(REPO_ROOT / "workflow" / "published" / "claims.tsv", "lsbn")


def paper_claims(runs):
    return lsbn_claims(_catalog(), runs, scale="test").set_index("claim_id")


def test_claims_hold_on_runs_shaped_like_the_paper(runs):
    claims = paper_claims(runs)
    assert list(claims.index) == _catalog().ids
    # alarm and pigs of the paper's five networks: the comparisons hold on part of the evidence
    verdicts = claims["verdict"].drop(
        ["lsbn.model_avg_well.alarm", "lsbn.model_avg_disparity.pigs"]
    )
    assert set(verdicts[verdicts != "not tested"]) == {"partial"}, claims.to_string()
    assert claims.loc["lsbn.model_avg_well.alarm", "verdict"] == "agrees"


def test_claims_disagree_when_lsbn_precision_is_higher(runs):
    runs.loc[(runs["method"] == "pc") & (runs["framework"] == "lsbn"), "precision"] = 0.99
    claims = paper_claims(runs)
    assert claims.loc["lsbn.precision_below_global.pc", "verdict"] == "disagrees"


def test_claims_not_run_are_not_tested(runs):
    claims = paper_claims(runs[runs["network"] == "alarm"])
    assert claims.loc["lsbn.model_avg_disparity.pigs", "verdict"] == "not tested"
    claims = paper_claims(runs[runs["method"] != "mmhc"])
    assert (claims.filter(like="mmhc", axis=0)["verdict"] == "not tested").all()


@pytest.fixture
def stats():
    rows = []
    for net, shift in (("alarm", 0.0), ("insurance", 1.0)):
        for i, part in enumerate(["MI", "Pearson", "second_order"]):
            rows.append(
                {
                    "network": net,
                    "rep": 0,
                    "partition": part,
                    "threshold": 0.1 * (i + 1),
                    "remaining_edges_pct": 10.0 + i,
                    "avg_shortest_path": [2.0, 3.0, 1.5][i] + shift,
                    "diameter": [3.0, 3.0, 4.0][i],
                    "n_communities": 5,
                    "mean_size": 8.0 + shift,
                    "max_size": 20,
                    "pct_size_le_limit": 100.0,
                    "edge_coverage": 0.9,
                    "n_nontrivial": 3,
                    "mean_size_nontrivial": 11.0 + shift,
                }
            )
    return pd.DataFrame(rows)


def test_threshold_table(stats):
    t = threshold_table(stats)
    assert len(t) == 6 and list(t.columns) == [
        "network",
        "partition",
        "threshold",
        "remaining_edges_pct",
    ]


def test_partition_ranks_and_paper_values(stats):
    published = pd.DataFrame({"metric": ["avg_shortest_path", "diameter"], "mean_rank": [2.4, 2]})
    table, ranks = partition_quality_table(stats, published)
    so = ranks.set_index("partition").loc["second_order"]
    assert so["avg_shortest_path_rank"] == 1.0
    assert so["diameter_rank"] == 3.0
    assert so["avg_shortest_path_rank_paper"] == 2.4 and so["diameter_rank_paper"] == 2
    assert np.isnan(ranks.set_index("partition").loc["MI", "diameter_rank_paper"])
    # ties share the lowest rank
    assert table[(table["network"] == "alarm")]["diameter_rank"].tolist() == [1, 1, 3]


def test_community_sizes_beside_the_text(stats):
    published = pd.DataFrame(
        {
            "network": ["alarm", "insurance", "pigs"],
            "pct_size_le_25": [100, 100, 92.827],
            "mean_size": [10.286, 9.8, 9.527],
        }
    )
    t = community_size_table(stats, published).set_index("network")
    assert list(t.index) == ["alarm", "insurance"]
    assert t.loc["alarm", "mean_size"] == 8.0 and t.loc["alarm", "mean_size_paper"] == 10.286
    assert t.loc["insurance", "mean_size_nontrivial"] == 12.0
    assert t.loc["insurance", "pct_size_le_25_paper"] == 100


def test_aracne_threshold_table(runs):
    runs = runs.copy()
    pick = (runs["network"] == "pigs") & (runs["method"] == "aracne")
    runs.loc[pick & (runs["framework"] == "lsbn"), "additional"] = 7
    t = aracne_threshold_table(runs, 0.05).set_index("network")
    assert list(t.index) == ["alarm", "pigs"]
    assert (t["tau"] == 0.05).all() and (t["tau_paper"] == "not recovered").all()
    assert t.loc["alarm", "edges_global"] == 12 and t.loc["pigs", "edges_lsbn"] == 17
