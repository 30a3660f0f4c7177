"""L1 / L2 distances between CPT sets, on hand-computed examples."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.metrics import CPT_ERROR_METRICS, cpt_errors

TRUE = {
    "A": np.array([0.5, 0.5]),
    "B": np.array([[1.0, 0.0], [0.2, 0.8]]),
}
EST = {
    "A": np.array([0.2, 0.8]),  # diff (0.3, -0.3)
    "B": np.array([[0.6, 0.4], [0.2, 0.8]]),  # diff rows (0.4, -0.4), (0, 0)
}


def test_hand_computed_values():
    e = cpt_errors(TRUE, EST)
    assert set(e) == set(CPT_ERROR_METRICS)
    assert e["l1"] == pytest.approx(0.3 + 0.3 + 0.4 + 0.4)  # 1.4
    assert e["l2_global"] == pytest.approx(np.sqrt(0.09 + 0.09 + 0.16 + 0.16))  # sqrt(0.5)
    # one Euclidean norm per CPT: sqrt(0.18) + sqrt(0.32)
    assert e["l2_per_cpt_sum"] == pytest.approx(np.sqrt(0.18) + np.sqrt(0.32))
    # one per CPT row: A's single row, B's two rows (the second is exact)
    assert e["l2_per_row_sum"] == pytest.approx(np.sqrt(0.18) + np.sqrt(0.32) + 0.0)


def test_rows_differ_from_cpts_with_two_wrong_rows():
    t = {"X": np.array([[1.0, 0.0], [0.0, 1.0]])}
    e = {"X": np.array([[0.0, 1.0], [1.0, 0.0]])}
    r = cpt_errors(t, e)
    assert r["l1"] == pytest.approx(4.0)
    assert r["l2_global"] == pytest.approx(2.0)
    assert r["l2_per_cpt_sum"] == pytest.approx(2.0)
    assert r["l2_per_row_sum"] == pytest.approx(2 * np.sqrt(2.0))


def test_identical_and_subset_of_nodes():
    assert all(v == 0.0 for v in cpt_errors(TRUE, TRUE).values())
    only_a = cpt_errors(TRUE, EST, nodes=["A"])
    assert only_a["l1"] == pytest.approx(0.6)


def test_errors_name_the_node():
    with pytest.raises(ValueError, match="node 'B' has no estimated CPT"):
        cpt_errors(TRUE, {"A": EST["A"]})
    with pytest.raises(
        ValueError, match=r"node 'A' differ in shape: true \(2,\), estimated \(3,\)"
    ):
        cpt_errors(TRUE, {**EST, "A": np.array([0.2, 0.3, 0.5])})
