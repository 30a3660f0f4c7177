"""Smoke-run checks of the MRF paper's branch: per-run rows, Tables 1-2, claims and Figures 1-6."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

pytestmark = [pytest.mark.workflow, pytest.mark.slow]

TABLES = ("reports", "mrf", "tables")


@pytest.fixture(scope="module")
def smoke_mrf(repo_root):
    return yaml.safe_load((repo_root / "config" / "smoke.yaml").read_text())["mrf"]


def _read(root, name):
    return pd.read_csv(root.joinpath(*TABLES, name))


def test_one_row_per_simulation_estimator_size_and_replicate(smoke_run, smoke_mrf):
    runs = _read(smoke_run, "runs.csv")
    expected = {
        (sim, est, n, rep)
        for sim in ("tree", "small_grid", "large_grid")
        for est in smoke_mrf[sim]["estimators"]
        for n in smoke_mrf[sim]["sample_sizes"]
        for rep in range(smoke_mrf[sim]["replicates"])
    }
    got = set(zip(runs["simulation"], runs["estimator"], runs["n"], runs["rep"], strict=True))
    assert got == expected and len(runs) == len(expected)
    assert runs["mae"].between(0, 1).all()
    assert (runs["test_loglik"] < 0).all()
    metric = runs.groupby("simulation")["test_metric"].unique().map(tuple).to_dict()
    assert metric == {
        "tree": ("loglik",),
        "small_grid": ("loglik",),
        "large_grid": ("pseudo_loglik",),
    }
    bayes = runs[~runs["estimator"].isin(["mle", "oracle"])]
    assert bayes["vi_difference"].notna().all() and (bayes["n_groups"] >= 1).all()
    assert runs[runs["estimator"].isin(["mle", "oracle"])]["vi_difference"].isna().all()
    # every run has its own seed and its provenance
    assert runs["seed"].is_unique
    assert runs[["bnstudy_version", "git_commit"]].notna().all().all()
    tree = runs[runs["simulation"] == "tree"]
    assert (tree["n_edges"] == 2 ** (smoke_mrf["tree"]["height"] + 1) - 2).all()


def test_summary_table(smoke_run):
    summary = _read(smoke_run, "summary.csv")
    assert summary["replicates"].ge(1).all()
    assert {"mae_mean", "test_loglik_mean", "vi_difference_mean", "n_groups_mean"} <= set(summary)
    assert smoke_run.joinpath(*TABLES, "summary.md").read_text().startswith("## ")


def test_table1_runtime_beside_the_paper(smoke_run, smoke_mrf):
    table = _read(smoke_run, "table1_runtime.csv")
    assert set(table["estimator"]) == {"mle", "gibbs_exactl", "mh_auxvar", "gibbs_sba"}
    assert (table["seconds_mean"] > 0).all()
    at_100 = table[table["n"] == 100].set_index("estimator")["seconds_paper"]
    assert at_100.to_dict() == pytest.approx(
        {"mle": float("nan"), "gibbs_exactl": 88136.3, "mh_auxvar": 540.2, "gibbs_sba": 8.1},
        nan_ok=True,
    )
    sba = table[table["estimator"] == "gibbs_sba"].iloc[0]
    assert sba["n_steps"] == smoke_mrf["small_grid"]["gibbs_sba"]["n_steps"]


def test_table2_senate_beside_the_paper(smoke_run, smoke_mrf):
    table = _read(smoke_run, "table2_senate.csv")
    assert table["experiment"].tolist() == ["Exp1", "Exp2"]
    assert table[["train_session", "test_session"]].values.tolist() == [[1, 2], [2, 1]]
    assert table[["train_votes", "test_votes"]].values.tolist() == [[292, 222], [222, 292]]
    assert (table["graph_edges"] - smoke_mrf["senate"]["target_edges"]).abs().le(10).all()
    for column in ("lpl_train_mle", "lpl_train_sba", "lpl_test_mle", "lpl_test_sba"):
        assert (table[column] < 0).all() and table[f"{column}_paper"].notna().all()
    assert table["lpl_test_sba_paper"].tolist() == [-8989.87, -11446.45]
    assert (table["n_steps"] == smoke_mrf["senate"]["gibbs_sba"]["n_steps"]).all()


def test_claims_table(smoke_run):
    claims = _read(smoke_run, "claims.csv")
    assert len(claims) >= 15
    assert claims["verdict"].isin(["agrees", "partial", "disagrees", "not tested"]).all()
    # one training size in the smoke config: the trends in n cannot be tested
    assert (claims["verdict"] == "not tested").any()


def test_figures_and_report(smoke_run):
    figures = sorted((smoke_run / "reports" / "mrf" / "figures").glob("fig*.png"))
    assert [f.name.split("_")[0] for f in figures] == [f"fig{i}" for i in range(1, 7)]
    assert all(f.stat().st_size > 10_000 for f in figures)
    html = (smoke_run / "reports" / "report.html").read_text(errors="replace")
    assert "fig1_tree.png" in html and "table2_senate.csv" in html


def test_one_job_per_block_of_replicates(smoke_run, smoke_mrf):
    """fit_mrf writes one metrics row per training size and replicate of its block."""
    for sim in ("tree", "small_grid", "large_grid"):
        cfg = smoke_mrf[sim]
        for est in cfg["estimators"]:
            block = smoke_run / "results" / "mrf" / sim / est / "block=0"
            frame = pd.read_csv(block / "metrics.csv")
            assert len(frame) == len(cfg["sample_sizes"]) * cfg["replicates"]
            assert (block / "estimates.npz").is_file()
        assert (smoke_run / "results" / "mrf" / sim / "block=0" / "data.npz").is_file()
