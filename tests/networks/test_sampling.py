"""Forward sampling: marginals and conditionals against exact values, support, reproducibility."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pgmpy.inference import VariableElimination

from bnstudy.networks import (
    DiscreteBayesianNetwork,
    forward_sample,
    read_bif,
    read_net,
    samples_to_frame,
)

N = 20000


@pytest.fixture(scope="module")
def alarm(mirror):
    return read_bif(mirror / "bif" / "alarm.bif.gz")


@pytest.fixture(scope="module")
def alarm_samples(alarm):
    return forward_sample(alarm, N, rng=np.random.default_rng(20240601))


def test_shape_and_dtype(alarm, alarm_samples):
    assert alarm_samples.shape == (N, len(alarm.nodes))
    assert alarm_samples.dtype == np.int64
    assert alarm_samples.flags.c_contiguous
    card = np.array([alarm.cardinality[v] for v in alarm.nodes])
    assert alarm_samples.min() >= 0
    assert np.all(alarm_samples.max(axis=0) < card)
    small = forward_sample(alarm, 10, rng=np.random.default_rng(0), dtype=np.int8)
    assert small.dtype == np.int8


def test_marginals_match_exact_inference(alarm, alarm_samples):
    """Every state of every node: |empirical - exact| < 0.02.

    The empirical frequency of a state of probability p has standard error sqrt(p(1-p)/n), at most
    0.0035 for n = 20000 (p = 0.5). 0.02 is 5.7 of those at worst, so with the ~100 states of alarm
    a correct sampler fails with probability ~1e-6; a sampler that mixes up the CPT layout (e.g.
    parent order or the child axis) is off by far more than 0.02 on several alarm nodes.
    """
    ve = VariableElimination(alarm.to_pgmpy())
    worst = 0.0
    for j, v in enumerate(alarm.nodes):
        exact = ve.query([v], show_progress=False)
        p = np.array([exact.get_value(**{v: s}) for s in alarm.state_names[v]])
        freq = np.bincount(alarm_samples[:, j], minlength=len(p)) / N
        diff = np.abs(freq - p)
        worst = max(worst, diff.max())
        assert diff.max() < 0.02, (v, p, freq)
        assert np.all(freq[p == 0] == 0), v  # impossible states never appear
    assert worst > 0  # sanity: the comparison did something


@pytest.mark.parametrize("node", ["LVEDVOLUME", "HRSAT"])
def test_conditionals_match_the_cpt(alarm, alarm_samples, node):
    """P(child | parents) from the samples vs the CPT row, per parent configuration seen >= 200
    times: within 5 binomial standard errors sqrt(p(1-p)/count) (plus 1e-9 for p in {0, 1})."""
    j = alarm.index(node)
    parents = alarm.parents[node]
    pcards = [alarm.cardinality[p] for p in parents]
    config = np.ravel_multi_index(tuple(alarm_samples[:, alarm.index(p)] for p in parents), pcards)
    rows = alarm.cpts[node].reshape(-1, alarm.cardinality[node])
    checked = 0
    for c in range(rows.shape[0]):
        mask = config == c
        count = int(mask.sum())
        if count < 200:
            continue
        freq = np.bincount(alarm_samples[mask, j], minlength=rows.shape[1]) / count
        se = np.sqrt(rows[c] * (1 - rows[c]) / count)
        assert np.all(np.abs(freq - rows[c]) <= 5 * se + 1e-9), (c, rows[c], freq, count)
        checked += 1
    assert checked >= 2


def test_samples_respect_the_support_of_large_networks(mirror):
    """Every sampled value has positive probability given its sampled parents (ADAPT is mostly
    deterministic, so a layout or off-by-one error shows up at once)."""
    for bn in (
        read_net(mirror / "adapt" / "adapt10_v7e.net"),
        read_bif(mirror / "bif" / "pigs.bif.gz"),
    ):
        x = forward_sample(bn, 2000, rng=np.random.default_rng(1))
        for j, v in enumerate(bn.nodes):
            index = tuple(x[:, bn.index(p)] for p in bn.parents[v]) + (x[:, j],)
            assert np.all(bn.cpts[v][index] > 0), v


def test_zero_probability_states_and_deterministic_rows():
    bn = DiscreteBayesianNetwork(
        nodes=["A", "B", "C"],
        parents={"B": ["A"], "C": ["A"]},
        cpts={
            "A": np.array([0.3, 0.0, 0.7]),
            "B": np.array([[1.0, 0.0, 0.0], [0.2, 0.3, 0.5], [0.0, 0.0, 1.0]]),
            "C": np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]]),
        },
        state_names={"A": ["a0", "a1", "a2"], "B": ["b0", "b1", "b2"], "C": ["c0", "c1"]},
    )
    x = forward_sample(bn, 5000, rng=np.random.default_rng(3))
    assert not np.any(x[:, 0] == 1)
    np.testing.assert_array_equal(x[x[:, 0] == 0, 1], 0)
    np.testing.assert_array_equal(x[x[:, 0] == 2, 1], 2)
    np.testing.assert_array_equal(x[:, 2], np.where(x[:, 0] == 0, 1, 0))
    assert abs(np.mean(x[:, 0] == 2) - 0.7) < 0.03


def test_same_seed_same_samples_different_seed_different(alarm):
    a = forward_sample(alarm, 500, rng=np.random.default_rng(7))
    b = forward_sample(alarm, 500, rng=np.random.default_rng(7))
    c = forward_sample(alarm, 500, rng=np.random.default_rng(8))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("n", [0, -5, 2.5, True])
def test_bad_n(alarm, n):
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        forward_sample(alarm, n, rng=np.random.default_rng(0))


@pytest.mark.parametrize("rng", [None, 0, np.random.RandomState(0)])
def test_bad_rng(alarm, rng):
    with pytest.raises(ValueError, match="numpy.random.Generator"):
        forward_sample(alarm, 10, rng=rng)


def test_bad_dtype(alarm):
    with pytest.raises(ValueError, match="cannot hold state indices"):
        forward_sample(alarm, 10, rng=np.random.default_rng(0), dtype=np.float64)


def test_samples_to_frame(alarm, alarm_samples):
    df = samples_to_frame(alarm, alarm_samples[:100])
    assert list(df.columns) == alarm.nodes
    v = "LVEDVOLUME"
    assert isinstance(df[v].dtype, pd.CategoricalDtype)
    assert list(df[v].cat.categories) == alarm.state_names[v]
    np.testing.assert_array_equal(df[v].cat.codes.to_numpy(), alarm_samples[:100, alarm.index(v)])
    with pytest.raises(ValueError, match="shape"):
        samples_to_frame(alarm, alarm_samples[:, :5])
    bad = alarm_samples[:3].copy()
    bad[0, 0] = 9
    with pytest.raises(ValueError, match="outside"):
        samples_to_frame(alarm, bad)
