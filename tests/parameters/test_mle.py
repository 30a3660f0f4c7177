"""Complete-data counts and (smoothed) maximum-likelihood CPTs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bnstudy.networks import forward_sample
from bnstudy.parameters import (
    MaximumLikelihoodEstimator,
    check_data,
    complete_data_counts,
    cpts_from_counts,
)


def test_counts_match_a_plain_loop(small_bn):
    data = forward_sample(small_bn, 300, rng=np.random.default_rng(0))
    counts = complete_data_counts(small_bn, data)
    for v in small_bn.nodes:
        fam = [small_bn.index(p) for p in small_bn.parents[v]] + [small_bn.index(v)]
        ref = np.zeros(small_bn.cpts[v].shape)
        for row in data:  # the reference may loop; the library must not
            ref[tuple(row[fam])] += 1
        np.testing.assert_array_equal(counts[v], ref)
        assert counts[v].sum() == 300


def test_weighted_counts(small_bn):
    data = forward_sample(small_bn, 40, rng=np.random.default_rng(1))
    w = np.random.default_rng(2).uniform(size=40)
    counts = complete_data_counts(small_bn, data, weights=w)
    double = complete_data_counts(small_bn, np.vstack([data, data]), weights=np.r_[w, w])
    for v in small_bn.nodes:
        assert counts[v].sum() == pytest.approx(w.sum())
        np.testing.assert_allclose(2 * counts[v], double[v])
    with pytest.raises(ValueError, match="weights must have shape"):
        complete_data_counts(small_bn, data, weights=w[:3])


def test_cpts_from_counts_by_hand():
    counts = {"X": np.array([[3.0, 1.0, 0.0], [0.0, 0.0, 0.0]])}
    laplace = cpts_from_counts(counts, 1.0)["X"]
    np.testing.assert_allclose(laplace, [[4 / 7, 2 / 7, 1 / 7], [1 / 3, 1 / 3, 1 / 3]])
    ml = cpts_from_counts(counts, 0.0)["X"]
    np.testing.assert_allclose(ml, [[0.75, 0.25, 0.0], [1 / 3, 1 / 3, 1 / 3]])  # empty row: uniform
    half = cpts_from_counts(counts, 0.5)["X"]
    np.testing.assert_allclose(half[0], [3.5 / 5.5, 1.5 / 5.5, 0.5 / 5.5])
    with pytest.raises(ValueError, match="pseudo_count"):
        cpts_from_counts(counts, -1.0)
    with pytest.raises(ValueError, match="counts of node 'X'"):
        cpts_from_counts({"X": np.array([-1.0, 2.0])})


def test_mle_recovers_cpts(small_bn):
    data = forward_sample(small_bn, 20000, rng=np.random.default_rng(3))
    est = MaximumLikelihoodEstimator(pseudo_count=0).fit(small_bn, data)
    for v in small_bn.nodes:
        np.testing.assert_allclose(est.cpts_[v], small_bn.cpts[v], atol=0.03)
    assert est.to_network(small_bn).allclose(small_bn, atol=0.03)


def test_check_data_names_node_and_value(small_bn):
    data = forward_sample(small_bn, 10, rng=np.random.default_rng(4))
    bad = data.copy()
    bad[2, small_bn.index("C")] = -1
    with pytest.raises(ValueError, match=r"node 'C' holds the value -1, outside its states 0..1"):
        complete_data_counts(small_bn, bad)
    # a column that is not checked may hold anything
    assert check_data(small_bn, bad, columns=["H", "A"]).dtype == np.int64
    with pytest.raises(ValueError, match="2-D"):
        check_data(small_bn, data[0])
    first = small_bn.nodes[0]
    with pytest.raises(ValueError, match=rf"node '{first}' holds \d\.5, not an integer state"):
        check_data(small_bn, data + 0.5)
    with pytest.raises(ValueError, match="integer state indices, got dtype <U"):
        check_data(small_bn, data.astype(str))
    # NaN (or a fraction) in a column that is not checked is not read
    holes = data.astype(float)
    holes[:, small_bn.index("C")] = np.nan
    rest = [v for v in small_bn.nodes if v != "C"]
    out = check_data(small_bn, holes, columns=rest)
    np.testing.assert_array_equal(
        np.delete(out, small_bn.index("C"), axis=1), np.delete(data, small_bn.index("C"), axis=1)
    )
    np.testing.assert_array_equal(check_data(small_bn, data.astype(float)), data)


def test_every_configuration_counted_once(small_bn):
    """All joint configurations as data: each family count is the product of the other cards."""
    cards = [small_bn.cardinality[v] for v in small_bn.nodes]
    data = np.array(list(itertools.product(*[range(k) for k in cards])))
    counts = complete_data_counts(small_bn, data)
    total = int(np.prod(cards))
    for v in small_bn.nodes:
        np.testing.assert_array_equal(counts[v], total / small_bn.cpts[v].size)
