"""Per-shape stacking: the stacked CPT computations equal their per-node loops to the bit."""

from __future__ import annotations

import numpy as np
import pytest

from bnstudy.metrics.parameters import CPTErrors, cpt_errors
from bnstudy.parameters.mle import cpts_from_counts
from bnstudy.stacking import ShapeGroups, sum_in_order

# CPT shapes as in the study's networks: roots, one to three parents, rows short and long (a
# pairwise sum is a plain loop below 8 entries and blocked above), shapes shared by many nodes
SHAPES = [(3,), (3, 3), (2,), (3, 3, 3), (4, 2), (3,), (12,), (5, 17), (3, 3), (2, 9, 130)]


def _tables(rng, alpha=0.3):
    """Random CPT-like tables, keyed in an order that interleaves the shapes."""
    out = {}
    for i, shape in enumerate(SHAPES * 3):
        t = rng.gamma(alpha, size=shape)
        out[f"n{i}"] = t / t.sum(axis=-1, keepdims=True)
    return out


def _cpts_loop(counts, alpha):
    """The per-node normalisation the library did before stacking."""
    out = {}
    for v, c in counts.items():
        arr = np.asarray(c, dtype=np.float64) + alpha
        tot = arr.sum(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[v] = np.where(tot > 0, arr / tot, 1.0 / arr.shape[-1])
    return out


def _errors_loop(true, est, nodes):
    """The per-node accumulation of the four distances the library did before stacking."""
    l1 = sq = per_cpt = per_row = 0.0
    for v in nodes:
        d = np.asarray(true[v], dtype=np.float64) - np.asarray(est[v], dtype=np.float64)
        l1 += float(np.abs(d).sum())
        s = float(np.square(d).sum())
        sq += s
        per_cpt += float(np.sqrt(s))
        rows = d.reshape(-1, d.shape[-1]) if d.ndim else d.reshape(1, 1)
        per_row += float(np.sqrt(np.square(rows).sum(axis=1)).sum())
    return {
        "l1": l1,
        "l2_global": float(np.sqrt(sq)),
        "l2_per_cpt_sum": per_cpt,
        "l2_per_row_sum": per_row,
    }


def test_shape_groups_round_trip():
    rng = np.random.default_rng(0)
    arrays = _tables(rng)
    groups = ShapeGroups({k: v.shape for k, v in arrays.items()})
    assert len(groups.groups) == len(set(SHAPES))
    stacked = groups.stack(arrays)
    for (shape, idx), arr in zip(groups.groups, stacked, strict=True):
        assert arr.shape == (len(idx), *shape)
    back = groups.unstack(stacked)
    assert list(back) == list(arrays)
    for k in arrays:
        np.testing.assert_array_equal(back[k], arrays[k])
    sums = groups.per_key([a.reshape(len(a), -1).sum(axis=1) for a in stacked])
    assert sums.tolist() == [float(a.sum()) for a in arrays.values()]


def test_stack_rejects_arrays_of_other_sizes():
    groups = ShapeGroups({"a": (2,), "b": (3,)})
    with pytest.raises(ValueError, match="hold 6 values, their shapes 5"):
        groups.stack({"a": np.ones(3), "b": np.ones(3)})


def test_sum_in_order_is_left_to_right():
    values = np.array([1e16, 1.0, -1e16, 1.0])
    assert sum_in_order(values) == ((0.0 + 1e16) + 1.0 - 1e16) + 1.0
    assert sum_in_order(np.array([])) == 0.0


@pytest.mark.parametrize("alpha", [0.0, 1.0, 0.37])
def test_cpts_from_counts_equals_per_node_loop(alpha):
    rng = np.random.default_rng(1)
    counts = {k: np.floor(50 * v) for k, v in _tables(rng).items()}
    counts["n4"][1] = 0.0  # an empty row: uniform when alpha == 0
    got = cpts_from_counts(counts, alpha)
    want = _cpts_loop(counts, alpha)
    assert list(got) == list(want)
    for k in want:
        assert got[k].shape == want[k].shape
        np.testing.assert_array_equal(got[k], want[k])


def test_cpts_from_counts_names_the_first_bad_node_in_order():
    counts = {"a": np.ones((2, 2)), "b": np.array([1.0, np.nan]), "c": np.array([-1.0, 1.0])}
    with pytest.raises(ValueError, match="counts of node 'b'"):
        cpts_from_counts(counts)
    with pytest.raises(ValueError, match="counts of node 'c'"):
        cpts_from_counts({**counts, "b": np.ones(2)})
    with pytest.raises(ValueError, match="counts of node 'a'"):
        cpts_from_counts({**counts, "a": np.full((2, 2), np.inf)})


def test_cpt_errors_equal_per_node_loop():
    rng = np.random.default_rng(2)
    true, est = _tables(rng), _tables(rng, alpha=2.0)
    nodes = list(true)[::-1]  # an order other than the mapping's
    errors = CPTErrors(true, nodes)
    for pair in [(true, est), (true, true)]:
        want = _errors_loop(*pair, nodes)
        assert errors(pair[1]) == want
        assert cpt_errors(*pair, nodes) == want


def test_cpt_errors_reject_repeated_and_missing_nodes():
    true = {"A": np.array([0.5, 0.5]), "B": np.array([[1.0, 0.0], [0.2, 0.8]])}
    with pytest.raises(ValueError, match=r"nodes lists \['A'\] more than once"):
        CPTErrors(true, ["A", "B", "A"])
    with pytest.raises(ValueError, match="node 'C' has no true CPT"):
        CPTErrors(true, ["A", "C"])
    errors = CPTErrors(true)
    # the first node in order that is missing or misshapen is named
    with pytest.raises(ValueError, match="node 'A' has no estimated CPT"):
        errors({"B": np.ones((2, 2))})
    with pytest.raises(ValueError, match=r"node 'A' differ in shape: true \(2,\), estimated"):
        errors({"A": np.ones(3), "B": np.ones(3)})
