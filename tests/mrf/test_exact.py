"""Exact computations against a brute-force reference, and exact samplers against exact marginals."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bnstudy.mrf import (
    BinaryPairwiseMRF,
    BlockGibbsSampler,
    PairwiseGraph,
    agreement_counts,
    binary_tree,
    edge_agreement_probabilities,
    exact_mle,
    from_edges,
    gibbs_sample,
    grid,
    log_likelihood,
    log_partition,
    log_pseudo_likelihood,
    sample,
    sample_enumeration,
    sample_tree,
    tree_mle,
)
from bnstudy.mrf.exact import EnumeratedAgreements, _log_zhat_and_grad
from bnstudy.mrf.model import logit


def all_states(p: int) -> np.ndarray:
    """Every state of ``p`` binary nodes, ``(2^p, p)`` int8 (independent of the library's code)."""
    return np.array(list(itertools.product((0, 1), repeat=p)), dtype=np.int8)


def brute_force(graph: PairwiseGraph, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All states and their exact probabilities, from the unnormalised measure alone."""
    states = all_states(graph.n_nodes)
    logp = BinaryPairwiseMRF(graph, theta).log_unnormalized(states)
    p = np.exp(logp - logp.max())
    return states, p / p.sum()


def _theta(graph, seed=0, lo=0.05, hi=0.95):
    return np.random.default_rng(seed).uniform(lo, hi, graph.n_edges)


@pytest.mark.parametrize("graph", [binary_tree(3), from_edges(6, [[0, 1], [0, 2], [3, 4]])])
def test_forest_partition_function_closed_form_matches_enumeration(graph):
    theta = _theta(graph)
    # closed form: Z = 2^(p - E), i.e. 2 for a tree whatever theta
    closed = log_partition(graph, theta)
    assert closed == pytest.approx((graph.n_nodes - graph.n_edges) * np.log(2))
    log_zhat, _ = _log_zhat_and_grad(graph, logit(theta))
    enumerated = np.log(2) + log_zhat + np.log1p(-theta).sum()
    assert enumerated == pytest.approx(closed, abs=1e-10)
    _, probs = brute_force(graph, theta)  # sanity: the reference itself normalises to 1
    assert probs.sum() == pytest.approx(1.0)


def test_tree_log_likelihood_matches_brute_force():
    graph = binary_tree(3)
    theta = _theta(graph, 1)
    states, probs = brute_force(graph, theta)
    rng = np.random.default_rng(0)
    X = sample_tree(graph, theta, 50, rng=rng)
    idx = (X.astype(np.int64) << np.arange(graph.n_nodes)[::-1]).sum(axis=1)
    assert log_likelihood(graph, theta, X) == pytest.approx(np.log(probs[idx]).sum(), rel=1e-10)
    assert log_likelihood(graph, theta, 2 * X - 1) == pytest.approx(log_likelihood(graph, theta, X))


def test_grid_enumeration_matches_brute_force(grid3):
    theta = _theta(grid3, 2)
    states, probs = brute_force(grid3, theta)
    u, v = grid3.edges.T
    agree = probs @ (states[:, u] == states[:, v])
    np.testing.assert_allclose(edge_agreement_probabilities(grid3, theta), agree, atol=1e-12)
    X = states[np.random.default_rng(1).integers(0, len(states), 40)]
    idx = (X.astype(np.int64) << np.arange(9)[::-1]).sum(axis=1)
    assert log_likelihood(grid3, theta, X) == pytest.approx(np.log(probs[idx]).sum(), rel=1e-10)


def test_tree_edge_agreement_is_theta():
    graph = binary_tree(3)
    theta = _theta(graph, 3)
    np.testing.assert_allclose(edge_agreement_probabilities(graph, theta), theta)


def test_pseudo_likelihood_matches_explicit_conditionals(grid3):
    theta = _theta(grid3, 4)
    rng = np.random.default_rng(2)
    X = sample_enumeration(grid3, theta, 30, rng=rng)
    states, probs = brute_force(grid3, theta)
    table = {tuple(s): p for s, p in zip(states.tolist(), probs, strict=True)}
    total = 0.0
    for x in X.tolist():
        for u in range(9):
            y = list(x)
            y[u] = 1 - y[u]
            total += np.log(table[tuple(x)] / (table[tuple(x)] + table[tuple(y)]))
    assert log_pseudo_likelihood(grid3, theta, X) == pytest.approx(total, rel=1e-10)


def test_exact_tree_sampling_matches_theta():
    graph = binary_tree(6)
    theta = _theta(graph, 5)
    n = 20000
    X = sample_tree(graph, theta, n, rng=np.random.default_rng(3))
    freq = agreement_counts(graph, X) / n
    sd = np.sqrt(theta * (1 - theta) / n)
    assert np.all(np.abs(freq - theta) < 4.5 * sd)
    assert np.all(np.abs(X.mean(axis=0) - 0.5) < 4.5 * np.sqrt(0.25 / n))


def test_enumeration_sampling_matches_exact_marginals(grid4):
    theta = _theta(grid4, 6)
    n = 20000
    X = sample_enumeration(grid4, theta, n, rng=np.random.default_rng(4))
    exact = edge_agreement_probabilities(grid4, theta)
    assert np.abs(agreement_counts(grid4, X) / n - exact).max() < 4.5 * np.sqrt(0.25 / n)


def test_checkerboard_gibbs_matches_exact_marginals(grid4):
    """Node marginals (1/2 by symmetry) and edge agreement probabilities within 0.015.

    20000 chains x 200 sweeps; the Monte Carlo sd of each frequency is <= 0.0036, so the
    tolerance is about 4 sd.
    """
    theta = _theta(grid4, 7)
    n = 20000
    X = gibbs_sample(grid4, theta, n, rng=np.random.default_rng(5), n_sweeps=200)
    exact = edge_agreement_probabilities(grid4, theta)
    assert np.abs(agreement_counts(grid4, X) / n - exact).max() < 0.015
    assert np.abs(X.mean(axis=0) - 0.5).max() < 0.015


def test_gibbs_kernel_agreement_counts_and_dispatch(grid3):
    theta = _theta(grid3, 8)
    kernel = BlockGibbsSampler(grid3, theta)
    rng = np.random.default_rng(6)
    state = kernel.sweep(kernel.init_state(7, rng=rng), rng=rng, n_sweeps=3)
    np.testing.assert_allclose(
        kernel.agreement_counts(state), agreement_counts(grid3, kernel.to_samples(state))
    )
    assert sample(binary_tree(2), np.full(6, 0.5), 3, rng=rng).shape == (3, 7)
    assert sample(grid3, theta, 3, rng=rng, method="gibbs", n_sweeps=2).shape == (3, 9)
    with pytest.raises(ValueError, match="unknown sampling method"):
        sample(grid3, theta, 3, rng=rng, method="perfect")


def test_tree_mle_closed_form():
    graph = from_edges(4, [[0, 1], [1, 2], [1, 3]])
    X = np.array([[0, 0, 1, 0], [1, 1, 1, 0], [0, 0, 0, 0], [1, 0, 0, 1]])
    # agreements per edge: (0,1): 3/4, (1,2): 3/4, (1,3): 2/4
    np.testing.assert_allclose(tree_mle(graph, X), [0.75, 0.75, 0.5])
    np.testing.assert_allclose(tree_mle(graph, X, groups=[0, 1, 0]), [0.625, 0.75, 0.625])
    np.testing.assert_allclose(tree_mle(graph, X, groups=[0, 0, 0]), np.full(3, 8 / 12))
    # an edge that always agrees is clipped inside (0, 1)
    assert tree_mle(graph, np.zeros((5, 4)))[0] == pytest.approx(1 - 1e-4)
    np.testing.assert_allclose(exact_mle(graph, X), [0.75, 0.75, 0.5])
    with pytest.raises(ValueError, match="forest"):
        tree_mle(grid(2, 2), np.zeros((2, 4)))


def test_exact_mle_matches_moments(grid3):
    """At the exact MLE the model's edge agreement probabilities equal the data's."""
    theta = _theta(grid3, 9, 0.2, 0.8)
    X = sample_enumeration(grid3, theta, 400, rng=np.random.default_rng(7))
    mle = exact_mle(grid3, X)
    np.testing.assert_allclose(
        edge_agreement_probabilities(grid3, mle), agreement_counts(grid3, X) / 400, atol=1e-5
    )


def test_enumeration_limit():
    with pytest.raises(ValueError, match="limited to"):
        log_partition(grid(5, 5), np.full(40, 0.5))


# ---------------------------------------------------------------- exact auxiliary statistics


def test_enumerated_agreements_match_brute_force(grid3):
    """Marginals per edge and per group against brute force; a group's marginal is the sum of
    its edges' marginals (the expected number of its edges that agree)."""
    theta = _theta(grid3, 7)
    w = logit(theta)
    states, probs = brute_force(grid3, theta)
    u, v = grid3.edges.T
    agree = probs @ (states[:, u] == states[:, v])
    ea = EnumeratedAgreements(grid3)
    np.testing.assert_allclose(ea.marginals(w), agree, atol=1e-12)
    groups = np.arange(grid3.n_edges) % 3
    tied = ea.tied(groups)
    assert tied.n_stats == 3
    wg = np.array([-0.4, 0.3, 1.1])
    theta_g = 1.0 / (1.0 + np.exp(-wg[groups]))
    states, probs = brute_force(grid3, theta_g)
    agree_g = np.bincount(groups, weights=probs @ (states[:, u] == states[:, v]))
    np.testing.assert_allclose(tied.marginals(wg), agree_g, atol=1e-12)
    # building it tied directly gives the same statistics
    np.testing.assert_allclose(EnumeratedAgreements(grid3, groups).marginals(wg), agree_g)


def test_enumerated_agreement_draws_match_exact_moments(grid4):
    """Counts of n exact samples: mean n q and, per edge, binomial variance n q (1 - q)."""
    theta = _theta(grid4, 8)
    w = logit(theta)
    ea = EnumeratedAgreements(grid4)
    q = edge_agreement_probabilities(grid4, theta)
    rng = np.random.default_rng(9)
    n, reps = 50, 4000
    draws = np.array([ea.draw_counts(w, n, rng=rng) for _ in range(reps)])
    assert draws.shape == (reps, grid4.n_edges)
    z = (draws.mean(axis=0) - n * q) / np.sqrt(n * q * (1 - q) / reps)
    assert np.abs(z).max() < 4.5
    np.testing.assert_allclose(draws.var(axis=0), n * q * (1 - q), rtol=0.15)
    # tied counts are the per-group sums of the same kind of draw
    groups = np.arange(grid4.n_edges) % 2
    tied = ea.tied(groups)
    wg = np.array([0.5, -0.2])
    qg = tied.marginals(wg)
    mean_g = np.mean([tied.draw_counts(wg, n, rng=rng) for _ in range(reps)], axis=0)
    assert np.abs(mean_g - n * qg).max() < 4.5 * np.sqrt(n * grid4.n_edges / 2 / reps)


def test_tilting_one_edge_gives_the_exchange_marginal(grid4):
    """P(.; w + d e_i) = P(.; w) tilted by exp(d s_i): its edge-i marginal is q e^d / (q e^d + 1 - q),
    what MH_AuxVar's exact exchange move draws its Binomial from."""
    w = logit(_theta(grid4, 10))
    ea = EnumeratedAgreements(grid4)
    q = ea.marginals(w)
    for i, d in [(0, 1.3), (7, -2.0), (23, 0.01)]:
        w2 = w.copy()
        w2[i] += d
        tilt = q[i] * np.exp(d)
        assert ea.marginals(w2)[i] == pytest.approx(tilt / (tilt + 1 - q[i]), rel=1e-10)


def test_enumerated_agreements_errors(grid3):
    with pytest.raises(ValueError, match="limited to"):
        EnumeratedAgreements(grid(5, 5))
    ea = EnumeratedAgreements(grid3)
    with pytest.raises(ValueError, match="shape"):
        ea.marginals(np.zeros(3))
    with pytest.raises(ValueError, match="integer labels"):
        ea.tied(np.zeros(5, dtype=int))
    with pytest.raises(ValueError, match=">= 0"):
        ea.tied(np.full(grid3.n_edges, -1))
    with pytest.raises(ValueError, match="untied"):
        ea.tied(np.zeros(grid3.n_edges, dtype=int)).tied(np.zeros(grid3.n_edges, dtype=int))


def test_tied_patterns_exact_past_float64_codes():
    # K_12 with one group per edge: prod(m_k + 1) = 2^66, past float64's exact integers, so the
    # patterns are merged by sorting the rows; tied this way the model is the untied one
    g = from_edges(12, list(itertools.combinations(range(12), 2)))
    ea = EnumeratedAgreements(g)
    w = np.random.default_rng(0).normal(scale=0.3, size=g.n_edges)
    tied = ea.tied(np.arange(g.n_edges))
    np.testing.assert_allclose(tied.marginals(w), ea.marginals(w), rtol=1e-12, atol=1e-14)
    # two groups on the same graph stay on the mixed-radix codes and agree with the sort
    labels = np.arange(g.n_edges) % 2
    v = np.array([0.2, -0.4])
    per_group = np.bincount(labels, weights=ea.marginals(v[labels]))
    np.testing.assert_allclose(ea.tied(labels).marginals(v), per_group, rtol=1e-12)
