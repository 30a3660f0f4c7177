"""Sharing set partitions: identical CPT sets, validation, gradual sharing."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.networks import DiscreteBayesianNetwork
from bnstudy.parameters import (
    gradual_sharing_sets,
    identical_cpt_sets,
    largest_sharable_set,
    validate_sharing,
)


@pytest.fixture(scope="module")
def twins() -> DiscreteBayesianNetwork:
    """R1, R2, R3 equal roots; C1, C2 equal children of binary parents; C3 same table numbers but
    a ternary parent; D differs from C1 by 1e-14 (equal after rounding)."""
    p = np.array([0.25, 0.75])
    q = np.array([[0.9, 0.1], [0.3, 0.7]])
    card = {"R1": 2, "R2": 2, "R3": 2, "T": 3, "C1": 2, "C2": 2, "C3": 2, "D": 2, "U": 2}
    cpts = {
        "R1": p,
        "R2": p.copy(),
        "R3": p.copy(),
        "T": np.array([0.2, 0.3, 0.5]),
        "C1": q,
        "C2": q.copy(),
        "C3": np.array([[0.9, 0.1], [0.3, 0.7], [0.9, 0.1]]),
        "D": q + np.array([[1e-14, -1e-14], [0.0, 0.0]]),
        "U": np.array([0.5, 0.5]),
    }
    parents = {"C1": ["R1"], "C2": ["R2"], "C3": ["T"], "D": ["R3"]}
    states = {v: [str(i) for i in range(k)] for v, k in card.items()}
    return DiscreteBayesianNetwork(list(card), parents, cpts, states, name="twins")


def test_identical_cpt_sets(twins):
    sets = identical_cpt_sets(twins)
    assert sets == [["R1", "R2", "R3"], ["C1", "C2", "D"], ["T"], ["C3"], ["U"]]
    assert sorted(v for s in sets for v in s) == sorted(twins.nodes)
    # without rounding D's 1e-14 difference separates it
    assert ["C1", "C2"] in identical_cpt_sets(twins, decimals=16)
    assert largest_sharable_set(twins) == ["R1", "R2", "R3"]


def test_identical_sets_tie_broken_by_topological_order(twins):
    sets = identical_cpt_sets(twins)
    sizes = [len(s) for s in sets]
    assert sizes == sorted(sizes, reverse=True)
    pos = {v: i for i, v in enumerate(twins.nodes)}
    singles = [s[0] for s in sets if len(s) == 1]
    assert singles == sorted(singles, key=pos.get)


def test_validate_sharing_completes_the_partition(twins):
    part = validate_sharing(twins, [["C2", "C1"], []])
    assert part[0] == ["C2", "C1"]
    assert [s for s in part[1:]] == [[v] for v in twins.nodes if v not in ("C1", "C2")]
    assert validate_sharing(twins, None) == [[v] for v in twins.nodes]


@pytest.mark.parametrize(
    ("sharing", "match"),
    [
        ([["C1", "C3"]], r"sharing set 0 \['C1', 'C3'\] mixes CPT shapes.*nodes \['C3'\] differ"),
        ([["R1", "T"]], r"nodes \['T'\] differ from 'R1' \(R1: \(2,\), T: \(3,\)\)"),
        ([["R1", "C1"]], r"nodes \['C1'\] differ"),
        ([["R1", "X9"]], r"sharing set 0 \['R1', 'X9'\] names unknown nodes \['X9'\]"),
        (
            [["R1", "R2"], ["R3", "R1"]],
            r"sharing set 1 .* repeats nodes \['R1'\] already in sharing set 0",
        ),
        ([["R1", "R1"]], r"lists nodes \['R1'\] more than once"),
        (["R1"], "is the string 'R1'"),
        ("R1", "got the string"),
    ],
)
def test_validate_sharing_errors(twins, sharing, match):
    with pytest.raises(ValueError, match=match):
        validate_sharing(twins, sharing)


def test_gradual_sharing_sets_nested():
    hidden = [f"h{i}" for i in range(66)]
    sets = gradual_sharing_sets(hidden, 4, rng=np.random.default_rng(0), first=2)
    sizes = [len(s) for s in sets]
    assert sizes == [0, *range(2, 66, 4), 66]  # Reed & Mengshoel Fig. 2: 2, 6, ..., 66
    for a, b in zip(sets, sets[1:], strict=False):
        assert b[: len(a)] == a  # supersets, the new nodes appended
    assert sorted(sets[-1]) == sorted(hidden)
    assert len(set(sets[-1])) == 66


def test_gradual_sharing_sets_sizes_and_determinism():
    hidden = list("abcdefghij")
    a = gradual_sharing_sets(hidden, 3, rng=np.random.default_rng(5))
    b = gradual_sharing_sets(hidden, 3, rng=np.random.default_rng(5))
    c = gradual_sharing_sets(hidden, 3, rng=np.random.default_rng(6))
    assert [len(s) for s in a] == [0, 3, 6, 9, 10]  # the last step adds fewer
    assert a == b and a != c
    # step 1: a single "shared" node is no sharing, so that size is left out
    # a step past |H| shares all of H at once
    assert [len(s) for s in gradual_sharing_sets(hidden[:3], 5, rng=np.random.default_rng(0))] == [
        0,
        3,
    ]
    assert [len(s) for s in gradual_sharing_sets(hidden[:4], 1, rng=np.random.default_rng(0))] == [
        0,
        2,
        3,
        4,
    ]


@pytest.mark.parametrize(
    ("hidden", "step", "first", "match"),
    [
        (["a", "b"], 0, None, "step"),
        (["a", "b"], 1.5, None, "step"),
        (["a", "a"], 1, None, "more than once"),
        (["a", "b"], 1, 3, "first"),
    ],
)
def test_gradual_sharing_sets_errors(hidden, step, first, match):
    with pytest.raises(ValueError, match=match):
        gradual_sharing_sets(hidden, step, rng=np.random.default_rng(0), first=first)
