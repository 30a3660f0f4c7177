"""Smoke-run checks of the LSBN paper's branch: per-run rows, ROPART tables, comparison, claims."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

pytestmark = [pytest.mark.workflow, pytest.mark.slow]

TABLES = ("reports", "lsbn", "tables")
BASELINES = {"aracne", "pc", "hill_climb", "mmhc"}


@pytest.fixture(scope="module")
def smoke_lsbn(repo_root):
    return yaml.safe_load((repo_root / "config" / "smoke.yaml").read_text())["lsbn"]


def _read(root, name):
    # keep_default_na=False: text cells such as "n/a" stay strings
    return pd.read_csv(root.joinpath(*TABLES, name), keep_default_na=False, na_values=[""])


def test_one_row_per_network_method_framework_and_replicate(smoke_run, smoke_lsbn):
    runs = _read(smoke_run, "runs.csv")
    methods = smoke_lsbn["methods"]
    expected = {
        (net, m, fw, rep)
        for net in smoke_lsbn["networks"]
        for rep in range(smoke_lsbn["replicates"])
        for m in methods
        for fw in (["global", "lsbn"] if m in BASELINES else ["lsbn"])
    }
    got = set(zip(runs["network"], runs["method"], runs["framework"], runs["rep"], strict=True))
    assert got == expected and len(runs) == len(expected)
    assert runs[["precision", "recall", "f_score"]].apply(lambda c: c.between(0, 1)).all().all()
    assert (runs["hit"] + runs["missing"]).groupby(runs["network"]).nunique().eq(1).all()
    assert (runs["runtime_s"] > 0).all() and (runs["n_samples"] == smoke_lsbn["n_samples"]).all()
    assert runs["seed"].is_unique
    assert runs[["bnstudy_version", "git_commit"]].notna().all().all()
    lsbn = runs[runs["framework"] == "lsbn"]
    assert (lsbn["n_communities"] >= 1).all() and lsbn["time_ropart_s"].notna().all()


def test_structures_are_dags_over_all_nodes(smoke_run, smoke_lsbn):
    from bnstudy.structure.hill_climb import is_dag

    net = smoke_lsbn["networks"][0]
    n = smoke_lsbn["n_samples"]
    for fw, method in (("global", "pc"), ("lsbn", "model_averaging")):
        f = np.load(smoke_run / f"results/lsbn/{fw}/{net}/{method}/n={n}/rep=0/structure.npz")
        assert is_dag(f["adjacency"])
        assert f["adjacency"].shape == (len(f["nodes"]),) * 2
        assert ((f["adjacency"] | f["adjacency"].T) == f["skeleton"]).all()


def test_ropart_tables(smoke_run, smoke_lsbn):
    t1 = _read(smoke_run, "table1_thresholds.csv")
    assert set(t1["network"]) == set(smoke_lsbn["networks"])
    assert set(t1["partition"]) == {*smoke_lsbn["weight_functions"], "second_order"}
    assert t1["remaining_edges_pct"].between(0, 100).all()
    ranks = _read(smoke_run, "partition_ranks.csv").set_index("partition")
    assert ranks.loc["second_order", "avg_shortest_path_rank_paper"] == 2.4
    assert ranks.loc["second_order", "diameter_rank_paper"] == 2
    sizes = _read(smoke_run, "table4_community_sizes.csv").set_index("network")
    assert sizes.loc["alarm", "mean_size_paper"] == 10.286
    assert sizes["pct_size_le_25"].between(0, 100).all()


def test_comparison_and_summaries(smoke_run, smoke_lsbn):
    comparison = _read(smoke_run, "comparison.csv")
    ma = comparison[comparison["method"] == "model_averaging"]
    assert ma["f_score_global"].isna().all() and ma["f_score_lsbn"].notna().all()
    for name in ("precision", "recall", "f_score", "runtime"):
        summary = _read(smoke_run, f"{name}.csv")
        assert summary["network"].tolist() == [*smoke_lsbn["networks"], "mean"]
        assert smoke_run.joinpath(*TABLES, f"{name}.md").read_text().startswith("## ")
    table5 = _read(smoke_run, "table5_aracne_thresholds.csv")
    assert table5["network"].tolist() == smoke_lsbn["networks"]
    assert (table5["tau"] == smoke_lsbn["tau"]).all() and (table5["edges_global"] >= 0).all()


def test_claims_table(smoke_run):
    claims = _read(smoke_run, "claims.csv")
    assert len(claims) >= 13
    assert claims["verdict"].isin(["agrees", "partial", "disagrees", "not tested"]).all()
    # pigs is not in the smoke config
    pigs = claims[claims["claim_id"] == "lsbn.model_avg_disparity.pigs"]
    assert pigs["verdict"].tolist() == ["not tested"]
