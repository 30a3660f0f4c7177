"""The TAN study's protocol: grids, validation splits, model selection and the claims table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bnstudy.data.readers import ClassificationSplit
from bnstudy.studies.claims import read_catalog
from bnstudy.studies.tan.claims import paper_claims
from bnstudy.studies.tan.protocol import (
    compare_mi_graphs,
    expand_grid,
    load_mi_graphs,
    save_mi_graphs,
    select_settings,
    spec_id,
    subsample_training,
    table1,
    validation_split,
)

REPO_ROOT = Path(__file__).resolve().parents[2]

HPARAMS = pd.DataFrame(
    {"lambda_tradeoff": [10.0, 20.0, 30.0], "gamma_margin": [1.0, 2.0, 3.0], "eta": [10.0] * 3}
)


def test_expand_grid_is_the_product_of_settings_rates_and_axes():
    specs = expand_grid(
        "tan_subset",
        {"datasets": ["x"], "settings": 2, "K": [2, 8], "orderings": [0, 1], "draws": [0]},
        HPARAMS,
        [3e-3, 3e-2],
    )
    assert len(specs) == 2 * 2 * 2 * 2
    assert {s["lam"] for s in specs} == {10.0, 20.0}
    assert {(s["K"], s["ordering"], s["draw"]) for s in specs} == {
        (k, o, 0) for k in (2, 8) for o in (0, 1)
    }
    assert len({spec_id(s) for s in specs}) == len(specs)
    assert expand_grid("nb_ml", {"datasets": ["x"]}, None, [1.0]) == [{"model": "nb_ml"}]


def test_expand_grid_order_does_not_follow_the_configs_key_order():
    """The specs come in the same order (and as the same dicts) however the grid's keys are
    ordered: a config file whose keys were reordered (or sorted, as the rules' params are) makes
    the same runs in the same order."""
    grid = {"settings": 2, "K": [2, 8], "orderings": [0, 1], "draws": [0, 3]}
    specs = expand_grid("tan_subset", grid, HPARAMS, [3e-3])
    for order in (sorted(grid), sorted(grid, reverse=True)):
        again = expand_grid("tan_subset", {k: grid[k] for k in order}, HPARAMS, [3e-3])
        assert [list(s.items()) for s in again] == [list(s.items()) for s in specs]
    # K varies slowest, then the ordering, then the draw (the configs' order)
    assert [(s["K"], s["ordering"], s["draw"]) for s in specs[:4]] == [
        (2, 0, 0),
        (2, 0, 3),
        (2, 1, 0),
        (2, 1, 3),
    ]


def test_expand_grid_rejects_too_many_settings():
    with pytest.raises(ValueError, match="settings = 5 .* 3 rows"):
        expand_grid("nb", {"datasets": ["x"], "settings": 5}, HPARAMS, [1e-3])


def _split(n=200, d=3, classes=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    return ClassificationSplit(
        rng.integers(0, 3, (n, d)),
        y,
        rng.integers(0, 3, (50, d)),
        rng.integers(0, classes, 50),
        classes=np.arange(classes),
    )


def test_validation_split_is_stratified_and_disjoint():
    split = _split()
    val = validation_split(split, 0.25, np.random.default_rng(1))
    assert len(val.y_train) + len(val.y_test) == len(split.y_train)
    for c in range(4):
        share = (val.y_test == c).sum() / (split.y_train == c).sum()
        assert share == pytest.approx(0.25, abs=0.05)
    with pytest.raises(ValueError, match="fraction"):
        validation_split(split, 1.0, np.random.default_rng(1))
    small = subsample_training(split, 80, np.random.default_rng(2))
    assert abs(len(small.y_train) - 80) <= 4 and len(small.y_test) == 50


def test_selection_uses_test_error_for_the_paper_and_validation_for_honesty():
    runs = pd.DataFrame(
        {
            "dataset": "d",
            "model": "m",
            "spec": ["a", "a", "b", "b", "a", "b"],
            "fold": [0, 1, 0, 1, 0, 0],
            "protocol": ["test", "test", "test", "test", "validation", "validation"],
            "error": [0.10, 0.20, 0.12, 0.14, 0.30, 0.20],
        }
    )
    row = select_settings(runs).iloc[0]
    assert row["error_best_test"] == pytest.approx(0.13)  # b: mean of 0.12 and 0.14
    assert row["spec_validation_selected"] == "b"
    assert row["error_validation_selected"] == pytest.approx(0.13)
    table = table1(
        select_settings(runs.assign(model="nb")),
        ["d"],
        pd.DataFrame({"model": ["nb"], "dataset": ["d"], "error": [9.9]}),
    )
    assert table.loc[0, "model"] == "hybrid NB"
    assert table.loc[0, "d (best test)"] == pytest.approx(13.0)
    assert table.loc[0, "d (paper)"] == 9.9
    assert table.loc[0, "d (validation)"] == pytest.approx(13.0)
    test_only = table1(
        select_settings(runs[runs["protocol"] == "test"].assign(model="nb")),
        ["d"],
        pd.DataFrame({"model": ["nb"], "dataset": ["d"], "error": [9.9]}),
        validation=False,
    )
    assert list(test_only.columns) == ["model", "d (best test)", "d (paper)"]


def test_claims_compare_models_per_dataset():
    selected = pd.DataFrame(
        {
            "dataset": ["d"] * 4,
            "model": ["nb_ml", "nb", "tan_random", "tan_subset"],
            "error_best_test": [0.3, 0.2, 0.15, 0.1],
        }
    )
    runs = pd.DataFrame(
        {
            "model": ["tan_heuristic"] * 3,
            "protocol": "test",
            "dataset": "mnist",
            "spec": ["h-A", "h-B", "h-C"],
            "K": 2.0,
            "ordering": ["A", "B", "C"],
            "error": [0.12, 0.11, 0.10],
        }
    )
    catalog = read_catalog(REPO_ROOT / "workflow" / "published" / "claims.tsv", "tan")
    claims = paper_claims(catalog, selected, runs, scale="test").set_index("claim_id")["verdict"]
    assert claims["tan.ml_worse_nb"] == "partial"  # one dataset of the paper's four
    assert claims["tan.tan_random_beats_nb"] == "partial"
    assert claims["tan.subset_beats_random_chow_liu"] == "partial"
    assert claims["tan.heuristic_c_best"] == "agrees"  # mnist, as the paper


def test_mi_graphs_round_trip_and_comparison(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.random((6, 6))
    mi = (a + a.T) / 2
    np.fill_diagonal(mi, 0)
    save_mi_graphs(tmp_path / "mi.npz", [mi])
    (back,) = load_mi_graphs(tmp_path / "mi.npz")
    np.testing.assert_array_equal(back, mi)
    stored = np.tril(mi, -1) + np.diag(np.full(6, 0.5))  # the authors' layout
    same = compare_mi_graphs(mi, stored)
    assert same["pearson_r"] == pytest.approx(1.0) and same["chow_liu_edges_shared"] == 1.0
    with pytest.raises(ValueError, match="shape"):
        compare_mi_graphs(mi, stored[:5, :5])
