"""Graph builders, colourings and input validation."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.mrf import (
    BinaryPairwiseMRF,
    agreement_counts,
    binary_tree,
    check_samples,
    from_edges,
    grid,
    log_likelihood,
    log_pseudo_likelihood,
)


@pytest.mark.parametrize(
    ("graph", "p", "r"),
    [
        (binary_tree(12), 8191, 8190),
        (binary_tree(0), 1, 0),
        (grid(4, 4), 16, 24),
        (grid(30, 30), 900, 1740),
    ],
)
def test_builder_sizes(graph, p, r):
    assert (graph.n_nodes, graph.n_edges) == (p, r)


def test_tree_and_grid_structure():
    tree = binary_tree(4)
    assert tree.is_forest
    assert not grid(3, 3).is_forest
    assert grid(1, 5).is_forest
    layout = tree.tree_layout
    assert len(layout.levels) == 4
    # every non-root node's parent edge joins it to its parent
    nodes = np.flatnonzero(layout.parent >= 0)
    e = tree.edges[layout.parent_edge[nodes]]
    assert np.all(np.sort(e, axis=1) == np.sort(np.c_[nodes, layout.parent[nodes]], axis=1))


@pytest.mark.parametrize("graph", [grid(4, 4), grid(30, 30), binary_tree(5)])
def test_bipartite_graphs_get_a_checkerboard(graph):
    colours = graph.colouring
    assert len(colours) == 2
    _check_proper(graph, colours)


def test_greedy_colouring_is_proper():
    rng = np.random.default_rng(0)
    p = 40
    pairs = np.array([(u, v) for u in range(p) for v in range(u + 1, p) if rng.random() < 0.2])
    g = from_edges(p, pairs)
    colours = g.colouring
    assert len(colours) > 2
    _check_proper(g, colours)


def _check_proper(graph, colours):
    label = np.empty(graph.n_nodes, dtype=int)
    for k, nodes in enumerate(colours):
        label[nodes] = k
    assert sorted(np.concatenate(colours).tolist()) == list(range(graph.n_nodes))
    assert np.all(label[graph.edges[:, 0]] != label[graph.edges[:, 1]])


@pytest.mark.parametrize(
    ("edges", "match"),
    [
        ([[0, 1], [2, 2]], "self-loop"),
        ([[0, 1], [1, 5]], "unknown node"),
        ([[0, 1], [-1, 2]], "unknown node"),
        ([[0, 1], [1, 0]], "more than once"),
        ([[0, 1, 2]], "shape"),
    ],
)
def test_bad_graphs(edges, match):
    with pytest.raises(ValueError, match=match):
        from_edges(3, edges)


@pytest.mark.parametrize("bad", [0.0, 1.0, 1.5, -0.2, np.nan])
def test_theta_outside_open_interval(bad):
    g = grid(2, 2)
    theta = np.array([0.5, 0.5, 0.5, bad])
    with pytest.raises(ValueError, match=r"theta\[3\].*outside the open interval"):
        BinaryPairwiseMRF(g, theta)
    with pytest.raises(ValueError, match="outside"):
        log_pseudo_likelihood(g, theta, np.zeros((1, 4)))


def test_theta_wrong_length():
    with pytest.raises(ValueError, match="3 values but the graph has 4 edges"):
        BinaryPairwiseMRF(grid(2, 2), [0.5, 0.5, 0.5])


def test_samples_coding():
    assert check_samples([[-1, 1], [1, -1]]).tolist() == [[0, 1], [1, 0]]
    assert check_samples(np.array([[True, False]])).tolist() == [[1, 0]]
    assert check_samples([[0.0, 1.0]]).dtype == np.int8


@pytest.mark.parametrize(
    "X",
    [
        np.array([[1, 1], [1, 1]], dtype=np.int8),
        np.array([[-1, -1]], dtype=np.int64),
        np.array([[0, 1], [1, 0]], dtype=np.uint8),
        np.array([[-1, 1], [1, 1]], dtype=np.int16),
        np.array([[0, 1], [1, 1]], dtype=np.float32),
        np.zeros((0, 2), dtype=np.int64),
    ],
)
def test_samples_coding_matches_value_sets(X):
    """Integer samples skip the sort of ``np.unique``: same coding as the value-set rule."""
    values = set(np.unique(X).tolist())
    expected = (X > 0) if values <= {-1, 1} and not values <= {0, 1} else X
    out = check_samples(X)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, expected.astype(np.int8))


@pytest.mark.parametrize(
    ("X", "match"),
    [
        ([[0, 2, 1, 0]], r"\{0, 1\} or in \{-1, 1\}"),
        ([[-1, 0, 1, 1]], r"found \[-1, 0, 1\]"),
        ([[0.5, 1, 1, 0]], "found"),
        (np.array([[-1, 0, 1, 1]], dtype=np.int8), r"found \[-1, 0, 1\]"),
        (np.array([[0, 1, 1, 255]], dtype=np.uint8), r"found \[0, 1, 255\]"),
        ([[0, 1, 1]], "3 columns but the graph has 4 nodes"),
        ([0, 1, 1, 0], "2-D"),
    ],
)
def test_bad_samples(X, match):
    g = grid(2, 2)
    with pytest.raises(ValueError, match=match):
        log_likelihood(g, np.full(4, 0.5), X)


@pytest.mark.parametrize("n", [0, 1, 7, 8, 13, 64, 101])
def test_agreement_counts_match_pairwise_comparison(n):
    """Counts from packed bits equal a direct comparison, for any number of samples."""
    graph = from_edges(6, [[0, 1], [1, 2], [2, 3], [0, 3], [4, 5], [0, 5], [2, 4]])
    X = np.random.default_rng(n).integers(0, 2, size=(n, 6))
    u, v = graph.edges[:, 0], graph.edges[:, 1]
    expected = [int(np.sum(X[:, a] == X[:, b])) for a, b in zip(u, v, strict=True)]
    counts = agreement_counts(graph, X)
    assert counts.dtype == np.int64
    assert counts.tolist() == expected
    np.testing.assert_array_equal(agreement_counts(graph, 2 * X - 1), counts)
