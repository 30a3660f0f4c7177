"""Recovering the authors' training rows and state map from their discretized release."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.data.discretize import MDLDiscretizer
from bnstudy.data.readers import ClassificationSplit
from bnstudy.studies.tan.authors import authors_codes, authors_training_rows, compare_with_authors


def _release(rng, n=600, d=4):
    """Raw data, and an 'authors' fold: a random split discretized by fixed cuts, rows shuffled."""
    x = rng.integers(0, 30, size=(n, d)).astype(float)
    y = (x[:, 0] > 14).astype(np.int64) + (x[:, 1] > 20)
    cuts = [np.array([9.5, 19.5]), np.array([4.5, 14.5, 24.5]), np.array([15.5]), np.array([])]
    codes = np.column_stack([np.searchsorted(c, x[:, j]) for j, c in enumerate(cuts)])
    is_train = rng.random(n) < 0.7
    perm_tr = rng.permutation(np.flatnonzero(is_train))
    perm_te = rng.permutation(np.flatnonzero(~is_train))
    fold = ClassificationSplit(
        codes[perm_tr], y[perm_tr], codes[perm_te], y[perm_te], classes=np.arange(3)
    )
    return x, y, codes, is_train, fold


def test_codes_and_rows_are_recovered():
    x, y, codes, is_train, fold = _release(np.random.default_rng(0))
    got = authors_codes(x, fold)
    np.testing.assert_array_equal(got, codes)
    mask = authors_training_rows(x, y, fold, got)
    assert mask.sum() == is_train.sum()
    # rows whose (class, states) key is unique are recovered exactly; the multiset always is
    keys = np.column_stack([y, codes])
    np.testing.assert_array_equal(
        np.unique(keys[mask], axis=0, return_counts=True)[1],
        np.unique(keys[is_train], axis=0, return_counts=True)[1],
    )


def test_not_the_same_data_is_an_error():
    x, y, codes, _, fold = _release(np.random.default_rng(1))
    with pytest.raises(ValueError, match="not the same rows"):
        authors_codes(x[:-1], fold)
    with pytest.raises(ValueError, match="not a function"):
        _inconsistent(x)


def _inconsistent(x):
    codes = np.zeros_like(x, dtype=np.int64)
    codes[:, 0] = np.arange(len(x)) % 2  # not a step function of the raw value
    fold = ClassificationSplit(
        codes, np.zeros(len(x), int), codes[:0], np.zeros(0, int), np.arange(1)
    )
    authors_codes(x, fold)


def test_comparison_with_a_release_made_by_our_own_mdl():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(800, 3))
    y = (x[:, 0] + 0.3 * rng.normal(size=800) > 0).astype(np.int64) + (x[:, 1] > 1)
    train = np.arange(800) < 560
    mdl = MDLDiscretizer(cut_selection="best_accepted").fit(x[train], y[train])
    codes = mdl.transform(x)
    fold = ClassificationSplit(codes[train], y[train], codes[~train], y[~train], np.arange(3))
    raw = ClassificationSplit(x[:600], y[:600], x[600:], y[600:], np.arange(3))
    table = compare_with_authors("toy", raw, [fold])
    same_rows = table[
        (table.fit_on == "the authors' training rows") & (table.cut_selection == "best_accepted")
    ].iloc[0]
    assert same_rows["identical_cuts"] == 3 and same_rows["equal_state_counts"] == 3
    assert same_rows["training_rows"] == 560
