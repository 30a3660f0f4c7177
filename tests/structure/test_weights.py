"""Weight functions on a hand-computed table, PageRank, the elbow threshold and pruning."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from bnstudy.structure.weights import (
    WEIGHT_FUNCTIONS,
    elbow_threshold,
    pagerank,
    pairwise_weights,
    prune,
    weight_matrices,
)

# X = [0,0,0,1], Y = [0,0,1,1], Z = [0,1,0,1]. (X, Y) and (X, Z) have the same joint table
# P(0,0) = 1/2, P(0,1) = 1/4, P(1,1) = 1/4; Y and Z are independent.
TABLE = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 1, 1]])
D = 0.85  # PageRank damping

A = 0.5 * math.log(4 / 3) + 0.25 * math.log(2 / 3) + 0.25 * math.log(2)  # MI(X;Y) in nats
H_X = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
H_Y = math.log(2)
RHO = 1 / math.sqrt(3)  # cov 1/8 over sqrt(3/16 * 1/4)
# PageRank on the MI graph X-Y, X-Z (equal weights): x = (1 + 2d) / (3 (1 + d)), y = z = (1 - x) / 2
PR_X = (1 + 2 * D) / (3 * (1 + D))
PR_Y = (1 - PR_X) / 2

# expected weight of (X, Y) [same as (X, Z)] and of (Y, Z), per function
EXPECTED = {
    "MI": (A, 0.0),
    "MI_plus": (A / (H_X + H_Y), 0.0),
    "MI_sqrt": (A / math.sqrt(H_X * H_Y), 0.0),
    "MI_pr": (A * (2 / 3) / (PR_X + PR_Y), 0.0),
    # values (a, a, 0): mean 2a/3, population sd a sqrt(2)/3
    "MI_sn": (1 / math.sqrt(2), -math.sqrt(2)),
    "Pearson": (RHO, 0.0),
    "Pearson_sn": (1 / math.sqrt(2), -math.sqrt(2)),
}


@pytest.mark.parametrize("method", WEIGHT_FUNCTIONS)
def test_hand_computed_table(method):
    w = pairwise_weights(TABLE, method)
    xy, yz = EXPECTED[method]
    assert w[0, 1] == pytest.approx(xy, rel=1e-12)
    assert w[0, 2] == pytest.approx(xy, rel=1e-12)
    assert w[1, 2] == pytest.approx(yz, abs=1e-12)
    np.testing.assert_array_equal(w, w.T)
    assert (np.diag(w) == 0).all()


def test_one_pass_matches_single_calls():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, (500, 6))
    x[:, 1] = (x[:, 0] + (rng.random(500) < 0.2)) % 3
    x[:, 4] = x[:, 3] * (rng.random(500) < 0.7)
    allw = weight_matrices(x)
    assert tuple(allw) == WEIGHT_FUNCTIONS
    for m in WEIGHT_FUNCTIONS:
        np.testing.assert_array_equal(allw[m], pairwise_weights(x, m))
        np.testing.assert_array_equal(allw[m], allw[m].T)
        assert (np.diag(allw[m]) == 0).all()
    # MI against a direct plug-in estimate, Pearson against numpy
    p01 = np.histogram2d(x[:, 0], x[:, 1], bins=[3, 3])[0] / 500
    outer = p01.sum(1)[:, None] * p01.sum(0)[None, :]
    nz = p01 > 0
    assert allw["MI"][0, 1] == pytest.approx((p01[nz] * np.log(p01[nz] / outer[nz])).sum())
    np.testing.assert_allclose(allw["Pearson"], np.abs(np.corrcoef(x.T)) - np.eye(6), atol=1e-12)
    assert np.all(allw["MI_sqrt"] <= 1) and np.all(allw["MI_plus"] <= 0.5)


def test_constant_column_gets_zero_weights():
    x = np.column_stack([TABLE, np.zeros(4, dtype=int)])
    allw = weight_matrices(x)
    for m in ("MI", "MI_plus", "MI_sqrt", "MI_pr", "Pearson"):
        assert np.isfinite(allw[m]).all()
        assert (allw[m][3] == 0).all(), m
    assert np.isfinite(allw["MI_sn"]).all()


def test_pagerank_matches_networkx():
    rng = np.random.default_rng(3)
    w = rng.random((12, 12))
    w = np.triu(w, 1)
    w[w < 0.5] = 0
    w = w + w.T
    w[7] = w[:, 7] = 0  # a dangling node
    g = nx.from_numpy_array(w)
    ref = nx.pagerank(g, alpha=D, weight="weight", tol=1e-14, max_iter=10000)
    np.testing.assert_allclose(pagerank(w), [ref[k] for k in range(12)], atol=1e-10)


def test_unknown_method_lists_known_names():
    with pytest.raises(ValueError, match="unknown weight function 'MI_foo'; known: MI, MI_plus"):
        pairwise_weights(TABLE, "MI_foo")
    with pytest.raises(ValueError, match="Pearson_sn"):
        weight_matrices(TABLE, ["MI", "bogus"])


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (np.array([[0, 1.5], [1, 0]]), "non-integer"),
        (np.array([[0, 1], [-1, 0]]), "non-negative"),
    ],
)
def test_bad_data(data, match):
    with pytest.raises(ValueError, match=match):
        pairwise_weights(data, "MI")


def test_elbow_threshold_rule():
    # 90 weights in the first bin (share 0.9 >= 1/10), then one per bin (< 1/10): the elbow is
    # bin 1 and the threshold its upper edge.
    w = np.r_[np.zeros(90), np.linspace(0.5, 1.0, 10)]
    assert elbow_threshold(w, bins=10) == pytest.approx(0.1)
    # a decreasing histogram: shares 0.5, 0.25, 0.15, 0.05, 0.05 over 5 bins; the last bin with
    # share >= 1/5 is bin 2
    counts = [50, 25, 15, 5, 5]
    w = np.concatenate([np.full(c, b + 0.5) for b, c in enumerate(counts)])
    w = np.r_[w, 0.0, 5.0]  # pin the range to [0, 5]
    assert elbow_threshold(w, bins=5) == pytest.approx(2.0)


def test_elbow_is_affine_invariant_and_square_input():
    rng = np.random.default_rng(0)
    v = rng.exponential(size=500)
    t = elbow_threshold(v)
    assert elbow_threshold(3 * v - 2) == pytest.approx(3 * t - 2)
    w = np.zeros((5, 5))
    w[np.triu_indices(5, 1)] = [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.9, 1.0]
    assert elbow_threshold(w + w.T, bins=4) == elbow_threshold(w[np.triu_indices(5, 1)], bins=4)


def test_mi_and_mi_sn_prune_the_same_edges():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 2, (400, 8))
    x[:, 1] = x[:, 0] ^ (rng.random(400) < 0.1)
    x[:, 2] = x[:, 1] ^ (rng.random(400) < 0.2)
    allw = weight_matrices(x, ["MI", "MI_sn"])
    e1 = prune(allw["MI"], elbow_threshold(allw["MI"], bins=20))
    e2 = prune(allw["MI_sn"], elbow_threshold(allw["MI_sn"], bins=20))
    np.testing.assert_array_equal(e1, e2)


def test_prune():
    w = np.array([[0, 0.9, 0.1], [0.9, 0, 0.5], [0.1, 0.5, 0]])
    assert prune(w, 0.5).tolist() == [[0, 1], [1, 2]]
    assert prune(w, 0.1).tolist() == [[0, 1], [0, 2], [1, 2]]
    assert prune(w, 0.9).tolist() == [[0, 1]]


@pytest.mark.parametrize("threshold", [0.95, 0.05, np.nan, np.inf])
def test_prune_threshold_out_of_range(threshold):
    w = np.array([[0, 0.9, 0.1], [0.9, 0, 0.5], [0.1, 0.5, 0]])
    with pytest.raises(ValueError, match="threshold .* out of range"):
        prune(w, threshold)


@pytest.mark.parametrize("bins", [1, 0, 2.5, True])
def test_elbow_bad_bins(bins):
    with pytest.raises(ValueError, match="bins must be an integer >= 2"):
        elbow_threshold(np.arange(10.0), bins=bins)


def test_elbow_bad_weights():
    with pytest.raises(ValueError, match="finite"):
        elbow_threshold(np.array([0.1, np.nan]))
    with pytest.raises(ValueError, match="empty"):
        elbow_threshold(np.array([]))
