"""Structures: Chow-Liu trees, random TANs, candidate-parent rules, heuristic orderings."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.sparse.csgraph import minimum_spanning_tree

from bnstudy.classifiers import (
    PAD,
    candidate_parents,
    check_tan_parents,
    chow_liu_parents,
    conditional_mutual_information,
    heuristic_ordering,
    is_valid_tan,
    paper_feature_orderings,
    paper_parent_permutations,
    random_tan_parents,
    structure_margin,
    tan_weight,
)
from bnstudy.classifiers.structures import numpy119_argsort


def _rows(cand: np.ndarray) -> list[list[int]]:
    return [[int(v) for v in row if v != PAD] for row in cand]


# ---------------------------------------------------------------- Chow-Liu
def test_chow_liu_is_maximum_spanning_tree() -> None:
    rng = np.random.default_rng(0)
    D = 9
    w = rng.random((D, D))
    mi = np.tril(w, -1) + np.tril(w, -1).T
    parents = chow_liu_parents(mi, root=3)
    assert parents[3] == -1 and is_valid_tan(parents)
    assert np.count_nonzero(parents >= 0) == D - 1
    ours = sum(mi[d, parents[d]] for d in range(D) if parents[d] >= 0)
    best = -minimum_spanning_tree(-np.tril(mi, -1)).sum()
    assert ours == pytest.approx(best)


def test_chow_liu_ordering_contains_tree() -> None:
    rng = np.random.default_rng(1)
    w = rng.random((7, 7))
    mi = w + w.T
    parents, order = chow_liu_parents(mi, root=2, return_ordering=True)
    assert order[0] == 2
    assert is_valid_tan(parents, order)
    cand = candidate_parents("all", 7, ordering=order)
    for d in range(7):
        assert parents[d] in cand[d]


def test_chow_liu_tree_has_the_largest_weight_of_all_tans() -> None:
    rng = np.random.default_rng(4)
    D = 5
    w = rng.random((D, D))
    mi = np.tril(w, -1) + np.tril(w, -1).T
    best = tan_weight(mi, chow_liu_parents(mi, root=1))
    # every parent vector with a parent among all features (brute force, invalid ones skipped)
    weights = [
        tan_weight(mi, pa)
        for pa in itertools.product(range(-1, D), repeat=D)
        if is_valid_tan(np.array(pa))
    ]
    assert max(weights) == pytest.approx(best)
    assert tan_weight(mi, np.full(D, -1)) == 0.0
    with pytest.raises(ValueError, match="parents"):
        tan_weight(mi, [-1, 0])


def test_structure_margin() -> None:
    cand = candidate_parents("all", 3)  # [[-1, PAD, PAD], [0, -1, PAD], [0, 1, -1]]
    logits = np.array([[0.0, -np.inf, -np.inf], [0.5, -0.5, -np.inf], [0.2, 1.0, 0.9]])
    assert structure_margin(logits, cand, [-1, 0, 1]) == pytest.approx(0.1)
    assert structure_margin(logits, cand, [-1, -1, 1]) == pytest.approx(-1.0)
    assert structure_margin(logits[:1, :1], cand[:1, :1], [-1]) == np.inf
    with pytest.raises(ValueError, match="not a candidate"):
        structure_margin(logits, cand, [-1, 2, 1])


def test_chow_liu_bad_input() -> None:
    with pytest.raises(ValueError, match="square"):
        chow_liu_parents(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="root"):
        chow_liu_parents(np.zeros((3, 3)), root=3)


def test_conditional_mi_matches_definition() -> None:
    rng = np.random.default_rng(2)
    n_states = np.array([2, 3, 4])
    x = np.stack([rng.integers(0, k, 400) for k in n_states], axis=1)
    x[:, 2] = np.where(rng.random(400) < 0.7, x[:, 1], x[:, 2])
    y = rng.integers(0, 2, 400)
    mi = conditional_mutual_information(x, y, n_states, 2)
    i, j = 2, 1
    ref = 0.0
    for c in range(2):
        xc = x[y == c]
        pc = len(xc) / len(x)
        for a, b in itertools.product(range(n_states[i]), range(n_states[j])):
            pab = np.mean((xc[:, i] == a) & (xc[:, j] == b))
            pa, pb = np.mean(xc[:, i] == a), np.mean(xc[:, j] == b)
            if pab > 0:
                ref += pc * pab * np.log(pab / (pa * pb))
    assert mi[i, j] == pytest.approx(ref) and mi[j, i] == pytest.approx(ref)
    assert np.all(np.diag(mi) == 0)


def test_conditional_mi_reproduces_authors_graph(letter) -> None:
    fold = letter["fold"]
    ours = conditional_mutual_information(
        fold.x_train, fold.y_train, fold.x_train.max(axis=0) + 1, len(fold.classes)
    )
    np.testing.assert_allclose(ours, letter["mi"], atol=1e-12)


# ---------------------------------------------------------------- random TAN
def test_random_tan_parents_valid_and_uniform() -> None:
    order = np.array([3, 0, 4, 1, 2])
    counts = np.zeros((5, 5))
    rng = np.random.default_rng(3)
    for _ in range(2000):
        pa = random_tan_parents(5, order, rng)
        assert is_valid_tan(pa, order)
        assert pa[3] == -1 and np.all(pa[[0, 4, 1, 2]] >= 0)
        counts[np.arange(5), np.where(pa >= 0, pa, 0)] += pa >= 0
    # the last feature in the ordering (2) picks each of the 4 earlier features ~500 times
    assert np.all(np.abs(counts[2, [3, 0, 4, 1]] - 500) < 100)


def test_paper_draws_are_consistent() -> None:
    D = 16
    orderings = paper_feature_orderings(D)
    assert len(orderings) == 5 and np.array_equal(orderings[0], np.arange(D))
    assert all(np.array_equal(np.sort(o), np.arange(D)) for o in orderings)
    draws = paper_parent_permutations(D, 10)
    assert np.array_equal(draws[0], paper_parent_permutations(D, 5)[0])  # deterministic stream
    pa = random_tan_parents(D, orderings[2], position_permutations=draws[4])
    sub = candidate_parents("subset", D, K=1, ordering=orderings[2], position_permutations=draws[4])
    for d in range(D):
        if pa[d] >= 0:
            assert pa[d] == sub[d, 0]  # TAN Random draw r is the K=1 subset of draw r


# ---------------------------------------------------------------- candidate rules
def test_subset_rule() -> None:
    D, K = 9, 3
    order = np.array([4, 7, 0, 8, 1, 6, 2, 5, 3])
    position = np.argsort(order)
    cand = candidate_parents("subset", D, K=K, ordering=order, rng=np.random.default_rng(5))
    assert cand.shape == (D, K + 1)
    for i, d in enumerate(order):
        row = _rows(cand[None, d])[0]
        assert row[-1] == -1  # class-only option always present, last
        feats = row[:-1]
        if i <= K:
            assert sorted(feats) == sorted(order[:i].tolist())
        else:
            assert len(feats) == K and set(feats) <= set(order[:i].tolist())
        assert list(position[feats]) == sorted(position[feats])  # listed in ordering order
    assert cand[order[0]].tolist() == [-1] + [PAD] * K


def test_subset_with_fixed_permutations_takes_prefix() -> None:
    D, K = 6, 2
    perms = np.full((D, D), -1)
    for i in range(D):
        perms[i, :i] = np.arange(i)[::-1]  # nearest earlier position first
    cand = candidate_parents("subset", D, K=K, position_permutations=perms)
    assert _rows(cand) == [[-1], [0, -1], [0, 1, -1], [1, 2, -1], [2, 3, -1], [3, 4, -1]]


def test_all_rule() -> None:
    order = np.array([2, 0, 1])
    cand = candidate_parents("all", 3, ordering=order)
    assert _rows(cand) == [[2, -1], [2, 0, -1], [-1]]


def test_pseudo_rule_allows_later_features() -> None:
    D, K = 8, 3
    cand = candidate_parents("pseudo", D, K=K, rng=np.random.default_rng(0))
    assert cand.shape == (D, K + 1)
    later = False
    for d, row in enumerate(_rows(cand)):
        assert row[-1] == -1 and len(row) == K + 1 and d not in row
        later |= any(p > d for p in row[:-1])
    assert later


@pytest.mark.parametrize("pixel_order", ["C", "F"])
def test_heuristic_orderings_on_small_images(pixel_order: str) -> None:
    def feat(r: int, c: int, h: int) -> int:
        return r * h + c if pixel_order == "C" else r + h * c

    a = heuristic_ordering("A", (3, 3), pixel_order)
    assert a.tolist() == [feat(r, c, 3) for r in range(3) for c in range(3)]
    b = heuristic_ordering("B", (3, 3), pixel_order)
    rc_b = [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (0, 2), (2, 1), (1, 2), (2, 2)]
    assert b.tolist() == [feat(r, c, 3) for r, c in rc_b]
    c4 = heuristic_ordering("C", (4, 4), pixel_order)
    rc_c = [(1, 1), (1, 2), (2, 1), (2, 2)]  # centre 2x2 (its four "corners")
    rc_c += [(0, 1), (0, 2), (3, 1), (3, 2), (1, 0), (2, 0), (1, 3), (2, 3)]
    rc_c += [(0, 0), (0, 3), (3, 0), (3, 3)]
    assert c4.tolist() == [feat(r, c, 4) for r, c in rc_c]
    c3 = heuristic_ordering("C", (3, 3), pixel_order)
    rc_c3 = [(1, 1), (0, 1), (2, 1), (1, 0), (1, 2), (0, 0), (0, 2), (2, 0), (2, 2)]
    assert c3.tolist() == [feat(r, c, 3) for r, c in rc_c3]
    bf = heuristic_ordering(1, (2, 3), pixel_order)
    assert bf.tolist() == [
        feat(r, c, 3 if pixel_order == "C" else 2)
        for r, c in [(0, 0), (0, 1), (0, 2), (1, 2), (1, 1), (1, 0)]
    ]


def test_heuristic_k_nearest_respects_column_major_storage() -> None:
    # 4x4 image stored column-wise: feature r + 4c is pixel (r, c)
    cand = candidate_parents("heuristic", 16, K=1, ordering="A", image_shape=(4, 4))
    for r in range(4):
        for c in range(4):
            d = r + 4 * c
            row = _rows(cand[None, d])[0]
            if (r, c) == (0, 0):
                assert row == [-1]
            elif r == 0 and c == 1:
                assert row == [0, -1]  # i = 1 <= K: all earlier
            elif r > 0:
                # pixel above and to the left are both at distance 1: at most 15 earlier pixels,
                # which numpy's argsort sorts by insertion, so the earlier position wins (the
                # pixel above)
                assert row == [(r - 1) + 4 * c, -1]
            else:
                assert row == [r + 4 * (c - 1), -1]  # first row: left neighbour
    cand_k5 = candidate_parents("heuristic", 16, K=5, ordering="C", image_shape=(4, 4))
    assert cand_k5.shape == (16, 6)
    order = heuristic_ordering("C", (4, 4))
    for i, d in enumerate(order):
        assert set(_rows(cand_k5[None, d])[0][:-1]) <= set(order[:i].tolist())


def test_numpy119_argsort_is_numpys_introsort() -> None:
    """Numpy sorts 16-bit keys with the introsort of 1.19 (it has no SIMD argsort for them), so
    its argsort of int16 keys is the reference for ties; the stable order differs."""
    rng = np.random.default_rng(0)
    unstable = 0
    for _ in range(400):
        keys = rng.integers(0, rng.integers(1, 40), rng.integers(1, 800)).astype(np.int16)
        got = numpy119_argsort(keys)
        np.testing.assert_array_equal(got, np.argsort(keys, kind="quicksort"))
        unstable += not np.array_equal(got, np.argsort(keys, kind="stable"))
    assert unstable > 300
    assert numpy119_argsort([]).tolist() == [] and numpy119_argsort([3.0]).tolist() == [0]


@pytest.mark.parametrize(("width", "ordering"), [(16, "A"), (16, "C"), (14, "B")])
def test_heuristic_candidates_are_the_authors(width, ordering) -> None:
    """``experiment_tan_heuristic.get_feature_configuration`` with numpy's introsort: squared
    distances (float32) between pixels in the ordering, ``np.argsort`` of each row's earlier
    ones, the first ``K`` (``max_augmenting_features - 1``)."""
    n = width * width
    order = heuristic_ordering(ordering, (width, width), "C")
    col, row = np.meshgrid(np.arange(width, dtype=np.float32), np.arange(width, dtype=np.float32))
    col, row = col.reshape(-1)[order], row.reshape(-1)[order]
    dist = (col[None, :] - col[:, None]) ** 2 + (row[None, :] - row[:, None]) ** 2
    for k in (1, 5, 8):
        cand = candidate_parents(
            "heuristic", n, K=k, ordering=ordering, image_shape=(width, width), pixel_order="C"
        )
        differ_from_stable = 0
        for i in range(k + 1, n):
            near = np.argsort(dist[i, :i].astype(np.int16), kind="quicksort")[:k]
            assert _rows(cand[None, order[i]])[0] == [*order[np.sort(near)].tolist(), -1]
            stable = np.argsort(dist[i, :i], kind="stable")[:k]
            differ_from_stable += set(near.tolist()) != set(stable.tolist())
        assert differ_from_stable > n // 5  # the ties matter


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"kind": "subset", "K": 0, "rng": np.random.default_rng(0)}, "K must be"),
        ({"kind": "pseudo", "K": -1, "rng": np.random.default_rng(0)}, "K must be"),
        ({"kind": "subset", "rng": np.random.default_rng(0)}, "K"),
        (
            {"kind": "heuristic", "K": 2, "ordering": "D", "image_shape": (4, 4)},
            "unknown heuristic",
        ),
        ({"kind": "heuristic", "K": 2, "ordering": "A"}, "image_shape"),
        ({"kind": "heuristic", "K": 2, "ordering": "A", "image_shape": (3, 3)}, "does not match"),
        ({"kind": "ring", "K": 2}, "unknown candidate kind"),
        ({"kind": "all", "ordering": [0, 1, 1] + list(range(3, 16))}, "permutation"),
        ({"kind": "subset", "K": 2}, "rng"),
    ],
)
def test_candidate_parents_errors(kwargs: dict, match: str) -> None:
    kind = kwargs.pop("kind")
    with pytest.raises(ValueError, match=match):
        candidate_parents(kind, 16, **kwargs)


def test_heuristic_ordering_errors() -> None:
    with pytest.raises(ValueError, match="square"):
        heuristic_ordering("B", (2, 3))
    with pytest.raises(ValueError, match="unknown heuristic ordering index"):
        heuristic_ordering(7, (4, 4))
    with pytest.raises(ValueError, match="pixel_order"):
        heuristic_ordering("A", (4, 4), pixel_order="K")


# ---------------------------------------------------------------- validity
def test_is_valid_tan() -> None:
    assert is_valid_tan([-1, 0, 1, 1])
    assert is_valid_tan([-1, -1, -1])  # naive Bayes (a forest)
    assert not is_valid_tan([1, 2, 0])  # cycle
    assert not is_valid_tan([-1, 1])  # self loop
    assert not is_valid_tan([-1, 5])  # out of range
    assert is_valid_tan([2, -1, 1], ordering=[1, 2, 0])
    assert not is_valid_tan([-1, 0, 1], ordering=[2, 1, 0])  # parent later in the ordering


@pytest.mark.parametrize(
    ("parents", "message"),
    [
        ([1, 0, -1, -1], r"directed cycle \(0 -> 1 -> 0"),
        ([-1, 2, 3, 1], r"directed cycle \(1 -> 2 -> 3 -> 1"),
        ([-1, 1, 0], r"parents\[1\]: feature 1 is its own parent"),
        ([-1, 0, 7], r"parents\[2\] = 7 is not a feature index in 0\.\.2"),
        ([-2, 0, 1], r"parents\[0\] = -2"),
        ([[-1, 0]], "1-d vector"),
        ([-1.0, 0.0], "integers"),
    ],
)
def test_check_tan_parents_names_the_problem(parents, message) -> None:
    with pytest.raises(ValueError, match=message):
        check_tan_parents(parents)
    assert not is_valid_tan(parents)


def test_check_tan_parents_accepts_forests_and_checks_the_length() -> None:
    np.testing.assert_array_equal(check_tan_parents([-1, 0, 1, 1]), [-1, 0, 1, 1])
    assert check_tan_parents(np.array([-1, -1], dtype=np.int8)).dtype == np.int64
    with pytest.raises(ValueError, match=r"one entry per feature \(3\), got 2"):
        check_tan_parents([-1, 0], n_features=3)
