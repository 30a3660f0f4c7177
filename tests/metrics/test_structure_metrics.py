"""Skeleton precision / recall / F and SHD on hand-made graphs."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.metrics.structure import as_adjacency, shd, skeleton_metrics


def test_counts_on_hand_made_graphs():
    true = [(0, 1), (1, 2), (2, 3), (3, 4)]
    learned = [(1, 0), (2, 1), (0, 2), (3, 4), (4, 0)]  # directions ignored
    m = skeleton_metrics(learned, true, n_nodes=5)
    assert (m["hit"], m["additional"], m["missing"]) == (3, 2, 1)
    assert m["precision"] == pytest.approx(3 / 5)
    assert m["recall"] == pytest.approx(3 / 4)
    assert m["f_score"] == pytest.approx(2 * 0.6 * 0.75 / 1.35)


def test_matrices_and_undirected_edges():
    true = np.zeros((3, 3), dtype=bool)
    true[0, 1] = true[1, 2] = True
    learned = np.zeros((3, 3), dtype=int)
    learned[0, 1] = learned[1, 0] = 1  # undirected 0 - 1 counts once
    m = skeleton_metrics(learned, true)
    assert (m["hit"], m["additional"], m["missing"]) == (1, 0, 1)
    assert m["precision"] == 1.0 and m["recall"] == 0.5


def test_empty_graphs():
    m = skeleton_metrics([], [], n_nodes=3)
    assert m["precision"] == 1.0 and m["recall"] == 1.0 and m["f_score"] == 1.0
    m = skeleton_metrics([], [(0, 1)], n_nodes=3)
    assert m["recall"] == 0.0 and m["f_score"] == 0.0


def test_shd():
    true = [(0, 1), (1, 2), (2, 3)]
    assert shd(true, true, n_nodes=4) == 0
    assert shd([(1, 0), (1, 2), (2, 3)], true, n_nodes=4) == 1  # reversed
    assert shd([(0, 1), (1, 2)], true, n_nodes=4) == 1  # missing
    assert shd([(0, 1), (1, 2), (2, 3), (0, 3)], true, n_nodes=4) == 1  # extra
    und = as_adjacency([(0, 1), (1, 0), (1, 2), (2, 3)], 4)
    assert shd(und, true) == 1  # undirected vs directed


def test_bad_input():
    with pytest.raises(ValueError, match="n_nodes"):
        skeleton_metrics([(0, 1)], [(0, 1)])
    with pytest.raises(ValueError, match="out of range"):
        skeleton_metrics([(0, 5)], [(0, 1)], n_nodes=3)
    with pytest.raises(ValueError, match="self-loop"):
        as_adjacency(np.eye(3))
    with pytest.raises(ValueError, match="nodes"):
        skeleton_metrics(np.zeros((3, 3)), np.zeros((4, 4)))
