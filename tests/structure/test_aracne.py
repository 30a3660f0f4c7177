"""ARACNE: MI matrix, the data-processing inequality on a chain, threshold, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.structure.aracne import aracne, data_processing_inequality, mutual_information_matrix


@pytest.fixture(scope="module")
def chain():
    rng = np.random.default_rng(0)
    n = 5000
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))
    c = np.where(rng.random(n) < 0.8, b, rng.integers(0, 3, n))
    return np.column_stack([a, b, c])


def test_mutual_information_against_direct_formula(chain):
    mi = mutual_information_matrix(chain)
    n = len(chain)
    tab = np.zeros((3, 3))
    np.add.at(tab, (chain[:, 0], chain[:, 2]), 1)
    pxy = tab / n
    px, py = pxy.sum(1, keepdims=True), pxy.sum(0, keepdims=True)
    want = float(np.sum(pxy * np.log(pxy / (px * py))))
    assert mi[0, 2] == pytest.approx(want, rel=1e-12)
    assert np.allclose(mi, mi.T) and (np.diag(mi) == 0).all()


def test_chain_removes_indirect_edge(chain):
    mi = mutual_information_matrix(chain)
    assert mi[0, 2] > 0.05  # the indirect pair is strongly dependent ...
    g = aracne(chain)
    want = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool)
    np.testing.assert_array_equal(g, want)  # ... but the weakest edge of the triangle goes


def test_threshold_and_tolerance(chain):
    mi = mutual_information_matrix(chain)
    assert not aracne(chain, tau=mi.max()).any()
    # a tolerance wider than the MI gap keeps the triangle
    gap = min(mi[0, 1], mi[1, 2]) - mi[0, 2]
    assert aracne(chain, eps=gap + 1e-9)[0, 2]
    assert aracne(chain, columns=[0, 2]).sum() == 2  # alone, a - c is kept


def test_dpi_removes_all_weakest_edges_at_once():
    mi = np.array([[0, 5, 4, 1], [5, 0, 3, 2], [4, 3, 0, 6], [1, 2, 6, 0]], dtype=float)
    full = ~np.eye(4, dtype=bool)
    out = data_processing_inequality(mi, full)
    # triangles: (0,1,2) drops 1-2; (0,1,3) drops 0-3; (0,2,3) drops 0-3; (1,2,3) drops 1-3
    kept = {(int(i), int(j)) for i, j in zip(*np.nonzero(np.triu(out, 1)), strict=True)}
    assert kept == {(0, 1), (0, 2), (2, 3)}


def test_bad_input(chain):
    with pytest.raises(ValueError, match="tau"):
        aracne(chain, tau=-0.1)
    with pytest.raises(ValueError, match="eps"):
        aracne(chain, eps=-1)
    with pytest.raises(ValueError, match="single value"):
        aracne(np.column_stack([chain[:, 0], np.ones(len(chain), int)]))
