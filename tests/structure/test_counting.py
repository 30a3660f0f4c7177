"""Shared contingency counting: hand-counted tables, agreement with bincount, input validation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bnstudy.structure.counting import check_discrete_data, marginal_counts, pairwise_counts

TINY = np.array([[0, 1], [1, 2], [0, 0], [1, 2], [0, 2]])


def _bincount_table(x, i, j, kmax):
    return np.bincount(x[:, i] * kmax + x[:, j], minlength=kmax * kmax).reshape(kmax, kmax)


def test_tiny_table_by_hand():
    x, cards = check_discrete_data(TINY)
    assert cards.tolist() == [2, 3]
    counts = pairwise_counts(x, cards)
    assert counts.shape == (1, 3, 3)
    # X = 0 in rows 0, 2, 4 with Y = 1, 0, 2; X = 1 in rows 1, 3 with Y = 2, 2
    assert counts[0].tolist() == [[1, 1, 1], [0, 0, 2], [0, 0, 0]]
    assert marginal_counts(x, cards).tolist() == [[3, 2, 0], [1, 1, 3]]


def test_all_pairs_match_bincount():
    rng = np.random.default_rng(0)
    cards = np.array([2, 3, 4, 1, 2, 5, 3])  # a constant column and unequal cardinalities
    x = (rng.random((300, len(cards))) * cards).astype(np.int64)
    counts = pairwise_counts(x, cards)
    iu, ju = np.triu_indices(len(cards), k=1)
    assert counts.shape == (len(iu), 5, 5)
    for k, (i, j) in enumerate(zip(iu, ju, strict=True)):
        np.testing.assert_array_equal(counts[k], _bincount_table(x, i, j, 5))
    assert (counts.sum(axis=(1, 2)) == len(x)).all()


def test_pairs_subset_diagonal_and_unobserved_states():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 3, (200, 4))
    cards = np.array([3, 4, 3, 5])  # states 3 and 3..4 never observed
    pairs = np.array([[3, 0], [2, 2], [1, 3], [0, 1]])
    counts = pairwise_counts(x, cards, pairs)
    for k, (i, j) in enumerate(pairs):
        np.testing.assert_array_equal(counts[k], _bincount_table(x, i, j, 5))
    assert (np.diag(counts[1]) == np.bincount(x[:, 2], minlength=5)).all()
    assert pairwise_counts(x, cards, np.zeros((0, 2), dtype=int)).shape == (0, 5, 5)


def test_accepts_dataframe_bool_and_integral_floats():
    df = pd.DataFrame({"a": [0.0, 1.0, 1.0], "b": [True, False, True]})
    x, cards = check_discrete_data(df)
    assert x.dtype == np.int64 and cards.tolist() == [2, 2]


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (np.array([[0, 1], [1, 0.5]]), "column 1 has the non-integer value 0.5"),
        (np.array([[0, 1], [np.nan, 0]]), "column 0 has the non-integer value nan"),
        (np.array([[0, 1], [1, -2]]), "column 1 has -2"),
        (np.array([[0, 3], [1, 3]]), "column 1 takes a single value"),
        (pd.DataFrame({"a": [0, 1], "smoke": [2, 2]}), "column 'smoke' takes a single value"),
        (np.array([0, 1, 2]), "2-D"),
        (np.array([["a", "b"], ["c", "d"]]), "dtype"),
        (np.zeros((0, 3), dtype=int), "at least one row"),
    ],
)
def test_bad_data(data, match):
    with pytest.raises(ValueError, match=match):
        check_discrete_data(data)


def test_allow_constant():
    x, cards = check_discrete_data(np.array([[0, 3], [1, 3]]), allow_constant=True)
    assert cards.tolist() == [2, 4]
    assert pairwise_counts(x, cards)[0, :, 3].tolist() == [1, 1, 0, 0]


@pytest.mark.parametrize(
    ("cards", "pairs", "match"),
    [
        ([2, 3], [[0, 2]], "out of range"),
        ([2, 2], None, "state >= its cardinality"),
        ([2], None, "cards must be 2 integers"),
        ([2, 3], [0, 1], r"\(n_pairs, 2\)"),
    ],
)
def test_bad_counts_input(cards, pairs, match):
    x, _ = check_discrete_data(TINY)
    with pytest.raises(ValueError, match=match):
        pairwise_counts(x, np.array(cards), pairs)
