"""The Chow-Liu recovery experiment of the TAN study (bnstudy.studies.tan.recovery)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bnstudy.classifiers import chow_liu_parents, conditional_mutual_information
from bnstudy.data.prepared import PreparedDataset
from bnstudy.data.readers import ClassificationSplit
from bnstudy.studies.tan.recovery import (
    drop_constant_features,
    recover_chow_liu,
    recovery_row,
    recovery_specs,
)


def _with_constant_feature(mixed_tan_data: dict) -> tuple[ClassificationSplit, np.ndarray]:
    """The mixed TAN data with a one-state feature inserted at column 2 (as letter's)."""
    fold, n_states = mixed_tan_data["fold"], mixed_tan_data["n_states"]

    def insert(x):
        return np.insert(x, 2, 0, axis=1)

    split = ClassificationSplit(
        insert(fold.x_train), fold.y_train, insert(fold.x_test), fold.y_test, fold.classes
    )
    return split, np.insert(n_states, 2, 1)


def test_drop_constant_features(mixed_tan_data: dict) -> None:
    fold, n_states = _with_constant_feature(mixed_tan_data)
    kept, kept_states, keep = drop_constant_features(fold, n_states)
    assert keep.tolist() == [0, 1, 3, 4, 5, 6, 7]
    assert kept_states.tolist() == mixed_tan_data["n_states"].tolist()
    np.testing.assert_array_equal(kept.x_train, mixed_tan_data["fold"].x_train)
    np.testing.assert_array_equal(kept.x_test, mixed_tan_data["fold"].x_test)


def test_recovery_specs() -> None:
    specs = recovery_specs(3, "all", [3e-2, 3e-3])
    assert [(s["root"], s["lr"]) for s in specs] == [
        (0, 3e-2), (0, 3e-3), (1, 3e-2), (1, 3e-3), (2, 3e-2), (2, 3e-3),
    ]  # fmt: skip
    assert all(s["model"] == "tan_all" and s["lam"] == 0.0 for s in specs)
    assert all(s["ordering"] == "chow_liu" for s in specs)
    assert [s["root"] for s in recovery_specs(5, [4, 1], [1e-2])] == [4, 1]
    with pytest.raises(ValueError, match="letter fold 0: root 5 out of range"):
        recovery_specs(5, [5], [1e-2], "letter fold 0")


def test_recovery_row_scores_a_flipped_edge() -> None:
    # chain 0 - 1 - 2 - 3 with a weak extra edge 0 - 3
    mi = np.zeros((4, 4))
    for i, j, w in [(0, 1, 3.0), (1, 2, 2.0), (2, 3, 1.0), (0, 3, 0.5)]:
        mi[i, j] = mi[j, i] = w
    target = chow_liu_parents(mi, 0)
    assert target.tolist() == [-1, 0, 1, 2]
    cand = np.array([[-1, -9, -9], [-1, 0, -9], [-1, 1, 0], [-1, 2, 0]])
    logits = np.where(cand == -9, -np.inf, 0.0)
    logits[1, 1], logits[2, 1], logits[3, 2] = 1.0, 2.0, 0.5  # feature 3 picks 0, not 2
    result = {"parents": [-1, 0, 1, 0], "structure_logits": logits, "candidates": cand}
    row = recovery_row(result, 0, mi, mi)
    assert row["parents_differing"] == 1 and not row["recovered"]
    assert row["cmi_fraction"] == pytest.approx((3 + 2 + 0.5) / (3 + 2 + 1))
    assert row["structure_margin"] == pytest.approx(-0.5)
    assert row["target_is_authors_tree"]
    assert json.loads(row["target_parents"]) == [-1, 0, 1, 2]
    assert json.loads(row["learned_parents"]) == [-1, 0, 1, 0]
    other = mi.copy()
    other[2, 3] = other[3, 2] = 0.0  # the authors' graph would hang 3 below 0
    assert not recovery_row(result, 0, mi, other)["target_is_authors_tree"]
    exact = {**result, "parents": target.tolist()}
    logits_ok = logits.copy()
    logits_ok[3, 1] = 1.0
    ok = recovery_row({**exact, "structure_logits": logits_ok}, 0, mi, mi)
    assert ok["recovered"] and ok["parents_differing"] == 0 and ok["cmi_fraction"] == 1.0


def test_recover_chow_liu_finds_the_tree(mixed_tan_data: dict) -> None:
    fold, n_states = _with_constant_feature(mixed_tan_data)
    ds = PreparedDataset("toy", [fold], [n_states], fold.classes, "synthetic")
    authors = conditional_mutual_information(fold.x_train, fold.y_train, n_states, 3)
    rows = recover_chow_liu(
        ds,
        [authors],
        name="toy",
        roots=[0, 3],
        learning_rates=[3e-2],
        epochs=12,
        batch_size=50,
        max_train=2000,
        max_folds=5,
        seed=4,
        split_seeds=[11],
    )
    assert [(r["fold"], r["root"]) for r in rows] == [(0, 0), (0, 3)]
    for r in rows:
        assert r["dataset"] == "toy" and r["features"] == 7 and r["n_train"] == 2000
        assert r["recovered"] and r["parents_differing"] == 0 and r["cmi_fraction"] == 1.0
        assert r["structure_margin"] > 0
        assert 0.0 <= r["test_error"] <= 1.0 and r["epochs"] == 12
    # same seed, same run alone as in a batch (up to float summation order; timing aside)
    again = recover_chow_liu(
        ds, [authors], name="toy", roots=[3], learning_rates=[3e-2], epochs=12, batch_size=50,
        max_train=2000, max_folds=1, seed=4, split_seeds=[11],
    )  # fmt: skip
    inexact = ("seconds", "structure_margin")
    assert {k: v for k, v in again[0].items() if k not in inexact} == {
        k: v for k, v in rows[1].items() if k not in inexact
    }
    assert again[0]["structure_margin"] == pytest.approx(rows[1]["structure_margin"], rel=1e-4)
