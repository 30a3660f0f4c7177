"""The TAN study's protocol: grids, validation splits, model selection and the claims table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from bnstudy.data.readers import ClassificationSplit
from bnstudy.studies.claims import read_catalog
from bnstudy.studies.tan.claims import paper_claims
from bnstudy.studies.tan.protocol import (
    compare_mi_graphs,
    expand_grid,
    load_mi_graphs,
    read_hparams,
    save_mi_graphs,
    select_settings,
    spec_id,
    subsample_training,
    table1,
    training_split,
    validation_split,
)
from bnstudy.workflow_config import config_problems

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


def _ids(x):
    return set(x[:, 0].tolist())


def _numbered_split(n=300, classes=3, seed=0):
    """A split whose first training column numbers the rows (to see which rows a split keeps)."""
    split = _split(n=n, classes=classes, seed=seed)
    x_train = np.column_stack([np.arange(n), split.x_train])
    x_test = np.column_stack([np.arange(n, n + len(split.y_test)), split.x_test])
    return ClassificationSplit(x_train, split.y_train, x_test, split.y_test, split.classes)


@pytest.mark.parametrize("max_train", [None, 120])
def test_training_split_rows_depend_on_the_fold_seed_only(max_train):
    """Every model and protocol of a fold gets the same training subsample; the validation rows
    are a part of it; a job's own seed does not enter (training_split has none)."""
    split = _numbered_split()

    def job(protocol, seed=11):
        return training_split(
            split,
            protocol=protocol,
            max_train_samples=max_train,
            validation_fraction=0.25,
            seed=seed,
        )

    test, val = job("test"), job("validation")
    kept = _ids(test.x_train)
    if max_train:
        assert abs(len(kept) - max_train) <= 3 and len(kept) < 300
    else:
        assert kept == set(range(300))
    assert _ids(test.x_test) == _ids(split.x_test)  # the test rows are never subsampled
    # the validation protocol splits exactly the test protocol's training rows
    assert _ids(val.x_train) | _ids(val.x_test) == kept
    assert not _ids(val.x_train) & _ids(val.x_test)
    assert len(_ids(val.x_test)) == pytest.approx(0.25 * len(kept), abs=3)
    # the same rows every time (any model, either protocol); another fold seed draws others
    again = job("validation")
    assert _ids(again.x_train) == _ids(val.x_train) and _ids(again.x_test) == _ids(val.x_test)
    other = job("validation", seed=12)
    assert _ids(other.x_test) != _ids(val.x_test)
    if max_train:
        assert _ids(job("test", seed=12).x_train) != kept


def test_training_split_draws_the_subsample_and_validation_from_their_own_streams():
    split = _numbered_split()
    sub = subsample_training(split, 120, np.random.default_rng([5, 0]))
    val = validation_split(sub, 0.25, np.random.default_rng([5, 1]))
    got = training_split(
        split, protocol="validation", max_train_samples=120, validation_fraction=0.25, seed=5
    )
    assert np.array_equal(got.x_train, val.x_train) and np.array_equal(got.x_test, val.x_test)
    with pytest.raises(ValueError, match="unknown protocol 'holdout'"):
        training_split(split, protocol="holdout", max_train_samples=None, seed=5)


PUBLISHED = REPO_ROOT / "workflow" / "published"


def test_hparams_ab_is_set_a_then_set_b():
    """AB (the paper's hybrid Chow-Liu grid): 600 settings, index 0-499 set A, 500-599 set B."""
    a = read_hparams(PUBLISHED / "tan_hparams_setA.csv")
    b = read_hparams(PUBLISHED / "tan_hparams_setB.csv")
    ab = read_hparams([PUBLISHED / "tan_hparams_setA.csv", PUBLISHED / "tan_hparams_setB.csv"])
    assert (len(a), len(b), len(ab)) == (500, 100, 600)
    assert list(ab.columns) == list(a.columns) == list(b.columns)
    assert ab.index.tolist() == list(range(600))
    pd.testing.assert_frame_equal(ab.iloc[:500], a)
    pd.testing.assert_frame_equal(ab.iloc[500:].reset_index(drop=True), b, check_dtype=False)
    assert (ab["eta"].iloc[500:] == 10.0).all()
    assert ab.loc[0, "lambda_tradeoff"] == 26.6303 and ab.loc[500, "lambda_tradeoff"] == 41.5422
    specs = expand_grid("chow_liu", {"settings": 600}, ab, [3e-3])
    assert len(specs) == 600
    assert specs[499] == {"model": "chow_liu", **_setting(a.iloc[499]), "lr": 3e-3}
    assert specs[500] == {"model": "chow_liu", **_setting(b.iloc[0]), "lr": 3e-3}
    with pytest.raises(ValueError, match="settings = 601 .* 600 rows"):
        expand_grid("chow_liu", {"settings": 601}, ab, [3e-3])


def _setting(row):
    return {"lam": row.lambda_tradeoff, "gamma": row.gamma_margin, "eta": row.eta}


def test_hparams_table_without_eta_gets_set_bs_eta(tmp_path):
    b = pd.read_csv(PUBLISHED / "tan_hparams_setB.csv")
    b.drop(columns="eta").to_csv(tmp_path / "b.csv", index=False)
    pd.testing.assert_frame_equal(read_hparams(str(tmp_path / "b.csv")), b.astype({"eta": float}))
    b.drop(columns="gamma_margin").to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ValueError, match="bad.csv.*gamma_margin"):
        read_hparams([tmp_path / "b.csv", tmp_path / "bad.csv"])
    assert read_hparams(None) is None


def test_paper_config_runs_the_hybrid_chow_liu_grid_and_checks_settings():
    config = yaml.safe_load((REPO_ROOT / "config" / "paper.yaml").read_text())
    chow_liu = config["tan"]["models"]["chow_liu"]
    assert (chow_liu["hparams"], chow_liu["settings"]) == ("AB", 600)
    assert not config_problems(config)
    chow_liu["settings"] = 601
    config["tan"]["models"]["nb"]["settings"] = {"bnc_letter": 501}
    problems = "\n".join(config_problems(config))
    assert "tan.models.chow_liu.settings = 601, but hparams AB has only 600 draws" in problems
    assert "tan.models.nb.settings.bnc_letter = 501, but hparams A has only 500 draws" in problems


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
