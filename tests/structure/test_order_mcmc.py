"""Order MCMC: exact enumeration over orders equals enumeration over DAGs with the order-modular
prior, and the MCMC estimate converges to it; thresholding; bad input."""

from __future__ import annotations

from itertools import permutations, product

import numpy as np
import pytest
from scipy.special import logsumexp

from bnstudy.structure.order_mcmc import (
    exact_order_edge_posteriors,
    family_score_table,
    order_log_score,
    order_mcmc,
    order_mcmc_edge_posteriors,
    threshold_posteriors,
)
from bnstudy.structure.scores import BDeuScore


@pytest.fixture(scope="module")
def small_data():
    """Four binary variables, 300 rows: posteriors well away from 0 and 1."""
    rng = np.random.default_rng(0)
    n = 300
    a = rng.integers(0, 2, n)
    b = a ^ (rng.random(n) < 0.2)
    c = ((a + b) % 2) ^ (rng.random(n) < 0.3)
    d = c ^ (rng.random(n) < 0.25)
    return np.column_stack([a, b, c, d])


@pytest.fixture(scope="module")
def table(small_data):
    return family_score_table(small_data, max_parents=2)


def _dag_enumeration(data, max_parents):
    """P(u -> v | D) over all DAGs, prior ∝ number of consistent orders (order-modular)."""
    p = data.shape[1]
    score = BDeuScore(data)
    pairs = [(u, v) for u in range(p) for v in range(p) if u < v]
    orders = list(permutations(range(p)))
    logw, feats = [], []
    for states in product((0, 1, 2), repeat=len(pairs)):  # none, u -> v, v -> u
        adj = np.zeros((p, p), dtype=bool)
        for s, (u, v) in zip(states, pairs, strict=True):
            if s == 1:
                adj[u, v] = True
            elif s == 2:
                adj[v, u] = True
        if adj.sum(axis=0).max() > max_parents:
            continue
        edges = list(zip(*np.nonzero(adj), strict=True))
        n_orders = sum(all(o.index(u) < o.index(v) for u, v in edges) for o in orders)
        if n_orders == 0:
            continue  # cyclic
        logw.append(np.log(n_orders) + score.score(adj))
        feats.append(adj)
    w = np.exp(np.array(logw) - logsumexp(logw))
    return np.einsum("g,guv->uv", w, np.array(feats, dtype=float))


def test_exact_order_average_equals_dag_enumeration(small_data, table):
    exact = exact_order_edge_posteriors(table)
    np.testing.assert_allclose(exact, _dag_enumeration(small_data, 2), atol=1e-10)
    assert 0.2 < exact[0, 1] < 0.8  # not a degenerate check


@pytest.mark.slow
def test_mcmc_converges_to_exact(table):
    exact = exact_order_edge_posteriors(table)
    res = order_mcmc(table=table, rng=np.random.default_rng(1), n_steps=20000, burn_in=1000, thin=5)
    assert np.abs(res.edge_posteriors - exact).max() < 0.04  # measured 0.014
    assert 0.3 < res.acceptance_rate < 1.0
    assert res.orders.shape == (3800, 4)
    last_kept = 1000 + 5 * (len(res.orders) - 1)
    assert res.log_score_trace[last_kept] == pytest.approx(order_log_score(table, res.orders[-1]))


@pytest.mark.slow
@pytest.mark.parametrize("proposal", ["adjacent", "random"])
def test_each_proposal_converges(table, proposal):
    exact = exact_order_edge_posteriors(table)
    post = order_mcmc(
        table=table,
        rng=np.random.default_rng(2),
        n_steps=15000,
        burn_in=1000,
        thin=5,
        proposal=proposal,
    ).edge_posteriors
    assert np.abs(post - exact).max() < 0.05


def test_wrapper_candidates_and_reproducibility(small_data):
    a = order_mcmc_edge_posteriors(
        small_data, rng=np.random.default_rng(3), n_steps=500, burn_in=100, thin=2
    )
    b = order_mcmc_edge_posteriors(
        small_data, rng=np.random.default_rng(3), n_steps=500, burn_in=100, thin=2
    )
    np.testing.assert_array_equal(a, b)
    assert a.shape == (4, 4) and (np.diag(a) == 0).all()
    assert (a + a.T <= 1 + 1e-12).all()  # P(u -> v) + P(v -> u) <= 1 per order
    c = order_mcmc_edge_posteriors(
        small_data,
        rng=np.random.default_rng(3),
        n_steps=300,
        burn_in=50,
        candidates=[[1], [0], [0, 1, 3], [2]],
    )
    assert c[3, 0] == 0 and c[2, 0] == 0


def test_threshold():
    post = np.array([[0, 0.6, 0.1], [0.3, 0, 0.45], [0.2, 0.5, 0]])
    assert threshold_posteriors(post, 0.5).astype(int).tolist() == [[0, 1, 0], [0, 0, 0], [0, 0, 0]]
    und = threshold_posteriors(post, 0.5, skeleton=True)
    assert und[1, 2] and und[2, 1] and und[0, 1] and not und[0, 2]


def test_bad_input(small_data, table):
    with pytest.raises(ValueError, match="burn_in"):
        order_mcmc(table=table, rng=0, n_steps=10, burn_in=10)
    with pytest.raises(ValueError, match="proposal"):
        order_mcmc(table=table, rng=0, proposal="gibbs")
    with pytest.raises(ValueError, match="permutation"):
        order_mcmc(table=table, rng=0, init_order=[0, 0, 1, 2])
    with pytest.raises(ValueError, match="max_parents"):
        family_score_table(small_data, max_parents=-1)
    with pytest.raises(ValueError, match="t_avg"):
        threshold_posteriors(np.zeros((2, 2)), 1.0)
    with pytest.raises(ValueError, match="non-integer"):
        family_score_table(small_data + 0.5)


def test_row_logsumexp_equals_scipy_bit_for_bit():
    """The order step's logsumexp is SciPy's, to the last bit: ties, -inf, all -inf and +inf."""
    from bnstudy.structure.order_mcmc import _logsumexp_rows

    rng = np.random.default_rng(5)
    for _ in range(300):
        r, k = rng.integers(1, 20), rng.integers(1, 40)
        a = rng.normal(scale=rng.choice([1.0, 30.0, 1e3]), size=(r, k)) - rng.choice([0.0, 1e4])
        a[rng.random((r, k)) < rng.random()] = -np.inf
        a[:, : k // 3] = np.round(a[:, : k // 3])  # ties for the largest entry
        a[rng.integers(r)] = -np.inf if rng.random() < 0.5 else a[0, 0]
        if rng.random() < 0.1:
            a[0, 0] = np.inf
        expected = logsumexp(a, axis=1, keepdims=True)
        got = _logsumexp_rows(a)
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)
